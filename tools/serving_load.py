"""Daily users → the peak concurrency a serving plan is sized for (Little's law, L = λW).

Why a tool of its own: "日活 500" / "500 daily users" is a head count, not 500 simultaneous generations, and the
conversion rests on stated usage assumptions (knowledge/serving_words.yaml, explained in
knowledge/guide/serving-sizing.md). The intent sizes the plan with it and the writer states the same arithmetic.
"""

from __future__ import annotations

import math

from pydantic import BaseModel, Field

from tools.data import load_yaml


class PeakLoad(BaseModel):
    daily_users: int
    requests_per_user_per_day: float
    peak_hour_share: float = Field(description="share of a day's requests in the busiest hour")
    seconds_per_request: float = Field(description="time one request occupies the engine (W in L = λW)")
    burst_factor: float
    peak_requests_per_s: float = Field(description="λ = users × requests × peak share ÷ 3600")
    mean_concurrency: float = Field(description="L = λ × W")
    sized_concurrency: int = Field(description="ceil(L × burst factor), at least 1")
    source: str


def peak_concurrency(daily_users: int) -> PeakLoad:
    """λ = daily users × requests/user/day × peak-hour share ÷ 3600; L = λ·W; sized = ⌈L × burst⌉."""
    cfg = load_yaml("serving_words.yaml")["daily_users_to_concurrency"]
    per_user = float(cfg["requests_per_user_per_day"])
    share = float(cfg["peak_hour_share"])
    w = float(cfg["seconds_per_request"])
    burst = float(cfg["burst_factor"])
    lam = daily_users * per_user * share / 3600
    mean = lam * w
    return PeakLoad(
        daily_users=daily_users,
        requests_per_user_per_day=per_user,
        peak_hour_share=share,
        seconds_per_request=w,
        burst_factor=burst,
        peak_requests_per_s=round(lam, 3),
        mean_concurrency=round(mean, 2),
        sized_concurrency=max(1, math.ceil(mean * burst)),
        source=str(cfg["source"]),
    )
