"""Serving: decode tokens/s of a model on a card (memory-bandwidth bound); a serving plan (self-host
vs API, cost per million tokens, concurrency that fits); whether and how a card can be rented."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from assistant.offline.intents import args as A
from assistant.offline.intents.args import DECODE_SPEED
from assistant.offline.intents.base import has_size
from assistant.offline.reading.frame import Frame
from assistant.offline.types import ToolCall
from tools.lang import has_cjk

NAME = DECODE_SPEED


def applies(f: Frame) -> bool:
    return (
        "decode_speed" in f.cues
        and has_size(f)
        and not f.training
        and f.mode in (None, "inference")
        and not f.concurrency
        and "plan" not in f.cues
    )


def _card_of_size(gb: float | None) -> str | None:
    """「两张24G的卡」 names a size, not a card: decode speed needs the card's bandwidth, so take the rentable
    NVIDIA card of exactly that size in the middle by bandwidth (24 GB → RTX 3090, 80 GB → A100 80GB) — the lead names it, so the
    assumption is visible — instead of the default A100 80GB the size rules out."""
    if not gb:
        return None
    from tools.gpus import all_gpus

    rows = [
        g
        for g in all_gpus()
        if g.is_nvidia and g.memory_gb == gb and g.price_key and g.mem_bw_gbs and "laptop" not in g.id
    ]
    rows.sort(key=lambda g: float(g.mem_bw_gbs or 0))
    return rows[len(rows) // 2].id if rows else None  # the middle one: neither the fastest nor the slowest


def calls(f: Frame) -> list[ToolCall]:
    out = []
    sized = None if f.gpus else _card_of_size(f.vram_gb)
    for gpu in (f.gpus or [sized or A.DEFAULT_GPU])[:4]:  # every card named gets its own ceiling
        out.append(
            A.call(
                NAME,
                "decode_speed",
                **A.model_args(f),
                gpu=A.gpu_arg(f, gpu) if f.gpus else gpu,
                precision=_decode_precision(f) or "bf16",
                context=f.context or 4096,
                gpus=f.gpu_count or 1,
                nvlink_bridge=_bridged(f),
            )
        )
    return out


def _decode_precision(f: Frame) -> str | None:
    """The weights' dtype as stated; a GGUF runtime named without one (ollama, llama.cpp) pulls a 4-bit file by
    default (ollama library tags are Q4_K_M), so its speed is a 4-bit model's, not bf16's."""
    if f.precision in ("bf16", "fp16", "fp8", "int8", "int4"):
        return f.precision
    if {"Ollama", "llama.cpp"} & set(f.engines):
        return "int4"
    if _QUANTISED_RE.search(f.text or ""):  # 「还是量化版本」 with no bit width: the usual served 4-bit build
        return "int4"
    return None


# a quantised build said without its bit width (「量化版本」 "the quantized version")
_QUANTISED_RE = re.compile(r"量化版|量化的版本|量化模型|quanti[sz]ed (?:version|model|build)", re.I)


def _bridged(f: Frame) -> bool | None:
    """「两张3090带NVLink桥」: the pair is bridged only when the user says so (rented servers rarely have one)."""
    return True if "bridge_said" in f.mentions and "no_nvlink" not in f.mentions else None


# ---- serving plans: self-host vs API, cost per million tokens, concurrency and tokens/s -------------
SERVING = "serving"
RENTABILITY = "rentability"

# Words that ask about running a model as a service (not its memory or one user's decode speed).
_SERVING_RE = re.compile(
    r"调\s*api|api\s*(?:划算|便宜|贵|还是)|自建|自己部署|自部署|self[- ]?host|vs\.?\s*(?:the\s*)?api|"
    r"百万\s*token|per\s*(?:million|1m)\s*tokens?|/\s*m(?:tok|illion)|每\s*百万|"
    r"serve\s*\d+\s*users",
    re.I,
)
# "并发多少" alone is a memory question (how many sequences fit); with a serving engine named it is a serving plan
_ENGINE_CONCURRENCY_RE = re.compile(
    r"并发.{0,6}(?:多少|几个|几路|能到|上限|多大|多高)|(?:多少|多大|几|最大|最多|最高)(?:路|个)?(?:的)?并发|"
    r"how many (?:concurrent|users|requests|parallel)|"
    r"max(?:imum)? concurren",
    re.I,
)
# "how many GPUs / 几张卡": a card count, even beside a concurrency ("50 并发要几张卡")
_CARDS_ASKED_RE = re.compile(r"几张|几块|几台|多少(?:张|块)|how many (?:gpus?|cards?|servers?|nodes?)", re.I)
_RENT_RE = re.compile(
    r"能租|能不能租|可以租|租得到|租不到|哪里(?:能|可以)?租|按卡租|单卡租|买得到|can i rent|where (?:can i |to )rent|"
    r"rent (?:a |one |single )?(?:card|gpu)|available (?:in|to rent)|rentable",
    re.I,
)


def applies_serving(f: Frame) -> bool:
    return (
        has_size(f)
        and not f.training
        and f.mode in (None, "inference")
        # "要几张4090": the card count is the question; "how many parallel requests": the concurrency is
        and (
            "how_many" not in f.cues
            or bool(_ENGINE_CONCURRENCY_RE.search(f.text) and not _CARDS_ASKED_RE.search(f.text))
        )
        and (
            bool(f.monthly_tokens)
            or bool(_SERVING_RE.search(f.text))
            or bool(f.engines and _ENGINE_CONCURRENCY_RE.search(f.text))
            or bool(f.concurrency and ("decode_speed" in f.cues or _PERF_RE.search(f.text)))
            or bool(_TTFT_RE.search(f.text))
            or (len(f.gpus) >= 2 and bool(_SLOWER_RE.search(f.text)))
        )
    )


def applies_ttft(f: Frame) -> bool:
    """「首token要等20秒，提示 8k」: the prefill's compute floor for that prompt is the deciding number, so
    it leads even when the question also asks how to make it faster (the cause rule comes after it)."""
    return applies_serving(f) and bool(_TTFT_RE.search(f.text)) and bool(f.context)


# "TTFT for a 16K prompt is 15 s": prefill is compute-bound (≈ 2·N FLOPs per prompt token)
_TTFT_RE = re.compile(r"\bttft\b|time to first token|首\s*token|首字|首包|prefill|预填充", re.I)
# "H20 is slower than the L40": which of two cards is compute- or bandwidth-bound for this model
_SLOWER_RE = re.compile(r"slower|faster|比.{0,8}(?:慢|快)|更慢|更快|不如", re.I)


# "8并发、16并发性能能到多少": throughput at a concurrency is a serving plan, not a memory estimate
_PERF_RE = re.compile(r"性能|吞吐|速度|throughput|tokens?\s*/\s*s|tok/s|每秒.{0,4}token", re.I)


def _default_context(f: Frame) -> int | None:
    """vLLM/SGLang start with max_model_len = the model's own maximum when none is set (vLLM engine
    args: "if unspecified, will be automatically derived from the model config")."""
    if f.context or not (set(f.engines) & {"vLLM", "SGLang"}):
        return f.context
    try:
        from tools.models import find_entry

        entry = find_entry(f.model or "")
        ctx = entry.arch.context_limit if entry is not None else None
    except Exception:  # a half-written catalog row: the tool's own default applies
        return None
    return int(ctx) if ctx else None


def serving_calls(f: Frame) -> list[ToolCall]:
    from assistant.offline.intents.plans import serving_card

    context = _default_context(f)
    if _TTFT_RE.search(f.text) and f.context:
        # one long prompt: the prompt is the context the user named, one request at a time
        prompt = int(f.context)
        return [
            A.call(
                SERVING,
                "plan_serving",
                **A.model_args(f),
                gpu=A.gpu_arg(f) or A.DEFAULT_GPU,
                gpus=f.gpu_count,
                precision=f.precision if f.precision in ("bf16", "fp16", "fp8", "int8", "int4") else None,
                input_tokens=prompt,
                output_tokens=256,
                context=prompt + 256,
                concurrency=1,
            ),
            A.call(SERVING, "gpu_specs", names=[A.card_name(f) or A.DEFAULT_GPU]),
        ]
    out = [
        A.call(
            SERVING,
            "plan_serving",
            **A.model_args(f),
            gpu=A.gpu_arg(f, gpu) if f.gpus else gpu,
            gpus=f.gpu_count,
            precision=f.precision if f.precision in ("bf16", "fp16", "fp8", "int8", "int4") else None,
            context=context,
            concurrency=f.concurrency,
            monthly_output_mtok=f.monthly_tokens / 1e6 if f.monthly_tokens else None,
        )
        for gpu in (f.gpus or [serving_card(f)])[:2]
    ]
    if len(f.gpus) >= 2 and _SLOWER_RE.search(f.text):  # compare the two cards' compute and bandwidth
        out.append(A.call(SERVING, "gpu_specs", names=[A.card_name(f, g) for g in f.gpus[:2]]))
    if _PERF_RE.search(f.text) and has_size(f):  # the single-stream figure the multi-user one grows from
        out += calls(f)
    if _ENGINE_CONCURRENCY_RE.search(f.text) and f.gpus:
        # "2×A100 部署 72B 并发多少": the weights decide first (what is left for KV after them)
        mem = dict(A.memory_kwargs(f), mode="inference", context=context, concurrency=None)
        out.append(A.call(SERVING, "estimate_memory", **mem))
    return out


def applies_rentability(f: Frame) -> bool:
    """「哪里能租H100」. With a price asked too (「济南能租H100吗？一个月多少」) the price intent answers both parts:
    whether it rents, then what it costs."""
    return (
        bool(f.gpus)
        and bool(_RENT_RE.search(f.text))
        and not has_size(f)
        and not f.budget_cny
        and "price" not in f.cues
    )


def rentability_calls(f: Frame) -> list[ToolCall]:
    return [A.call(RENTABILITY, "gpu_rentability", gpu=A.card_name(f, g)) for g in f.gpus[:3]]


# ---- sizing a service for a team: users / peak concurrency / requests per second → cards ---------
TEAM = "team_serving"

# A deployment for many people (a company knowledge base, a team chatbot, an API for an app).
_TEAM_RE = re.compile(
    r"公司|企业|团队|内部|部门|员工|知识库|日活|并发|同时|多人|多用户|客服|\d+\s*(?:个|位)?人(?:用|使用|规模)|rag|"
    r"multi-?user|many users|large number of users|concurrent|simultaneous|requests? (?:a|per) (?:day|second)|"
    r"\bqps\b|\brps\b|\bdau\b|(?:daily|monthly|weekly) (?:active )?users|as an api|serve .{0,20}users|team|company|enterprise",
    re.I,
)
# ... and a sizing question about it (what server, how much memory, how many GPUs, which cloud).
_SIZING_RE = re.compile(
    r"多少显存|(?:什么|啥|哪种|哪款|哪个)(?:样的)?(?:服务器|配置|显卡|卡|gpu)|哪种|何种|几张|几块|几台|how many gpus?|规格|配置|硬件|多少(?:张|块)?(?:卡|gpu)|部署|估算|"
    r"how much (?:gpu|vram|memory|hardware)|gpu resources|what (?:gpu|server|hardware)|which (?:gpu|server)|"
    r"scale|sizing|deploy|where can i|cheaper gpu|gpu server",
    re.I,
)
# Prompt lengths by use: RAG / knowledge-base prompts carry retrieved passages (~2k tokens).
_RAG_RE = re.compile(r"知识库|rag|检索|文档问答|knowledge base|retrieval", re.I)
# The model assumed when none is named: a 14B instruct model at INT4 is the common knowledge-base
# class (fits one 24 GB card with room for KV); its catalog row gives the real KV per token.
ASSUMED_MODEL = "Qwen2.5-14B"


def applies_team(f: Frame) -> bool:
    if f.training or f.mode not in (None, "inference") or f.budget_cny or f.deadline_hours:
        return False
    load = f.load
    said_load = bool(load.concurrency or load.requests_per_s or load.heads or f.concurrency or f.users)
    # a named model with a concurrency is a plan (plan_configurations sizes it); a team without a model,
    # or a load given as a rate / head count, is sized here
    if has_size(f) and not (load.requests_per_s or load.heads):
        return False
    return bool(_TEAM_RE.search(f.text)) and bool(_SIZING_RE.search(f.text)) and (said_load or not has_size(f))


def _from_daily(f: Frame) -> int | None:
    """「日活 500」/ "500 daily users" with no peak given: the peak concurrency by Little's law
    (tools/serving_load.py; its assumptions are stated in the answer)."""
    if not f.load.heads or f.load.requests_per_s:
        return None
    from tools.serving_load import peak_concurrency

    return peak_concurrency(f.load.heads).sized_concurrency


def team_args(f: Frame) -> dict[str, Any]:
    """plan_serving arguments for the team's load: the stated peak (or users) as concurrency, the
    stated rate as requests_per_s, RAG-length prompts for a knowledge base."""
    load = f.load
    rag = bool(_RAG_RE.search(f.text))
    inp = 2048 if rag else 1024
    out = 256
    precision = f.precision if f.precision in ("bf16", "fp16", "fp8", "int8", "int4") else None
    if precision is None and re.search(r"int-?4|4\s*bit|4位|量化|awq|gptq", f.text, re.I):
        precision = "int4"
    model = A.model_args(f) if has_size(f) else {"model": ASSUMED_MODEL}
    if not has_size(f) and precision is None:
        precision = "int4"
    return dict(
        model,
        precision=precision,
        concurrency=load.concurrency or f.concurrency or f.users or _from_daily(f),
        requests_per_s=load.requests_per_s,
        input_tokens=inp,
        output_tokens=out,
        context=max(f.context or 0, 4096 if not rag else 4096),
    )


# Not a language model: images, speech, detection — no KV cache or tokens; the load is requests.
_NON_LLM_RE = re.compile(
    r"background[- ]removal|remove background|抠图|图像|图片|image|diffusion|yolo|检测|分割|segment|whisper|语音|speech|"
    r"\btts\b|\bocr\b|vision model",
    re.I,
)


def team_calls(f: Frame) -> list[ToolCall]:
    if _NON_LLM_RE.search(f.text) and not has_size(f):
        # a small vision/speech model: one card holds it; the question is how busy that card would be
        gpu = A.card_name(f) or "RTX 4090"
        return [
            A.call(TEAM, "gpu_price", gpu=gpu, months=1),
            A.call(
                TEAM,
                "search_guide",
                query=f.text[:160] + (" 按小时 闲置 抢占式" if has_cjk(f.text) else " hourly idle spot"),
                k=2,
                doc_id="free-gpu-tiers",
            ),
        ]
    kw = team_args(f)
    # no card named: one rented per card (knowledge/rentability.yaml), the A100 PCIe beside the 4090
    gpus = f.gpus[:2] or ["A100 80GB PCIe", "RTX 4090"]
    out = [A.call(TEAM, "plan_serving", gpu=A.gpu_arg(f, g) if f.gpus else g, gpus=f.gpu_count, **kw) for g in gpus]
    # the weights and one sequence (the serving plan's paged pool sizes the concurrency)
    mem = {k: v for k, v in kw.items() if k in ("model", "params", "precision", "context")}
    out.append(
        A.call(TEAM, "estimate_memory", mode="inference", gpu=A.gpu_arg(f, gpus[0]) if f.gpus else gpus[0], **mem)
    )
    out.append(
        A.call(
            TEAM,
            "search_guide",
            query=f.text[:200]
            + (" 并发 KV cache 部署选型" if has_cjk(f.text) else " concurrency KV cache serving setup"),
            k=2,
            doc_id="inference-kv-cache",
        )
    )
    return out


# ---- several users on one Ollama: parallel slots, their KV cache, and when to switch engines ---------
OLLAMA = "ollama_parallel"
_PARALLEL_RE = re.compile(
    r"parallel|concurren|simultaneous|multi-?user|one by one|1 by 1|one at a time|at the same time|queue|"
    r"同时|并发|多人|排队|一个一个|逐个",
    re.I,
)


def applies_ollama(f: Frame) -> bool:
    return "Ollama" in f.engines and bool(_PARALLEL_RE.search(f.text)) and not f.training


def ollama_calls(f: Frame) -> list[ToolCall]:
    out = [
        A.call(
            OLLAMA,
            "search_guide",
            query=(  # the guide is chunked by language: ask in the user's
                "Ollama OLLAMA_NUM_PARALLEL 多人同时 并行 KV 缓存 批处理"
                if has_cjk(f.text)
                else "Ollama OLLAMA_NUM_PARALLEL several users parallel requests KV cache batching engines"
            ),
            k=2,
            doc_id="local-vs-api",
        )
    ]
    gpu = A.gpu_arg(f) or (f"{f.vram_gb:g}GB" if f.vram_gb else None)
    if has_size(f) and gpu:
        out.append(A.call(OLLAMA, "plan_serving", **A.model_args(f), gpu=gpu, concurrency=f.concurrency or 4))
    elif _SIZING_RE.search(f.text):  # "how much GPU for a large number of users": size it as a team's service
        out += [c for c in team_calls(f) if c.name != "search_guide"]
    return out


# ---- serving questions the guide answers before any weights estimate -----------------------------------
# Vocabulary: knowledge/serving_words.yaml; the answers: knowledge/guide/serving-sizing.md, gpu-sharing.md,
# deepseek-r1-local.md. Each rule asks the one document whose section answers it (the best section leads).
FRONTEND = "serving_frontend"  # 「ChatGPT-Next-Web 调 OpenAI API，服务器要多大」: no GPU
SHARING = "gpu_sharing"  # time-slicing / several workers or pods on one card: no memory isolation
NON_LLM = "non_llm_concurrency"  # 「FunASR 多个用户同时请求」: batching, workers, a queue
R1_LOCAL = "r1_local"  # 「本地跑 DeepSeek R1 选哪个」: the distills by VRAM, the full model is 671B
THROUGHPUT = "throughput_check"  # 「8×H200 跑 R1 1000 tokens/s 正常吗」: aggregate vs per request


@lru_cache(maxsize=None)
def _words(kind: str) -> re.Pattern[str]:
    """One word list of knowledge/serving_words.yaml, compiled as route_words.yaml is (longest first)."""
    from assistant.offline.reading.routes import _phrase
    from tools.data import load_yaml

    words = [str(w) for w in load_yaml("serving_words.yaml")[kind]]
    return re.compile("|".join(_phrase(w) for w in sorted(words, key=len, reverse=True)), re.I)


def _says(f: Frame, kind: str) -> bool:
    return bool(_words(kind).search(f.text or ""))


def _guide(intent: str, f: Frame, doc_id: str, zh: str, en: str, k: int = 3) -> ToolCall:
    """The document's sections compete for the question; the added words steer to the one that answers."""
    query = f.text[:240] + " " + (zh if has_cjk(f.text) else en)
    return A.call(intent, "search_guide", query=query[:400], k=k, doc_id=doc_id)


def applies_frontend(f: Frame) -> bool:
    """A chat front-end that calls a hosted API: the server only serves pages (no model, so no GPU). Also any app
    whose text the user says comes from an LLM it calls (「文案由调用的大模型生成」) asked for its GPU needs."""
    named = _says(f, "frontends") and (_says(f, "calls_api") or _says(f, "server_size"))
    called = _says(f, "hosted_llm") and (_says(f, "gpu_need") or _says(f, "server_size"))
    return (named or called) and "Ollama" not in f.engines and not f.training


def frontend_calls(f: Frame) -> list[ToolCall]:
    return [
        _guide(
            FRONTEND, f, "serving-sizing", "不需要 GPU 网页前端 服务器 核 内存", "no GPU front-end server vCPU RAM", k=1
        )
    ]


def applies_sharing(f: Frame) -> bool:
    """Pods or workers sharing one card (time-slicing, MPS, MIG, two workers on an A100)."""
    return _says(f, "sharing") and not f.budget_cny and not f.deadline_hours


def sharing_calls(f: Frame) -> list[ToolCall]:
    tf = bool(re.search(r"tensorflow|\btf\b|keras", f.text, re.I))
    zh = "时间片 显存隔离 TensorFlow allow_growth" if tf else "时间片 显存隔离 多个 worker 争抢 MIG MPS"
    en = (
        "time-slicing memory isolation TensorFlow allow_growth"
        if tf
        else "time-slicing memory isolation workers MIG MPS"
    )
    out = [_guide(SHARING, f, "gpu-sharing", zh, en, k=2)]
    if has_size(f) and (f.gpus or f.vram_gb):  # "两个 worker 放得下吗": the weights of one copy decide
        out.append(A.call(SHARING, "estimate_memory", **dict(A.memory_kwargs(f), mode="inference")))
    return out


def applies_non_llm(f: Frame) -> bool:
    """Many users at once on a speech/vision model: no KV cache, so batching and workers decide."""
    return _says(f, "non_llm_models") and _says(f, "concurrent_requests") and not f.training


def non_llm_calls(f: Frame) -> list[ToolCall]:
    return [
        _guide(
            NON_LLM,
            f,
            "serving-sizing",
            "语音识别 并发 批处理 多进程 worker 队列",
            "speech concurrency batching workers queue",
            k=1,
        )
    ]


def _is_full_r1(f: Frame) -> bool:
    return (f.model or "") in ("DeepSeek-R1", "DeepSeek-R1-0528") and not re.search(r"671|满血|full", f.text, re.I)


def applies_r1_local(f: Frame) -> bool:
    """「本地部署 DeepSeek R1」 on a desktop or with Ollama: the R1-Distill models by VRAM, not the 671B;
    a datacenter count ("8×H20 部署 R1") is a plan for the full model and stays with the plan rules."""
    big = bool(
        f.gpu_count
        and f.gpu_count >= 2
        and f.gpus
        and not re.search(r"\d+\s*(?:张|块)?\s*(?:40[6-9]0|30[6-9]0|50[6-9]0)", f.text)
    )
    # hundreds of GB of RAM or a measured speed ("502G 内存，4.5 tokens/s"): the full model offloaded to the CPU
    full_on_cpu = bool((f.host_ram_gb or 0) >= 128 or measured_tps(f) is not None)
    return (
        _is_full_r1(f)
        and (_says(f, "local_words") or "Ollama" in f.engines)
        and not big
        and not full_on_cpu
        and not f.training
    )


def r1_local_calls(f: Frame) -> list[ToolCall]:
    api = bool(re.search(r"\bapi\b|接口|官方|official|官网", f.text, re.I))
    zh = "蒸馏版 官方 API 满血 671B 回答质量" if api else "蒸馏版 显存 8 GB 12 GB 16 GB 24 GB 选哪个"
    en = "distill official API full 671B answer quality" if api else "distilled VRAM 8 GB 12 GB 16 GB 24 GB which size"
    # the model card (671B total, 37B active) beside the passage: the size the distills are not
    return [_guide(R1_LOCAL, f, "deepseek-r1-local", zh, en, k=2), A.call(R1_LOCAL, "lookup_model", query=str(f.model))]


# A measured generation speed the user asks about ("最高 1000 tokens/s，正不正常", "is 30 tok/s expected?")
_MEASURED_TPS_RE = re.compile(
    r"(?P<n>\d[\d,]*(?:\.\d+)?)\s*(?:k\s*)?(?:tokens?|tok|t)\s*/\s*s\b|(?P<n2>\d[\d,]*(?:\.\d+)?)\s*tps\b|"
    r"(?:每秒|一秒)(?:钟)?\s*(?:只能|只|才|能|可以)?\s*(?:出|生成|输出|吐)?\s*(?P<n3>\d[\d,]*)\s*(?:个)?\s*token",
    re.I,
)
# 「只有 deepseek 能做到 1000 token/s 才能盈亏平衡」: a speed the user needs (a target), not one they measured
_TARGET_AFTER_RE = re.compile(r"\s*(?:才能|才可以|才行|to break even|would be needed|is needed|needed)", re.I)
_NORMAL_RE = re.compile(
    r"正常|合理|理论|上限|极限|能达到|能到多少|应该(?:是|有)多少|expected|normal|reasonable|theoretical|ceiling|"
    r"is (?:this|that|it) (?:good|ok|slow|fast)|what should|should i (?:get|expect)",
    re.I,
)


_IS_IT_NORMAL_RE = re.compile(r"正常吗|正不正常|合理吗|is (?:this|that|it) normal|normal\?|expected\?", re.I)


def measured_tps(f: Frame) -> float | None:
    """The first generation speed the text gives that is not a target the user says they would need."""
    text = f.text or ""
    for m in _MEASURED_TPS_RE.finditer(text):
        if _TARGET_AFTER_RE.match(text, m.end()):
            continue
        raw = next(g for g in (m.group("n"), m.group("n2"), m.group("n3")) if g)
        return float(raw.replace(",", ""))
    return None


# "输出才5 tokens/s" is a slowness report: the cause rule (guide, fit, expected speed) answers it
_SLOW_REPORT_RE = re.compile(r"才|只有|只能|仅有?|太慢|很慢|好慢|变慢|\bslow|\bonly\b|\blow\b", re.I)


def asks_if_speed_is_normal(f: Frame) -> bool:
    """「只有30 token/s，正常吗」: a slowness report with its figure that asks whether it is normal — the comparison with
    the expected band answers that first (the cause rule's passages follow)."""
    return bool(_IS_IT_NORMAL_RE.search(f.text)) and measured_tps(f) is not None and has_size(f) and bool(f.gpus)


def applies_throughput(f: Frame) -> bool:
    """A measured tokens/s on named cards, asked whether it is normal or what the theory says: whether the
    figure is per request or aggregate decides (a slowness report goes to the cause rule instead)."""
    return (
        not _SLOW_REPORT_RE.search(f.text)
        and has_size(f)
        and bool(f.gpus)
        and measured_tps(f) is not None
        and bool(_NORMAL_RE.search(f.text))
        and not f.training
        and f.mode in (None, "inference")
    )


def throughput_calls(f: Frame) -> list[ToolCall]:
    prec = _decode_precision(f) or A.shipped_precision(f.model) or "bf16"
    card = A.card_name(f)
    seen = measured_tps(f)
    # "1000 tokens/s" is a speed, not the context the reading layer may take it for
    context = f.context if f.context and f.context != seen else 4096
    return [
        A.call(
            THROUGHPUT,
            "decode_speed",
            **A.model_args(f),
            gpu=A.gpu_arg(f),
            precision=prec,
            context=context,
            gpus=f.gpu_count or 1,
            nvlink_bridge=_bridged(f),
        ),
        A.call(THROUGHPUT, "gpu_specs", names=[card]),
        _guide(
            THROUGHPUT, f, "serving-sizing", "总吞吐 单路速度 并发", "aggregate throughput per-request concurrency", k=2
        ),
    ]
