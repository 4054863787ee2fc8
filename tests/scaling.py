"""Timing helpers for unit tests that must not depend on how loaded the machine is.

The product's rule: speed targets live in benchmarks (`make bench`), never in timed unit tests.
A unit test may still catch a complexity regression by comparing two timings taken in the same
run: the best of five interleaved repeats of a small and a 4x larger input. Linear code costs
~4x, quadratic ~16x; a load spike slows both sides alike (and best-of-N drops the spiky repeat).
Behaviour that must not hang gets a generous hang guard, never a speed bound.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

# Safety net only: a call that has not returned after this long is hung, not slow.
HANG_GUARD_S = 120.0


def best_times(small: Callable[[], Any], large: Callable[[], Any], repeat: int = 5) -> tuple[float, float]:
    """Best-of-`repeat` wall time of each callable, measured interleaved (small, large, small, ...)."""
    best_small = best_large = float("inf")
    for _ in range(repeat):
        for fn, which in ((small, "s"), (large, "l")):
            t0 = time.perf_counter()
            fn()
            took = time.perf_counter() - t0
            if which == "s":
                best_small = min(best_small, took)
            else:
                best_large = min(best_large, took)
    return best_small, best_large


def assert_scales_linearly(
    small: Callable[[], Any],
    large: Callable[[], Any],
    *,
    factor: float = 4.0,
    max_ratio: float = 12.0,
    floor_s: float = 0.005,
    repeat: int = 5,
    what: str = "",
) -> float:
    """Fail if `large` (an input `factor`x bigger) costs more than `max_ratio` x `small`.

    Call both once first to warm lazy caches. Size the inputs so `small` takes >= ~10 ms: a
    millisecond timing is at the mercy of one scheduler slice on a shared machine. `floor_s` keeps
    a near-zero small timing from turning timer noise into a huge ratio. Returns the ratio (for messages and benchmarks)."""
    t_small, t_large = best_times(small, large, repeat)
    ratio = t_large / max(t_small, floor_s)
    assert ratio < max_ratio, (
        f"{what}: {factor:g}x the input took {ratio:.1f}x the time ({t_small * 1e3:.1f} ms -> {t_large * 1e3:.1f} ms); "
        f"linear is ~{factor:g}x, quadratic ~{factor * factor:g}x — a complexity regression"
    )
    return ratio


def call_with_hang_guard(fn: Callable[[], Any], seconds: float = HANG_GUARD_S) -> Any:
    """Run `fn` in a daemon thread; fail (instead of hanging the suite) if it has not returned in
    `seconds`. A hang guard, not a speed target: keep `seconds` generous."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 — re-raised in the caller's thread below
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"hung: no return after {seconds:g} s (hang guard, not a speed target)"
    if "error" in box:
        raise box["error"]
    return box.get("value")
