"""The quantities a person gives beyond the job's basic shape, read into the Frame.

Concurrency as people ("给50个人同时用"), framework settings quoted as key=value (cutoff_len,
max_model_len, per_device_train_batch_size), a dataset as samples × tokens × epochs, a usage pattern
(hours a day, days a week), a project length, a monthly budget, link speeds (10GbE, 200Gb/s, NDR) and
engine words. Numbers with units go through `tools/quantities.py` (one parser for 5万, 1.5k, 两).
Every value read here is also listed in `Frame.quantities` so constraint accounting can see it.
"""

from __future__ import annotations

import re

from assistant.offline.reading.frame import Ask, Frame, Quantity
from tools.errors import ToolInputError
from tools.quantities import parse_chinese_number

_CN = r"[零〇一二两俩三四五六七八九十百千]+|半"
_N = rf"(?:\d+(?:\.\d+)?|{_CN})"


def _num(text: str | None) -> float | None:
    if not text:
        return None
    text = text.strip()
    try:
        return float(text)
    except ValueError:
        pass
    try:
        return parse_chinese_number(text)
    except ToolInputError:
        return None


_MULT = {"万": 1e4, "w": 1e4, "千": 1e3, "k": 1e3, "m": 1e6, "百万": 1e6, "亿": 1e8, "": 1.0}

# ---------------------------------------------------------------- framework words ---------------
# Engines and training frameworks (not GPU/model names): the words users write for them.
ENGINES: dict[str, str] = {
    r"vllm": "vLLM",
    r"sglang": "SGLang",
    r"llama\.?cpp|gguf|(?<![\w-])-ngl\b|--n-gpu-layers|n_gpu_layers": "llama.cpp",
    # an Ollama tag ("qwen3:32b", "deepseek-r1:8b") is how Ollama names what it pulls: its 4-bit default applies
    r"ollama|(?<![\w.:/-])[a-z][a-z0-9.\-]*:\d+(?:\.\d+)?b(?![\w.])": "Ollama",
    r"tensorrt[\s-]*llm|trt[\s-]*llm": "TensorRT-LLM",
    r"lmdeploy|turbomind|cache[_-]max[_-]entry[_-]count": "LMDeploy",
    r"exllama\w*|\bexl2\b": "ExLlamaV2",
    r"text[\s-]*generation[\s-]*web[\s-]*ui|oobabooga|textgen[\s-]*webui": "text-generation-webui",
    r"\btgi\b|text-generation-inference": "TGI",
    r"llama[\s-]*factory|llamafactory": "LLaMA-Factory",
    r"deepspeed": "DeepSpeed",
    r"megatron": "Megatron-LM",
    r"\bfsdp\b": "FSDP",
    r"unsloth": "Unsloth",
    r"axolotl": "Axolotl",
    r"ms-swift|\bswift\b": "ms-swift",
    r"xtuner": "XTuner",
    r"ktransformers": "KTransformers",
    r"mindie": "MindIE",
    r"xinference": "Xinference",
    r"fastchat": "FastChat",
}
_ENGINE_RES = [(re.compile(p, re.I), name) for p, name in ENGINES.items()]

# key=value settings a user quotes from a config or command line → the Frame field they set.
_SETTINGS: dict[str, str] = {
    "cutoff_len": "context",
    "max_model_len": "context",
    "max-model-len": "context",
    "max_seq_len": "context",
    "max_seq_length": "context",
    "max-seq-len": "context",
    "model_max_length": "context",
    "max_length": "context",
    "seq_length": "context",
    "per_device_train_batch_size": "batch",
    "micro_batch_size": "batch",
    "train_micro_batch_size_per_gpu": "batch",
    "num_train_epochs": "epochs",
    "max_num_seqs": "concurrency",
    "max-num-seqs": "concurrency",
    "tensor_parallel_size": "gpu_count",
    "tensor-parallel-size": "gpu_count",
    "tp": "gpu_count",
    # FastChat model_worker --num-gpus, Xinference launch --n-gpu, the deepspeed launcher --num_gpus: cards used
    # (not Ollama's num_gpu, which counts layers)
    "num-gpus": "gpu_count",
    "num_gpus": "gpu_count",
    "n-gpu": "gpu_count",
    "n_gpu": "gpu_count",
    "lora_rank": "lora_rank",
    "lora_r": "lora_rank",
    "quantization_bit": "quantization_bit",
}
# LLaMA-Factory / vLLM keys whose value the reader takes elsewhere (model, mode, LoRA targets) or that only
# name how a run is launched: read, so never reported as "a setting I could not read".
_READ_ELSEWHERE = {
    "model_name_or_path",
    "finetuning_type",
    "lora_target",
    "quantization_method",
    "template",
    "stage",
    "do_train",
    "cuda_visible_devices",
}
_GPU_UTIL_RE = re.compile(
    r"gpu[\s_\-]*memory[\s_\-]*utili[sz]ation\s*(?:[:=：]|\(|is|of|设为|设置为|设成|=)?\s*\(?\s*(?P<v>0?\.\d+|1(?:\.0+)?)(?![\d.])",
    re.I,
)
_WANTED_SHARE_RE = re.compile(
    r"(?:只占用?|只用|占用|限制|限定|控制在|limit(?:ed)?(?: it)?(?: to)?|only (?:use|take)|use only|cap(?: it)?(?: at)?)"
    r"[^\n%]{0,12}?(?P<p>\d{1,2}(?:\.\d+)?)\s*%\s*(?:的)?\s*(?:显存|gpu|memory|vram|of (?:the )?(?:gpu|memory|vram))",
    re.I,
)
_SETTING_RE = re.compile(
    # JSON / YAML quoting of a pasted config is allowed: "cutoff_len": 51974, 'quantization_bit': 4
    r"(?:--)?(?P<key>[a-z][a-z0-9_\-]{1,40})[\"']?\s*(?:[=:：]\s*[\"']?|\s+)(?P<val>\d+(?:\.\d+)?\s*k?)(?![\w.])",
    re.I,
)
_KEYLIKE = re.compile(r"(?:--)?(?P<key>[a-z]+(?:[_\-][a-z0-9]+)+)\s*[=:]\s*(?P<val>[\w.\-]+)", re.I)

_USERS_RE = re.compile(
    rf"(?P<n>{_N})\s*(?:个|位|名)?\s*(?:人|用户|同事|员工|users?|people|clients?)\s*"
    r"(?:同时|一起|并发|在线|concurrently|at once|at the same time|simultaneously)|"
    rf"(?:同时|并发)\s*(?:有|支持|给|服务)?\s*(?P<n2>{_N})\s*(?:个|位|名|路)?\s*(?:人|用户|请求|会话|users?|requests?)|"
    rf"(?:给|供|服务)\s*(?P<n3>{_N})\s*(?:个|位|名)?\s*(?:人|用户|同事)\s*(?:用|使用)",
    re.I,
)
_SAMPLES_RE = re.compile(
    r"(?P<n>\d+(?:\.\d+)?)\s*(?P<mul>百万|万|千|million|mil|thousand|k|w|m)?\s*"
    r"(?:(?:chat|training|instruction|sft|dialog(?:ue)?|qa|对话|训练|指令|微调)\s*)?(?:条|个样本|样本|samples?|examples?|"
    r"conversations?|instructions?|对话|问答对|rows)",
    re.I,
)
# "5-6 hundred tokens", "500~600 token", "每条 1-2k token": tokens per sample given as a range (midpoint used)
_SAMPLE_RANGE_RE = re.compile(
    r"(?<![\d.])(?P<a>\d+(?:\.\d+)?)\s*(?:-|–|~|～|到|至|to)\s*(?P<b>\d+(?:\.\d+)?)\s*(?P<h>hundred|百|k|千)?\s*"
    r"(?:个)?\s*(?:tokens?|词元|tok\b)",
    re.I,
)
# "my sample size is probably 550 tokens", "samples are ~600 tokens": a plain per-sample length near the word sample
_SAMPLE_PLAIN_RE = re.compile(
    r"(?:samples?|样本|每条|单条|一条|each|per|数据)[^.?!。？；;]{0,30}?(?<![\d.])(?P<n>\d+(?:\.\d+)?)\s*(?P<k>k|千)?\s*"
    r"(?:个)?\s*(?:tokens?|词元|tok\b)",
    re.I,
)
_EN_EPOCHS = {"one": 1, "a single": 1, "single": 1, "two": 2, "three": 3, "four": 4, "five": 5, "ten": 10}
_EN_EPOCHS_RE = re.compile(r"\b(?P<w>one|a single|single|two|three|four|five|ten)\s+epoch(?:e?s)?\b", re.I)  # "epoches"
# "200M语料" / "5亿字" / "1B characters": a corpus size. Characters → tokens by the DeepSeek API rule (1 Chinese
# character ≈ 0.6 token, 1 English character ≈ 0.3 token: https://api-docs.deepseek.com/zh-cn/quick_start/token_usage);
# an ambiguous "语料/数据" is read as tokens and the answer says so (knowledge/mfu.yaml data_units).
_CORPUS_RE = re.compile(
    r"(?<![A-Za-z0-9_.\-])(?P<n>\d+(?:\.\d+)?)\s*(?P<u>千万|百万|亿|m|b|g)\s*(?:的)?\s*"
    r"(?P<what>语料|数据量|数据(?!集)|文本|汉字|中文字符|字符|字|characters?|chars?)",
    re.I,
)
# "数据集50MB" / "a 2GB jsonl": a file size in bytes → characters (UTF-8: 3 bytes per Chinese character, 1 per
# ASCII one) → tokens at the per-character rate of the question's language
_FILE_RE = re.compile(
    r"(?:数据集|数据|语料|dataset|data|corpus|jsonl?|txt)\s*(?:大小|文件)?\s*(?:是|有|为|约|大概|大约|of|is|about|~)?\s*"
    r"(?P<n>\d+(?:\.\d+)?)\s*(?P<u>mb|gb|g|m|tb)(?![a-z])|"
    r"(?<![A-Za-z0-9_.\-])(?P<n2>\d+(?:\.\d+)?)\s*(?P<u2>mb|gb|tb)\s*(?:的)?\s*(?:数据集|数据|语料|文本|dataset|of (?:text|data)|"
    r"jsonl?|txt|corpus)",
    re.I,
)
_FILE_BYTES = {"m": 1e6, "mb": 1e6, "g": 1e9, "gb": 1e9, "tb": 1e12}
# not k/万/千: "60k的数据" / "10万数据" count samples (条), not a corpus size
_CORPUS_MULT = {"千万": 1e7, "百万": 1e6, "亿": 1e8, "m": 1e6, "b": 1e9, "g": 1e9}
# a tqdm progress bar: "1200/3000 [2:30:00<3:45:10, 10.5s/it]" → elapsed + remaining is the run's whole time
_TQDM_RE = re.compile(
    r"(?P<done>\d+)\s*/\s*(?P<total>\d+)\s*\[\s*(?P<el>\d+(?::\d{1,2}){1,2})\s*<\s*(?P<rem>\d+(?::\d{1,2}){1,2}|\?)"
    r"\s*,\s*(?P<rate>\d+(?:\.\d+)?)\s*(?P<ru>s/it|it/s)",
    re.I,
)
# "3000 steps at 10.5s/it" / "共 3000 步，10.5s/it": steps × seconds per step
_STEPS_RATE_RE = re.compile(
    r"(?P<steps>\d{2,7})\s*(?:steps?|步|its?|iterations?)[^.?!。？]{0,40}?(?<![\d.])(?P<rate>\d+(?:\.\d+)?)\s*(?P<ru>s/it|it/s)|"
    r"(?<![\d.])(?P<rate2>\d+(?:\.\d+)?)\s*(?P<ru2>s/it|it/s)[^.?!。？]{0,40}?(?P<steps2>\d{2,7})\s*(?:steps?|步|its?|iterations?)",
    re.I,
)
_SAMPLE_TOKENS_RE = re.compile(
    r"(?:每条|每个样本|平均|单条|each|per sample|on average|avg\.?|averag\w*|of)\s*(?:长度|约|大概|大约|about|~|≈)?\s*"
    r"(?P<n>\d+(?:\.\d+)?)\s*(?P<k>k|千)?\s*(?:个)?\s*(?:tokens?|词元|字|tok)",
    re.I,
)
_EPOCHS_RE = re.compile(
    # (?![a-z0-9_]), not (?!\w): 「3个epoch要80h」 — a Chinese character after the word is \w in Python's re; 「第3轮」
    # is which round, not how many
    rf"(?<!第)(?P<n>{_N})\s*(?:个)?\s*(?:epoch(?:e?s)?|轮|遍)(?![a-z0-9_])|(?:epoch(?:e?s)?|轮数)\s*[=:：]?\s*(?P<n2>\d+)",
    re.I,
)
_HOURS_DAY_RE = re.compile(
    rf"(?:每天|一天|每日|日均|a day|per day|daily)\s*(?:只|就|大概|约|用|跑|开)*\s*(?P<n>{_N})\s*(?:个)?\s*(?:小时|钟头|h\b|hours?)|"
    rf"(?P<n2>{_N})\s*(?:个)?\s*(?:小时|h|hours?)\s*(?:/|每|一|a|per)\s*(?:天|日|day)",
    re.I,
)
_DAYS_WEEK_RE = re.compile(
    rf"(?:每周|一周|每星期|一星期|每个星期|a week|per week)\s*(?:只|就|大概|约|用|跑|开|工作)*\s*(?P<n>{_N})\s*(?:天|days?)|"
    rf"(?P<n2>{_N})\s*(?:天|days?)\s*(?:/|每|一|a|per)\s*(?:周|星期|week)",
    re.I,
)
_PROJECT_RE = re.compile(
    rf"(?:项目|周期|工期|总共|一共|持续|要用|用|租|for|over)\s*(?:周期|时长)?\s*(?:是|为|大概|约)?\s*(?P<n>{_N})\s*(?:个)?\s*(?P<u>月|个月|年|months?|years?)|"
    r"(?P<half>半年|half a year)",
    re.I,
)
_MONTHLY_BUDGET_RE = re.compile(
    r"(?:每月|每个月|月)\s*(?:预算|经费|能花|最多花)|(?:预算|budget)[^，。,.;；]{0,12}(?:每月|每个月|/\s*月|一个月|per month|a month|monthly)|"
    r"(?:每月|每个月|per month|a month|monthly)\s*(?:预算|budget)|monthly budget",
    re.I,
)
_LINK_RE = re.compile(
    r"(?<![A-Za-z0-9_.])(?P<n>\d{1,3})\s*(?P<u>gbe|gb/s|gbps|gbit|g(?:b)?)(?![a-z0-9])\s*(?P<kind>ib|infiniband|roce|rdma|以太网|网卡|网络|"
    r"ethernet|nic|networking|网)?",
    re.I,
)
# a bandwidth in bytes per second the user quotes ("160GB/s", "337.35 GB/s"; not "200Gb/s", a line rate in bits)
# 「万兆网」「千兆网卡」: Ethernet named by its rate in 兆 (Mb/s): 万兆 = 10,000 Mb/s = 10 Gb/s, 千兆 = 1 Gb/s
_CN_LINK_RE = re.compile(r"(?<![十百千万亿0-9])(万|千)兆(?:以太)?(?:网|光|电口|口|交换|带宽|互联|链路)?")
_BYTE_RATE_RE = re.compile(r"(?<![A-Za-z0-9_.])(\d+(?:\.\d+)?)\s*(?:GB|gb)\s*/\s*s(?![a-z])")
_IB_GEN = {"ndr": 400.0, "hdr": 200.0, "edr": 100.0, "xdr": 800.0}
_IB_RE = re.compile(r"(?<![a-z])(ndr|hdr|edr|xdr)(?![a-z])", re.I)
_NET_WORD = re.compile(
    r"网|ethernet|network|\bib\b|infiniband|\broce\b|rdma|\bnics?\b|交换机|switch|互联|带宽|跨机|多机", re.I
)
_SPLIT_RE = re.compile(
    r"(?<=[?？;；])\s*|\n+|\s*(?:另外|还有就是|还有|以及|顺便问一下|顺便问|顺便|and also|also,)\s*", re.I
)


# Local-runtime settings (knowledge/engines.yaml local_runtimes): the value as written, e.g. {"ngl": "0"}.
_RUNTIME_SETTING_RES = {
    "ngl": re.compile(r"(?:(?<![\w-])-ngl|--n-gpu-layers|n_gpu_layers|--gpu-layers)\s*[=:]?\s*(-?\d+)", re.I),
    "cache_max_entry_count": re.compile(r"cache[_-]max[_-]entry[_-]count\s*[=:]?\s*(0?\.\d+|1(?:\.0)?)", re.I),
    "cache_bits": re.compile(r"cache[_\s-]*(8|4)[_\s-]*bit|\bq(4|8)[_\s-]*cache|cache[_\s-]*q(4|8)", re.I),
    "gpu_split": re.compile(
        r"gpu[_\s-]*(?:split|memory)\s*[=:]?\s*(\d+(?:\.\d+)?(?:\s*[,，/]\s*\d+(?:\.\d+)?)+)", re.I
    ),
    "bpw": re.compile(r"(\d+(?:\.\d+)?)\s*bpw|bpw\s*[=:]?\s*(\d+(?:\.\d+)?)", re.I),
}


def _runtime_settings(frame: Frame, text: str) -> None:
    """llama.cpp -ngl, LMDeploy cache_max_entry_count, ExLlamaV2 cache bits / bpw, a per-card GPU split."""
    for key, rx in _RUNTIME_SETTING_RES.items():
        m = rx.search(text)
        if m:
            frame.runtime_settings[key] = re.sub(r"\s+", "", next(g for g in m.groups() if g is not None))
    if "ngl" in frame.runtime_settings and "llama.cpp" not in frame.engines:
        frame.engines.append("llama.cpp")


def read_quantities(frame: Frame, text: str, raw_text: str) -> None:
    """Add the quantities the slot reader does not know to `frame` (in place). `text` is the lower-cased
    reading window (the user's own words for a paste); `raw_text` the same with case kept."""
    for rx, name in _ENGINE_RES:
        if rx.search(text) and name not in frame.engines:
            frame.engines.append(name)
    _settings(frame, text)
    _runtime_settings(frame, text)
    from assistant.offline.reading.engine_memory import read_engine_memory

    read_engine_memory(frame, text)  # pooling / observed-memory words, engines' start-up fractions
    _users(frame, text)
    _dataset(frame, text)
    _usage(frame, text)
    _budget_period(frame, text)
    _volume(frame, text)
    _links(frame, text, raw_text)
    if _PER_MINUTE_RE.search(text):
        frame.mentions.add("per_minute")  # "每分钟生成多少 token": the speed also in tokens a minute
    if _BATCH_LIMIT_RE.search(text):
        frame.mentions.add("batch_limit")  # "batch size 最大只能 16": the per-card ceiling, gradient accumulation
    frame.quoted_rates_gbs = [float(m.group(1)) for m in _BYTE_RATE_RE.finditer(raw_text)]
    frame.asks = split_asks(text)
    from assistant.offline.reading.money import read_foreign_budget

    frame.budget_foreign = read_foreign_budget(raw_text)
    frame.quantities = list_quantities(frame)


_PER_MINUTE_RE = re.compile(
    r"(?:每|一)\s*(?:一)?\s*分钟.{0,12}(?:token|词元|字|生成)|tokens?\s*(?:per|a|/)\s*min", re.I
)
# the per-card batch is capped by memory and the user asks whether that is right or how to get the paper's batch
_BATCH_LIMIT_RE = re.compile(
    r"(?:batch[\s_-]*size|\bbs\b|批大小|批次大小).{0,16}(?:最大|最多|只能|上限|顶多|max(?:imum)?\b|at most|only|can'?t go"
    r"|cannot go|limited)|(?:最大|只能|max(?:imum)?|largest)\s*(?:的)?\s*(?:batch[\s_-]*size|批大小)",
    re.I,
)

_MODE_SETTING_RE = re.compile(
    r"(?:--)?(?:train_type|finetuning_type|finetune_type|training_type)[\"']?\s*[=:\s]\s*[\"']?(lora|qlora|full|freeze)\b",
    re.I,
)


def _settings(frame: Frame, text: str) -> None:
    m = _MODE_SETTING_RE.search(text)
    if m and m.group(1).lower() != "freeze":  # "--train_type lora" is what the run does
        mode = m.group(1).lower()
        frame.mode, frame.modes, frame.finetune = mode, [mode], False
    for m in _SETTING_RE.finditer(text):
        key = m.group("key").lower()
        target = _SETTINGS.get(key)
        if target is None:
            continue
        raw = m.group("val").replace(" ", "")
        value = float(raw[:-1]) * 1024 if raw.endswith("k") else float(raw)
        if target == "context":
            frame.context = int(value)
        elif target == "batch":
            frame.batch = int(value)
        elif target == "epochs":
            frame.epochs = value
        elif target == "concurrency":
            if frame.concurrency is None:
                # vLLM's --max-num-seqs caps how many sequences are scheduled at once; it is not a load the KV cache
                # must hold (vLLM only checks that one max_model_len sequence fits at start-up)
                frame.mentions.add("max_num_seqs_cap")
            frame.concurrency = frame.concurrency or int(value)
        elif target == "gpu_count" and frame.gpu_count is None and value >= 1:
            frame.gpu_count = int(value)
        elif target == "lora_rank":
            frame.lora_rank = int(value)
        elif target == "quantization_bit" and value in (4, 8):
            frame.precision = frame.precision or f"int{int(value)}"
            if value == 4 and frame.mode == "lora":
                # LLaMA-Factory's finetuning_type lora + quantization_bit 4 (bitsandbytes) is QLoRA: a 4-bit frozen base
                frame.mode, frame.modes = "qlora", ["qlora"]
    m = _GPU_UTIL_RE.search(text)
    if m and 0 < float(m.group("v")) <= 1:
        frame.gpu_memory_utilization = float(m.group("v"))
    w = _WANTED_SHARE_RE.search(text)
    if w and frame.gpu_memory_utilization is None and 0 < float(w.group("p")) < 100:
        # 「限制只占用 50% 的显存」: the share the user wants an engine to take, as the fraction its flag takes
        frame.gpu_memory_utilization = float(w.group("p")) / 100
    known = set(_SETTINGS) | _READ_ELSEWHERE | {"zero_stage", "stage", "zero", "rank", "bs", "batch_size"}
    known |= {"gpu_memory_utilization", "gpu-memory-utilization"}
    for m in _KEYLIKE.finditer(text):
        key = m.group("key").lower()
        if key not in known and f"{key}={m.group('val')}" not in frame.unread:
            frame.unread.append(f"{key}={m.group('val')}")


def _users(frame: Frame, text: str) -> None:
    m = _USERS_RE.search(text)
    if not m:
        return
    n = _num(m.group("n") or m.group("n2") or m.group("n3"))
    if n and n >= 1:
        frame.users = int(n)
        if frame.concurrency is None:
            frame.concurrency = int(n)


_SAMPLE_MULT = {**_MULT, "million": 1e6, "mil": 1e6, "thousand": 1e3}


def _clock_hours(t: str) -> float:
    """'2:30:00' → 2.5, '45:10' → 0.75 (tqdm's [H:]MM:SS)."""
    parts = [float(x) for x in t.split(":")]
    while len(parts) < 3:
        parts.insert(0, 0.0)
    return parts[0] + parts[1] / 60 + parts[2] / 3600


def _progress(frame: Frame, text: str) -> None:
    """A progress bar's whole run time, as measured hours: tqdm's elapsed + remaining, or steps × s/it."""
    hours = None
    m = _TQDM_RE.search(text)
    if m and m.group("rem") != "?":
        hours = _clock_hours(m.group("el")) + _clock_hours(m.group("rem"))
    elif m:
        rate = float(m.group("rate"))
        per = rate if m.group("ru").lower() == "s/it" else 1 / rate
        hours = int(m.group("total")) * per / 3600
    else:
        m = _STEPS_RATE_RE.search(text)
        if m:
            steps = int(m.group("steps") or m.group("steps2"))
            rate = float(m.group("rate") or m.group("rate2"))
            per = rate if (m.group("ru") or m.group("ru2")).lower() == "s/it" else 1 / rate
            hours = steps * per / 3600
    if hours and hours > 0 and (frame.period_hours is None or frame.period_unit not in ("hour", "day")):
        frame.period_hours, frame.period_unit, frame.period_count = round(hours, 2), "hour", round(hours, 2)
        frame.mentions.add("progress_bar")


def _tokens_per_char() -> dict[str, float]:
    """Tokens per character (zh/en) from knowledge/mfu.yaml `data_units` (one source with the writer)."""
    from tools.train_time import mfu_data

    row = mfu_data()["data_units"]["tokens_per_char"]
    return {"zh": float(row["zh"]), "en": float(row["en"])}


def _corpus(frame: Frame, text: str) -> None:
    """'200M语料' → 2e8 tokens (assumed tokens, said); '5亿字' → characters × 0.6 token (Chinese); '数据集50MB' →
    bytes ÷ 3 × 0.6 (Chinese) or bytes × 0.3 (English)."""
    if frame.tokens:
        return
    f = _FILE_RE.search(text)
    if f and not frame.samples:
        n = float(f.group("n") or f.group("n2")) * _FILE_BYTES[(f.group("u") or f.group("u2")).lower()]
        per_char = _tokens_per_char()
        if re.search(r"[\u4e00-\u9fff]", text):
            frame.tokens, tag = n / 3 * per_char["zh"], "data_unit:file_zh"
        else:
            frame.tokens, tag = n * per_char["en"], "data_unit:file_en"
        frame.mentions.add(tag)
        return
    m = _CORPUS_RE.search(text)
    if not m:
        return
    n = float(m.group("n")) * _CORPUS_MULT[m.group("u").lower()]
    what = m.group("what").lower()
    if frame.samples and what in ("数据", "数据量"):
        return  # "1M数据" was read as a count of samples (_data_count)
    per_char = _tokens_per_char()
    if what in ("汉字", "中文字符", "字符", "字"):
        frame.tokens, tag = n * per_char["zh"], "data_unit:chars_zh"
    elif what.startswith("char"):
        frame.tokens, tag = n * per_char["en"], "data_unit:chars_en"
    else:
        frame.tokens, tag = n, "data_unit:corpus"
    frame.mentions.add(tag)


# "10万数据" / "1M数据" / "5W左右的数据" / "数据（一共100多万）": a count of items (条), in 万/w/k/M — not a corpus in
# tokens (that is 语料/文本/字, or 亿/B-scale 数据 for pre-training); "100多万" is read as its round part, 100万
_DATA_COUNT_RE = re.compile(
    r"(?<![\d.A-Za-z])(?P<n>\d+(?:\.\d+)?)\s*(?:多|余|\+)?\s*(?P<mul>百万|万|w|k|千|m)(?![a-z])\s*(?:多|余|\+)?\s*"
    r"(?:左右)?\s*(?:条|个)?\s*(?:的)?\s*(?:(?:sft|训练|微调|标注|图文)?\s*数据(?!集\s*大小)|样本|图文对|问答对)|"
    r"(?:数据|样本|数据集)[^。？?！!；;\d]{0,16}?(?<![\d.A-Za-z])(?P<n2>\d+(?:\.\d+)?)\s*(?:多|余|\+)?\s*"
    r"(?P<mul2>百万|万|w|m)(?![a-z])\s*(?:多|余|\+)?\s*(?:左右|条|个|样本)?(?!\s*(?:元|块|token|tok|词|字|参数|卡|小时|步|steps?))",
    re.I,
)
_JOINED_RE = re.compile(r"加上|再加|\+|＋|合并|混合|混在一起|一起形成|plus", re.I)


def _data_count(text: str) -> float | None:
    """Samples from '10万数据' / '1M数据'; two such counts joined ('100多万 … 再加上 … 5W') add up."""
    found = [
        (
            m.start(),
            m.end(),
            float(m.group("n") or m.group("n2")) * _SAMPLE_MULT[(m.group("mul") or m.group("mul2")).lower()],
        )
        for m in _DATA_COUNT_RE.finditer(text)
    ]
    if not found:
        return None
    if len(found) >= 2 and _JOINED_RE.search(text[found[0][1] : found[1][0] + 20]):
        return found[0][2] + found[1][2]
    return found[0][2]


def _dataset(frame: Frame, text: str) -> None:
    m = _SAMPLES_RE.search(text)
    if m:
        frame.samples = float(m.group("n")) * _SAMPLE_MULT[(m.group("mul") or "").lower()]
    elif not frame.tokens and not re.search(r"预训练|pre-?train", text, re.I):
        frame.samples = _data_count(text) or frame.samples
    m = _SAMPLE_TOKENS_RE.search(text)
    if m and frame.samples:
        frame.sample_tokens = float(m.group("n")) * (1000 if m.group("k") else 1)
    if frame.samples and not frame.sample_tokens:
        r = _SAMPLE_RANGE_RE.search(text)
        p = None if r else _SAMPLE_PLAIN_RE.search(text)
        if r:
            scale = {"hundred": 100, "百": 100, "k": 1000, "千": 1000}.get((r.group("h") or "").lower(), 1)
            mid = (float(r.group("a")) + float(r.group("b"))) / 2 * scale
            if 1 <= mid <= 131072:
                frame.sample_tokens = mid
        elif p:
            v = float(p.group("n")) * (1000 if p.group("k") else 1)
            if 1 <= v <= 131072:
                frame.sample_tokens = v
    m = _EPOCHS_RE.search(text)
    if m:
        frame.epochs = _num(m.group("n") or m.group("n2"))
    else:
        m = _EN_EPOCHS_RE.search(text)
        if m:
            frame.epochs = float(_EN_EPOCHS[m.group("w").lower()])
    _corpus(frame, text)
    _progress(frame, text)
    if frame.samples and frame.sample_tokens and not frame.tokens:
        # the tokens a run processes: samples × tokens per sample × epochs (6·N·D counts every pass)
        frame.tokens = frame.samples * frame.sample_tokens * (frame.epochs or 1)


# hours of use per year / month / week: 「一年大概用3000小时」「每月用200小时」 "about 3000 hours a year"
_HOURS_PER_PERIOD_RE = re.compile(
    r"(?P<p>一年|每年|年|一个月|每个?月|月|一周|每周|周)\s*(?:大概|大约|约|差不多|估计)?\s*(?:要|会)?\s*(?:用|跑|开机|使用|开)\s*"
    r"(?P<n>\d+(?:\.\d+)?)\s*(?:个)?\s*(?:小时|h\b)|"
    r"(?P<n2>\d+(?:\.\d+)?)\s*(?:gpu[\s-]*)?hours?\s*(?:a|per|each|every)\s*(?P<p2>year|month|week)",
    re.I,
)
_PERIOD_DAYS = {"年": 365.0, "year": 365.0, "月": 30.4, "month": 30.4, "周": 7.0, "week": 7.0}


def _usage(frame: Frame, text: str) -> None:
    m = _HOURS_DAY_RE.search(text)
    if m:
        n = _num(m.group("n") or m.group("n2"))
        if n and 0 < n <= 24:
            frame.hours_per_day = n
    m = _HOURS_PER_PERIOD_RE.search(text) if frame.hours_per_day is None else None
    if m:  # the hours a period holds, spread evenly over it: 3000 h a year = 8.2 h a day for 52 weeks
        n = _num(m.group("n") or m.group("n2"))
        unit = next(k for k in _PERIOD_DAYS if k in (m.group("p") or m.group("p2") or "").lower())
        if n and 0 < n / _PERIOD_DAYS[unit] <= 24:
            frame.hours_per_day = round(n / _PERIOD_DAYS[unit], 2)
            frame.weeks = frame.weeks or round(_PERIOD_DAYS[unit] / 7, 2)
    m = _DAYS_WEEK_RE.search(text)
    if m:
        n = _num(m.group("n") or m.group("n2"))
        if n and 0 < n <= 7:
            frame.days_per_week = n
    m = _PROJECT_RE.search(text)
    if m:
        if m.group("half"):
            frame.project_months = 6.0
        else:
            n = _num(m.group("n"))
            unit = (m.group("u") or "").lower()
            if n:
                frame.project_months = n * (12 if unit.startswith(("年", "year")) else 1)


_MONTHLY_RE = re.compile(r"每月|每个月|一个月|月均|月用量|per month|a month|/\s*month|monthly|/月", re.I)
_WEEKS_RE = re.compile(rf"(?:做|用|租|跑|持续|for)\s*(?P<n>\d+(?:\.\d+)?|{_CN})\s*(?:个)?\s*(?:周|星期|weeks?)", re.I)


_DAILY_RE = re.compile(r"每天|每日|一天|日均|天均|per day|a day|/\s*day|daily|/天|/日", re.I)
_WEEKLY_RE = re.compile(r"每周|每星期|一周|周均|per week|a week|/\s*week|weekly|/周", re.I)
# "每天调用5万次，每次1000 token" / "50k requests a day, 1,000 tokens each": a volume as calls × tokens per call
_CALLS_RE = re.compile(
    rf"(?:每天|每日|一天|日均)\s*(?:大概|大约|约)?\s*(?:调用|请求|访问|问答)?\s*(?P<n>{_N})\s*(?P<mul>万|千|k|w)?\s*"
    r"(?:次|个请求|条请求|条|个问题)|"
    rf"(?P<n2>\d+(?:\.\d+)?)\s*(?P<mul2>k|m)?\s*(?:requests?|calls?|queries)\s*(?:a|per|/)\s*day",
    re.I,
)
_PER_CALL_RE = re.compile(
    r"(?:每次|每条|每个请求|每个问题|平均)\s*(?:大概|大约|约)?\s*(?P<t>\d+(?:\.\d+)?)\s*(?P<mul>k|千|万)?\s*(?:个)?\s*tokens?|"
    r"(?P<t2>\d[\d,]*(?:\.\d+)?)\s*(?P<mul2>k)?\s*tokens?\s*(?:each|per (?:request|call|query))",
    re.I,
)
# A month of serving is counted as 30 days (and 30/7 weeks) when the user gives a daily or weekly volume.
DAYS_PER_MONTH = 30


def _calls_volume(text: str) -> float | None:
    """Tokens a day from 'N calls a day × M tokens per call', or None when either half is missing."""
    calls, per = _CALLS_RE.search(text), _PER_CALL_RE.search(text)
    if not (calls and per):
        return None
    n = _num(calls.group("n") or calls.group("n2"))
    t = _num((per.group("t") or per.group("t2") or "").replace(",", ""))
    if not (n and t):
        return None
    n *= _MULT.get((calls.group("mul") or calls.group("mul2") or "").lower(), 1.0)
    t *= _MULT.get((per.group("mul") or per.group("mul2") or "").lower(), 1.0)
    return n * t


_PER_MILLION_ASKED_RE = re.compile(
    r"(?:一百万|100\s*万|百万|1\s*m|one million|a million)\s*(?:个)?\s*tokens?\s*(?:合|要|是|大概|大约|约)?\s*"
    r"(?:多少钱|多少|几块|cost|costs|how much)",
    re.I,
)


def _volume(frame: Frame, text: str) -> None:
    """'每月输出5亿token' is a serving volume, not training tokens and not a one-month rental; so is
    '每天100万token' (× 30 days) and '每天调用5万次，每次1000 token' (calls × tokens per call × 30 days).
    '做6周' is a usage pattern's length when a daily or weekly pattern is given."""
    if frame.tokens == 1e6 and _PER_MILLION_ASKED_RE.search(text):
        frame.tokens = None  # 「一百万token合多少钱」: the unit of a price asked, not a volume served
    daily = None if frame.training else _calls_volume(text)
    if daily:
        frame.monthly_tokens, frame.daily_tokens = daily * DAYS_PER_MONTH, daily
        frame.tokens = None
    elif frame.tokens and not frame.training and _MONTHLY_RE.search(text):
        frame.monthly_tokens, frame.tokens = frame.tokens, None
        if frame.period_unit == "month" and (frame.period_count or 1) == 1:
            frame.period_hours = frame.period_unit = frame.period_count = None
    elif frame.tokens and not frame.training and _DAILY_RE.search(text):
        frame.daily_tokens, frame.tokens = frame.tokens, None
        frame.monthly_tokens = frame.daily_tokens * DAYS_PER_MONTH
    elif frame.tokens and not frame.training and _WEEKLY_RE.search(text):
        frame.monthly_tokens, frame.tokens = frame.tokens * DAYS_PER_MONTH / 7, None
    if frame.daily_tokens and frame.period_unit == "day" and (frame.period_count or 1) == 1:
        frame.period_hours = frame.period_unit = frame.period_count = None  # "每天" was the volume's rate
    m = _WEEKS_RE.search(text)
    if m and (frame.hours_per_day or frame.days_per_week):
        n = _num(m.group("n"))
        if n and 0 < n <= 520:
            frame.weeks = n
            if frame.period_unit in ("week", "hour"):  # the pattern's length or its hours a day, not a rental
                frame.period_hours = frame.period_unit = frame.period_count = None


_BUDGET_AFTER_RE = re.compile(
    rf"(?P<n>\d+(?:\.\d+)?|{_CN})\s*(?P<u>万|千|k|w)\s*(?:元|块钱|块|rmb)?\s*(?:的)?\s*(?:预算|经费|budget)", re.I
)


def _budget_period(frame: Frame, text: str) -> None:
    if frame.budget_cny is None:
        m = _BUDGET_AFTER_RE.search(text)  # "5w预算" / "3万块的预算"
        if m:
            from tools.quantities import parse_money_cny

            try:
                frame.budget_cny = float(parse_money_cny(m.group("n") + m.group("u")))
            except ToolInputError:
                pass
    if _MONTHLY_BUDGET_RE.search(text):
        if frame.budget_cny is None and frame.monthly_quote_cny:
            frame.budget_cny, frame.monthly_quote_cny = frame.monthly_quote_cny, None  # "预算3000元每月"
        if frame.budget_cny is not None:
            frame.budget_per = "month"
    elif frame.budget_cny is not None:
        frame.budget_per = "total"


# "8 *100 Gbps network nic" / 「4张200G的IB网卡」/ "one NIC with 10Gbps": NICs per server and their line rate
_NICS_RE = re.compile(
    rf"(?P<n>\d{{1,2}}|{_CN}|one|two|four|eight)\s*(?:\*|x|×|张|块|个|根)?\s*(?P<g>\d{{1,3}})\s*(?:gbps|gb/s|gbit|g)(?![a-z0-9])\s*"
    r"(?:的)?\s*(?P<kind>ib|infiniband|roce|rdma|以太网)?\s*(?:network\s*)?(?:nics?|网卡|hcas?|ports?)|"
    rf"(?P<n2>\d{{1,2}}|{_CN}|one|two|four|eight)\s*(?:张|块|个)?\s*(?:nics?|网卡|hcas?)\s*(?:with|of|,)?\s*"
    r"(?P<g2>\d{1,3})\s*(?:gbps|gb/s|gbit|g)(?![a-z0-9])",
    re.I,
)
_EN_COUNT = {"one": 1, "two": 2, "four": 4, "eight": 8}


def _nics(frame: Frame, text: str) -> None:
    m = _NICS_RE.search(text)
    if not m:
        return
    raw = (m.group("n") or m.group("n2") or "").lower()
    n = _EN_COUNT.get(raw) or _num(raw)
    speed = float(m.group("g") or m.group("g2"))
    if n and 1 <= n <= 16 and speed in (1, 10, 25, 40, 50, 100, 200, 400, 800):
        frame.nics_per_node = int(n)
        if frame.link_gbps is None:
            kind = (m.group("kind") or "").lower()
            label = " IB" if kind in ("ib", "infiniband") else " RoCE" if kind == "roce" else ""
            frame.link_gbps, frame.link_name = speed, f"{speed:g}G{label}"


def _links(frame: Frame, text: str, raw_text: str) -> None:
    _nics(frame, text)
    if frame.link_gbps is not None and frame.nics_per_node:
        return
    m = _IB_RE.search(text)
    if m:
        frame.link_gbps, frame.link_name = _IB_GEN[m.group(1).lower()], f"InfiniBand {m.group(1).upper()}"
        return
    m = _CN_LINK_RE.search(text)
    if m:  # 「万兆网」 = 10 Gb/s Ethernet, 「千兆」 = 1 Gb/s: how Chinese users name a link
        n = 10.0 if m.group(1) == "万" else 1.0
        frame.link_gbps, frame.link_name = n, f"{n:g}G"
        return
    for m in _LINK_RE.finditer(text):
        unit = m.group("u").lower()
        n = float(m.group("n"))
        if unit in ("gbe", "gbps", "gbit") or m.group("kind") or (_NET_WORD.search(text) and unit in ("g", "gb/s")):
            if unit == "gb/s" and not re.search(rf"{m.group('n')}\s*Gb/s", raw_text):
                continue  # GB/s (bytes) is a bandwidth figure, not a link's line rate
            if unit in ("g", "gb") and not m.group("kind") and n not in (10, 25, 40, 50, 100, 200, 400, 800):
                continue  # "24G" is a card's memory; link rates are 10/25/100/200/400 G
            frame.link_gbps = n
            kind = (m.group("kind") or "").lower()
            frame.link_name = f"{n:g}G" + (" IB" if kind in ("ib", "infiniband") else " RoCE" if kind == "roce" else "")
            return


# cues that make a clause a question of its own (specs/compare words also describe a setup)
_SHAPES = {"price", "time", "how_many", "fit", "max_fit", "plan", "decode_speed"}


def split_asks(text: str) -> list[Ask]:
    """The parts of the question in order: split at question marks, semicolons, new lines and
    "另外 / 还有 / also"; a comma starts a new part only when both sides ask something different
    ("70B 全量要几张 A100，一个月多少钱"). Each part keeps the cue words it contains."""
    from assistant.offline.reading.slots import cues_of

    out: list[Ask] = []
    for part in _SPLIT_RE.split(text or ""):
        part = (part or "").strip(" ,，。.")
        if len(part) < 2:
            continue
        clauses = [c.strip() for c in re.split(r"[，,]", part) if c.strip()]
        current, shape = "", set[str]()
        for clause in clauses:
            cues = cues_of(clause) & _SHAPES
            if current and cues and shape and not cues & shape:
                out.append(Ask(text=current, cues=sorted(cues_of(current))))
                current, shape = clause, set(cues)
            else:
                current = f"{current}，{clause}" if current else clause
                shape |= cues
        if current:
            out.append(Ask(text=current, cues=sorted(cues_of(current))))
    return out


# (Frame field, kind, unit) for the flat values, so every value read is listed once.
_FLAT: tuple[tuple[str, str, str], ...] = (
    ("gpu_count", "gpu_count", "GPU"),
    ("params_b", "params_b", "B"),
    ("context", "context", "tokens"),
    ("batch", "batch", ""),
    ("concurrency", "concurrency", ""),
    ("tokens", "tokens", "tokens"),
    ("samples", "samples", ""),
    ("sample_tokens", "sample_tokens", "tokens"),
    ("epochs", "epochs", ""),
    ("hours_per_day", "hours_per_day", "h"),
    ("days_per_week", "days_per_week", "d"),
    ("project_months", "project_months", "months"),
    ("budget_cny", "budget_cny", "CNY"),
    ("deadline_hours", "deadline_hours", "h"),
    ("link_gbps", "link_gbps", "Gb/s"),
    ("nodes", "nodes", ""),
    ("nics_per_node", "nics_per_node", ""),
    ("period_hours", "period", "h"),
    ("hourly_quote_cny", "hourly_quote_cny", "CNY/h"),
    ("monthly_quote_cny", "monthly_quote_cny", "CNY/month"),
    ("zero_stage", "zero_stage", ""),
    ("monthly_tokens", "monthly_tokens", "tokens"),
    ("daily_tokens", "daily_tokens", "tokens"),
    ("weeks", "weeks", "weeks"),
    ("gpu_memory_utilization", "gpu_memory_utilization", ""),
)


def list_quantities(frame: Frame) -> list[Quantity]:
    out: list[Quantity] = []
    for field, kind, unit in _FLAT:
        value = getattr(frame, field)
        if value is None:
            continue
        per = frame.budget_per if field == "budget_cny" else (frame.period_unit if field == "period_hours" else None)
        out.append(Quantity(kind=kind, value=float(value), unit=unit, per=per))
    if frame.precision:
        out.append(Quantity(kind="precision", value=0, unit=frame.precision))
    if frame.budget_foreign:
        out.append(Quantity(kind="budget_foreign", value=frame.budget_foreign[0], unit=frame.budget_foreign[1]))
    for g in frame.gpu_mentions:
        if g.memory_gb:
            out.append(Quantity(kind="card_memory_gb", value=g.memory_gb, unit="GB", text=g.text))
    if frame.vram_gb and not frame.gpu_mentions:
        out.append(Quantity(kind="card_memory_gb", value=frame.vram_gb, unit="GB"))
    return out


# ---- GPU-hours: one grammar for every reader (reading/slots.py for a run's compute, reading/money.py for a quote)
# "1,720,320 A100 GPU-hours", 「172 万 A100 卡时」, "3310 A100 GPU hours", "2k GPU hrs", "1.5M H100 GPU-hours",
# "500 gpu h", "3.8 GPU-days" (× 24). The card name between the number and the unit is kept as a span for the GPU reader.
GPU_HOURS_RE = re.compile(
    r"(?<![\d.A-Za-z$])(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)\s*"
    r"(?P<mul>百万|万|亿|thousand|million|k|m)?\s*(?:个)?\s*"
    r"(?P<gpu>(?:nvidia\s*)?(?:rtx\s*)?[a-z]{1,4}\d{2,4}[a-z]*(?:\s*\d{2,3}\s*g[b]?)?(?:\s*(?:sxm\d?|pcie))?\s*)?"
    r"(?P<unit>gpu[\s\-]*(?:hours?|hrs?|h\b)|gpu\s*小时|gpu时|卡时|卡·时|卡小时|gpus?[\s\-]*days?|gpu\s*天|卡天)",
    re.I,
)
_GPU_HOURS_MUL = {"万": 1e4, "百万": 1e6, "亿": 1e8, "k": 1e3, "thousand": 1e3, "m": 1e6, "million": 1e6}


def gpu_hours_matches(text: str) -> list[tuple[float, re.Match[str]]]:
    """Every GPU-hour figure in the text, in order, with its match (value in GPU-hours)."""
    out = []
    for m in GPU_HOURS_RE.finditer(text or ""):
        value = float(m.group("num").replace(",", "")) * _GPU_HOURS_MUL.get((m.group("mul") or "").lower(), 1.0)
        if re.search(r"day|天", m.group("unit"), re.I):  # "3.8 GPU-days" (PC-DARTS): 24 GPU-hours a GPU-day
            value *= 24
        out.append((value, m))
    return out


# "1845 and 3310 A100 GPU hours", 「1845和3310卡时」: a bare number joined to a GPU-hours figure shares its unit
_GPU_HOURS_LEAD = re.compile(
    r"(?<![\d.A-Za-z$])(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)\s*(?P<mul>万|k)?\s*"
    r"(?:and|or|和|与|及|或|、|/)\s*$",
    re.I,
)


def gpu_hours_values(text: str) -> list[float]:
    """Every GPU-hour figure, including a bare number joined to one ('1845 and 3310 A100 GPU hours' → both)."""
    out: list[float] = []
    for value, m in gpu_hours_matches(text):
        lead = _GPU_HOURS_LEAD.search((text or "")[max(0, m.start() - 24) : m.start()])
        if lead:
            mul = _GPU_HOURS_MUL.get((lead.group("mul") or m.group("mul") or "").lower(), 1.0)
            out.append(float(lead.group("num").replace(",", "")) * mul)
        out.append(value)
    return out
