"""Conversions: units (GB ↔ GiB, MiB), nccl-tests algbw → busbw, published GPU-hours → implied MFU, a global batch
in tokens → per_device_train_batch_size × gradient_accumulation_steps."""

from __future__ import annotations

import re

from assistant.offline.intents import args as A
from assistant.offline.intents.args import BUSBW, CONVERT, IMPLIED_MFU
from assistant.offline.intents.base import has_size
from assistant.offline.reading.frame import Frame
from assistant.offline.types import ToolCall


def applies_convert(f: Frame) -> bool:
    return bool(f.convert) and not has_size(f)


def applies_busbw(f: Frame) -> bool:
    return bool(f.algbw_gbs) and (f.gpu_count or 0) >= 1


def applies_mfu(f: Frame) -> bool:
    return bool(f.gpu_hours and f.tokens and has_size(f) and f.gpus and ("mfu" in f.cues or "time" not in f.cues))


WALL_CLOCK = "wall_clock"


def applies_wall_clock(f: Frame) -> bool:
    """「184320 A100 GPU hours 用 64 张卡要多少天」, "3.8 GPU-days (11.5 hours) on 8 GPUs means what?": GPU-hours
    spread over cards. Not with a model to size (a rescale or an implied MFU answers that) nor with a quoted rate
    (GPU-hours × the rate is the quote intent's, earlier in PRECEDENCE)."""
    priced = "price" in f.cues and bool(f.gpus)  # 「300 A100 卡时多少钱」: the price intent prices those hours
    return bool(f.gpu_hours) and not has_size(f) and not f.hourly_quote_cny and not priced and not applies_mfu(f)


def wall_clock_calls(f: Frame) -> list[ToolCall]:
    counts = sorted({1, 8} | ({f.gpu_count} if f.gpu_count else set()))
    return [A.call(WALL_CLOCK, "gpu_hours_wall_clock", gpu_hours=f.gpu_hours, gpus=counts)]


def convert_calls(f: Frame) -> list[ToolCall]:
    value, src, dst = f.convert  # type: ignore[misc]
    return [A.call(CONVERT, "convert_units", value=value, from_unit=src, to_unit=dst)]


def busbw_calls(f: Frame) -> list[ToolCall]:
    out = [
        A.call(BUSBW, "busbw_from_algbw", algbw_gbs=f.algbw_gbs, n_gpus=f.gpu_count, op=f.collective or "all_reduce"),
        A.call(BUSBW, "search_guide", query=A.guide_query(f, BUSBW), k=2),
    ]
    if f.gpus:
        # "algbw 250 GB/s on 8 × H100 SXM, NVIDIA says 450": the busbw set against what that machine should reach
        nodes = {"nodes": f.nodes} if f.nodes and f.nodes > 1 else {}
        out.insert(1, A.call(BUSBW, "interconnect_advice", gpu=A.gpu_arg(f), n_gpus=f.gpu_count, **nodes))
    return out


def mfu_calls(f: Frame) -> list[ToolCall]:
    return [
        A.call(
            IMPLIED_MFU,
            "implied_mfu",
            **A.train_model_args(f),
            tokens=f.tokens,
            gpu_hours=f.gpu_hours,
            gpu=A.gpu_arg(f),
            precision=f.precision if f.precision in ("bf16", "fp16", "fp8", "tf32") else None,
        ),
        A.call(IMPLIED_MFU, "search_guide", query=A.guide_query(f, IMPLIED_MFU), k=2),
    ]


BATCH_SPLIT = "batch_split"
# the knobs a global token batch is split into, as trainers name them
_SPLIT_RE = re.compile(
    r"gradient[_ ]accumulation|grad[_ ]accum|per[_ ]device[_ ]train[_ ]batch|micro[- ]?batch|梯度累[积计]|累积步数|global batch",
    re.I,
)
_SEQ_RE = re.compile(
    r"(?:max[_ ]?seq(?:uence)?[_ ]?len(?:gth)?|seq(?:uence)?[_ ]len(?:gth)?|max[_ ]length|cutoff[_ ]len|model[_ ]max[_ ]length|"
    r"序列长度|上下文长度|最大长度)\s*(?:is|=|:|：|为|是|of)?\s*(\d{3,7}|\d{1,4}\s*[kK])(?![0-9])"
)


def seq_len_of(text: str) -> int | None:
    """The sequence length the user wrote next to its name: 'max_sequence length is 8196', 'cutoff_len=4096', '8k'."""
    m = _SEQ_RE.search(text or "")
    if not m:
        return None
    v = m.group(1).replace(" ", "")
    return int(v[:-1]) * 1024 if v[-1] in "kK" else int(v)


_N_GPUS_RE = re.compile(r"(\d{1,5})\s*(?:张|块|个)?\s*(?:gpus?\b|cards?\b|卡|显卡)", re.I)


def gpus_of(f: Frame) -> int:
    """The data-parallel GPU count: the frame's, else a bare 「16 张卡」 / "4 GPUs" without a card name."""
    if f.gpu_count:
        return f.gpu_count
    m = _N_GPUS_RE.search(f.text or "")
    return int(m.group(1)) if m and int(m.group(1)) > 0 else 1


def applies_batch_split(f: Frame) -> bool:
    """A global batch in tokens, a sequence length and the trainer's batch knobs: how to set them."""
    return bool(f.tokens and _SPLIT_RE.search(f.text or "") and seq_len_of(f.text)) and not f.is_log


def batch_split_calls(f: Frame) -> list[ToolCall]:
    return [
        A.call(
            BATCH_SPLIT,
            "batch_split",
            batch_tokens=f.tokens,
            seq_len=seq_len_of(f.text),
            n_gpus=gpus_of(f),
        )
    ]
