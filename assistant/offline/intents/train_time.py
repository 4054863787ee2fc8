"""Training time and cost: 6·N·D over the cards' sustained throughput; if the job does not fit the
named cards, the memory estimate follows (the time is moot then)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from assistant.offline.intents import args as A
from assistant.offline.intents.args import TRAIN_TIME
from assistant.offline.intents.base import has_size
from assistant.offline.reading.frame import Frame
from assistant.offline.types import ToolCall, ToolResult

if TYPE_CHECKING:
    from tools.reference_models import ReferenceModel

NAME = TRAIN_TIME


def applies(f: Frame) -> bool:
    if ("time" in f.cues or f.tokens) and has_size(f) and ("time" in f.cues or "price" in f.cues or f.tokens):
        return not ("plan" in f.cues and (f.budget_cny or f.deadline_hours))
    return False


# "要多少卡、训多久" with no count said: one 8-card server (the usual rental unit), stated in the answer as assumed
ASSUMED_GPUS = 8


def assumed_gpus(f: Frame) -> int | None:
    """The count to assume when the question names no card count: one 8-card server when it asks how many and how
    long; 8 per server when it names servers only (「96台DGX A100」「两台A100服务器」: a DGX/HGX carries 8)."""
    if f.gpu_count:
        return None
    if f.nodes and f.nodes > 1:
        return f.nodes * ASSUMED_GPUS
    return ASSUMED_GPUS if not f.nodes and "how_many" in f.cues else None


def _run_args(f: Frame) -> dict[str, Any]:
    """What the user measured on the run. A speed ("1.8 it/s, 16384 tokens per step"; "37.8 s for 100 iterations =
    409,600 tokens") with the user's own tokens only — an example corpus would mislead — and the hours said beside it
    as a claim; else the run's own hours (「总时长显示17小时」「16张A100 … 6h 训练1K步」), set against the estimate."""
    from assistant.offline.reading.run_figures import measured_token_rate

    rate = measured_token_rate(f.text or "") if f.tokens else None
    if rate:
        return {"measured_tokens_per_s": rate, "claimed_hours": f.period_hours}
    if f.period_unit in ("hour", "day") and f.period_hours and trains(f):
        return {"measured_hours": f.period_hours}
    return {}


def calls(f: Frame) -> list[ToolCall]:
    measured = _run_args(f)
    return [
        A.call(
            NAME,
            "estimate_training_time",
            **A.train_model_args(f),
            **_data_args(f),  # tokens, or samples × length × epochs, or the stated example
            gpu=A.gpu_arg(f) or A.DEFAULT_GPU,
            n_gpus=f.gpu_count or assumed_gpus(f),
            nodes=f.nodes,
            mode=A.train_mode(f),
            precision=f.precision,
            zero3=True if f.zero_stage == 3 else None,
            recompute=recompute_arg(f),
            **measured,
        ),
        A.call(NAME, "search_guide", query=A.guide_query(f, NAME), k=2),
    ]


def follow_ups(f: Frame, results: list[ToolResult]) -> list[ToolCall]:
    done = {r.name for r in results}
    if f.gpus and has_size(f) and "estimate_memory" not in done:
        # "8张4090训练13B要多久": the time is moot if the job does not fit the named cards
        mode = A.train_mode(f)
        kw = dict(A.memory_kwargs(f), mode="full" if mode == "pretrain" else mode)
        timed = next((r for r in results if r.name == "estimate_training_time"), None)
        n = int(timed.args.get("n_gpus") or 1) if timed else 1
        if not f.gpu_count and n > 1:  # the count the time was worked on (assumed, said so): fit on the same cards
            kw["gpus"] = n
            kw.setdefault("zero", None)
            kw["zero"] = kw["zero"] if f.zero_stage is not None else 3
        return [A.call(NAME, "estimate_memory", **kw)]
    return []


# ---- step time: compute vs communication of multi-GPU training over the real link ----------------
STEP_TIME = "step_time"

_STEP_RE = re.compile(
    r"为什么.{0,6}慢|这么慢|很慢|太慢|通信.{0,6}(?:占|多少|开销|瓶颈)|没有\s*nvlink|无\s*nvlink|不带\s*nvlink|"
    r"慢多少|so slow|why (?:is|so) .{0,20}slow|communication (?:share|overhead|time)|without nvlink|no nvlink",
    re.I,
)
_STRATEGIES = {1: "zero1", 2: "zero2", 3: "zero3"}


def applies_step_time(f: Frame) -> bool:
    multi = (f.gpu_count or 0) > 1 or (f.nodes or 0) > 1 or bool(re.search(r"多卡|multi[- ]gpu", f.text, re.I))
    return bool(f.gpus) and multi and bool(_STEP_RE.search(f.text)) and (f.training or bool(f.zero_stage))


def step_time_calls(f: Frame) -> list[ToolCall]:
    text = f.text.lower()
    strategy = (
        _STRATEGIES.get(f.zero_stage or 0)
        or ("fsdp" if "fsdp" in text else None)
        or ("ddp" if "ddp" in text else "zero3" if f.zero_stage is None and "zero" in text else None)
    )
    size = {} if A.train_model_args(f).get("model") else {"params_b": f.params_b or 7.0}
    mode = A.train_mode(f)
    return [
        A.call(
            STEP_TIME,
            "estimate_step_time",
            gpu=A.gpu_arg(f),
            n_gpus=f.gpu_count or 8,
            **{k: v for k, v in A.train_model_args(f).items() if k == "model"},
            **size,
            mode=mode if mode in ("full", "lora", "qlora") else None,
            strategy=strategy or "ddp",
            nodes=f.nodes,
            network=f.network,
        )
    ]


# ---- what a training-time answer needs when the question leaves something out ---------------------
COMPLETED = "train_time_completed"
# No data size: the time depends on tokens (samples × length × epochs); the answer says so and works
# one example with these stated assumptions (a typical instruction-tuning set).
ASSUMED_SAMPLES = 10_000
ASSUMED_SEQ = 512
ASSUMED_EPOCHS = 3

_MEASURED_RE = re.compile(
    r"正常|合理|为什么|为何|差距|慢|快|那么久|这么久|太久|好久|any ideas|normal|expected|reasonable|slow|faster|why|"
    r"is this|so long|too long|差在哪",
    re.I,
)


def _reference(f: Frame) -> ReferenceModel | None:
    from assistant.offline.intents.plans import reference

    return reference(f)


def trains(f: Frame) -> bool:
    """Training said in any form: 'train', a fine-tune word, or a method ('SFT … 400 hours' is a training run)."""
    return bool(f.training or f.finetune or f.mode in ("full", "lora", "qlora"))


def applies_measured(f: Frame) -> bool:
    """ "One 3090, 88 hours, is this normal?" / "says it will take nearly 3 days — any ideas?": a run's
    own time against the estimate."""
    if f.pipeline:  # FLUX / Qwen-Image / Wan: steps × s/step, not LLM tokens; the cause rule sizes its weights
        return False
    if trains(f) and measured_unsized(
        f
    ):  # "sft … took 30 hrs" is training too; "8张A800做SFT跑了60小时正常吗": what those hours train
        return True
    return (
        trains(f)
        and has_size(f)
        and bool(f.period_hours)
        and f.period_unit in ("hour", "day")
        and bool(_MEASURED_RE.search(f.text))
        and not applies_rescale(f)
    )


def applies_unsized(f: Frame) -> bool:
    """ "LoRA训练时间大概是多久": a time question with no model and no data: the formula and an example."""
    if _SYMPTOM_RE.search(f.text):  # "多机比单机慢10倍": a symptom to diagnose, not a duration to estimate
        return False
    return "time" in f.cues and f.training and not has_size(f) and not _reference(f)


_SYMPTOM_RE = re.compile(r"慢|卡住|卡死|报错|失败|slow|hang|stuck|error|fail", re.I)


def applies_reference(f: Frame) -> bool:
    """ "训练 GPT-3 规模的模型要多少钱": a published model's size and token count, 6·N·D; "从头预训练
    一个 7B 要多少钱": the same question with the compute-optimal token count."""
    ref = _reference(f)
    if f.mode == "pretrain" and has_size(f) and "price" in f.cues and not f.budget_cny:
        return True
    return ref is not None and f.training and bool(f.cues & {"time", "price"})


# Compute-optimal pre-training: about 20 tokens per parameter (Hoffmann et al. 2022, "Chinchilla",
# arXiv:2203.15556) — the assumption when a from-scratch question gives no token count.
CHINCHILLA_TOKENS_PER_PARAM = 20


def chat_tokens_per_sample() -> float:
    """Average tokens of one chat sample when the user gives samples but no length (knowledge/mfu.yaml
    data_units: LMSYS-Chat-1M, 2.0 turns × (69.5 + 214.5) tokens ≈ 570)."""
    from tools.train_time import mfu_data

    return float(mfu_data()["data_units"]["chat_tokens_per_sample"]["value"])


# "--gradient_checkpointing", "梯度检查点", "activation checkpointing": the GPU repeats the forward (8·N·D, LoRA 6·N·D)
_CKPT_RE = re.compile(
    r"gradient[_\s-]*checkpointing(?!\s*(?:=|:)?\s*(?:false|0|off)\b)|activation[_\s-]*checkpointing|recompute|"
    r"梯度检查点|激活检查点|重计算|重算",
    re.I,
)


def recompute_arg(f: Frame) -> str | None:
    """'full' when the question says recomputation is on (and not that it is off)."""
    if f.checkpointing == "none":
        return None
    return "full" if _CKPT_RE.search(f.text) else None


def _data_args(f: Frame) -> dict[str, Any]:
    """tokens if said; samples × seq_len × epochs if said; else the stated example assumption."""
    if f.tokens:
        basis = next((m.split(":", 1)[1] for m in sorted(f.mentions) if m.startswith("data_unit:")), None)
        # 「1B * 8 epoches」: the tokens are one pass, the run is epochs of them
        epochs = {"epochs": f.epochs} if f.epochs and "tokens_per_epoch" in f.mentions else {}
        return {"tokens": f.tokens, "data_basis": basis, **epochs}
    if f.samples:
        # samples without a length: the average chat sample (said in the answer); one pass unless epochs are given;
        # a max length said (cutoff_len 4096) gives the padded-to-max upper bound beside it
        return {
            "samples": f.samples,
            "seq_len": int(f.sample_tokens or chat_tokens_per_sample()),
            "epochs": f.epochs or 1,
            "max_seq_len": f.context if f.context and not f.sample_tokens else None,
            "data_basis": None if f.sample_tokens else "chat_average",
        }
    from assistant.offline.reading.run_figures import steps_batch_length

    run = steps_batch_length(f.text or "")
    if run:  # 「batch_size=1024 … 1K步 … block_size 512」: the tokens those steps saw
        steps, batch, seq = run
        return {"samples": steps * batch, "seq_len": seq, "epochs": 1, "steps": steps, "data_basis": "steps"}
    ref = _reference(f)
    if ref is not None and ref.training_tokens and A.train_mode(f) in ("full", "pretrain"):
        return {"tokens": ref.training_tokens}
    if f.mode == "pretrain" and (f.params_b or ref):
        size = f.params_b or (ref.params_b if ref else 0)
        return {"tokens": CHINCHILLA_TOKENS_PER_PARAM * size * 1e9}
    return {
        "samples": f.samples or ASSUMED_SAMPLES,
        "seq_len": f.context or f.sample_tokens or ASSUMED_SEQ,
        "epochs": f.epochs or ASSUMED_EPOCHS,
    }


# "SFT takes 60 h on 8 A800, normal?" with no model and no data: what 60 h on those cards trains (tokens of a 7B full
# SFT, the common size), and the same hours on the Hopper card of the same class (dense peaks, same MFU)
MEASURED_ASSUMED_B = 7.0
REFERENCE_TOKENS = 1e9
_FASTER = {"a800": "H800", "a100": "H100", "h800": None, "h100": None, "h200": None, "h20": "H800"}


# "is it normal / reasonable / too long": the hours are asked about (not "why slow", which the guide answers)
_NORMAL_RE = re.compile(r"正常|合理|符合预期|太久|这么久|normal|expected|reasonable|too long|so long", re.I)
# "10小时的数据" / "100 hours of audio": the data's duration, not the run's
_DATA_HOURS_RE = re.compile(
    r"(?:小时|h|hours?)\s*(?:的)?\s*(?:数据|音频|语音|视频|录音)|hours? of (?:audio|speech|video|data)", re.I
)


def measured_unsized(f: Frame) -> bool:
    """A run's own hours on named cards, asked whether normal, with no model size and no data size."""
    return (
        bool(f.period_hours)
        and f.period_unit in ("hour", "day")
        and bool(f.gpus)
        and bool(_NORMAL_RE.search(f.text))
        and not _DATA_HOURS_RE.search(f.text)
        and not has_size(f)
        and not _reference(f)
        and not (f.tokens or f.samples)
    )


def faster_card(f: Frame) -> str | None:
    """The next-generation card renters move to from the named one (A800 → H800, A100 → H100); None if already Hopper."""
    family = re.sub(r"[^a-z0-9]", "", (f.gpu or "").lower())[:4]
    return _FASTER.get(family, "H100")


def _measured_unsized_calls(f: Frame) -> list[ToolCall]:
    hours = float(f.period_hours or 0)
    n = f.gpu_count or 1
    mode = A.train_mode(f, default="full")
    out = [
        A.call(
            NAME,
            "estimate_training_time",
            params_b=MEASURED_ASSUMED_B,
            tokens=REFERENCE_TOKENS,
            gpu=A.gpu_arg(f),
            n_gpus=n,
            mode=mode if mode in ("full", "lora", "qlora") else "full",
            measured_hours=hours,
        )
    ]
    faster = faster_card(f)
    if faster:
        out.append(
            A.call(
                NAME, "rescale_training_time", ref_gpu=A.gpu_arg(f), ref_gpus=n, ref_hours=hours, gpu=faster, n_gpus=n
            )
        )
    out.append(A.call(NAME, "search_guide", query=A.guide_query(f, NAME), k=2, doc_id="training-time-cost"))
    return out


def completed_calls(f: Frame) -> list[ToolCall]:
    """estimate_training_time with every input it needs: the size (a reference model's published one),
    the data (said, or the stated example), the card (said, or the default)."""
    if measured_unsized(f):
        return _measured_unsized_calls(f)
    ref = _reference(f)
    size = A.train_model_args(f) if has_size(f) and not ref else {"params_b": ref.params_b if ref else 7.0}
    if ref is not None and ref.active_params_b:
        size["active_params_b"] = ref.active_params_b
    mode = A.train_mode(f, default="lora" if not has_size(f) and not ref else "full")
    if ref is not None and not f.mode:
        mode = "pretrain"
    return [
        A.call(
            NAME,
            "estimate_training_time",
            **size,
            **_data_args(f),
            # a small LoRA job on the common consumer card; full training and pre-training on the A100 标配
            gpu=A.gpu_arg(f) or ("RTX 4090" if mode in ("lora", "qlora") else A.DEFAULT_GPU),
            n_gpus=f.gpu_count,
            nodes=f.nodes,
            mode=mode,
            precision=f.precision,
            zero3=True if f.zero_stage == 3 else None,
            recompute=recompute_arg(f),
            **_run_args(f),
        ),
        A.call(NAME, "search_guide", query=A.guide_query(f, NAME), k=2, doc_id="training-time-cost"),
    ]


# ---- a measured run carried to other cards: the user's own arithmetic, redone with dense peaks --------
RESCALE = "rescale"
_HOURS_RE = re.compile(r"(\d+(?:\.\d+)?)\s*(?:h(?![a-z])|小时|hours?|hrs?)", re.I)
# "8xH100 5minute = 1x4090 4hour": counted cards written N×card, and durations in minutes as well as hours
_COUNTED_RE = re.compile(r"(?<![\w.])(?P<n>\d{1,4})\s*[x×*]\s*(?P<card>(?:rtx\s*)?[a-z]{0,4}\s?\d{2,4}[a-z]*)", re.I)
_DURATION_RE = re.compile(
    r"(?<![A-Za-z0-9_.])(?P<n>\d+(?:\.\d+)?)\s*(?:个)?\s*(?P<u>min(?:ute)?s?|分钟|h(?![a-z])|小时|hours?|hrs?)", re.I
)


# "8xH100 5minute = 1x4090 4hour": the second figure is the user's own projection (after "="), not a measured run
_COMPUTED_RE = re.compile(r"=\s*\d{1,4}\s*[x×*]\s*\S+\s+\d+(?:\.\d+)?\s*(?:min|分钟|h|小时|hour)", re.I)


def _durations_h(text: str) -> list[float]:
    """Every duration in the text in hours, in order ('5minute' → 0.0833, '4hour' → 4)."""
    out = []
    for m in _DURATION_RE.finditer(text):
        v = float(m.group("n"))
        out.append(v / 60 if m.group("u").lower().startswith(("min", "分")) else v)
    return out


# 「8 张 A100」「一张80G的A100」: a count in Chinese with its measure word (the same card at two counts is two runs)
_COUNTED_ZH_RE = re.compile(
    r"(?P<n>\d{1,4}|[一两二三四五六八]|十六)\s*(?:张|块|台|卡)\s*(?:\d{2,3}\s*G[B]?\s*(?:的)?\s*)?"
    r"(?P<card>(?:rtx\s*)?[a-z]{0,4}\s?\d{2,4}[a-z]*)",
    re.I,
)
_ZH_COUNTS = {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "八": 8, "十六": 16}
# whose run a figure is: the authors' / the paper's / the README's is the reference the user's run is held against
_AUTHOR_RE = re.compile(r"作者|论文|官方|paper|authors?|readme|they (?:trained|report)|reported|published", re.I)


def _counted_spans(text: str) -> list[tuple[int, str, int]]:
    """(position, gpu id, count) for every 'N×card' / 'N 张 card' in the text, one per (card, count), in order."""
    from tools.errors import ToolInputError
    from tools.gpus import resolve_gpu

    out: list[tuple[int, str, int]] = []
    for rx in (_COUNTED_RE, _COUNTED_ZH_RE):
        for m in rx.finditer(text):
            try:
                gid = resolve_gpu(m.group("card")).id
            except (ToolInputError, KeyError, ValueError):
                continue
            n = int(m.group("n")) if m.group("n").isdigit() else _ZH_COUNTS[m.group("n")]
            if all((gid, n) != (g, k) for _, g, k in out):
                out.append((m.start(), gid, n))
    return sorted(out)


def _counted_cards(f: Frame) -> list[tuple[str, int]]:
    """(gpu id, count) pairs: the reading layer's counted mentions, else 'N×card' / 'N 张 card' in the text —
    the same card at two counts too ("作者 8 张 A100 8 小时，我一张 A100 140 小时")."""
    pairs = [(g.gpu_id, g.count) for g in f.gpu_mentions if g.gpu_id and g.count]
    if len(pairs) >= 2:
        return pairs
    return [(g, n) for _, g, n in _counted_spans(f.text)]


def _reference_first(f: Frame) -> tuple[list[tuple[str, int]], list[float]]:
    """The counted cards and the durations with the authors' run first: when the user's own run comes first and
    the other follows an author/paper word, swap both (its duration is the one after it)."""
    cards, hours = _counted_cards(f)[:2], _durations_h(f.text)
    spans = _counted_spans(f.text)
    marker = _AUTHOR_RE.search(f.text)
    if marker is None or len(spans) < 2 or len(cards) < 2 or len(hours) < 2:
        return cards, hours
    after = [sp for sp in spans[:2] if sp[0] > marker.start()]
    if len(after) == 1 and after[0] == spans[1] and [(g, n) for _, g, n in spans[:2]] == cards:
        times = [(m.start(), h) for m, h in zip(_DURATION_RE.finditer(f.text), hours, strict=False)]
        ref_h = next((h for pos, h in times if pos > after[0][0]), None)
        if ref_h is not None:
            rest = [h for _, h in times if h != ref_h] or [ref_h]
            return [cards[1], cards[0]], [ref_h, rest[0]]
    return cards, hours


_TFLOPS_RE = re.compile(r"(?<![\d.])(\d{3,4}(?:\.\d+)?)(?![\d.])")


def applies_rescale(f: Frame) -> bool:
    asks_time = bool(re.search(r"要多久|多长时间|多少小时|how long|how many hours", f.text, re.I))
    if not (f.training or "算力" in f.text or asks_time or re.search(r"speed\s*run|speedrun|tflops", f.text, re.I)):
        return False
    return len(_counted_cards(f)) >= 2 and len(_durations_h(f.text)) >= 1


def rescale_calls(f: Frame) -> list[ToolCall]:
    from tools.gpus import resolve_gpu

    ((ref_id, ref_n), (my_id, my_n)), hours = _reference_first(f)
    peaks: set[float] = set()
    specs = [resolve_gpu(ref_id), resolve_gpu(my_id)]
    for spec in specs:
        peaks |= {p for p in (spec.dense_tflops("bf16"), spec.bf16_fp16_sparse_tflops) if p}
    # "2000 TFLOPS" for the H100's 1979 sparse figure: a rounded quote is still that figure (within 2%)
    quoted = [float(v) for v in _TFLOPS_RE.findall(f.text) if any(abs(float(v) - p) <= 0.02 * p for p in peaks)]
    return [
        A.call(
            RESCALE,
            "rescale_training_time",
            ref_gpu=ref_id,
            ref_gpus=ref_n,
            ref_hours=round(hours[0], 4),
            gpu=my_id,
            n_gpus=my_n,
            precision="fp16" if f.precision == "fp16" else "bf16",
            quoted_tflops=list(dict.fromkeys(quoted)),
            actual_hours=hours[-1] if len(hours) >= 2 and not _COMPUTED_RE.search(f.text) else None,
        ),
        # the same card at two counts (the authors' 8 A100s, my one A100): nothing to compare side by side
        *([A.call(RESCALE, "gpu_specs", names=[s.name for s in specs])] if ref_id != my_id else []),
        # the authors' figure stated by the user ("作者：8 张 A100 约 8 小时") is the reference; a catalog recipe named
        # only for its data ("150k 的 llava 数据集") would add another model's run
        *[
            A.call(RESCALE, "published_run", run=rid, gpu=my_id, n_gpus=my_n)
            for rid in _runs(f)[:1]
            if not _AUTHOR_RE.search(f.text)
        ],
    ]


# ---- an image/video diffusion LoRA (Wan, HunyuanVideo, FLUX): steps × s/step, not 6·N·D over text tokens ------
DIFFUSION = "diffusion_time"
_DIFFUSION_RE = re.compile(
    r"视频|图片|图像|videos?\b|images?\b|clips?\b|frames?\b|flux|sdxl|stable[\s-]*diffusion|hunyuan|混元|"
    r"(?<![a-z])wan(?:\s*2(?:\.\d)?)?(?=\s|\b)(?!\s*(?:network|link|port|ip|口|网))",
    re.I,
)
_ASKS_HOW_LONG = re.compile(
    r"多久|多长时间|几个小时|几天|how long|minutes,? hours|hours or days|take\w*\s+(?:minutes|hours|days)", re.I
)
_BIG_CARD_RE = re.compile(r"80\s*(?:g|gb|gig)|a100|h100|h800|a800|h200|cloud|云|rent|租", re.I)


def applies_diffusion(f: Frame) -> bool:
    """ "how long does a WAN LoRA with 10 videos take on a 4090?": a diffusion LoRA's time is steps × seconds per
    step (measured figures in the guide), never a 7B-LLM token estimate; an LLM size said outright keeps the LLM rules."""
    if not (f.training or re.search(r"lora|train|训练|微调", f.text or "", re.I)) or f.params_b:
        return False
    return (
        bool(_ASKS_HOW_LONG.search(f.text or ""))
        and len(set(_DIFFUSION_RE.findall(f.text or ""))) >= 1
        and bool(
            f.pipeline or re.search(r"video|视频|flux|sdxl|hunyuan|混元|(?<![a-z])wan(?![a-z])", f.text or "", re.I)
        )
    )


def diffusion_calls(f: Frame) -> list[ToolCall]:
    """The guide's measured steps × s/step, and the named card beside the 80 GB cards when renting is weighed."""
    from tools.lang import has_cjk

    words = (
        "扩散 LoRA 多久 每步秒数 几小时" if has_cjk(f.text or "") else "diffusion LoRA how long seconds per step hours"
    )
    # the sections compete for the question: the one on hours leads, the one on 80 GB cards follows when renting is weighed
    query = f.text[:300] + " " + words + (" 80GB A100 H100 rent" if _BIG_CARD_RE.search(f.text or "") else "")
    return [A.call(DIFFUSION, "search_guide", query=query[:400], k=3, doc_id="diffusion-training-time")]


# ---- a published run of a known recipe (knowledge/published_runs.yaml): what its authors measured ------------
PUBLISHED = "published_run"
_ASKS_TIME_OR_COST = re.compile(
    r"多久|多长时间|多少小时|几个小时|几天|\d\s*(?:个)?(?:小时|分钟|天)|耗时|用时|时间|多少钱|费用|花费|成本|美元|美金|\d\s*(?:元|块)|how long|how many hours|hours?|minutes?|"
    r"time|cost|costs|price|spent|\$\s*\d|dollars?|gpu[\s-]*hours?",
    re.I,
)
_TRAIN_WORDS = re.compile(r"训|微调|复现|阶段|stage|train|fine-?tun|reproduc|speed\s*run|speedrun", re.I)


def _runs(f: Frame) -> list[str]:
    from tools.train_published import find_runs

    return find_runs(f.text)


def applies_published(f: Frame) -> bool:
    """ "How long do LLaVA's stage 1 and 2 take on A100s" / "Vicuna-13B only $300?": the authors' own figures."""
    if f.is_log or not _TRAIN_WORDS.search(f.text) or not _ASKS_TIME_OR_COST.search(f.text):
        return False
    if applies_rescale(f):  # "8xH100 5minute = 1x4090 4hour": the user's own arithmetic leads (the run follows it)
        return False
    runs = _runs(f)
    if not runs:
        return False
    from tools.train_published import runs_data

    size = next(float(r["params_b"]) for r in runs_data()["runs"] if r["id"] == runs[0])
    # "train llama 2 70b with LoRA on the LLaVA dataset": another model on that recipe's data is not the published run
    return not (f.params_b and abs(f.params_b - size) > 0.25 * size)


def published_calls(f: Frame, intent: str = PUBLISHED) -> list[ToolCall]:
    """The published run (carried to the named card, priced at the user's per-GPU-hour rate), and the China price
    of the same cards for the same hours when the question is about money."""
    from assistant.offline.reading.money import read_money_quote
    from tools.train_published import PublishedRunInput, published_run

    out: list[ToolCall] = []
    q = read_money_quote(f.text)
    rate = q.per_gpu_hour if q is not None else None
    for rid in _runs(f)[:1]:
        gpu = A.gpu_arg(f) if f.gpus and intent == PUBLISHED else None  # in a quote, the cards named are the claim's
        out.append(
            A.call(
                intent,
                "published_run",
                run=rid,
                gpu=gpu,
                n_gpus=f.gpu_count if gpu else None,
                rate_per_gpu_hour=rate,
                currency=q.currency if q is not None and rate else None,
            )
        )
        if "price" in f.cues or re.search(r"cost|price|spent|\$|费用|多少钱|成本|花", f.text, re.I):
            run = published_run(PublishedRunInput(run=rid))
            st = run.stages[0]
            out.append(A.call(intent, "gpu_price", gpu=st.gpu, gpu_count=st.n_gpus, hours=run.total_hours))
    return out


# ---- a published or measured run carried to the user's card: "one week on 4 A800 — can my one 3090 do it?" -------
CARRY = "carry_run"
_CARRY_ASKS = re.compile(
    r"多久|多长时间|多少天|几天|要多少时间|能跑|能不能|可以吗|能训|行吗|够吗|how long|how many (?:days|hours)|possible|"
    r"will (?:it|the training) work|works?\b|can i|could i|feasible|enough|how much time",
    re.I,
)
_CARRY_TRAINS = re.compile(r"训|跑|复现|train|fine-?tun|reproduc|from scratch|从头", re.I)
_SCRATCH_RE = re.compile(r"pre-?train|from scratch|从头|预训练", re.I)
_WHY_SLOWER = re.compile(r"\bwhy\b|slow|suspect|\bgap\b|normal|为什么|为何|慢|正常|差距", re.I)
_CARRY_TIME = re.compile(r"多久|多长时间|多少天|几天|how long|how many (?:days|hours)|how much time", re.I)


def _carry_figures(f: Frame) -> Any:
    from assistant.offline.reading.run_figures import read_run_figures

    return read_run_figures(f.text)


def _recipe_target(f: Frame) -> tuple[str, Any] | None:
    """A known recipe pre-trained from scratch ("nanoGPT … on a V100 16GB") and a card that is not the recipe's."""
    runs = _runs(f)
    if not runs or not f.gpus or not (f.mode == "pretrain" or _SCRATCH_RE.search(f.text)):
        return None
    from tools.train_published import runs_data

    row = next(r for r in runs_data()["runs"] if r["id"] == runs[0])
    if len(row["stages"]) != 1 or not row.get("from_scratch"):
        return None
    return runs[0], row["stages"][0]


def asks_carry_time(f: Frame) -> bool:
    """The carried run's question is how long ("我两张3090多久"), not only whether it can run."""
    return bool(_CARRY_TIME.search(f.text))


def applies_carry(f: Frame) -> bool:
    """A run's cards × count × duration (or a measured rate × units) and another card the user asks about."""
    if f.is_log or not _CARRY_ASKS.search(f.text):
        return False
    if not (_CARRY_TRAINS.search(f.text) or _CARRY_TIME.search(f.text)):  # 「4卡A100大约4天，我两张3090多久」
        return False
    if _COMPUTED_RE.search(f.text) or re.search(r"tflops", f.text, re.I):  # the user's own arithmetic: RESCALE
        return False
    if _WHY_SLOWER.search(f.text):  # "my run takes 150 h vs their 35 h — why?": a cause question, not a carry
        return False
    return _carry_figures(f) is not None or _recipe_target(f) is not None


def carry_calls(f: Frame) -> list[ToolCall]:
    fig = _carry_figures(f)
    precision = "fp16" if f.precision == "fp16" else "bf16"
    if fig is None:
        found = _recipe_target(f)
        if found is None:  # applies_carry held, so one of the two readings is there
            return []
        rid, st = found
        n = f.gpu_count or 1
        return [
            A.call(
                CARRY,
                "rescale_training_time",
                ref_gpu=st["gpu"],
                ref_gpus=int(st["n_gpus"]),
                ref_hours=float(st["hours"]),
                gpu=A.gpu_arg(f),
                n_gpus=n,
                precision=precision,
            ),
            A.call(CARRY, "published_run", run=rid),
        ]
    out = [
        A.call(
            CARRY,
            "rescale_training_time",
            ref_gpu=fig.ref_gpu,
            ref_gpus=fig.ref_gpus,
            ref_hours=fig.ref_hours,
            ref_seconds_per_unit=fig.ref_seconds_per_unit,
            ref_units=fig.ref_units,
            unit=fig.unit,
            gpu=fig.gpu,
            n_gpus=fig.n_gpus,
            precision=precision,
        )
    ]
    if fig.also_gpu and fig.also_hours:  # the README's own figure beside the measured rate, as a cross-check
        out.append(
            A.call(
                CARRY,
                "rescale_training_time",
                ref_gpu=fig.also_gpu,
                ref_gpus=fig.also_gpus or 1,
                ref_hours=fig.also_hours,
                gpu=fig.gpu,
                n_gpus=fig.n_gpus,
                precision=precision,
            )
        )
    return out


# ---- a compute budget: "can 8×A800 train a 2B model within a month / which size in 1–2 months" ---------------
BUDGET = "compute_budget"
_SIZE_ASKED = re.compile(
    r"which model size|what (?:model )?size|how (?:big|large) (?:a )?model|largest model|多大的?模型|多大规模|什么规模|多少参数",
    re.I,
)
_WITHIN = re.compile(
    r"within|in (?:one|a|\d+)\s*(?:months?|weeks?|days?)|内|之内|以内|能不能.{0,12}完|多大的?模型", re.I
)
_AUDIO_HOURS = re.compile(
    r"(?P<v>\d+(?:\.\d+)?)\s*(?P<k>[kK]|千|万)?\s*(?:hours?|hrs?|h|小时)\s*(?:of\s+)?(?:the\s+)?(?:的)?\s*"
    r"(?:audio|speech|语音|音频|录音)",
    re.I,
)
_GPU_HOURS_ASKED = re.compile(r"gpu[\s-]*hours?|卡时|多少小时|多久|how long|how much (?:compute|time)|算力", re.I)


def _audio_hours(text: str) -> float | None:
    m = _AUDIO_HOURS.search(text)
    if not m:
        return None
    k = {"k": 1e3, "千": 1e3, "万": 1e4}.get((m.group("k") or "").lower(), 1.0)
    return float(m.group("v")) * k


def _budget_days(f: Frame) -> list[float]:
    """The time budgets said: 'within 1 month' → [30]; 'within 1 or 2 month' → [30, 60]."""
    out: list[float] = []
    for h in (f.deadline_hours, f.period_hours if f.period_unit in ("day", "week", "month") else None):
        if h and round(h / 24, 1) not in out:
            out.append(round(h / 24, 1))
    return out


def applies_budget(f: Frame) -> bool:
    if f.is_log or not f.training or f.tokens or f.samples:
        return False
    scratch = f.mode == "pretrain" or bool(_SCRATCH_RE.search(f.text))
    if _audio_hours(f.text) and has_size(f) and (scratch or _GPU_HOURS_ASKED.search(f.text)):
        return True
    budget = bool(_budget_days(f)) and bool(f.gpus) and bool(_WITHIN.search(f.text))
    # a fine-tune "within a day" is a memory/plan question (adv: 一张4090 一天内全量训练70B); a size asked, or
    # pre-training from scratch, is a compute budget
    return budget and (bool(_SIZE_ASKED.search(f.text)) or (scratch and has_size(f)))


def budget_calls(f: Frame) -> list[ToolCall]:
    gpu = A.gpu_arg(f) or A.DEFAULT_GPU
    n = f.gpu_count or 1
    audio = _audio_hours(f.text)
    days = [] if audio else _budget_days(f)
    out = [
        A.call(
            BUDGET,
            "compute_budget",
            gpu=gpu,
            n_gpus=n,
            params_b=f.params_b,
            audio_hours=audio,
            budget_days=days[0] if days else None,
        )
    ]
    if f.params_b and not audio:  # the same size through the estimator: time on these cards with its cost beside it
        out.append(
            A.call(
                BUDGET,
                "estimate_training_time",
                params_b=f.params_b,
                tokens=CHINCHILLA_TOKENS_PER_PARAM * f.params_b * 1e9,
                gpu=gpu,
                n_gpus=n,
                mode="full",  # the same MFU band as compute_budget's (knowledge/mfu.yaml `full`), so the cost agrees
            )
        )
    for extra in days[1:2]:  # "1 or 2 months": the largest model for the longer budget too
        out.append(A.call(BUDGET, "compute_budget", gpu=gpu, n_gpus=n, budget_days=extra))
    return out
