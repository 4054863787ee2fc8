"""vLLM's "max seq len (A) > tokens the KV cache can hold (B)": the levers, each with its number.

The diagnosis says the pool is too small; this names what in the user's setup makes it bigger or the request
smaller: the cards they have but do not use (tensor_parallel_size below the card count), an fp8 KV cache (half the
bytes per token), and a --max-model-len that fits (the largest power of two ≤ B, a common context size).
"""

from __future__ import annotations

import re

from assistant.offline.reading.frame import Frame
from assistant.offline.writing.render import Writer

# the card count a launch config or command states: "NUM_GPUs=2", "--num-gpus 2", "num_gpus: 2", "--gpus 2"
_CARDS_SET = re.compile(r"(?<![a-z])(?:num[_\-]?gpus|n[_\-]?gpus|--gpus)\s*[=:：]?\s*(\d{1,2})(?![\d.])", re.I)
_TP_SET = re.compile(
    r"(?:tensor[\s_\-]*parallel(?:[\s_\-]*size)?|--tp(?:[\s_\-]*size)?)\s*[=:：]?\s*(\d{1,2})(?![\d.])", re.I
)
_KV_FP8_SET = re.compile(r"kv[\s_\-]*cache[\s_\-]*dtype\s*[=:：]?\s*fp8|fp8\s*kv", re.I)


def _setting(rx: re.Pattern[str], text: str) -> int | None:
    m = rx.search(text)
    return int(m.group(1)) if m else None


def kv_pool_levers(w: Writer, f: Frame, serving: dict) -> None:
    """Add the levers under the numbers: unused cards first (the user's own setting), then fp8 KV, then the length."""
    tokens, length, per_token = (
        serving.get("kv_tokens"),
        serving.get("max_model_len"),
        serving.get("kv_bytes_per_token"),
    )
    if not (isinstance(tokens, int) and isinstance(length, int) and length > tokens > 0):
        return
    text = f"{f.text or ''}\n{f.paste or ''}"
    cards = _setting(_CARDS_SET, text) or f.gpu_count
    tp = _setting(_TP_SET, text) or f.tp_size
    kv_gb, weights = serving.get("kv_gb"), serving.get("weights_gb")
    if cards and tp and cards > tp and cards % tp == 0 or (cards and cards > 1 and tp == 1):
        more = ""
        if isinstance(kv_gb, (int, float)) and isinstance(weights, (int, float)) and per_token:
            # each extra card brings its whole budget (its share of the weights + the pool it has now)
            pool = kv_gb * cards / tp + weights * (cards - tp) / tp
            more_tokens = int(pool * 1e9 / (per_token * 1))
            more = w.t(
                f"，KV 池约 {pool:.1f} GB、约 {more_tokens:,} token，放得下一条 {length:,} token 的请求"
                if more_tokens >= length
                else f"，KV 池约 {pool:.1f} GB、约 {more_tokens:,} token",
                f": a KV pool of about {pool:.1f} GB, about {more_tokens:,} tokens"
                + (f", enough for one {length:,}-token request" if more_tokens >= length else ""),
            )
        w.add(
            "verdict",
            f"你有 {cards} 张卡，但 tensor_parallel_size={tp} 时 vLLM 每个实例只用 {tp} 张：改成 "
            f"TENSOR_PARALLEL_SIZE={cards}（tensor_parallel_size={cards}），权重和 KV 平分到 {cards} 张卡{more}。",
            f"You have {cards} GPUs but with tensor_parallel_size={tp} vLLM uses only {tp} per instance: set "
            f"tensor_parallel_size={cards} (TENSOR_PARALLEL_SIZE={cards}) so weights and KV are split over {cards} "
            f"GPUs{more}.",
        )
    if per_token and not _KV_FP8_SET.search(text):
        doubled = tokens * 2
        w.add(
            "next",
            f"KV 缓存改用 fp8（vLLM `--kv-cache-dtype fp8`）：每 token {per_token:,.0f} B 减半到 {per_token / 2:,.0f} B，"
            f"同样的显存约放 {doubled:,} token" + ("，够一条最长请求" if doubled >= length else "") + "。",
            f"Store the KV cache in fp8 (vLLM `--kv-cache-dtype fp8`): {per_token:,.0f} B per token halves to "
            f"{per_token / 2:,.0f} B, about {doubled:,} tokens in the same memory"
            + (", enough for one full-length request" if doubled >= length else "")
            + ".",
        )
    cap = 1 << (tokens.bit_length() - 1)  # the largest power of two ≤ the pool: 79,392 → 65,536
    w.add(
        "next",
        f"或者限制上下文：`--max-model-len {cap}`（≤ {tokens:,} 即可），更长的请求会被拒绝。",
        f"Or cap the context: `--max-model-len {cap}` (anything ≤ {tokens:,} works); longer requests are refused.",
    )
