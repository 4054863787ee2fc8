"""Bilingual slot extraction: what a question is about, read the way a person would read it.

Pure regular expressions over the lower-cased question (no jieba, no model): fast (well under a
millisecond per question) and predictable. Each extractor removes the span it consumed from a
working copy, so "1万亿token" is read as training tokens and not also as a model size, and
"预算5万" is a budget and not a count.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import math
import re
from typing import Any

from assistant.offline.reading.frame import Frame, GpuMention, ModelMention
from assistant.offline.reading.load import read_load
from assistant.offline.reading.logs import is_machine_line, is_person_line, paste_kinds
from assistant.offline.reading.quantities import read_quantities
from assistant.offline.reading.shapes import card_sizes, decline_of, mentions, network
from assistant.offline.reading.vocab import (
    NOT_A_RATE,
    ModelHit,
    canonical_gpu,
    find_models,
    gpu_known,
    gpu_vocab,
    pipeline_card_gb,
    pipeline_mention,
)
from tools.diagnosis.detect import looks_pasted
from tools.errors import ToolInputError
from tools.models import MODELSCOPE_DOT_RE
from tools.quantities import (
    parse_chinese_number,
    parse_duration_hours,
    parse_money_cny,
    parse_param_count,
    parse_token_count,
)

# ---------------------------------------------------------------- numbers ----------------------
# Chinese numerals are read by tools.quantities.parse_chinese_number; only 单/双 (a single/dual card) are ours
_SINGLE_DUAL = {"单": 1, "双": 2}
_CN_NUM = r"[零〇一二两俩三四五六七八九十百千]+|半"


def cn_to_number(text: str) -> float | None:
    """'两' → 2, '十六' → 16, '三十二' → 32, '12' → 12, '单' → 1; None if not a number."""
    text = (text or "").strip()
    if text in ("单", "双"):
        return float(_SINGLE_DUAL[text])
    try:
        return parse_chinese_number(text)
    except ToolInputError:
        return None


_NUM = rf"(?:\d+(?:\.\d+)?|{_CN_NUM})"


# ---------------------------------------------------------------- GPUs -------------------------
# Names come from knowledge/gpus.yaml (reading/vocab.py); only the shape of a variant lives here.
def _canonical_gpu(raw: str) -> str:
    return canonical_gpu(raw)


def _gpu_variant(variant: str) -> tuple[int | None, str | None]:
    mem = re.search(r"(\d{1,3})\s*g", variant, re.I)
    form = re.search(r"sxm|pcie|nvl(?!ink)", variant, re.I)
    return (int(mem.group(1)) if mem else None, form.group(0).upper() if form else None)


# ---------------------------------------------------------------- models -----------------------
# A version number glued to a family ("qwen2.5", "llama3") must not eat the size: "llama 70b" is a
# 70B Llama, not version 7 of size 0B — hence the (?!\d) after every optional version digit.
_V = r"(?:\s*-?\s*\d(?:\.\d)?(?![\d.]))?"
_FAMILIES = (
    rf"qwen{_V}(?:\s*-?\s*(?:vl|coder|math|moe))?|qwq|llama{_V}|"
    r"code\s*llama|mistral|mixtral|deepseek(?:\s*-?\s*(?:v\d(?:\.\d)?|r1|coder|llm|moe))?|"
    rf"chatglm{_V}|glm{_V}|baichuan{_V}|yi(?:\s*-?\s*1\.5)?|internlm{_V}|"
    rf"gemma{_V}|phi{_V}|falcon|bloom|opt|gpt\s*-?\s*2|gpt\s*-?\s*j|"
    rf"gpt\s*-?\s*neox|stablelm|vicuna|minicpm{_V}|kimi|moonshot"
)
_MODEL_RE = re.compile(
    rf"(?<![a-z])(?P<family>{_FAMILIES})(?:[\s\-_:]*(?:instruct|chat|base|it)?)?[\s\-_:]*"
    rf"(?P<size>(?:\d+x)?\d+(?:\.\d+)?)\s*(?P<unit>b|m)(?![a-z])",
    re.I,
)
# "deepseek r1", "ds v3", "kimi k2" — and a bare "r1" (「本地跑r1」, "run r1 on a 4090"), which in GPU questions since
# 2025 means DeepSeek-R1 (the catalog lists "r1" as its alias)
_FAMILY_ONLY_RE = re.compile(
    r"(?<![a-z])(?P<family>(?:deepseek|ds)\s*-?\s*(?:v3|r1)|kimi\s*k2|(?<![a-z0-9_\-/.])r1(?![a-z0-9\-_./]))(?![a-z0-9])",
    re.I,
)
# a token count times passes over it: "1B * 8 epoches", "1B tokens × 3 epochs", 「1B token 训 3 个 epoch」, "3 epochs over 1B
# tokens" — the tokens are one epoch's, not the run's total
_TOKENS_X_EPOCHS_RE = re.compile(
    r"\d+(?:\.\d+)?\s*[kmbt]?\s*(?:tokens?|词元)?\s*(?:[*x×]|跑|训练?|过)\s*\d+(?:\.\d+)?\s*(?:个)?\s*(?:epochs?|epoches|轮|遍)"
    r"|\d+(?:\.\d+)?\s*(?:epochs?|epoches)\s+(?:of|over|on)\s+\d+(?:\.\d+)?\s*[kmbt]\s*tokens?",
    re.I,
)
# 「折算是1B=4G的显存」「1B ≈ 2GB」: bytes per billion parameters, said as a rule — neither a 1B model nor a 4 GB card
_PER_BILLION_RE = re.compile(
    r"(?<![a-z0-9.])1\s*b\s*(?:=|≈|~|～|约等于|约为|对应|折合)\s*\d+(?:\.\d+)?\s*(?:gib|gb|g)(?![a-z])", re.I
)
_SIZE_EN_RE = re.compile(
    # 「折算是1B=4G的显存」: one billion as a conversion rate, not a 1B model
    r"(?<![a-z0-9.])(?!1\s*b\s*(?:=|≈|~|～|约等于|约为|对应|折合))(?P<size>\d+(?:\.\d+)?)\s*(?P<unit>b|m)(?![a-z])"
    # 「10B是指token的数量吗」「200M语料」「5亿字」: data, not a size
    r"(?!\s*(?:是指|指的是|是|个|的)?\s*(?:tokens?|词元|token|语料|数据|文本|汉字|字符|字|characters?|chars?\b))",
    re.I,
)
_SIZE_CN_RE = re.compile(
    rf"(?P<num>{_NUM})?\s*(?P<unit>万亿|千亿|百亿|十亿|亿)\s*(?:个)?(?:参数|参|模型|大模型|的模型|级)?"
    r"(?!\s*(?:tokens?|词元|条|字|张|元|块))"
)


def _family_name(family: str) -> str:
    """'Llama 3' → 'llama-3', 'qwen 2.5' → 'qwen2.5', 'deepseek v3' → 'deepseek-v3', 'ChatGLM 3' → 'chatglm3'."""
    f = re.sub(r"[\s_]+", "-", family.lower().strip())
    f = re.sub(r"^(llama|deepseek|code-?llama|phi|gemma|gpt)-?(?=[\dv])", r"\1-", f)
    f = re.sub(r"^(qwen|chatglm|baichuan|internlm|minicpm|glm)-?(?=\d)", r"\1", f)
    return re.sub(r"-+", "-", f)


# ---------------------------------------------------------------- keyword tables --------------
_MODE_PATTERNS: list[tuple[str, str]] = [
    (r"q-?lora|4\s*-?bit\s*lora|4比特\s*lora", "qlora"),
    # P-Tuning v2 / prefix / prompt tuning train a few prompt parameters over a frozen base: LoRA's compute (4·N·D)
    (r"lora|peft|adapter|p-?tuning|prefix[\s\-]*tuning|prompt[\s\-]*tuning", "lora"),
    (r"预训练|从头训|从零训|(?<!from_)pre-?train(?:ing)?|from scratch", "pretrain"),  # not from_pretrained()
    (
        r"全量|全参|全部参数|full[\s\-]*(?:param(?:eter)?s?[\s\-]*)?(?:fine[\s\-]*tun\w*|ft|train\w*|sft)|"
        r"fully[\s\-]*(?:fine[\s\-]*tun\w*|train\w*)|\bsft\b|full[\s\-]*tun\w*|"
        # "full" alone is full training, but not "full deployment" (满血部署: the whole model served),
        # "full precision", "full model", "full context", "full node" …
        r"\bfull\b(?![\s\-]*(?:deploy|inference|infer|serv|precision|model|version|context|node|server|machine|"
        r"blood|load|speed|power|price|month|week|day|year|time|list|size|bandwidth|nvlink|mesh))",
        "full",
    ),
    (
        r"推理|部署|上线|serving|\bserve\b|deploy\w*|inference|infer\b|vllm|sglang|跑起来|对外提供服务|api服务|聊天服务",
        "inference",
    ),
]
_MODE_RES = [(re.compile(p, re.I), v) for p, v in _MODE_PATTERNS]
# Words that mean inference when nothing in the question says training (预测 is what Chinese users call
# inference; "跑/run/运行" stay unread: "can I run a 7B" may be either, and no mode already sizes inference).
_WEAK_INFERENCE_RE = re.compile(r"预测|推断|加载|载入|出图|文生图", re.I)
_ONLY_INFERENCE_RE = re.compile(
    r"(?:只|仅|只是|只做|只用来|只用于|只要|仅做|仅用于|单纯)\s*(?:做|跑|用来|用于)?\s*(?:推理|预测|部署|推断)|"
    r"inference[\s\-]*only|only[\s\-]*(?:for[\s\-]*|do[\s\-]*|need[\s\-]*|run[\s\-]*)?inference|just[\s\-]*(?:for[\s\-]*)?inference",
    re.I,
)
# A mode word the user rules out: 暂时不考虑训练 / 不训练 / 不需要微调 / not training / no fine-tuning / without training.
_NEGATED_MODE_RE = re.compile(
    r"(?:(?:暂时|目前|现在|先|暂)?\s*(?:不考虑|不需要|不打算|不准备|不用|不做|不搞|不进行|无需|不涉及|不会|没打算|不)\s*"
    r"(?:做|进行|搞|去)?\s*(?:模型)?\s*(?:的)?\s*"
    r"|\b(?:not|no|without|never|don'?t|do not|won'?t|will not|isn'?t|aren'?t)\s+(?:(?:doing|do|any|the|need|needed|planning|plan|to|going|interested|in|for)\s+){0,3})"
    r"(?P<w>预训练|训练|微调|精调|推理|部署|pre-?train\w*|train\w*|fine[\s\-]*tun\w*|finetun\w*|sft|lora|inference|serving|deploy\w*)",
    re.I,
)


_PARALLEL_RES = {
    "tp_size": re.compile(
        r"(?:tensor[\s_\-]*(?:model[\s_\-]*)?parallel(?:ism|_size|-size| size| degree)?|\btp(?:[\s_\-]*size)?|张量并行(?:度|数)?)\s*(?:[=:：]|is|为|设为|设成|of)?\s*(\d{1,3})(?![\d.])",
        re.I,
    ),
    "pp_size": re.compile(
        r"(?:pipeline[\s_\-]*(?:model[\s_\-]*)?parallel(?:ism|_size|-size| size| degree)?|\bpp(?:[\s_\-]*size)?|流水线并行(?:度|数)?)\s*(?:[=:：]|is|为|设为|设成|of)?\s*(\d{1,3})(?![\d.])",
        re.I,
    ),
    "dp_size": re.compile(
        r"(?:data[\s_\-]*parallel(?:ism|_size|-size| size| degree)?|\bdp(?:[\s_\-]*size)?|数据并行(?:度|数)?)\s*(?:[=:：]|is|为|设为|设成|of)?\s*(\d{1,3})(?![\d.])",
        re.I,
    ),
}


_TOGETHER_RE = re.compile(
    # 「测试了A和B两个模型」 tests them one after the other: "two models" alone is no sharing, only with a card
    r"同时|一起|同一张|同一块|一张卡上.{0,12}(?:多个|两个|几个)|(?:一张|同一张|单|一块)卡.{0,12}(?:多个|两个|几个)模型|共用|共享一张|"
    r"at the same time|simultaneous\w*|together|side by side|alongside|"
    r"(?:two|multiple|several|both) models\b.{0,30}\b(?:on|in) (?:one|a single|the same) (?:gpu|card)",
    re.I,
)
_BARE_SIZES_RE = re.compile(r"(?<![a-z0-9.])(\d+(?:\.\d+)?)\s*b(?![a-z0-9])", re.I)


def _extract_co_models(text: str, s: Frame) -> None:
    """Two or more models meant to share the same card(s): each is sized and the weights are summed."""
    if not _TOGETHER_RE.search(text):
        return
    named = list(dict.fromkeys(m.catalog_id or m.text for m in s.model_mentions))
    if len(named) >= 2:
        s.co_models = named[:4]
        return
    if not named:
        sizes = list(dict.fromkeys(f"{_fmt(float(m.group(1)))}b" for m in _BARE_SIZES_RE.finditer(text)))
        if len(sizes) >= 2:
            s.co_models = sizes[:4]


def _extract_parallel(text: str, s: Frame) -> None:
    """TP / PP / DP degrees as a user writes them ("tensor_parallelism=2", "pp 8", "张量并行 4")."""
    for field, rx in _PARALLEL_RES.items():
        m = rx.search(text)
        if m and int(m.group(1)) >= 1:
            setattr(s, field, int(m.group(1)))


def _unsaid_modes(text: str) -> str:
    """The question with every ruled-out mode word blanked ("暂时不考虑训练的问题" → no training read)."""
    for m in reversed(list(_NEGATED_MODE_RE.finditer(text))):
        text = text[: m.start("w")] + " " * (m.end("w") - m.start("w")) + text[m.end("w") :]
    return text


_PRECISION_PATTERNS: list[tuple[str, str]] = [
    (r"fp8|float8", "fp8"),
    (r"bf16|bfloat16", "bf16"),
    (r"fp16|float16|半精度", "fp16"),
    (r"fp32|float32|全精度|单精度", "fp32"),
    (r"int8|8\s*-?bit(?!\s*adam)|8比特|8位量化|(?<![a-z0-9])q8_0(?![a-z0-9])", "int8"),
    # GGUF 4-bit types in a file or tag name ("-Q4_K_M.gguf", "q4_0"): llama.cpp quantize docs
    (r"int4|4\s*-?bit|4比特|4位量化|nf4|gptq|awq|(?<![a-z0-9])q4(?:_(?:k(?:_[msl])?|[01]))?(?![a-z0-9])", "int4"),
    (r"混合精度|mixed[\s\-]*precision|\bamp\b", "bf16"),
]
# "fp8 kv cache", "kv cache in int8", "--kv-cache-dtype fp8_e5m2", "KV缓存用fp8": the KV cache's dtype
_KV_DTYPE_RE = re.compile(
    r"(?:fp8|float8|int8|fp16|bf16)(?:_e[45]m[23])?\s*(?:的\s*)?(?:kv|k/v)(?:[\s_-]*(?:cache|缓存))?|"
    r"(?:kv|k/v)[\s_-]*(?:cache|缓存)[\s_-]*(?:dtype)?\s*(?:[=:：]|in|用|使用|设为|as)?\s*(?:fp8|float8|int8|fp16|bf16)(?:_e[45]m[23])?",
    re.I,
)
_OPTIMIZER_PATTERNS: list[tuple[str, str]] = [
    (r"8\s*-?bit\s*adam\w*|adam\w*\s*8\s*-?bit|8比特\s*adam\w*|paged[\s_]*adam\w*|bnb", "adamw_8bit"),
    (r"adafactor", "adafactor"),
    (r"\bsgd\b|动量", "sgd"),
    (r"adam\w*", "adamw"),
]
_ZERO_RE = re.compile(r"zero[\s\-_]*(?:stage[\s\-_]*)?([0-3])|fsdp|deepspeed", re.I)
# Training methods beyond SFT (knowledge/engines.yaml `methods`), most demanding first: "SFT+DPO" is sized as DPO.
_METHOD_PATTERNS: list[tuple[str, str]] = [
    (r"(?<![a-z])ppo(?![a-z])|rlhf|奖励模型|reward[\s_-]*model|critic|价值模型", "ppo"),
    (r"grpo|强化学习|(?<![a-z])rl(?![a-z])|reinforcement", "grpo"),
    (r"(?<![a-z])(?:dpo|ipo)(?![a-z])|dpotrainer|偏好(?:优化|对齐|数据|训练|学习)", "dpo"),
    (r"(?<![a-z])kto(?![a-z])", "kto"),
    (r"(?<![a-z])orpo(?![a-z])", "orpo"),
    (r"simpo|(?<![a-z])cpo(?![a-z])", "simpo"),
]
_HOST_RAM_RES = [
    re.compile(
        # a Chinese character may stand right before the number (「配置512G内存」): only ASCII word characters may not
        r"(?<![0-9A-Za-z_.])(?P<num>\d+(?:\.\d+)?)\s*(?P<unit>tb|t|gb|gib|g)\s*(?:的)?\s*(?:of\s+)?"
        r"(?:cpu\s*内存|系统内存|内存|(?:system\s+|main\s+|cpu\s+|host\s+)?ram\b|system memory|main memory|cpu memory)",
        re.I,
    ),
    re.compile(
        r"(?<!显)(?<!gpu)(?<!gpu )(?<!显卡)(?:cpu\s*内存|系统内存|内存|system ram|\bram\b|system memory|cpu memory|host memory)"
        r"\s*(?:只有|才|是|为|有|大小|容量|[:：])?\s*(?P<num>\d+(?:\.\d+)?)\s*(?P<unit>tb|t|gb|gib|g)(?![a-z])",
        re.I,
    ),
    # docker's --shm-size: /dev/shm is RAM-backed, so the size given is RAM the user believes the job has
    re.compile(r"shm[\s_\-]*size\s*[=:：]?\s*(?P<num>\d+(?:\.\d+)?)\s*(?P<unit>tb|t|gb|gib|g)(?![a-z])", re.I),
]


def _extract_host_ram(work: str, s: Slots) -> str:
    """The host RAM the user has ("内存1T", "cpu内存只有128G", "32gb of system ram"), decimal GB; blanked so it is
    never read as a card's memory or a token count."""
    found = [m for rx in _HOST_RAM_RES for m in [rx.search(work)] if m]
    if not found:
        return work
    # 「A800 80G\n内存32G」 (newlines are spaces by now): the size glued to the RAM word (「内存32G」) beats one a space
    # away from it (「80G 内存」), which is usually the previous line's card; otherwise the first form that matched
    m = min(found, key=lambda m: (" " in m.group(0).strip(), found.index(m)))
    unit = m.group("unit").lower()
    s.host_ram_gb = float(m.group("num")) * (1000 if unit.startswith("t") else 1)
    return _blank(work, m)


# Weak markers: words a log contains but a question about logs may contain too ("Xid 是什么").
LOG_MARKERS = re.compile(
    r"nvidia-smi\s+\d|\|\s*nvidia-smi|driver version:|cuda version:|nvrm:|"
    r"nccl (?:info|warn|error)|ncclinternalerror|ncclsystemerror|ncclunhandled|watchdog caught|"
    r"all_reduce_perf|#\s+size\s+count|out-of-place|busbw|avg bus bandwidth|"
    r"cuda out of memory|outofmemoryerror|cuda error|cudaerror|runtimeerror|traceback \(most recent|"
    r"fell off the bus|gpu has fallen|pcie bus error|aer:|device:\s*\S+\s+r/s|avg-cpu:|%util|"
    r"iowait|kernel:|\[\s*\d+\.\d+\]\s|ecc error|uncorrectable|hw slowdown|"
    r"tried to allocate|is_available\(\)",
    re.I,
)
# Strong markers: text only a machine prints; one is enough.
STRONG_LOG_MARKERS = re.compile(
    r"nvrm: xid|xid \(pci|tried to allocate \d|gpu has fallen off the bus|watchdog caught collective|"
    r"avg bus bandwidth\s*:|#\s+size\s+count\s+type|\d+\s*mib\s*/\s*\d+\s*mib|\|\s*nvidia-smi\s+\d|"
    r"gpu\s+name\s+.*persistence|^\s*gpu \d+: nvidia .*\(uuid|unable to determine the device handle|"
    r"driver on your system is too old|found version \d{4,}|is_available\(\)\)?\S*\s*(?:输出|prints?|returns?|->|→|=)?"
    r"\s*false|ncclinternalerror|ncclsystemerror|ncclunhandledcudaerror|traceback \(most recent call last\)|"
    r"^\s*\[\s*\d+\.\d+\]\s|device\s+r/s\s+|avg-cpu:\s+%user|nccl (?:info|warn) |#\s*nthread\s+\d|"
    r"#\s*using devices|^\s*\d{3,}\s+\d+\s+(?:float|half|bfloat16|double|int8|uint8|int32)\s+(?:sum|prod|max|min|avg)\b|"
    r"^\s*(?:gpu current temp|clocks (?:event|throttle) reasons|remapped rows|product name|fb memory usage|"
    r"gpu shutdown temp|hw slowdown|sw thermal slowdown|correctable error|uncorrectable error)\s*:?|"
    # shapes every Python / launcher / container log has, whatever the framework (a rule for the framework is not
    # needed to see that something was pasted): a traceback frame, an exception line, torchrun's failure summary, a
    # timestamped or levelled log line, a crash the shell reports, the Docker daemon's refusal
    r"^\s*file \"[^\"]+\", line \d+, in |^\s*(?:[a-z_][\w]*\.)*[a-z]\w*(?:error|exception): \S|childfailederror|"
    r"^\s*(?:\[rank\d+\]:\s*)?(?:info|warning|warn|error|debug|critical)\s+\d\d-\d\d \d\d:\d\d:\d\d|"
    r"^\s*\[?\d{4}-\d\d-\d\d[ t]\d\d:\d\d:\d\d[,.\d]*\]?\s*(?:-\s*)?(?:\[?(?:info|warning|warn|error|debug|critical)\b)|"
    r"segmentation fault \(core dumped\)|error response from daemon|exitcode\s*:\s*-?\d+|^\s*\[rank\d+\]:",
    re.I | re.M,
)

# Device identifiers quoted in words: PCI bus ids (00000000:3B:00.0, 3b:00.0) and GPU/MIG UUIDs
# (GPU-1b2c3d4e-…). Blanked before reading sizes, so "3B" / "1b" inside them is not a 3B / 1B model.
_IDS_RE = re.compile(
    r"(?<![\w:])(?:[0-9a-f]{4,8}:)?[0-9a-f]{2}:[0-9a-f]{2}\.[0-7](?![\w])|"
    r"\b(?:gpu|mig)-[0-9a-f]{4,}(?:-[0-9a-f]{1,12})*(?:…|\.\.\.)?",
    re.I,
)

# Question shapes → intent cues.
# 「这个35B的要8卡才能跑吗」 "do I really need 8 GPUs": a count put as a question — the least count answers it
_ASKED_COUNT = (
    r"(?:要|需要|得)\s*(?:\d+|[两二三四五六八十]+)\s*(?:张|块)?\s*(?:卡|gpu|显卡)\s*才(?:能|可以|够|行)|"
    r"\b(?:do|does|would) (?:i|we|you|it) (?:really |actually )?(?:need|require) \d+ (?:gpus|cards)\b"
)
_CUE_PATTERNS: dict[str, str] = {
    "price": r"多少钱|价格|价钱|租金|费用|月租|日租|包月|按小时|报价|贵|便宜|划算|price|cost|how much.*(?:rent|per|month|hour|day)|"
    r"expensive|cheaper|"
    r"rental|rent (?:an?|one|two|\d+)\b.*\b(?:for|per)\b|per hour|per month|hourly|monthly|cheap|"
    r"\brent\b.*\bhow much|how much\b.*\brent\b|"
    r"一个月|每小时|一小时|每月|元/",
    # 「还是OOM / 还是不行 / 还是报错」: 还是 = "still" before a failure or a verb, not "or"
    "compare": r"对比|比较|区别|哪个|性价比|"
    r"还是(?!\s*(?:oom|报错|报|不行|不能|不够|失败|很?慢|爆|会|一样|没|出现|同样|提示|显示|卡住|挂|有问题|存在|跑不|用不|起不))|"
    r"选哪|vs\.?|versus|compare|comparison|difference|"
    r"better|which (?:one|is|should)|差别|差多少|差异",
    "specs": r"规格|参数表|多大显存|显存多大|带宽|算力|功耗|tflops|tops\b|throughput|bandwidth|\btdp\b|power draw|"
    r"memory capacity|how much memory|\bfp8\b|\bbf16\b|\btf32\b|\bfp16\b|\bfp32\b|\bint8\b|nvlink|"
    r"specs?\b|specifications?|"
    r"how much (?:memory|vram) does|memory bandwidth|(?:有|支持)\s*nvlink\s*吗|nvlink\s*吗|有没有\s*nvlink|"
    r"支持\s*fp8|does (?:the |an? )?\S+ (?:have|support)|tell me about|介绍一下",
    "asked_count": _ASKED_COUNT,
    # 「至少需要多大的显存？…单卡」 asks a size, not a count: the card word must follow within the same clause
    "how_many": r"几张|几块|几卡|多少张|多少块|多少卡|几台|多少台|" + _ASKED_COUNT + "|"
    r"最少(?:(?!多大|显存)[^，。,.？?！!；;]){0,12}?(?:卡|张|gpu)|至少(?:(?!多大|显存)[^，。,.？?！!；;]){0,12}?(?:卡|张)|"
    r"(?:多少|几)个.{0,10}(?:gpu|显卡|卡)|(?:多少|几)个\s*(?:机器|节点|结点|服务器)|"
    # 「4090多卡推理 72B 支持吗」「用多张4090部署」: several cards, no count — how many is the answer
    r"多卡(?:推理|部署)|多张\s*[\w\-]{2,12}\s*(?:推理|部署)|multi-?gpu\s+(?:inference|serving|deploy)|"
    r"how many(?!\s*(?:gb|gib|mb|tb|tokens?|hours?|days?|weeks?|layers?|params|parameters|tflops|bytes|"
    r"gpu[\s-]*hours?|concurrent|users|requests))|minimum (?:number of )?gpus|fewest|min(?:imum)? gpus|at least how many|min(?:imum)?\s*(?:#|no\.)\s*of|"
    r"minimum (?:hardware|gpu|system) requirements?|"
    r"min(?:imum)?\s+(?:number\s+of\s+)?\d+\s*g(?:b|ib)?\s+(?:gpus|cards)",
    "fit": r"(?:doesn'?t|does not|won'?t|can'?t|cannot|unable to|fails? to)\s+load|加载不了|加载不上|载入不了|能不能|能否|可不可以|可以.*吗|能.*吗|行不行|够不够|够吗|够用|跑得动|跑不跑得动|装得下|放得下|塞得下|"
    r"显存|爆显存|oom|\bfit\b|fits|enough|can (?:i|we|it|a|an|one|two|\w+)|could (?:i|we)|"
    r"is it possible|possible to|vram|memory (?:do i need|needed|required|usage)|how much memory|"
    r"多少显存|要多大|需要多大|占多少|占用|kv\s*cache|kv\s*缓存|activation memory|激活(?:值)?|"
    r"optimizer states?|优化器状态|host ram|主机内存|trainable param|可训练参数",
    "max_fit": r"最大.*(?:上下文|batch|批|长度|序列|context|并发)|最长|最多.*(?:上下文|并发|batch|token)|"
    r"(?:开|支持|撑)多少(?:并发|路|上下文|batch)|多少并发|how many concurrent|max(?:imum)? concurrency|"
    r"max(?:imum)?\s*(?:context|batch|sequence|seq|micro|ctx|length)|longest|largest batch|"
    r"how long (?:of )?(?:a |the )?(?:context|prompt|sequence|ctx)|biggest batch|多长.*上下文|上下文.*多长|上下文.*最大",
    "time": r"多久|多长时间|多少时间|几天|几个小时|多少小时|多少天|要训多久|训练时间|耗时|时长|how long(?!\s+(?:of\s+)?(?:a\s+|the\s+|can\s+(?:the|my)\s+)?(?:context|prompt|sequence|input|ctx))|how many (?:days|hours)|"
    r"training time|time to train|wall[\s\-]*clock|gpu[\s\-]*hours|卡时|机时",
    "plan": r"怎么配|如何配|配置方案|什么配置|推荐.*(?:配置|方案|卡)|方案|怎么选|如何选|选什么|租什么|用什么卡|"
    r"哪种卡|选卡|配什么|用啥卡|啥卡|什么卡|哪张卡|哪款卡|什么显卡|啥显卡|哪种显卡|哪款显卡|哪张显卡|哪个显卡|什么样的显卡|最便宜的卡|which (?:card|gpu) is cheapest|cheapest (?:card|gpu)|"
    r"cheapest (?:way|setup|option|config\w*|plan|hardware)|most cost[\s-]*effective (?:way|setup|option)|"
    r"最便宜的(?:方案|配置|办法|做法)|最省钱的|"
    r"plan\b|recommend|which gpus? should|what (?:gpu|setup|config)|suggest|"
    r"best (?:gpu|option|setup|config)|configuration|setup for|budget",
    # "what does X need to run": a requirements question about a model — answered with its memory first
    # (intents/memory.applies_requirement), whatever plan words ("什么配置", "suggest") come with it
    "requirement": r"requirements?\b|\brequire[sd]?\b|(?:什么|啥)(?:样的)?(?:机器|硬件|服务器|显卡|卡|gpu)?\s*配置|"
    r"配置要求|硬件要求|最低配置|(?:要|需要|用)(?:什么|哪种|啥|多大|多少)(?:样的)?\s*(?:显卡|卡|gpu|显存|内存)|"
    r"多大(?:的)?显存|显存.{0,4}(?:多大|多少|够不够|够吗|够用|要求)|多少(?:的)?显存|够不够|够吗|能不能跑|能跑吗|"
    r"跑得(?:动|起来)|跑不(?:动|起来)|能否(?:运行|部署|跑)|can (?:i|we|it|you) (?:run|load|serve|host|train|fine[\s-]*tune)|"
    r"(?:is it|would it be) possible to (?:run|load|serve|train|fine[\s-]*tune)|how much (?:vram|gpu memory|memory)|"
    r"what (?:gpus?|hardware|cards?|setup) (?:do|would|should|is|are)|which gpus? (?:do|would|should)|"
    r"minimum (?:hardware|gpu|vram|spec)|vram (?:do i need|needed|required)|how many gb|"
    r"enough (?:vram|memory)|(?:vram|memory) enough",
    "suitability": r"(?:适合|适不适合|合适|适用于?|能不能用来|好不好用来?|行不行)\s*(?:做|用来|拿来)?\s*(?:训练|推理|部署|微调)|"
    r"(?:训练|推理|部署|微调)\s*(?:合适|适合|行不行)|"
    r"(?:good|suitable|ok|fit|worth it|any good) for (?:training|inference|serving|fine[\s-]*tuning)",
    "allreduce": r"all[\s_-]*reduce\b(?!_perf)|梯度同步|gradient sync|同步一次梯度",
    "trainable": r"trainable param|可训练参数|可训练的参数",
    "decode_speed": r"tokens?\s*/\s*s\b|tok\s*/\s*s\b|tokens? per second|tokens? a second|tps\b|"
    r"每秒(?:能|可以)?(?:生成|输出|吐|出)?\s*(?:多少|几个?)\s*(?:个)?\s*(?:token|词元|字)|"
    r"(?:解码|生成|推理|输出)速度|decode speed|decoding speed|generation speed|how fast .*(?:decode|generate)",
    "mfu": r"\bmfu\b|算力利用率|flops utili[sz]ation|model flops",
    "no_data": r"电费|电价|electricity|power bill|电力成本",
    "model_info": r"几层|多少层|层数|架构|结构|参数量是多少|有多少参数|多少个参数|kv\s*头|注意力头|词表|隐藏维度|"
    r"how many (?:parameters|params|layers)|architecture|layers does|hidden size|kv heads|vocab|"
    r"config of|参数是多少",
    "interconnect": r"nvlink|nvswitch|pcie|sxm|infiniband|\bib\b|\broce\b|rdma|互联|多卡通信|卡间通信|通信带宽|"
    r"all[\s\-_]*reduce|网络|带宽瓶颈|interconnect|network|多机|two nodes|multi[\s\-]*node|两台|"
    r"\d+\s*gbe\b|\bgbe\b|ethernet|以太网|\b(?:\d+|two|three|four|several|multiple)\s+nodes\b",
    "delivery": r"验收|交付|以次充好|验机|检查服务器|拿到机器|新机器|刚租|检查清单|checklist|acceptance|verify (?:the )?"
    r"(?:server|machine|gpus?)|just rented|delivery|what should i check|really has|paid for|"
    r"(?:check|verify) (?:that )?(?:a |the |my )?rented|货不对板|是不是真的",
    "diagnose": r"掉卡|报错|错误|日志|xid|排查|诊断|怎么回事|利用率低|利用率.*(?:低|上不去)|利用率(?:只有|才|不到|仅)|"
    r"(?:显)?卡(?:是不是)?有问题|卡坏了|是不是卡的问题|is (?:my|the|this) (?:[\w-]+ ){0,2}(?:broken|faulty|defective|dying)|"
    r"卡住|hang|timeout|超时|"
    r"diagnos|error|what does this (?:mean|log)|why is .*(?:slow|low)|utili[sz]ation (?:is )?(?:low|only|just|stuck)",
    "howto": r"怎么|如何|为什么|为啥|是什么|什么是|啥是|区别|原理|建议|注意|要点|经验|教程|讲讲|介绍|解释|"
    r"how (?:do|to|can|should|does)|why|what is|what's|what are|explain|tips?|advice|guide|best practice|"
    r"should i|when (?:to|should)|"
    # whether a thing helps at all (「nvlink对推理有用吗」「有必要上IB吗」): the guide's why, not a sizing of a setup
    r"有用吗|有没有用|有什么用|有啥用|用处|有必要|必要吗|作用是|does .{1,30}(?:help|matter)\b|"
    r"is .{1,30}(?:useful|necessary|worth it)|do i (?:really )?need (?:an? )?(?:nvlink|nvswitch|infiniband|ib|rdma)",
}
_CUE_RE = {k: re.compile(v, re.I) for k, v in _CUE_PATTERNS.items()}

_DOMAIN_RE = re.compile(
    r"gpu|显卡|显存|算力|训练|微调|推理|部署|模型|参数|cuda|nccl|nvidia|nvlink|nvswitch|sxm|rdma|gpudirect|pcie|租|服务器|机房|集群|"
    r"lora|全量|全参|token|上下文|context|batch|vram|memory|train|fine[\s\-]*tun|finetun|infer|serv|model|"
    r"rent|server|cluster|datacen|data cent|card|显卡|卡|nccl|xid|dmesg|driver|驱动|优化器|optimizer|zero|"
    r"fsdp|deepspeed|带宽|bandwidth|tflops|flops|精度|precision|bf16|fp16|fp8|量化|quant|oom|掉卡|"
    r"济南|青岛|山东|jinan|qingdao|shandong|延迟|latency|存储|storage|iostat|io瓶颈|网络|infiniband|roce|rdma|"
    r"pytorch|torch|vllm|kv\s*cache|利用率|utili[sz]|以次充好|验收|服务商|云厂商|数据加载|dataloader|"
    r"num_workers|掉卡|nvme|ssd|分布式|distributed|adam|收敛|converge|lora|量化|checkpoint|检查点|nccl|"
    r"dmesg|驱动|cuda|flash\s*attention|vllm|sglang|tensor\s*core|张量并行|流水线并行|数据并行|"
    r"机器|server|节点|node|all[\s_-]*reduce|busbw|algbw|nccl-tests|(?<![a-z])[mh]fu(?![a-z])|算力利用率|gpu[\s-]*hours?|卡时|autodl|实例",
    re.I,
)
_OUT_OF_SCOPE_RE = re.compile(
    r"天气|weather|诗|poem|poetry|笑话|joke|股票|stock price|菜谱|recipe|翻译一下|translate|小说|novel|"
    r"歌词|lyrics|足球|football|soccer|电影|movie|星座|horoscope|彩票|lottery|写一篇|写一首|write (?:a|me a) "
    r"(?:poem|story|song|essay)|who (?:is|was) the president|总统|新闻|news|高考|作文|"
    # an AI service's own accounts (sign-up, top-up, bans, someone else's key): only its support can help
    r"(?:openai|chatgpt|claude|gemini|anthropic|gpt)\s*(?:账号|帐号|的)?\s*(?:新)?(?:注册|充值|绑卡|订阅|秒封|封号|被封|"
    r"封了|风控|申诉)|(?:注册|充值|绑卡|开通).{0,6}(?:openai|chatgpt|claude|gemini|gpt)|"
    r"(?:register|sign up|recharge|top up|bind my card|pay) (?:\w+ ){0,3}(?:for |to )?(?:openai|chatgpt|claude|gemini)|"
    r"(?:contribute|share|send|give) (?:me )?(?:an? |your )?(?:openai |chatgpt )?api key|"
    r"新注册\s*(?:的)?\s*key|key\s*(?:秒封|被封|封了)",
    re.I,
)


# ---------------------------------------------------------------- the slots --------------------
Slots = Frame  # the name the renderers were written against


def cues_of(text: str) -> set[str]:
    """The question-shape cues (price, fit, how_many, …) a span of text contains; the multi-part words
    (decode speed, 'each') come from knowledge/route_words.yaml (reading/routes.part_cues)."""
    from assistant.offline.reading.routes import part_cues

    return {cue for cue, rx in _CUE_RE.items() if rx.search(text)} | part_cues(text)


def _parsed(parser: Any, text: str) -> float | None:
    """tools/quantities.py reads the span ("5万", "1万亿", "一周"); None if it refuses."""
    try:
        return float(parser(text))
    except ToolInputError:
        return None


def _first(patterns: list[tuple[str, str]], text: str) -> str | None:
    best: tuple[int, str] | None = None
    for pattern, value in patterns:
        m = re.search(pattern, text, re.I)
        if m and (best is None or m.start() < best[0]):
            best = (m.start(), value)
    return best[1] if best else None


def _all_modes(text: str) -> list[str]:
    """Every mode mentioned, in order of first mention; "qlora" is not also counted as "lora"."""
    found: dict[str, int] = {}
    taken = bytearray(len(text) + 1)  # 1 where an earlier (more specific) pattern matched: linear, not a scan per match
    for rx, value in _MODE_RES:
        for m in rx.finditer(text):
            if taken[m.start()]:
                continue
            taken[m.start() : m.end()] = b"\x01" * (m.end() - m.start())
            found.setdefault(value, m.start())
    return sorted(found, key=found.__getitem__)


def _blank(text: str, m: re.Match) -> str:
    """Replace a consumed span with spaces (keeps offsets of the rest)."""
    return text[: m.start()] + " " * (m.end() - m.start()) + text[m.end() :]


_PERIOD_UNITS = {
    "小时": ("hour", 1),
    "钟头": ("hour", 1),
    "个小时": ("hour", 1),  # 「跑了5个小时」: the regex offers it, the table lacked it
    "个钟头": ("hour", 1),
    "个星期": ("week", 168),
    "h": ("hour", 1),
    "hr": ("hour", 1),
    "hrs": ("hour", 1),
    "hour": ("hour", 1),
    "hours": ("hour", 1),
    "天": ("day", 24),
    "日": ("day", 24),
    "day": ("day", 24),
    "days": ("day", 24),
    "周": ("week", 168),
    "星期": ("week", 168),
    "礼拜": ("week", 168),
    "week": ("week", 168),
    "weeks": ("week", 168),
    "月": ("month", 720),
    "个月": ("month", 720),
    "month": ("month", 720),
    "months": ("month", 720),
    "年": ("year", 8760),
    "year": ("year", 8760),
    "years": ("year", 8760),
}
_PERIOD_RE = re.compile(
    rf"(?P<num>{_NUM}|an?|one|two|three|four|five|six|ten|twelve)?\s*(?:\+|＋|多|余|来)?\s*(?:多|余)?\s*"
    # an English unit starts a word ("torchrun" holds no "hr", "weekday" no "day"); a count may touch it ("3h")
    r"(?P<unit>个月|个小时|个钟头|小时|钟头|个星期|星期|礼拜|周|天|日|月|年|"
    r"(?<![a-z])(?:hours?|hrs?|h(?![a-z0-9])|days?|weeks?|months?|years?))",
    re.I,
)
_EN_WORD_NUM = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "ten": 10,
    "twelve": 12,
}
_PERIOD_WORDS = {
    "包月": ("month", 1),
    "月租": ("month", 1),
    "按月": ("month", 1),
    "每月": ("month", 1),
    "per month": ("month", 1),
    "monthly": ("month", 1),
    "a month": ("month", 1),
    "包年": ("year", 1),
    "按年": ("year", 1),
    "per year": ("year", 1),
    "yearly": ("year", 1),
    "日租": ("day", 1),
    "按天": ("day", 1),
    "每天": ("day", 1),
    "per day": ("day", 1),
    "daily": ("day", 1),
    "按小时": ("hour", 1),
    "每小时": ("hour", 1),
    "一小时": ("hour", 1),
    "per hour": ("hour", 1),
    "hourly": ("hour", 1),
    "an hour": ("hour", 1),
    "按周": ("week", 1),
    "per week": ("week", 1),
    "weekly": ("week", 1),
}


def _word_num(s: str | None) -> float | None:
    if not s:
        return None
    s = s.strip().lower()
    if s in _EN_WORD_NUM:
        return float(_EN_WORD_NUM[s])
    return cn_to_number(s)


# A question is capped at 200,000 characters, but what a person asks sits at the start and the end of
# a long paste (the question before it, "is this normal?" after it); the middle is material. The
# slot regexes read a bounded window, so the cost per question does not grow with a pasted wall of
# text (log detection still reads everything, in one linear pass).
_READ_HEAD = 6000
_READ_TAIL = 2000


def _reading_window(text: str) -> str:
    if len(text) <= _READ_HEAD + _READ_TAIL:
        return text
    return text[:_READ_HEAD] + " ; " + text[-_READ_TAIL:]


# A command-line option the user says is switched off — a commented-out line of a pasted command
# (「# --gradient_checkpointing」) or 「注释掉了 --quantization_bit 4」/ "removed --load_in_4bit": it and its value
# are not the job's settings, so neither the precision nor the method is read from them.
_DISABLED_FLAG_RE = re.compile(
    r"^[ \t]*#[ \t]*--?[a-z][\w.-]*[^\n]*$|"
    r"(?:注释掉了?|注释了|去掉了?|删掉了?|删除了?|关掉了?|禁用了?|commented[ -]out|removed|without|dropp(?:ed|ing))\s*(?:the\s+)?"
    r"[`'\"]?--?[a-z][\w.-]*(?:[ =]+(?!--)[\w.]+)?[`'\"]?",
    re.I | re.M,
)


_VRAM_MIB_RE = re.compile(
    r"(?:显存|vram|gpu memory)\s*(?:只有|仅有|就|才|是|为|有|大小|容量|is|of|:|：)?\s*(?:只有|是|约|大约)?\s*"
    r"(?P<mib>\d{4,6})\s*(?:mib|mb)(?![a-z])",
    re.I,
)


_LAYER_OFFLOAD_RE = re.compile(
    r"offload(?:ed|ing|s)?\s+(?:\d+\s*/\s*\d+\s+|\d+\s+|all\s+|the\s+|some\s+|more\s+)?(?:repeating\s+)?layers?"
    r"(?:\s+(?:on)?to\s+(?:the\s+)?gpu)?|(?:number\s+of\s+)?layers?\s+(?:to\s+)?offload\w*(?:\s+to\s+(?:the\s+)?gpu)?|"
    r"layers?\s+(?:on)?to\s+(?:the\s+)?gpu|offload(?:ed|ing)?\s+(?:on)?to\s+(?:the\s+)?gpu|"
    r"(?<![\w-])-ngl\b|n[-_]gpu[-_]layers|num[-_]gpu\b|gpu[-_]layers|"
    r"(?:层|layer)[^，。\n]{0,6}(?:放到|卸载到|offload\s*到|加载到)\s*(?:gpu|显卡|显存)",
    re.I,
)


# 「2.70B的模型…（TigerBot-70B）」: a list number at a line's start glued to a size written again elsewhere
_LIST_SIZE_RE = re.compile(r"(?m)^(?P<mark>\s*\d{1,2}\.)(?P<size>\d{2,3})\s*(?P<unit>[bB])(?![a-zA-Z])")


def _blank_list_markers(work: str) -> str:
    """Blank the list number of 「2.70B的模型」 when "70B" appears elsewhere in the text (TigerBot-70B): no one
    writes a 2.7B model as 2.70B, and the other mention says which size is meant. Offsets are kept."""
    for m in reversed(list(_LIST_SIZE_RE.finditer(work))):
        size = m.group("size").lstrip("0")
        rest = work[: m.start()] + work[m.end() :]
        if size and re.search(rf"(?<![\d.]){size}\s*[bB](?![a-zA-Z])", rest):
            work = work[: m.start("mark")] + " " * len(m.group("mark")) + work[m.end("mark") :]
    return work


def extract(question: str) -> Slots:
    """Read one question into `Slots` (no history; see followups.merge for that).

    The planner reads the same question up to three times per answer (plan, second round,
    compose); the result is cached and each caller gets its own copy to change."""
    return copy.deepcopy(_extract_cached(question or ""))


@functools.lru_cache(maxsize=32)  # a chat re-reads its recent turns; 32 × 200k chars at most
def _extract_cached(question: str) -> Slots:
    return _extract(question)


def _extract(question: str) -> Slots:
    s = Slots()
    raw = question or ""
    s.log_kinds = paste_kinds(raw)
    s.is_log = bool(s.log_kinds) or _looks_like_log(raw)
    # a paste's own lines never count; a told measurement or RAM fault in a sentence or two is all the user's words
    told = bool(s.log_kinds) and set(s.log_kinds) <= {"line_rate", "host_memory"} and not looks_pasted(raw)
    own_words = _reading_window(user_words(raw) if s.is_log and not told else raw)
    own_words = _DISABLED_FLAG_RE.sub(" ", own_words)  # 「注释掉了--quantization_bit 4」: that setting is off
    own_words = _blank_list_markers(own_words)  # before the lines are joined: a list number starts a line
    if s.is_log:  # read the question's own words, not GPU names or "3B" inside a bus id
        text = own_words.lower().replace("×", "x").replace("，", ",")
    else:
        text = own_words.lower().replace("×", "x").replace("＊", "*").replace("，", ",").replace("？", "?")
    text = re.sub(r"[\u3000\s]+", " ", text)
    text = MODELSCOPE_DOT_RE.sub(".", text)  # 「Qwen1___5-7B-Chat」 (a ModelScope folder) is Qwen1.5-7B-Chat
    text = _IDS_RE.sub(" ", text)  # "3B:00.0", "GPU-1b2c…" are device ids, never model sizes
    text = re.sub(r"(?<=[a-z]{3})(?<!the)\s+-(?=\d+(?:\.\d+)?\s*[bm](?![a-z]))", "-", text)  # "llama -13b" is llama-13b
    s.out_of_scope = bool(_OUT_OF_SCOPE_RE.search(text))
    s.in_domain = bool(_DOMAIN_RE.search(text)) or s.is_log
    work = _PER_BILLION_RE.sub(lambda m: " " * len(m.group(0)), text)  # 「1B=4G」: a rate, not a model nor a card
    work = _extract_reported_memory(work, s)
    work = _extract_host_ram(work, s)  # "400G内存" / "32 GB of system RAM": host RAM, not a card's memory

    # --- the user's own price quotes: 按小时 2 元 / 2元/小时 / ¥5 per hour / 包月 1200 元 / ¥3,000 per month --
    work = _extract_quotes(work, s)

    # --- budget: 预算5万 / 5万块 / budget 50k / ¥30000 / 3万元 ------------------------------
    m = re.search(
        rf"(?P<word>预算|budget(?: of| is)?|经费|不超过|最多花|花)\s*(?:[:：是为]|大概|约|只有|in)?\s*"
        rf"(?P<cur>¥|￥|rmb|cny)?\s*(?P<num>\d+(?:\.\d+)?|{_CN_NUM})\s*(?P<unit>万|千|k|w)?\s*"
        r"(?P<yuan>元|块|rmb|cny|yuan)?",
        work,
        re.I,
    )
    if m and m.group("word") == "不超过" and not (m.group("cur") or m.group("unit") or m.group("yuan")):
        m = None  # 「长度不超过300就可以」: a limit on something else, not money
    if not m:
        m = re.search(
            rf"(?:¥|￥)\s*(?P<num>\d+(?:\.\d+)?)\s*(?P<unit>万|千|k|w)?|"
            rf"(?P<num2>\d+(?:\.\d+)?|{_CN_NUM})\s*(?P<unit2>万|千|k|w)?\s*(?:元|块钱|块(?!\s*(?:gpu|卡|显卡|(?:(?:nvidia|geforce|tesla|英伟达)\s*)*[a-z]*\s*\d{{2,4}}))|rmb|cny|yuan)",
            work,
            re.I,
        )
    if m:
        groups = m.groupdict()
        amount = (groups.get("num") or groups.get("num2") or "") + (groups.get("unit") or groups.get("unit2") or "")
        s.budget_cny = _parsed(parse_money_cny, amount)
        if s.budget_cny is not None:
            work = _blank(work, m)

    # --- deadline: 一周内 / 3天内 / within a week / in 10 days ---------------------------------
    m = re.search(
        rf"(?P<num>{_NUM})?\s*(?P<unit>个月|个小时|小时|周|星期|天|日)\s*(?:之内|以内|内|完成|搞定|训完|跑完)", work
    )
    if not m:
        m = re.search(
            r"(?:within|in|under|less than|by)\s+(?P<num>\d+(?:\.\d+)?|an?|one|two|three|four|five|six|ten)?"
            r"\s*(?P<unit>hours?|days?|weeks?|months?)",
            work,
            re.I,
        )
    if m:
        n = _word_num(m.group("num")) or 1.0
        s.deadline_hours = _parsed(parse_duration_hours, f"{n:g}{m.group('unit').lower()}")
        work = _blank(work, m)

    # --- GPUs and counts ---------------------------------------------------------------------
    work = _extract_gpu_hours(work, s)
    work = _laptop_by_power(work)  # before the names are read: 「3080，最高165w功耗」 is the laptop part
    work = _extract_gpus(work, s)
    # --- training tokens: 1万亿token / 1T tokens / 300B tokens / 2T ----------------------------
    # the first count large enough to be a corpus: 「每步 262144 个token，总共 20B token」 is 20B, not the per-step figure
    m = next(
        (
            x
            for x in re.finditer(
                rf"(?<!\d)(?<!\d,)(?P<num>\d{{1,3}}(?:,\d{{3}})+|\d+(?:\.\d+)?|{_CN_NUM})\s*"
                r"(?P<unit>万亿|千亿|百亿|亿|万|t|b|m|trillion|billion|million)?\s*(?:个)?\s*(?:tokens?|词元|token数据|tok\b)",
                work,
                re.I,
            )
            if x.group("unit") or float(cn_to_number(x.group("num").replace(",", "")) or 0) >= 1e6
        ),
        None,
    )
    if m:
        num = m.group("num").replace(",", "")
        s.tokens = _parsed(parse_token_count, num + (m.group("unit") or ""))
        work = _blank(work, m)
    else:
        m = re.search(r"(?<![\w.])(?P<num>\d+(?:\.\d+)?)\s*t(?![a-z0-9])", work, re.I)  # "2T" alone
        if m:
            s.tokens = _parsed(parse_token_count, m.group("num") + "T")
            work = _blank(work, m)

    if not s.is_log or "line_rate" in s.log_kinds:  # a told measurement ("8 × 100G NICs, reaches 600Gbps") is read too
        work = _extract_conversion(work, s)
        work = _extract_algbw(work, s)
        work = _extract_measured_busbw(work, s)
    # "8*80G够用吗" / "8x80GB" / "8×80G" / "24G*8" / "two 24gb cards": that many cards of that memory size
    m = (
        re.search(r"(?<![0-9a-z.])(?P<n>\d{1,2})\s*[x×*]\s*(?P<num>\d{2,3})\s*g(?:b|ib)?(?![a-z0-9])", work, re.I)
        or re.search(r"(?<![0-9a-z.])(?P<num>\d{2,3})\s*g(?:b|ib)?\s*[x×*]\s*(?P<n>\d{1,2})(?![0-9a-z.])", work, re.I)
        or re.search(
            r"\b(?P<n>two|three|four|six|eight|\d)\s+(?P<num>\d{2,3})\s*(?:g|gb|gib)\s*(?:vram\s*)?(?:cards?|gpus?)\b",
            work,
            re.I,
        )
    )
    if m and not s.gpus and s.vram_gb is None and 4 <= float(m.group("num")) <= 288:
        # the stated "8*" beats a count of 1 read from 「单机」 (one server, not one card)
        said = m.group("n").lower()  # not `raw`: that is the whole message, read again below for the paste
        n = int(said) if said.isdigit() else _EN_COUNT.get(said, 1)
        s.vram_gb, s.gpu_count = float(m.group("num")), n if s.gpu_count in (None, 1) else s.gpu_count
        work = _blank(work, m)
    m = re.search(
        # 「70B模型需要280G显存」: a requirement someone states, not the user's card
        r"(?<!需要)(?<!需要 )(?<![需要占])(?<![需要占] )(?<![\d.])"
        r"(?P<num>\d{1,3})\s*(?:g|gb|gib)\s*(?:的)?\s*(?:显存|的卡|的显卡|显卡|卡|vram|memory|card|gpu)",
        work,
        re.I,
    ) or re.search(  # 「8卡，每张卡40G」「8卡40G」: the memory of each card, said after the count
        r"(?:每张卡?|每块卡?|每卡|(?<=\d卡)|单卡(?=\s*\d{1,3}\s*g(?:b|ib)?\s*[，,、]?\s*(?:共|一共)?\s*"
        r"(?:\d+|[两二三四五六八十]+)\s*(?:张|块|卡)))\s*(?:的)?\s*(?:显存)?\s*(?:是|为|有)?\s*(?P<num>\d{1,3})\s*(?:g|gb|gib)(?![a-z0-9])",
        work,
        re.I,
    )
    # "on 24GB", "用24G跑", "24GB能跑多长上下文": a memory size standing for the card
    m = (
        m
        or re.search(
            r"(?:\bon|\bwith|(?<!占)用|在)\s*(?:an?\s+|one\s+)?(?P<num>\d{1,3})\s*(?:g|gb)(?![a-z0-9])", work, re.I
        )
        or re.search(r"^\s*(?P<num>\d{1,3})\s*(?:g|gb)\s*(?=能|可以|上|跑)", work, re.I)
        # 「fp16精度下20G也能够吗」: a bare size asked about after a setting, standing for the card
        or re.search(r"(?<=[下上])\s*(?P<num>\d{1,3})\s*(?:g|gb)\s*(?=也?(?:能|够|可以|行))", work, re.I)
        # "显存24G" / 「显存只有16g」 / "VRAM is 12GB" / "12GB of VRAM": the size after (or of) the memory word
        or re.search(
            r"(?:显存|vram|gpu memory)\s*(?:只有|仅有|就|才|是|为|有|大小|容量|is|of|:|：)?\s*(?:只有|是)?\s*"
            r"(?P<num>\d{1,3})\s*(?:g|gb|gib)(?![a-z0-9])",
            work,
            re.I,
        )
        or re.search(r"(?P<num>\d{1,3})\s*(?:g|gb|gib)\s+of\s+(?:vram|gpu memory)", work, re.I)
        # 「一块80G跑不起」「单张24G」: a card counted by its memory, not host RAM
        or re.search(
            r"(?:(?<![\d.])(?:一|1)\s*(?:块|张)|单张|单块)\s*(?P<num>\d{1,3})\s*(?:g|gb|gib)(?![a-z0-9])(?!\s*(?:的)?\s*内存)",
            work,
            re.I,
        )
    )
    if m and not s.gpus and 4 <= float(m.group("num")) <= 288:
        s.vram_gb = float(m.group("num"))
        after = re.match(r"\s*[，,、]?\s*(?:共|一共)?\s*(\d+|[两二三四五六八十]+)\s*(?:张|块|卡)", work[m.end() :])
        if m.group(0).startswith("单卡") and after:  # 「单卡46G八张卡」: 单卡 is each card's memory, the count follows
            s.gpu_count = int(cn_to_number(after.group(1)) or 1)
        work = _blank(work, m)
    # 「显存只有8000MiB」/ "VRAM is 12288 MiB" (a vGPU slice, nvidia-smi's figure): the card's memory in GiB
    mib = None if (s.gpus or s.vram_gb) else _VRAM_MIB_RE.search(work)
    if mib and 4 <= int(mib.group("mib")) / 1024 <= 288:
        s.vram_gb = round(int(mib.group("mib")) / 1024, 1)
        work = _blank(work, mib)
    # --- context length: 4k上下文 / 32k / context 8192 / seq len 2048 ---------------------------
    m = re.search(
        # not a CPU's model number ("i9-13900K", "i7-12700k")
        r"(?<![a-z0-9.\-])(?P<num>\d+(?:\.\d+)?)\s*(?P<k>k|千)\s*(?:的)?\s*(?:上下文|context|ctx|序列|长度|tokens?|seq)?"
        # "50k requests a day" / "5千次" count something else
        r"(?![a-z0-9])(?!\s*(?:requests?|calls?|queries|users?|people|samples?|steps?|次|条|个|人|张))"
        # 「150k的llava数据集」: a dataset's size in items, not a context
        r"(?!\s*(?:的)?\s*(?:(?!上下文|context|ctx|tokens?|序列)[\w\-]){0,12}\s*(?:数据集|数据|dataset|样本|图片|images?|videos?))",
        work,
        re.I,
    )
    if m:
        s.context = int(float(m.group("num")) * 1024)
        work = _blank(work, m)
    else:
        m = re.search(
            # 「token长度设置的8192」「长度设成4096」: the setting verb between the word and the number
            r"(?:上下文|context(?: length)?|ctx|seq(?:uence)?[\s_]*(?:len(?:gth)?)?|序列长度|长度)\s*"
            r"(?:设置的|设置成|设置为|设成|设为|设到|设的|开到|调到|set to)?\s*"
            r"(?:[:=：是为]|of)?\s*(?P<num>\d{3,7})(?!\d|[,.]\d)",
            work,
            re.I,
        ) or re.search(
            # the whole number: "53,136 tokens" is not a context of 136
            # and not a speed: "1000 tokens/s" is a rate (the (?!…) after tokens)
            r"(?<!\d)(?<!\d[,.])(?P<num>\d{3,7})[\s-]*(?:的)?\s*(?:上下文|context|ctx|序列长度|seq|"
            r"tokens?\b(?!\s*(?:/\s*s|每秒|per\s*s|a\s*second|/\s*sec))|token 的)",
            work,
            re.I,
        )
        if m:
            s.context = int(m.group("num"))
            work = _blank(work, m)

    # --- batch: batch 8 / bs=16 / micro batch 4 / 批大小8 --------------------------------------
    m = re.search(
        r"(?:micro[\s_\-]*)?(?:batch(?:[\s_\-]*size)?|bs|mbs|批大小|批次大小|批量|批次)\s*(?:[:=：是为]|of)?\s*"
        r"(?P<num>\d+)",
        work,
        re.I,
    )
    if m:
        s.batch = int(m.group("num"))
        work = _blank(work, m)

    # --- concurrency: 并发 32 / 32 concurrent users -------------------------------------------
    # "并发 8" wins over "32768 并发": in "max_model_len 32768 并发 8" the 32768 belongs to the setting before it
    m = re.search(
        r"(?:并发|concurrency|concurrent(?: users| requests)?)\s*(?:[:=：是为]|of)?\s*(?P<num>\d+)", work, re.I
    ) or next(
        (
            c
            for c in re.finditer(
                r"(?<![\w.])(?P<num>\d+)\s*(?:路|个)?\s*(?:并发|concurrent|users|个用户|用户|路)", work, re.I
            )
            if not re.search(r"[a-z]+_[a-z_]+\s*[=:：]?\s*$", work[: c.start()], re.I)  # a setting's own value
        ),
        None,
    )
    if m:
        s.concurrency = int(m.group("num"))
        work = _blank(work, m)

    # --- model names and sizes ---------------------------------------------------------------
    work = _extract_model(work, s, text)
    _extract_co_models(text, s)

    # --- price period: 一个月 / 10 hours / 3天 / 包月 -------------------------------------------
    _extract_period(work, s)

    # --- modes, precision, optimizer, ZeRO ------------------------------------------------------
    _extract_parallel(text, s)
    text = _unsaid_modes(text)  # "暂时不考虑训练" / "not training": a mode the user rules out is not read
    s.mode = _first(_MODE_PATTERNS, text)
    s.modes = _all_modes(text)
    if s.mode is None and re.search(r"微调|fine[\s\-]*tun|finetun|\bft\b|sft|精调", text, re.I):
        s.finetune = True
    # llama.cpp / Ollama / accelerate put layers on the GPU ("offloaded 0/41 layers to GPU", -ngl): an inference
    # setting, not the ZeRO optimizer offload that marks a training question
    s.training = bool(
        re.search(
            r"训练|训|train|微调|fine[\s\-]*tun|finetun|预训练|adam|优化器|optimizer|梯度|"
            r"gradient|activation|激活|offload|zero|fsdp|deepspeed|lora|trainable",
            _LAYER_OFFLOAD_RE.sub(" ", text),
            re.I,
        )
    )
    if re.search(
        r"no (?:activation )?recomputation|without (?:activation |gradient )?checkpointing|"
        r"no (?:gradient |activation )?checkpointing|不开(?:梯度)?检查点|不重算|关闭重计算|不做重计算",
        text,
        re.I,
    ):
        s.checkpointing = "none"
    elif re.search(r"selective (?:activation )?recomputation|选择性重计算", text, re.I):
        s.checkpointing = "selective"
    if re.search(r"offload|卸载", text, re.I) and not re.search(
        r"(?:不许|不要|不用|不能|不开|不做|关闭|禁用|no|without|not|don't)\s*(?:cpu\s*)?(?:offload|卸载)", text, re.I
    ):
        s.offload = (
            "optimizer_and_params"
            # 「优化器和模型都 offload」: the model's parameters go to the CPU too
            if re.search(r"param|参数|权重|weights|和模型|模型都|模型也|model too|both", text, re.I)
            and re.search(r"zero[\s-]*3|fsdp|[\"']stage[\"']\s*:\s*3", text, re.I)  # a DeepSpeed JSON's "stage": 3
            else "optimizer"
        )
    m = re.search(r"(?:rank|秩|\br)\s*[=:]?\s*(\d{1,3})\b", text, re.I)
    if m and re.search(r"lora", text, re.I):
        s.lora_rank = int(m.group(1))
    targets = re.findall(r"\b([qkvo]|gate|up|down)_proj\b", text, re.I)
    if targets:
        s.lora_targets = ",".join(dict.fromkeys(t.lower() for t in targets))
    s.method = _first(_METHOD_PATTERNS, text)  # DPO / GRPO / PPO …: tools/memory_methods.py
    s.training = s.training or s.method is not None
    if _ONLY_INFERENCE_RE.search(text) or (
        s.mode is None and not s.training and not s.finetune and _WEAK_INFERENCE_RE.search(text)
    ):
        # "只推理" / "inference only" wins; "跑/run/load/加载" count as inference only when nothing says training
        s.mode = "inference"
        s.modes = ["inference", *[m for m in s.modes if m != "inference"]]
        if _ONLY_INFERENCE_RE.search(text):
            s.training = s.finetune = False
    kv = _KV_DTYPE_RE.search(text)
    if kv:  # "vllm w/ fp8 kv cache": the cache's dtype; the weights' precision is read without those words
        s.kv_dtype = next(v for rx, v in _PRECISION_PATTERNS if re.search(rx, kv.group(0), re.I))
        text = _blank(text, kv)
    own = _without_alternative_quants(_without_other_models_quants(text, s))
    s.precision = _first(_PRECISION_PATTERNS, own)
    _read_weight_quant(own, s)
    if (
        s.precision == "int4"
        and (s.mode == "lora" or (s.mode is None and s.finetune))
        and "inference" not in s.modes
        and "full" not in s.modes
    ):
        # "fine-tune it, 4bit is enough" / "lora on a 4-bit base": training on a 4-bit base is QLoRA
        s.mode, s.modes, s.finetune = "qlora", [m for m in s.modes if m != "lora"] + ["qlora"], False
    s.optimizer = _first(_OPTIMIZER_PATTERNS, text)
    stage = re.search(
        r"zero[\s\-_]*(?:stage[\s\-_]*)?([0-3])|(?<![a-z])sta(?:g|t)e[\s_\-]*([1-3])(?![\d.])|ds_z([0-3])(?:_offload)?_config",
        text,
        re.I,
    )
    if stage:  # "stage 2", "deepspeed_stage_2", the typo "state_2", LLaMA-Factory's ds_z2_config.json
        s.zero_stage = int(stage.group(1) or stage.group(2) or stage.group(3))
    elif _ZERO_RE.search(text):
        s.zero_stage = 3  # "FSDP" / "DeepSpeed" without a stage: full sharding

    # --- impossible inputs: a negative model size, a fraction of a GPU, zero GPUs --------------------
    # a size in e-notation ("1e999B", "7e9 参数"): read when it is a real size, refused when it is not finite or
    # larger than any model (never left unread, which answers a sizing question with an unrelated passage)
    sci = re.search(r"(?<![A-Za-z0-9_.])(\d+(?:\.\d+)?e[+-]?\d+)\s*(b(?![a-z])|参数|params?|parameters)", text, re.I)
    if sci and s.params_b is None:
        value = float(sci.group(1))
        billions = value if sci.group(2).lower() == "b" else value / 1e9
        if not math.isfinite(billions) or billions <= 0 or billions > 100_000:
            s.invalid.append(
                (
                    f"模型大小「{sci.group(0).strip()}」不是一个真实的参数量（最大的模型也只有几万亿参数）。",
                    f"'{sci.group(0).strip()}' is not a real parameter count (the largest models have a few trillion).",
                )
            )
        else:
            s.params_b = billions
    # not the hyphen of a name written apart ("Llama -13B", "qwen -7b"): a word just before (not "a"/"the")
    m = re.search(r"(?:(?<![\w.])(?<![a-z]{3} )-|(?<=\bthe )-|负)\s*(\d+(?:\.\d+)?)\s*([bm]|亿)(?![a-z])", text, re.I)
    if m:
        s.invalid.append(
            (
                f"模型大小不能是负数（「{m.group(0).strip()}」）。请给出正的参数量。",
                f"A model size cannot be negative ('{m.group(0).strip()}'); give a positive parameter count.",
            )
        )
    m = re.search(
        r"(?<![\d.])(\d*\.\d+|0)\s*(?:张|块|个)?\s*(?:gpus?|cards?|卡|张|块)(?![a-z])(?![\s\-]*(?:days?|hours?|hrs?|h\b|天|小时|时))",
        GPU_INDEX_RE.sub(lambda mm: " " * (mm.end() - mm.start()), text),
        re.I,
    )
    # 「用-3张4090」 "-2 gpus": a negative count (not the dash of a range 「2-3张」, a digit precedes that one)
    neg = re.search(r"(?<![A-Za-z0-9_.])[-‑−–]\s*(\d+)\s*(?:张|块|个)?\s*(?:gpus?|cards?|卡|张|块)", text, re.I)
    if neg and not s.invalid:
        s.invalid.append(
            (
                f"卡数不能是负数（「{neg.group(0).strip()}」）：至少 1 张。",
                f"A GPU count cannot be negative ('{neg.group(0).strip()}'); use at least 1.",
            )
        )
    if m and m.group(1) == "0" and re.match(r"\s*(?:内存|报|oom|out of|溢出|爆|不足|挂|崩)", text[m.end() :], re.I):
        m = None  # 「多卡启动会报0卡内存不足」: card 0 (the first card's index), not a count of zero
    if m and not float(m.group(1)).is_integer() or (m and float(m.group(1)) == 0):
        s.invalid.append(
            (
                f"GPU 只能按整张租用，「{m.group(0).strip()}」不是有效的卡数（至少 1 张）。",
                f"GPUs are rented as whole cards; '{m.group(0).strip()}' is not a valid GPU count (at least 1).",
            )
        )

    # a negative or non-finite price, duration or budget ("-3 元/小时", "inf 小时", "nan 天"): never read as 1 hour or ¥3
    m = re.search(
        r"(?:(?<![\w.])[-‑−–]\s*\d[\d,]*(?:\.\d+)?|(?<![a-z])(?:inf(?:inity)?|nan)(?![a-z]))\s*"
        r"(?:元|块|rmb|cny|yuan|个?小时|钟头|hours?|hrs?|h(?![a-z])|天|days?|周|weeks?|个?月|months?)",
        text,
        re.I,
    )
    if m:
        s.invalid.append(
            (
                f"价格、时长和预算必须是有限的正数（「{m.group(0).strip()}」）。",
                f"Prices, durations and budgets must be finite positive numbers ('{m.group(0).strip()}').",
            )
        )

    # --- intent cues ------------------------------------------------------------------------------
    s.cues |= cues_of(text)
    read_quantities(s, text, own_words)
    s.load = read_load(own_words)
    s.text, s.paste = own_words, (raw if s.is_log else None)
    # the quantity reader's tags (data_unit:*, progress_bar) are kept
    s.mentions, s.card_sizes, s.network = mentions(text, raw) | s.mentions, card_sizes(own_words), network(own_words)
    if s.tokens and s.epochs and _TOKENS_X_EPOCHS_RE.search(text):
        s.mentions.add("tokens_per_epoch")  # 「1B * 8 epoches = 8B tokens」: the token count is one pass
    if s.network is None and s.link_name and re.match(r"\d+G\b", s.link_name):
        s.network = s.link_name  # 「万兆网」: the quantity reader's link rate, in the form the interconnect tool reads
    if s.is_log and re.search(r"outofmemoryerror|cuda out of memory", raw, re.I):
        s.mentions.add("oom_report")  # a pasted OOM is "I get OOM with this setup": line 1 says what to change
    s.decline = decline_of(text)
    if s.params_b and s.model == f"{_fmt(s.params_b)}b" and not s.model_mentions and not s.is_log:
        from assistant.offline.reading.unknown_names import name_before_size

        named = name_before_size(own_words, s.params_b)  # "KnowLM 13B": the name the generic size stands for
        if named:
            s.model = f"{named}-{_fmt(s.params_b)}b"
            s.model_mentions.append(ModelMention(text=s.model, catalog_id=None, size_b=s.params_b))
    if not s.is_log and (s.cues & {"fit", "requirement", "how_many", "max_fit"} or "asked_hardware" in s.mentions):
        if not (s.model or s.params_b):
            _family_default(text, s)  # "LoRA on LLaMA, 24gb enough?": the family's 7B-class size, said on line 1
        elif s.params_b and s.model == f"{_fmt(s.params_b)}b" and not s.model_mentions:
            _family_with_size(text, s)  # "llama3 要多少 … 70b 呢": the family in its default size and in 70B
    if not s.precision and s.params_b and not s.is_log:
        s.precision = _precision_of_stated_size(text, s.params_b)  # "70b that size's is 40gb": a 4-bit file
        if s.precision:
            s.mentions.add("precision_from_stated_size")
    s.pipeline = pipeline_mention(own_words or text)
    if s.pipeline:
        # the size or LLM name read beside it ("Wan2.1 1.3B", "CogVideoX-5B", its Qwen2.5-VL text encoder) is part
        # of the pipeline: sizing it as a generic dense LLM would answer another question
        s.model, s.params_b, s.model_mentions, s.co_models = None, None, [], []
        if not s.gpus and not s.vram_gb:
            s.vram_gb = pipeline_card_gb(own_words or text)
    if not (s.model or s.params_b or s.is_log or s.pipeline):
        from assistant.offline.reading.unknown_names import unknown_model_name

        known = [g.text for g in s.gpu_mentions] + [m.text for m in s.model_mentions] + list(s.engines)
        s.unknown_model = unknown_model_name(own_words, known)
    if s.is_log:
        s.cues.add("diagnose")
    if s.convert or s.algbw_gbs:
        s.in_domain = True
    s.in_domain = s.in_domain or bool(s.gpus or s.model or s.params_b or s.method or s.pipeline)
    if not s.in_domain:  # '双CPU、2T内存、Q8大概速度多少': host-RAM inference words (knowledge/cpus.yaml)
        from tools.cpu_inference import in_domain as cpu_in_domain

        s.in_domain = cpu_in_domain(text)
    if not s.in_domain:
        # 「自建还是调API划算」: running a model yourself against a hosted API is the product's question
        from assistant.offline.reading.routes import says_api, says_self_host

        s.in_domain = says_api(text) and says_self_host(text)
    if s.out_of_scope and (s.gpus or s.model or s.params_b or s.is_log):
        s.out_of_scope = False  # "写一首关于4090的诗" is still odd, but a GPU question is in scope
    return s


_MONEY = r"(?:¥|￥|rmb\s*|cny\s*)?(?<![a-z0-9.])(?P<amt>\d[\d,]*(?:\.\d+)?)\s*(?P<mul>万|千|k|w)?\s*(?:元|块钱|块|rmb|cny|yuan)?"
# A suffix-form quote ("1200元/月", "¥5 per hour") must say it is money, or "A100一个月" would read as ¥100/month.
_MONEY_MARKED = (
    r"(?:(?:¥|￥|rmb\s*|cny\s*)(?P<amt>\d[\d,]*(?:\.\d+)?)\s*(?P<mul>万|千|k|w)?|"
    r"(?<![a-z0-9.])(?P<amt2>\d[\d,]*(?:\.\d+)?)\s*(?P<mul2>万|千|k|w)?\s*(?:元|块钱|块|rmb|cny|yuan))"
)
# "每月3000万token" is a volume, not a price: a count of tokens/calls after the number is never money
_NOT_MONEY = r"(?![,.]?\d|\s*(?:万|千|k|w)?\s*(?:个)?\s*(?:tokens?|tok\b|词元|次|条|字|requests?|calls?))"
_QUOTE_RES = {  # (prefix form "包月 1200 元", suffix form "1200元/月") per billing unit
    "hourly_quote_cny": (
        re.compile(rf"(?:按小时|每小时|一小时|小时价|时租)\s*(?:是|要|收)?\s*{_MONEY}{_NOT_MONEY}", re.I),
        re.compile(rf"{_MONEY_MARKED}\s*(?:/|每|一|per|an?)\s*(?:小时|h\b|hr\b|hour)", re.I),
    ),
    "monthly_quote_cny": (
        re.compile(rf"(?:包月|月租|每月|一个月|按月)\s*(?:是|要|收)?\s*{_MONEY}{_NOT_MONEY}", re.I),
        re.compile(rf"{_MONEY_MARKED}\s*(?:/|每|一|per|an?)\s*(?:个?月|month)", re.I),
    ),
    # 「租一天要2000」「一天2000元」「日租 800」「2000元/天」: a day's price (not a day of running at someone else's)
    "daily_quote_cny": (
        re.compile(
            rf"(?:租一天|一天|每天|日租|天租|按天)\s*(?:是|要|收|就要|得)?\s*{_MONEY}{_NOT_MONEY}(?!\s*(?:小时|h\b|个))",
            re.I,
        ),
        re.compile(rf"{_MONEY_MARKED}\s*(?:/|每|一|per|an?)\s*(?:天|日|day\b)", re.I),
    ),
}


_SHOWN_RE = re.compile(
    r"nvidia[\s-]*smi|\bsmi\b|显示|识别|看到|查到|shows?\b|showing|reports?\b|reporting|"
    r"displays?\b|says\b|\bsee\b|torch\.cuda",
    re.I,
)
_DOUBT_RE = re.compile(
    r"假|fake|正常|normal|少了|缩水|missing|less than|\bonly\b|只|才|为什么|\bwhy\b|是不是|"
    r"genuine|legit|scam|骗|以次充好|real\b",
    re.I,
)
# "/s" after the unit makes it a rate ("Memory Bandwidth 3868 GB/s"), never a memory size the card showed
_SHOWN_MEM_RE = re.compile(r"(?<![0-9a-z.])(\d+(?:\.\d+)?)\s*(mib|gib|gb|mb|g)(?![a-z0-9]|\s*/\s*s)", re.I)


def _extract_reported_memory(work: str, s: Slots) -> str:
    """ "my 4090 shows only 23GB in nvidia-smi, is it fake?": the figure the user saw, read after the word
    that says it was displayed (so "A100 80G" before it stays the card's name)."""
    shown = _SHOWN_RE.search(work)
    if not shown or not _DOUBT_RE.search(work):
        return work
    m = _SHOWN_MEM_RE.search(work, shown.start()) or None
    if not m:
        before = list(_SHOWN_MEM_RE.finditer(work[: shown.start()]))
        m = (
            before[-1]
            if before and re.search(r"(?:只|才|only)\s*(?:有|显示)?\s*$", work[: before[-1].start()])
            else None
        )
    if not m:
        return work
    unit = {"mib": "MiB", "mb": "MB", "gib": "GiB", "gb": "auto", "g": "auto"}[m.group(2).lower()]
    s.reported_memory = (float(m.group(1)), unit)
    return _blank(work, m)


def _without_other_models_quants(text: str, s: Slots) -> str:
    """「已经部署了一个Qwen-57B-q5的模型，再部署deepseek-coder-6.7b」: a quantisation glued to another model's name
    (「-q5」「-Int4」「-AWQ」) is that model's, not the one sized; it is blanked before the precision is read."""
    chosen = {s.model, s.params_b}
    for mention in s.model_mentions:
        if mention.catalog_id in chosen or (mention.catalog_id is None and mention.size_b in chosen):
            continue
        for m in re.finditer(rf"{re.escape(mention.text.lower())}[-_ ]?(?P<q>[a-z][a-z0-9_]*)", text):
            text = text[: m.start("q")] + " " * len(m.group("q")) + text[m.end("q") :]
    return text


_SENTENCE_END = re.compile(r"(?<=[。？?！!；;\n])|(?<=\.)\s+")
# a sentence that offers a fallback or recalls another run: 「如果实在不行，是不是可以用…-int4去微调？」「之前int4单卡训练chatglm」
_FALLBACK_RE = re.compile(
    r"如果|实在不行|不行的话|再不行|之前|以前|上次|是因为|是不是因为|\bif (?:that|it|this) (?:doesn.t|does not|fails|won.t)|"
    r"\botherwise\b|\bpreviously\b|\blast time\b|\bas a fallback\b",
    re.I,
)
_JOB_RE = re.compile(r"lora|微调|训练|fine[\s-]*tun|finetun|\btrain", re.I)


def _without_alternative_quants(text: str) -> str:
    """The job is stated first (「lora微调qwen-vl-chat，显存不够」); what follows a fallback or a recollection in the
    same sentence (「如果实在不行，是不是可以用…-int4去微调？」「之前int4单卡训练chatglm」) names another job, so its
    quantisation does not make this one QLoRA. The fallback is still answered: the estimate lists QLoRA among the
    alternatives. Same length, so spans still index `text`."""
    out: list[str] = []
    stated = False
    for part in _SENTENCE_END.split(text):
        cue = _FALLBACK_RE.search(part)
        if cue and (stated or _JOB_RE.search(part[: cue.start()])):
            part = part[: cue.start()] + re.sub(r"\S", " ", part[cue.start() :])
        stated = stated or bool(_JOB_RE.search(part))
        out.append(part)
    return "".join(out)


# quantisations the int4 / int8 families already stand for; any other GGUF row is read as its own bits per weight
_FAMILY_QUANTS = frozenset({"bf16", "fp8", "q8_0", "q4_k_m"})


def _read_weight_quant(text: str, s: Slots) -> None:
    """「2-bit」「Q3_K_M」「Q5」「iq1_s」: the quantisation row of knowledge/cpus.yaml (one vocabulary with CPU
    inference), so a memory estimate uses its bits per weight instead of silently falling back to bf16 or int4."""
    from tools.cpu_inference import find_quant

    q = find_quant(text)
    if q is None or q.id in _FAMILY_QUANTS:
        return
    s.weight_quant = q.id
    s.precision = "int4" if q.bits < 6 else "int8"


def _extract_quotes(work: str, s: Slots) -> str:
    for attr, patterns in _QUOTE_RES.items():
        for rx in patterns:
            m = rx.search(work)
            groups = m.groupdict() if m else {}
            amount = groups.get("amt") or groups.get("amt2")
            if amount:
                value = _parsed(
                    parse_money_cny, amount.replace(",", "") + (groups.get("mul") or groups.get("mul2") or "")
                )
                if value and m:
                    setattr(s, attr, value)
                    work = _blank(work, m)
                    break
    return work


def _extract_gpus(work: str, s: Slots) -> str:
    m: re.Match[str] | None
    for m in list(gpu_vocab().regex.finditer(work)):
        name = _canonical_gpu(re.sub(r"\s+", " ", m.group("name").strip()))
        mem, form = _gpu_variant(m.group("variant") or "")
        form = form or _gpu_variant(m.group("name"))[1]  # an alias that spells the form ("h100nvl", "H200 NVL")
        per_node, mib = None, None
        if mem is None:  # "4090(24G)", "A100 单卡40G", "DGX-A100 (8X40G)": the size just after the name
            post = _MEM_AFTER.match(work[m.end() : m.end() + 16])
            if post:
                mem, per_node = int(post.group("mem")), int(post.group("per")) if post.group("per") else None
            mib = _MIB_AFTER.match(work[m.end() : m.end() + 16]) if mem is None else None
            if mib:  # 「RTX 2080，显存为11264MiB」: nvidia-smi's total, 11264 / 1024 = 11 GiB
                mem = round(int(mib.group("mib")) / 1024)
        if mem is None:  # the size written before the name: "a 24GB K80", 「一张24G的3090」, "22GB2080ti"
            pre = _MEM_BEFORE.search(work[max(0, m.start() - 12) : m.start()])
            mem = int(pre.group(1) or pre.group(2)) if pre else None
        count = _count_near(work, m)
        dgx = _DGX_RE.search(work[max(0, m.start() - 24) : m.end()])
        if dgx:  # "96 NVIDIA DGX-A100 (8X40G)": 96 systems of 8 GPUs (a DGX A100/H100 carries 8)
            s.nodes = s.nodes or int(dgx.group("n"))
            count = int(dgx.group("n")) * (per_node or 8)
        elif per_node and count is None:
            count = per_node
        if name not in s.gpus:
            s.gpus.append(name)
            gpu_id, matches = gpu_known(name, float(mem) if mem else None, form, from_mib=mib is not None)
            if mem and gpu_id and matches:
                mem = _table_size(gpu_id, mem)  # "L20(46G)" as nvidia-smi shows it → the 48 GB row
            if len(s.gpus) == 1:
                s.gpu_memory_gb, s.gpu_form = mem, form
            s.gpu_mentions.append(
                GpuMention(
                    text=m.group(0).strip(),
                    name=name,
                    gpu_id=gpu_id,
                    count=count,
                    memory_gb=float(mem) if mem else None,
                    modded=bool(mem and (not gpu_id or not matches)),
                    form=form,
                )
            )
        if count is not None and s.gpu_count is None:
            s.gpu_count = count
    # counts without a GPU name: "换成8卡", "用两张卡", "2 gpus", "单卡", "双卡", "a single 24 GB GPU"
    if s.gpu_count is None and re.search(r"\b(?:a single|single|one)\s+(?:\d+\s*gb\s+)?(?:gpu|card)\b", work, re.I):
        s.gpu_count = 1
    if s.gpu_count is None:
        # not "A100 GPU-hours" (the 100 of a name) nor "1,720,320 GPU-hours" (a run's size, not a count);
        # not "3090卡" (the number of a name) nor 「0卡的显存占用」「卡1」 (which card, not how many)
        unnamed = GPU_INDEX_RE.sub(lambda mm: " " * (mm.end() - mm.start()), gpu_vocab().regex.sub(_spaces, work))
        m = (
            re.search(
                rf"(?<![a-z0-9.])(?P<num>(?<!\d,)\d+|(?<=\d,)(?:\d{{1,2}}|\d{{4,}})(?!\d)|{_CN_NUM})\s*(?:张|块|卡|个gpu|gpus?|cards?|x\s*gpu|of them)"
                r"(?![a-z_])(?!\s*-?\s*(?:hours?|hrs?|days?|小时|时|天))",
                unnamed,
                re.I,
            )
            or re.search(r"(?P<num>单|双)(?:卡|机)", unnamed)
            or re.search(r"(?P<num>单|双)卡", work)
        )  # 「双卡40G-A100」
        if m is None:  # "two graphics cards with 24 GB each", "three GPUs": a count in English words
            w = re.search(
                r"\b(?P<word>two|three|four|five|six|seven|eight|ten|sixteen)\s+(?:\w+\s+){0,2}?(?:graphics\s+)?"
                r"(?:cards|gpus)\b(?!\s*-?\s*hours?)",
                unnamed,
                re.I,
            )
            if w:
                s.gpu_count = _EN_COUNT.get(w.group("word").lower())
        if m:
            n = cn_to_number(m.group("num"))
            if n and 1 <= n <= 4096:
                s.gpu_count = int(n)
    m = re.search(
        # not the digits of a card name ("two A100 machines" is not 100 machines)
        rf"(?<![a-z\d.])(?P<nodes>\d+|{_CN_NUM})\s*(?:台|个节点|节点|个结点|结点|nodes?|machines?|servers?)\s*(?:的)?\s*"
        # the per-node count needs its unit: 「一台4090」 is one machine with a 4090, not 4090 cards per machine
        # 「3 台 8 * L20」「2台8xA100」: a count times a card name is per machine too
        rf"(?:(?P<per>\d+|{_CN_NUM})\s*(?:个|块)?\s*(?:卡|张|x\b|×|\*(?=\s*\d)|[x×*](?=\s*[a-z]{{1,4}}\s*-?\d)|gpus?\b))?",
        work,
        re.I,
    )
    if m:
        nodes = cn_to_number(m.group("nodes"))
        per = cn_to_number(m.group("per") or "") if m.group("per") else None
        if nodes and nodes >= 1:
            s.nodes = int(nodes)
            if per:
                # more than 16 per machine is no server that exists: 「4个节点32卡」 states the total
                s.gpu_count = int(nodes * per) if per <= 16 else int(per)
            each = re.search(
                rf"每(?:台|个节点|节点|个结点|结点|机|个机器)\D{{0,4}}?(?P<per>\d+|{_CN_NUM})\s*(?:个|块)?\s*(?:卡|张|gpu)",
                work,
                re.I,
            )
            per_each = cn_to_number(each.group("per")) if each else None
            if per_each and 1 <= per_each <= 16 and not per:  # 「两台机器，每台8张4090」 = 16 cards
                s.gpu_count = int(nodes * per_each)
    # English: "two 8-GPU servers", "2 x 8-GPU nodes", "two servers with 8 GPUs each", "2 nodes of 8 GPUs"
    words = r"\d+|one|two|three|four|five|six|seven|eight|nine|ten|twelve|sixteen|a pair of"
    m = re.search(
        rf"\b(?P<nodes>{words})\s*(?:x|×)?\s*(?P<per>\d+)\s*[-\s]?\s*(?:gpu|card|卡)s?\s*"
        r"(?:servers?|nodes?|machines?|boxes|hosts?)\b",
        work,
        re.I,
    ) or re.search(
        rf"\b(?P<nodes>{words})\s+(?:servers?|nodes?|machines?|boxes|hosts?)\s+(?:with|of|each with)\s+"
        r"(?P<per>\d+)\s*(?:gpus?|cards?)",
        work,
        re.I,
    )
    if m:
        raw = m.group("nodes").lower()
        nodes = _EN_COUNT.get(raw) if raw in _EN_COUNT else (int(raw) if raw.isdigit() else None)
        per = int(m.group("per"))
        if nodes and 1 <= nodes <= 1024 and 1 <= per <= 16 and s.nodes in (None, nodes):
            s.nodes, s.gpu_count = nodes, nodes * per
    elif s.nodes is None:
        # "two A100 machines" / "2 H800 servers": the node count before a card name; GPUs per node unknown
        m = re.search(
            rf"\b(?P<nodes>{words})\s+[a-z]{{1,3}}\d{{2,4}}[a-z]?\s+(?:servers|nodes|machines|boxes|hosts)\b",
            work,
            re.I,
        )
        raw = m.group("nodes").lower() if m else ""
        nodes = _EN_COUNT.get(raw) if raw in _EN_COUNT else (int(raw) if raw.isdigit() else None)
        if nodes and 2 <= nodes <= 1024:
            s.nodes = nodes
    _free_cards(work, s)
    if len(s.gpus) == 1 and s.gpu_memory_gb:
        # "a100 40g vs 80g" / 「A100 40G 还是 80G」: one card, two memory sizes to weigh
        m = re.search(
            rf"{s.gpu_memory_gb}\s*g(?:b|ib)?\s*(?:的)?\s*(?:vs\.?|versus|or|还是|和|与|跟|或者|或|对比|/)\s*(?:the\s+)?"
            r"(?P<alt>\d{2,3})\s*g(?:b|ib)?(?![a-z0-9])",
            work,
            re.I,
        )
        if m and int(m.group("alt")) != s.gpu_memory_gb:
            s.gpu_alt_memory_gb = int(m.group("alt"))
            work = _blank(work, m)
    work = gpu_vocab().regex.sub(_spaces, work)
    return work


# 「8张910B，其他占用，还有两张空闲」 / "8 GPUs, only 2 of them are free": the job gets the free cards only
_FREE_CARDS = re.compile(
    rf"(?:还有|只有|仅有|剩下?|剩余|其中)\s*(?P<n>\d+|{_CN_NUM})\s*(?:张|块|个)\s*(?:卡)?\s*(?:是)?\s*(?:空闲|空着|可用|能用)|"
    r"\b(?:only\s+)?(?P<en>\d+|two|three|four|five|six|seven)\s+(?:of them\s+|gpus?\s+|cards?\s+)?(?:are\s+)?"
    r"(?:free|idle|available)\b",
    re.I,
)


def _free_cards(work: str, s: Slots) -> None:
    """Fewer cards free than the machine has: the count to size on is the free one."""
    m = _FREE_CARDS.search(work)
    if m is None or s.gpu_count is None:
        return
    n = cn_to_number(m.group("n")) if m.group("n") else _EN_COUNT.get(m.group("en").lower()) or int(m.group("en"))
    if n and 1 <= n < s.gpu_count:
        s.gpu_count = int(n)


_WATTS_AFTER = re.compile(r"^[^。？?！!\n]{0,12}?(?<![\d.])(?P<w>\d{2,3})\s*(?:w|瓦)(?![a-z])", re.I)


def _laptop_by_power(work: str) -> str:
    """A card stated at a power its desktop board never runs at, when a laptop row of that name exists:
    「NVIDIA 3080，最高165w功耗」 is the RTX 3080 Laptop GPU (80–150+ W), not the 320 W desktop card. The name is
    rewritten to the laptop row's alias, so every later rule reads the laptop part."""
    from tools.errors import ToolInputError
    from tools.gpus import all_gpus, resolve_gpu

    laptops = {g.family: g for g in all_gpus() if "laptop" in g.form_factor.lower()}
    for m in reversed(list(gpu_vocab().regex.finditer(work))):
        watts = _WATTS_AFTER.match(work[m.end() :])
        if not watts or "laptop" in m.group(0).lower():
            continue
        try:
            row = resolve_gpu(m.group("name"))
        except ToolInputError:  # an unknown name: nothing to compare the power with
            row = None
        laptop = laptops.get(f"{row.family}m") if row else None
        if row and laptop and laptop.aliases and row.tdp_w and int(watts.group("w")) < 0.6 * row.tdp_w:
            work = work[: m.start()] + f"{laptop.aliases[0]} " + work[m.end() :]
    return work


def _table_size(gpu_id: str, stated: int) -> int:
    """The row's memory when the stated size is how the driver shows it (46G for a 48 GB L20); a board's total
    ("24GB K80") and an exact size stay as written."""
    from tools.gpus import resolve_gpu

    row = resolve_gpu(gpu_id)
    if abs(row.memory_gb - stated) < 1 or abs(row.memory_gb * row.gpus_per_board - stated) < 1:
        return stated
    return int(row.memory_gb)


def _spaces(m: re.Match[str]) -> str:
    return " " * (m.end() - m.start())


_MEM_AFTER = re.compile(
    r"^\s*[（(]?\s*(?:单卡|每卡|单张|显存|的|魔改(?:版|成)?|改)?\s*(?:(?P<per>\d{1,2})\s*[x×*]\s*)?(?P<mem>\d{1,3})\s*(?:gib|gb|g)(?![a-z0-9])"
    + NOT_A_RATE,
    re.I,
)
# The total nvidia-smi prints after the name: 「RTX 2080，显存为11264MiB」, "RTX 2080 (11264 MiB)".
_MIB_AFTER = re.compile(
    r"^\s*[（(,，:：]?\s*(?:显存|memory|vram)?\s*(?:为|是|:|：|of)?\s*(?P<mib>\d{4,6})\s*mib\b", re.I
)
_DGX_RE = re.compile(
    r"(?<![A-Za-z0-9_.])(?P<n>\d{1,4})\s*(?:台|个|x|×)?\s*(?:nvidia\s*)?dgx[\s\-_]*(?:[a-z]\d{3})?", re.I
)
# 「8卡（40G，A100）」: a comma between the size and the name only inside a bracketed spec (「共448GB，4090」 is RAM)
_MEM_BEFORE = re.compile(
    r"(?:(?<![a-z0-9.])(\d{1,3})\s*(?:g|gb|gib)\s*(?:的)?|[（(]\s*(\d{1,3})\s*(?:g|gb|gib)\s*[，,、/])\s*"
    r"(?:nvidia\s*|tesla\s*|rtx\s*)?$",
    re.I,
)
# A GPU's index, not a count: 「0卡的显存占用」「1卡上」「卡0」「0号卡」「第0张卡」, "GPU0", "cuda:1", "device 0".
GPU_INDEX_RE = re.compile(
    # not a count followed by the memory of each card: 「8卡，每张卡40G」「8卡40G」; 「要8卡才能跑吗」 is a count
    # a list of card numbers 「0卡，1卡」 is an index; 「8卡，全量微调」 is a count
    r"(?<![\d.])\d{1,2}\s*(?:号)?\s*卡\s*(?=的|上|和|跟|与|[、,，]\s*\d{1,2}\s*(?:号)?\s*卡|占|显存|只|才(?!能|可以|够|行|跑|放|装)|却|反而|已经|一直|满|空|用了|爆)"
    r"(?![,，]\s*(?:每|单卡))|"
    r"(?<![\d.])\d{1,2}\s*号\s*(?:卡|gpu)|第\s*\d{1,2}\s*(?:张|块|号)\s*(?:卡|gpu)?|"
    # a range of card numbers starting at 0: 「集中在0卡~6卡」「0-6号卡」 (which cards, not how many)
    r"(?<![\d.])0\s*(?:号)?\s*卡?\s*[~～\-–到至]\s*\d{1,2}\s*(?:号)?\s*卡|"
    r"卡\s*\d{1,2}(?![\d.]|\s*g(?:b|ib)?(?![a-z]))|"
    r"\b(?:gpu|cuda|device|rank)\s*[:#]?\s*\d{1,2}(?![\d.]|\s*(?:张|块|卡|gpus?|cards?|x\b))",
    re.I,
)


def _count_near(work: str, m: re.Match) -> int | None:
    """A count written next to a GPU name: 两张4090 / 8卡A100 / 4x H800 / 4090x2 / A100 8卡 / 8 A100s."""
    # 「一张24G的A100」「四张16G的V100」: the card's size may sit between the count and the name
    before = re.sub(
        r"\s*\d{1,3}\s*g(?:b|ib)?\s*(?=(?:的)?\s*$)", "", work[max(0, m.start() - 24) : m.start()], flags=re.I
    )
    after = work[m.end() : m.end() + 10]
    b = re.search(
        rf"(?<![\d.])(?P<num>\d+|{_CN_NUM})\s*(?:张|块|卡|台|个|x|\*|路)?\s*(?:的)?\s*(?:(?:rtx|nvidia|geforce|tesla|英伟达)\s*){{0,3}}$",
        before,
        re.I,
    )
    per = re.match(r"\s*(?:x|\*)\s*(?P<num>\d+)|\s*(?P<num2>\d+)\s*(?:张|块|卡)", after, re.I)
    if re.search(r"台\s*(?:的)?\s*$", before) and re.match(
        r"\s*(?:的)?\s*(?:服务器|机器|主机|整机|节点|server|machine|node|box)", after, re.I
    ):
        return None  # 「96台A100服务器」: 96 machines (the node count), not 96 cards
    if b and per and re.search(r"台\s*(?:的)?\s*$", before):  # "2台 H100*8": machines × cards each
        machines, each = cn_to_number(b.group("num")), int(per.group("num") or per.group("num2"))
        if machines and 1 <= machines * each <= 4096:
            return int(machines * each)
    if b and (
        re.search(r"(张|块|卡|台|个|x|\*)\s*(?:的)?\s*(?:(?:rtx|nvidia|geforce|tesla|英伟达)\s*){0,3}$", before, re.I)
        or re.search(r"(?:^|[^\w.])\d{1,2}\s*(?:(?:rtx|nvidia|geforce|tesla|英伟达)\s*){0,3}$", before, re.I)
    ):
        n = cn_to_number(b.group("num"))
        if n and 1 <= n <= 1024 and not re.search(r"[\d.]+\s*(?:b|亿)\s*$", before, re.I):
            return int(n)
    a = re.match(rf"\s*(?:x|\*)\s*(?P<num>\d+)|\s*(?P<num2>\d+|{_CN_NUM})\s*(?:张|块|卡)", after, re.I)
    if a:
        n = cn_to_number(a.group("num") or a.group("num2"))
        if n and 1 <= n <= 1024:
            return int(n)
    w = re.search(
        r"\b(?P<word>one|two|three|four|five|six|seven|eight|nine|ten|twelve|sixteen|a pair of|dual|quad|"
        r"single)\s+(?:(?:nvidia|rtx|geforce|tesla)\s+){0,2}$",
        work[max(0, m.start() - 24) : m.start()],
        re.I,
    )
    if w:
        return _EN_COUNT[w.group("word").lower()]
    if re.search(
        r"单(?:张|块)\s*(?:的)?\s*(?:rtx|nvidia|英伟达)?\s*$", before, re.I
    ):  # 「单张 5090 还是两张 2080 Ti」 (单卡 stays the question's card count, not this card's)
        return 1
    return None


_EN_COUNT = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "twelve": 12,
    "sixteen": 16,
    "a pair of": 2,
    "dual": 2,
    "quad": 4,
    "single": 1,
}


# ---------------------------------------------------------------- unit conversions, busbw, GPU-hours
_BYTE_UNIT = r"(?:tib|gib|mib|kib|tb|gb|mb|kb|t|g)(?:\s*/\s*s|ps)?"
_QTY_RE = re.compile(rf"(?<![\w.])(?P<num>\d[\d,]*(?:\.\d+)?)\s*(?P<unit>{_BYTE_UNIT})(?![a-z])", re.I)
_TARGET_RE = re.compile(r"(?<![\w.])(?P<unit>tib|gib|mib|kib|tb|gb|mb|kb)(?:\s*/\s*s|ps)?(?![a-z])", re.I)
_CONVERT_CUE = re.compile(
    r"等于|是多少|多少|换算|折合|合多少|相当于|how many|how much|convert|in (?:gib|gb|mib|mb|tb|tib)|"
    r"\bto (?:gib|gb|mib|mb|tb|tib)|into|几",
    re.I,
)
_CANON = {
    "tib": "TiB",
    "gib": "GiB",
    "mib": "MiB",
    "kib": "KiB",
    "tb": "TB",
    "gb": "GB",
    "mb": "MB",
    "kb": "KB",
    "t": "TB",
    "g": "GB",
}


def _unit_name(raw: str) -> str:
    u = re.sub(r"\s+", "", raw.lower())
    rate = u.endswith("/s") or u.endswith("ps")
    base = _CANON[re.sub(r"(/s|ps)$", "", u)]
    return base + "/s" if rate else base


def _extract_conversion(work: str, s: Slots) -> str:
    """「80GB 等于多少 GiB」/ "How many GiB is 80 GB?" / 「24564MiB 换算成 GB」: one quantity with a byte or
    bandwidth unit, and a different unit asked for (written without a number)."""
    if not _CONVERT_CUE.search(work):
        return work
    qty = _QTY_RE.search(work)
    if not qty:
        return work
    rest = _blank(work, qty)
    target = _TARGET_RE.search(rest)
    if not target:
        return work
    src, dst = _unit_name(qty.group("unit")), _unit_name(target.group(0))
    if src == dst or src.endswith("/s") != dst.endswith("/s"):
        return work
    s.convert = (float(qty.group("num").replace(",", "")), src, dst)
    return _blank(rest, target)


_ALGBW_RE = re.compile(
    r"algbw\s*(?:of|is|=|:|was|at|reported)?\s*(?:about|around|~|≈)?\s*(?P<num>\d+(?:\.\d+)?)\s*gb\s*/\s*s|"
    r"(?P<num2>\d+(?:\.\d+)?)\s*gb\s*/\s*s\s*(?:的)?\s*(?:algbw|算法带宽)|"
    r"算法带宽\s*(?:是|为|有)?\s*(?P<num3>\d+(?:\.\d+)?)\s*gb\s*/\s*s",
    re.I,
)
_COLLECTIVES = (
    ("all_reduce", r"all[\s_-]*reduce"),
    ("reduce_scatter", r"reduce[\s_-]*scatter"),
    ("all_gather", r"all[\s_-]*gather"),
    ("alltoall", r"all[\s_-]*to[\s_-]*all"),
    ("broadcast", r"broadcast"),
    ("reduce", r"(?<![a-z_])reduce(?:_perf)?(?![a-z_])"),
)


def _extract_algbw(work: str, s: Slots) -> str:
    """nccl-tests' algorithm bandwidth quoted in words ("reports algbw 120 GB/s") and which collective."""
    m = _ALGBW_RE.search(work)
    if not m:
        return work
    s.algbw_gbs = float(m.group("num") or m.group("num2") or m.group("num3"))
    for name, pattern in _COLLECTIVES:
        if re.search(pattern, work, re.I):
            s.collective = name
            break
    return _blank(work, m)


_BUSBW_RE = re.compile(
    r"(?:busbw|bus bandwidth|总线带宽)\s*(?:(?:is|was|=|:|of|only|just|at|reads?|shows?|reported|"
    r"about|around|~|≈|只有|才|是|为|约|大概|大约|仅)\s*)*(?P<num>\d+(?:\.\d+)?)\s*gb\s*/\s*s|"
    r"(?P<num2>\d+(?:\.\d+)?)\s*gb\s*/\s*s\s*(?:的)?\s*(?:busbw|bus bandwidth|总线带宽)",
    re.I,
)


# "nccl-tests … bandwidth can reach 600Gbps": a measured collective bandwidth in bits per second
_BUSBW_BITS_RE = re.compile(
    r"(?:busbw|bus bandwidth|bandwidth|带宽)\s*(?:value\s*)?(?:(?:can|could|only|just|is|was|reach(?:es|ed)?|达到|能到|能达到|"
    r"只有|才|是|为|约|大概|大约|about|around|~|≈|of)\s*)*(?P<num>\d+(?:\.\d+)?)\s*(?:gbps|gbit/s|gbits?)(?![a-z])",
    re.I,
)
_NCCL_CONTEXT_RE = re.compile(r"nccl|all[_-]?reduce|busbw|algbw", re.I)


def _extract_measured_busbw(work: str, s: Slots) -> str:
    """The user's own nccl-tests result quoted in words ("busbw is 18 GB/s on 8x A100 SXM, normal?"), also in
    bits per second when the context is nccl-tests ("bandwidth can reach 600Gbps" = 75 GB/s)."""
    m = _BUSBW_RE.search(work)
    if m:
        s.measured_busbw_gbs = float(m.group("num") or m.group("num2"))
        return _blank(work, m)
    if not _NCCL_CONTEXT_RE.search(work):
        return work
    bits = _BUSBW_BITS_RE.search(work)
    if bits is None:
        return work
    s.measured_busbw_gbs = float(bits.group("num")) / 8  # Gb/s → GB/s
    return _blank(work, bits)


def _extract_gpu_hours(work: str, s: Slots) -> str:
    """A run's published compute: "1,720,320 A100 GPU-hours", 「172 万 A100 卡时」. The number and the
    GPU-hours word are consumed; the GPU name between them is left for `_extract_gpus`."""
    from assistant.offline.reading.quantities import gpu_hours_matches  # the one GPU-hours grammar

    found = gpu_hours_matches(work)
    if not found:
        return work
    s.gpu_hours, m = found[0]
    gpu_start, gpu_end = m.span("gpu") if m.group("gpu") else (m.start("unit"), m.start("unit"))
    return (
        work[: m.start()]
        + " " * (gpu_start - m.start())
        + work[gpu_start:gpu_end]
        + " " * (m.end() - gpu_end)
        + work[m.end() :]
    )


# "…what would the 72b need?", "那 72B 呢", "换成 14B", "what about the 70b", "the equivalent for the 2B": the model or
# size the question asks about, after a measurement or setup the user describes with another one
_SUBJECT_RE = re.compile(
    r"(?:what about|how about|what of|what would|what will|what does|what do|requirements? (?:be )?for|"
    # "an equivalent number of GPU hours for the MiniCPM models (MiniCPM-2B)": the same figure, for another model
    r"(?:equivalent|comparable|same|similar)\b[^?？。!！]{0,30}?\bfor\b|"
    r"(?:switch|mov|go|upgrad|scal|jump)(?:e|ed|ing)?\s+(?:up\s+)?to|if i (?:want to )?(?:run|use|try|load|serve|go with)|"
    r"那(?:么|如果)?|换成|换到|改成|改用|升级到|上到|要是|如果是|如果换成?|如果用|想跑|想部署|"
    # "I can finetune 7b …, 30b with 1024, and I can't finetune 65b": the size that does not work is the question
    r"\bcan'?t|\bcannot|\bcan not|\bunable to|无法|不能|没法|跑不了|训不了|跑不动)"
    r"(?P<gap>[^?？。.!！;；]{0,40}?)(?<![a-z0-9.])(?P<size>\d+(?:\.\d+)?)\s*b(?![a-z0-9])|"
    r"(?<![a-z0-9.])(?P<size2>\d+(?:\.\d+)?)\s*b(?![a-z0-9])[^?？。,，]{0,12}?呢",
    re.I,
)
_MEASURED_VRAM_RE = re.compile(r"(?<![\w.])(\d{1,3})\s*(?:g|gb|gib)(?![a-z0-9])", re.I)


def _subject_at(work: str) -> int | None:
    """Where the model asked about starts, when the question names two sizes and asks about a later one
    ("I fit the 7B on 17gb … what would the 72b need?"); None when one size is named or the first is asked."""
    sizes = [float(m.group("size")) for m in _SIZE_EN_RE.finditer(work) if m.group("unit").lower() == "b"]
    if len(set(sizes)) < 2:
        return None
    for m in _SUBJECT_RE.finditer(work):
        start = m.start("size") if m.group("size") else m.start("size2")
        size = float(m.group("size") or m.group("size2"))
        if size != sizes[0]:
            return start
    return None


def _extract_model(work: str, s: Slots, text: str = "") -> str:
    work = _extract_model_names(work, s, text)
    _r1_distill(s, text or work)
    return work


# 「r1蒸馏版14b」, "R1 32B", "r1-distill-qwen-7b": DeepSeek-R1 at a size it was never released in is one of its
# distills (the catalog's "deepseek r1 <size>b" aliases), not a 14B-parameter R1 nor the Qwen base model
_R1_DISTILL_RE = re.compile(r"(?<![a-z0-9])(?:deepseek[\s\-_]*)?r1[\s\-_]*(?:distill|蒸馏)", re.I)


def _r1_distill(s: Slots, text: str) -> None:
    if not s.params_b or s.params_b >= 600 or not s.model:
        return
    if s.model != "DeepSeek-R1" and not _R1_DISTILL_RE.search(text):
        return
    distill = _catalog_id(f"deepseek r1 {_fmt(s.params_b)}b")
    if distill and distill.startswith("DeepSeek-R1-Distill"):
        old, s.model = s.model, distill
        for m in s.model_mentions:
            if m.catalog_id == old:
                m.catalog_id = distill


def _extract_model_names(work: str, s: Slots, text: str = "") -> str:
    subject = _subject_at(work)
    if subject is not None:
        work = _subject_first(work, s, subject, text or work)
    hits = _size_lists(work, _same_model_typos(find_models(work)))
    for hit in hits:
        s.model_mentions.append(
            ModelMention(text=hit.text, catalog_id=hit.catalog_id, variant=hit.variant, size_b=hit.size_b)
        )
    known = next((h for h in hits if h.catalog_id), None)
    if known is not None and known.size_b is None and not any(h.size_b for h in hits):
        # "根据MiniMind的显存，1B需要多少": a family named without a size and a bare size asked about — the
        # size is the subject; the named model stays a mention
        blanked = work
        for hit in hits:
            blanked = blanked[: hit.start] + " " * (hit.end - hit.start) + blanked[hit.end :]
        bare = _SIZE_EN_RE.search(blanked)
        if bare and _after_a_card(text or work, bare.start(), s):
            bare = None  # "910B 4B": a card's sub-model suffix, not a model size to put in the named model's place
        if bare and bare.group("unit").lower() == "b" and not _is_its_size(known, float(bare.group("size"))):
            known = None
            work = blanked
    if known is not None:
        s.model = known.catalog_id
        if known.size_b is not None and s.params_b is None:
            s.params_b = known.size_b if "x" not in known.text.lower() else None
        for hit in hits:
            work = work[: hit.start] + " " * (hit.end - hit.start) + work[hit.end :]
        return work
    m = _MODEL_RE.search(work)
    if m:
        size = m.group("size").lower()
        unit = m.group("unit").lower()
        family = _family_name(m.group("family"))
        s.model = f"{family}-{size}{unit}"
        if not s.model_mentions:  # a family the catalog does not have: named, sized generically
            s.model_mentions.append(ModelMention(text=m.group(0).strip(), catalog_id=None, size_b=_size_of(size, unit)))
        if "x" not in size:
            s.params_b = float(size) / (1000 if unit == "m" else 1)
        return _blank(work, m)
    m = _FAMILY_ONLY_RE.search(work)
    if m:
        s.model = _family_name(re.sub(r"^ds(?=\s*-?\s*[rv]\d)", "deepseek", m.group("family"), flags=re.I))  # "ds r1"
        s.model = _catalog_id(s.model) or s.model
        work = _blank(work, m)
    m = _SIZE_EN_RE.search(work)
    if m:
        val = float(m.group("size")) / (1000 if m.group("unit").lower() == "m" else 1)
        if s.params_b is None:
            s.params_b = val
            if s.model is None:
                named = _GLUED_NAME_RE.search(work[: m.start()])  # "KnowLM-13B", "R1V2-38B": a name the catalog lacks
                versioned = (
                    None if _ANOTHER_MODEL_RE.search(work[: m.start()]) else _versioned_family_at_size(work, val)
                )
                if versioned:  # "Meta Llama 3. The 8B model", 「qwen2.5 的 7b 版本」: the release at that size
                    s.model = versioned
                    s.model_mentions.append(ModelMention(text=versioned, catalog_id=versioned, size_b=val))
                elif named and named.group(1).lower() not in _NOT_NAMES:
                    s.model = f"{named.group(1)}-{_fmt(val)}b"
                    s.model_mentions.append(ModelMention(text=s.model, catalog_id=None, size_b=val))
                else:
                    s.model = f"{_fmt(val)}b"
        return _blank(work, m)
    m = _SIZE_CN_RE.search(work)
    if m:
        val = (_parsed(parse_param_count, (m.group("num") or "") + m.group("unit")) or 0) / 1e9
        if s.params_b is None:
            s.params_b = val
            if s.model is None:
                s.model = f"{_fmt(val)}b"
        return _blank(work, m)
    return work


def _subject_first(work: str, s: Slots, subject: int, text: str) -> str:
    """The sizes named before the subject are what the user measured or runs now: kept as mentions (and in
    `measured_model`), blanked so the subject is read as the model; a memory size said with them ("fit the 7B
    on 17gb") is that measurement, not the card for the subject."""
    before = work[:subject]
    first = next((m for m in _SIZE_EN_RE.finditer(before) if m.group("unit").lower() == "b"), None)
    if first is None:
        return work
    hit = next((h for h in find_models(before) if h.start <= first.start() < h.end), None)
    start, end = (hit.start, hit.end) if hit else (first.start(), first.end())
    size = float(first.group("size"))
    s.measured_model = hit.catalog_id if hit and hit.catalog_id else f"{_fmt(size)}b"
    if hit:  # a bare size is no name to report as missing from the catalog
        s.model_mentions.append(ModelMention(text=hit.text, catalog_id=hit.catalog_id, size_b=size))
    said_before = text[:subject]  # offsets are kept by blanking: the user's words before the subject
    if (
        s.vram_gb
        and not s.gpus
        and any(float(v.group(1)) == s.vram_gb for v in _MEASURED_VRAM_RE.finditer(said_before))
    ):
        s.vram_gb = None
    work = work[:start] + " " * (end - start) + work[end:]
    # 「7b 行、13b 行、30b 要 1024、65b 不行」: every size before the subject is one the user already ran
    for m in list(_SIZE_EN_RE.finditer(work[:subject])):
        if m.group("unit").lower() == "b":
            work = work[: m.start()] + " " * (m.end() - m.start()) + work[m.end() :]
    return work


# the whole name: "qwen_image" / "llama-guard" / "qwen2.5-vl" are other models, not the family word
_FAMILY_WORD_RE = re.compile(
    r"(?<![a-z0-9_\-/])([a-z][a-z0-9]*(?:[.\-_ ]?\d+(?:\.\d+)?)?)(?![a-z0-9]|\.[a-z0-9]|[\-_/][a-z0-9])"
)  # a full stop ends it


def _family_default(text: str, s: Slots) -> None:
    """A catalog family named without a size in a fit question ("LoRA on LLaMA", "llama3 要多少显存"): sized as
    its smallest 7B-class member (>= 6B; the smallest when none is that big) — the size most people run
    first (the default tag of ollama's llama3, qwen2.5, llama2 libraries). The mention is marked a variant so
    line 1 says which model was used (writing/lead.assumed_note)."""
    from tools.models import family_default, sized_families

    families = sized_families()
    for m in _FAMILY_WORD_RE.finditer(text):
        sizes = families.get(re.sub(r"[\s.\-_]", "", m.group(1)))
        if sizes:
            size, model_id = next((x for x in sizes if x[0] >= 6), sizes[0])
            s.model, s.params_b = model_id, size
            s.model_mentions.append(ModelMention(text=m.group(1), catalog_id=model_id, variant=True, size_b=None))
            return
    for m in _FAMILY_WORD_RE.finditer(text):
        # a family whose ids carry no plain size ("chatglm" → ChatGLM3-6B, "codeqwen", "mistral"): the same rule
        default = family_default(m.group(1)) if len(m.group(1)) >= 4 else None
        if default:
            s.model = default
            s.model_mentions.append(ModelMention(text=m.group(1), catalog_id=default, variant=True, size_b=None))
            return


def _family_with_size(text: str, s: Slots) -> None:
    """「llama3 要多少显存？70b 呢」: a family named without a size and a bare size elsewhere that the family
    has — both are asked: the family's 7B-class member and that size."""
    from tools.models import sized_families

    families = sized_families()
    if s.params_b is None:
        return
    for m in _FAMILY_WORD_RE.finditer(text):
        sizes = families.get(re.sub(r"[\s.\-_]", "", m.group(1)))
        sized = next((mid for size, mid in sizes or [] if size == s.params_b), None)
        if sizes and sized:
            default_size, default_id = next((x for x in sizes if x[0] >= 6), sizes[0])
            if default_id != sized:
                s.model_mentions.append(ModelMention(text=m.group(1), catalog_id=default_id, size_b=default_size))
            s.model_mentions.append(ModelMention(text=f"{_fmt(s.params_b)}b", catalog_id=sized, size_b=s.params_b))
            s.model = sized
            return


# "70b that size's is 40gb", "72b 下载下来才 47G", "the 70B file is 39 GB": the user's own file size
_STATED_SIZE_RE = re.compile(
    r"(?<![a-z0-9.])(?P<b>\d+(?:\.\d+)?)\s*b(?![a-z0-9])(?:(?!cards?|gpus?|卡|显存|vram|memory|ram\b)[^.?!。？;；]){0,30}?"
    r"(?:\bis\b|\bare\b|\bwas\b|=|有|是|才|只有|大小|下载)\s*(?:about|around|only|just|约|大概|大约|才)?\s*"
    r"(?P<gb>\d+(?:\.\d+)?)\s*(?:gb|g)(?![a-z0-9])",
    re.I,
)


def _precision_of_stated_size(text: str, params_b: float) -> str | None:
    """A file size the user gives for the model sets its precision: bytes × 8 ÷ params = bits per weight.
    Under 6 bits is a 4-bit file (Q4_K_M ≈ 4.8, GPTQ/AWQ ≈ 4.2–4.6), 6–10 an 8-bit one; bf16 (16) says nothing."""
    for m in _STATED_SIZE_RE.finditer(text):
        if float(m.group("b")) != params_b:
            continue
        bits = float(m.group("gb")) * 8 / params_b
        return "int4" if 3 <= bits < 6 else "int8" if 6 <= bits < 10 else None
    return None


# A model name glued to its size with "-"/"_" or nothing ("knowlm-13b", "skywork_13b", "r1v2-38b"): the
# name is kept so the answer can say it is not in the catalog; words that are not names are left out.
_GLUED_NAME_RE = re.compile(r"(?<![a-z0-9.\-])([a-z][a-z0-9]*(?:[.\-][a-z0-9]+)*?[a-z0-9]*)[\-_]?$", re.I)
_NOT_NAMES = {"a", "an", "the", "of", "to", "for", "on", "in", "x", "gpu", "model", "models", "llm", "int", "fp", "bf"}


def _after_a_card(text: str, at: int, s: Slots) -> bool:
    """A size written right after a card's name ("910B 4B" = the 32 GB Ascend 910B4) belongs to the card."""
    before = text[:at].rstrip().lower()
    return any(g.text and before.endswith(g.text.strip().lower()) for g in s.gpu_mentions)


def _is_its_size(hit: ModelHit, size_b: float) -> bool:
    """ "deepseek-R1 671 B": the bare size is the named model's own (total or active, within 10%)."""
    from tools.models import resolve_model

    try:
        res = resolve_model(hit.catalog_id)
    except Exception:  # noqa: BLE001 — a row that does not resolve cannot confirm the size
        return False
    return any(abs(p / 1e9 - size_b) <= 0.1 * size_b for p in (res.params, res.active_params))


_SIZE_LIST_RE = re.compile(
    r"\s*(?:[,，、/]|和|以及|及|与|\bor\b|\band\b)\s*(?P<size>\d+(?:\.\d+)?)\s*b(?![a-z0-9])", re.I
)


def _size_lists(work: str, hits: list[ModelHit]) -> list[ModelHit]:
    """「Qwen3-Embedding 0.6B,4B以及8B」: the sizes listed after a named model are that family in those sizes."""
    from tools.models import find_entry

    out: list[ModelHit] = []
    for hit in hits:
        out.append(hit)
        if not hit.catalog_id or hit.size_b is None:
            continue
        size_txt = re.search(r"(\d+(?:\.\d+)?)\s*b(?![a-z0-9])", hit.text, re.I)
        pos = hit.end
        while size_txt and (m := _SIZE_LIST_RE.match(work, pos)):
            name = hit.text[: size_txt.start()] + m.group("size") + "b" + hit.text[size_txt.end() :]
            entry = find_entry(name)
            if entry is None:
                break
            start = m.start("size")
            out.append(ModelHit(start, m.end(), work[start : m.end()], entry.id, False, float(m.group("size"))))
            pos = m.end()
    return out


def _same_model_typos(hits: list[ModelHit]) -> list[ModelHit]:
    """「Qwenvl2.5VL-7B … Qwen2.5Vl7B」: an unknown spelling of the same family and size as a name the catalog
    knows in the same question is that model (a typo), not a second, unknown one."""
    known = [h for h in hits if h.catalog_id]
    out = []
    for h in hits:
        twin = next(
            (
                k
                for k in known
                if h.catalog_id is None
                and h.size_b is not None
                and _catalog_size(k) == h.size_b
                and _same_family(h.text, k.text)
            ),
            None,
        )
        out.append(dataclasses.replace(h, catalog_id=twin.catalog_id, variant=True) if twin else h)
    return out


def _same_family(a: str, b: str) -> bool:
    """'qwenvl2.5vl-7b' and 'qwen2.5vl7b' start with the same family word ('qwen')."""
    wa, wb = (re.match(r"[a-z]*", t.lower()).group(0) for t in (a, b))  # type: ignore[union-attr]
    return bool(wa and wb) and (wa.startswith(wb) or wb.startswith(wa))


def _catalog_size(hit: ModelHit) -> float | None:
    """The size a catalog hit names: in its text ("qwen2.5-7b") or, glued ("qwen2.5vl7b"), in its catalog id."""
    if hit.size_b is not None:
        return hit.size_b
    m = re.search(r"(\d+(?:\.\d+)?)b$", (hit.catalog_id or "").lower())
    return float(m.group(1)) if m else None


_BILLING_CHOICE = re.compile(
    r"(?:按小时|按时|按量|小时计费|hourly|per hour|by the hour|pay[\s-]*as[\s-]*you[\s-]*go).*"
    r"(?:包月|按月|月租|monthly|per month|by the month)|"
    r"(?:包月|按月|月租|monthly|per month|by the month).*"
    r"(?:按小时|按时|按量|小时计费|hourly|per hour|by the hour|pay[\s-]*as[\s-]*you[\s-]*go)",
    re.I,
)


# "15h30m", "2h 45min", "3小时20分钟": hours and minutes, read as decimal hours (15.5 hours)
_HOURS_MINUTES_RE = re.compile(
    r"(?<![\d.])(\d+)\s*(?:h|hrs?|hours?|小时|个小时)\s*(\d{1,2})\s*(?:m(?![a-z])|mins?\b|minutes?\b|分钟?)", re.I
)


def _hours_minutes(work: str) -> str:
    return _HOURS_MINUTES_RE.sub(lambda m: f"{int(m.group(1)) + int(m.group(2)) / 60:g} hours", work)


def _extract_period(work: str, s: Slots) -> None:
    work = re.sub(r"gpu[\s\-]*h(?:ou)?rs?|卡时|机时|卡·时", " ", work, flags=re.I)  # compute, not a rental
    work = _hours_minutes(work)
    low = work.lower()
    if _BILLING_CHOICE.search(low):  # "hourly or monthly?" asks which billing, not the price of one period
        s.cues.add("billing")
        return
    for phrase, (unit, n) in _PERIOD_WORDS.items():
        if phrase in low and not re.search(rf"\d+\s*{re.escape(phrase)}", low):
            s.period_unit, s.period_count = unit, float(n)
            s.period_hours = n * _PERIOD_UNITS[unit][1]
            break
    for m in _PERIOD_RE.finditer(work):
        num = _word_num(m.group("num"))
        unit_txt = m.group("unit").lower()
        if m.group("num") is None and unit_txt in {"h", "日", "天", "月", "年", "周"}:
            continue
        if m.group("num") is None and unit_txt in {"hours", "hrs", "days", "weeks", "months", "years"}:
            continue  # "the cost of cloud training hours": a plural with no count is not one hour
        if unit_txt in {"h"} and num is None:
            continue
        if num is None and re.search(r"(?:/|每|per)\s*$", work[max(0, m.start() - 5) : m.start("unit")], re.I):
            continue  # "$4/hr", "每小时": a rate's unit, not a rental period
        found = _PERIOD_UNITS.get(unit_txt) or _PERIOD_UNITS.get(unit_txt.rstrip("s"))
        if found is None:
            continue
        count = num if num is not None else 1.0
        s.period_unit, s.period_count, s.period_hours = found[0], count, count * found[1]
        return


def _looks_like_log(text: str) -> bool:
    """A pasted log: one line only a machine prints, or several weak markers over several lines."""
    if STRONG_LOG_MARKERS.search(text):
        return True
    if text.count("\n") < 2:
        return False
    hits = 0
    for _ in LOG_MARKERS.finditer(text):  # stop at the second marker instead of listing them all
        hits += 1
        if hits >= 2:
            return True
    return False


def _is_log_line(line: str) -> bool:
    return bool(
        STRONG_LOG_MARKERS.search(line)
        or LOG_MARKERS.search(line)
        or re.match(r"\s*[|+#=\-]", line)
        or is_machine_line(line)
    )


# where an error message pasted inline ends and the user starts speaking: "…size (3). I am running LLaMA 33B on…"
_SPOKEN_TAIL = re.compile(
    r"(?<=[.)。！？!?])\s+(?=(?:i|i'm|i've|my|we|our|is there|how|can|could|please|我|我们|请问|求助)(?![a-z]))", re.I
)


# 「……求助一下怎么才能训练 报错如下 torch.cuda.OutOfMemoryError: …」: the user's words, then the log, on one line
_SPOKEN_HEAD = re.compile(
    r"(?:报错如下|错误如下|报错信息如下|错误信息如下|日志如下|输出如下|报错信息[:：]|报错[:：]|"
    r"(?:the )?(?:error|traceback|log|output)(?: message)?(?: is| was)?(?: as follows)?\s*[:：])\s*",
    re.I,
)


def _split_spoken_tail(line: str) -> list[str]:
    """A log line with the user's own sentences before or after it, as separate lines (what the user says, the error,
    what the user says)."""
    if not _is_log_line(line):
        return [line]
    head = _SPOKEN_HEAD.search(line)
    if head and head.start() > 0 and not _is_log_line(line[: head.start()]) and _is_log_line(line[head.end() :]):
        return [line[: head.start()], *_split_spoken_tail(line[head.end() :])]
    m = _SPOKEN_TAIL.search(line)
    if m and not _is_log_line(line[m.end() :]):
        return [line[: m.start()], line[m.end() :]]
    return [line]


def user_words(text: str) -> str:
    """The user's own lines around a pasted log ("合同写的是 8 卡 A100，输出如下" / "is this normal?").

    Only lines before the first and after the last log line count: a line in the middle of a paste
    is part of what was pasted (possibly planted there), not the user speaking, so it must not set a
    tool argument such as the expected GPU."""
    lines = [part for line in (text or "").splitlines() for part in _split_spoken_tail(line)]
    log_rows = [i for i, line in enumerate(lines) if _is_log_line(line)]
    first, last = (log_rows[0], log_rows[-1]) if log_rows else (len(lines), -1)
    keep = []
    for i, line in enumerate(lines):
        if _is_log_line(line) or first < i < last:
            continue
        if is_person_line(line):
            keep.append(line)
    return "\n".join(keep)


def _size_of(size: str, unit: str) -> float | None:
    if "x" in size:
        return None
    return float(size) / (1000 if unit == "m" else 1)


# "llama3 … and the 70b?": a size after 'and'/'or'/「和」 is a second model, not the release's size
_ANOTHER_MODEL_RE = re.compile(r"(?:\band|\bor|\bvs\.?|和|还有|以及|或者?|跟|对比)\s*(?:the\s+)?$", re.I)


def _versioned_family_at_size(work: str, size_b: float) -> str | None:
    """The catalog id of the one family-and-release named without a size ("Llama 3", "qwen2.5") at the bare size said
    elsewhere in the message; None when none or several releases are named, or the catalog has no such size."""
    from assistant.offline.reading.vocab import family_version_spans

    spans = {re.sub(r"[\s_]+", "-", work[a:b].lower()) for a, b in family_version_spans(work)}
    if len(spans) != 1:
        return None
    return _catalog_id(f"{spans.pop()}-{_fmt(size_b)}b")


def _catalog_id(name: str) -> str | None:
    from tools.models import find_entry

    entry = find_entry(name)
    return entry.id if entry else None


def _fmt(x: float) -> str:
    return f"{x:g}"
