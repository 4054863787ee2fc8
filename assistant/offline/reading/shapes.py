"""Words that shape how a question is answered (not values): which link it names, what a "largest"
question solves for, which spec or memory part it asks about. Read once here into `Frame.mentions`;
intents and renderers test the names (`"pcie" in frame.mentions`), never the question text.
"""

from __future__ import annotations

import re

from assistant.offline.reading.vocab import NOT_A_RATE

# An out-of-memory error in the user's words (one vocabulary: intents/args.py reports_oom reads it too).
OOM_WORDS = (
    r"(?<![a-z])oom|out of memory|爆显存|显存不够|显存不足|显存溢出|显存爆|超过显存|超出显存|显存超了|显存超出|"
    r"cuda\s*(?:内存|显存)\s*不(?:足|够)|insufficient (?:gpu |cuda |video )?memory|not enough (?:gpu |cuda |video )?memory"
)
MENTIONS: dict[str, str] = {
    # links and topology
    "pcie": r"pcie",
    "nvlink": r"nvlink",
    "nvlink_or_sxm": r"nvlink|sxm",
    "nvswitch_or_nvlink_or_sxm": r"nvswitch|nvlink|sxm",
    "sxm": r"sxm",
    # 「两张3090带NVLink桥」: a GeForce pair is bridged only when the user says so, and not when they say it is not
    "bridge_said": r"nvlink|桥接|桥",
    "no_nvlink": r"没有\s*nvlink|无\s*nvlink|不带\s*nvlink|没\s*(?:装|接|加)?\s*(?:nvlink|桥)|without nvlink|no nvlink",
    "multi_node": r"多机|跨机|multi[\s-]*(?:node|machine)|two nodes|两台|多台|"
    r"\b(?:two|2|three|several|multiple) (?:computers|machines|servers)\b",
    "nvidia_smi": r"nvidia-smi",
    # a place in Shandong (the founding use case): prices are national, which the answer must say
    "place_shandong": r"济南|青岛|山东|烟台|潍坊|淄博|临沂|jinan|qingdao|shandong",
    # 「有没有4090租」「租得到吗」: whether the card can be rented at all, beside its price
    "asked_availability": r"有没有.{0,8}(?:租|卖|出租)|(?:能|可以)租到|租得到|租不到|能不能租|有(?:得)?租吗|"
    r"can i rent|available (?:to|for) rent|for rent|rentable",
    # 「ResNet、YOLO 这类」/ "models such as X": a kind of model, not one model to size
    "a_kind_of": r"这类|这种|之类|一类|等模型|such as|kinds? of|e\.g\.",
    # "要什么显卡 / 多大显存 / how much VRAM / which GPU": the question asks for hardware to run something
    "asked_hardware": r"(?:什么|哪种|哪款|哪个|几张|多少|多大)\s*(?:的)?\s*(?:显卡|卡|gpu|显存|配置)|(?:最少|至少|需要|要)\s*(?:多少|几)\s*张|显存.{0,4}(?:多大|多少|够不够|需要)|"
    r"how much (?:vram|gpu memory|memory)|which gpus?|what gpus?|what (?:hardware|card)|vram (?:do i need|needed|required)",
    # "两张卡用 NVLink 连起来显存能叠加吗" / "will my VRAM double": a question about pooling memory
    "pooled_memory": r"(?:显存|内存|vram|memory|ram)\s*(?:能|会|可以|可不可以|能不能|是否)?\s*(?:叠加|相加|合并|合在一起|共享|翻倍|加倍|变成)|"
    r"(?:叠加|合并|共享)\s*(?:显存|vram|memory)|(?:vram|memory|ram)\s+(?:will\s+|would\s+)?(?:double|be doubled|pool|be pooled|combine|add up)|"
    r"(?:double|pool|combine|share|merge)\s+(?:the\s+|my\s+|their\s+|our\s+)?(?:vram|gpu memory|memory|ram)",
    # a training run's own settings a "slow / is this normal" answer weighs (render_jobs: the likely cause)
    "flash_attn": r"flash[\s_-]*(?:attn|attention)|\bfa2\b|\bsdpa\b",
    "checkpointing_on": r"gradient[_\s-]*checkpointing|activation[_\s-]*checkpointing|梯度检查点|重计算",
    # what a "largest that fits" question solves for
    "concurrency_word": r"并发|concurren|同时",
    "batch_word": r"batch|批",
    "context_word": r"上下文|context|长度|序列|seq|多长|longest",
    # the spec asked about (gpu_specs renderer)
    "asked_bandwidth": r"带宽|bandwidth",
    "asked_memory": r"多大显存|显存多大|显存是多少|多少显存|显存容量|memory capacity|memory size|"
    r"how much (?:memory|vram)|\bvram\b|memory and",
    "asked_fp8": r"fp8",
    "asked_tf32": r"tf32",
    "asked_fp32": r"fp32(?![\s-]*(?:accumulat|累加))|单精度",  # not "BF16 (FP32 accumulate)"
    "asked_half": r"bf16|fp16|半精度",
    "asked_int8": r"int8",
    "asked_compute": r"算力|tflops|flops|bf16|fp16|throughput|半精度",
    "asked_power": r"功耗|power|tdp|瓦",
    "same_or_different": r"\bsame\b|identical|一样|相同|一回事|区别|差别|不同|difference|differ|\bdiff\b",
    # 「一小时多少钱，包月呢」: the other billing period asked beside the one priced
    "asked_monthly": r"包月|月租|按月|一个月|每月|per month|monthly|a month",
    "asked_hourly": r"按小时|一小时|每小时|按时|按量|per hour|hourly|an hour",
    "value_for_money": r"性价比|划算|值不值|value|worth|bang for|cost[\s-]*effective|per (?:yuan|dollar)",
    "training_word": r"训练|微调|train|fine[\s-]*tun",
    # "training is very slow" / 「识别太慢了」: a pipeline that spills (offload, dequant) or is bandwidth-bound
    "slow_word": r"慢|slow|速度|提速|卡顿|最快|faster|speed",
    "trained_model": r"微调后|训练后|训好|调好的|fine[\s-]*tuned|trained model|finetuned|训练完",
    # seed-note topics (gpu_specs renderer: which correction is worth showing)
    "note_tf32_opt_in": r"tf32|改代码|code change",
    "note_fp8_also_on_ada": r"fp8|transformer engine",
    "note_pcie_vs_nvlink_bidirectional": r"pcie|nvlink|sxm|互联|64|600",
    "note_h100_pcie_not_3_35": r"3\.35|pcie|带宽|bandwidth",
    "note_a100_form_factor_bandwidth": r"2\.0|pcie|sxm|带宽|bandwidth",
    "note_rtx4090_pcie_gen_p2p": r"p2p|pcie|多卡|nvlink|带宽|bandwidth",
    "note_dense_vs_sparse": r"稀疏|sparse|1979|624|tflops|算力",
    # the memory part asked about (estimate_memory renderer)
    "asked_kv_cache": r"kv\s*cache|kv\s*缓存",
    # not "activated parameters" of a MoE (「只激活2.8b」, "2.8B activated", "active params")
    # nor a setting: --deepspeed_checkpoint_activations, activation checkpointing, 激活重计算 / 激活检查点
    "asked_activations": r"(?<![_-])activations?(?![_-])(?!\s*(?:param|checkpoint|recomput|offload))|"
    r"激活(?!\s*(?:了|的)?\s*(?:参数|\d|约|大约|约为|只有|重计算|重算|检查点))",
    "asked_optimizer": r"optimizer|优化器|adam",
    "asked_host_ram": r"host ram|主机内存|offload|卸载",
    "asked_trainable": r"trainable|可训练",
    # the longest context is the question: 「vllm能开多大上下文」「最长能跑多长的上下文」 "what's the max context I can get"
    "asked_longest_context": r"(?:多大|多长|多少)\s*(?:的)?\s*(?:上下文|context|token)|上下文.{0,6}(?:多大|多长|多少|最长|最大)|"
    r"最(?:长|大)\s*(?:能|可以)?\s*(?:开|支持|跑|设)?\s*(?:多(?:长|大|少))?\s*(?:的)?\s*(?:上下文|context)|"
    r"\bmax(?:imum)?\s+context|longest context|how (?:long|big|much)(?: of)? (?:a )?context",
    # the batch size is the question: 「batch size设多少合适」「最大能开多大batch」 "what's the max batch size"
    "asked_batch_size": r"batch[\s_-]*size.{0,10}(?:设|开|多大|多少|合适|最大|上限)|(?:多大|多少)\s*(?:的)?\s*batch|"
    r"batch.{0,6}(?:多大|多少|上限)|\bmax(?:imum)?\s+(?:micro[\s-]?)?batch|largest (?:micro[\s-]?)?batch|"
    r"how (?:big|large|high) (?:a |the |of a )?(?:micro[\s-]?)?batch",
    # lowering a memory fraction makes start-up fail: 「调整gpu_memory_utilization到低于18G就会报显存不足」
    "lowered_fails": r"(?:调低|调小|降低|减小|调整|改小|lower\w*|reduc\w*|decreas\w*).{0,40}(?:就|会|便|then|it)?.{0,12}"
    r"(?:报错|报显存|显存不足|显存不够|起不来|启动不了|失败|\berror|fails?\b|crash\w*|no available memory)",
    # splitting over GPUs: 「14B 的不支持多卡并行」, "tensor-parallel=1 only", "--tp 2"
    "multi_gpu_word": r"多卡|双卡|张量并行|tensor[\s_-]*parallel|--tp\b|\btp\s*=|multi[\s-]*gpu|several gpus",
    # host RAM (内存 / RAM), not GPU memory (显存 / VRAM / "GPU内存")
    "host_ram_word": r"(?<!gpu)(?<!gpu )(?<!显卡)(?<!显卡的)内存(?!溢出)|cpu\s*内存|系统内存|(?<!gpu )(?<!gpu)\bram\b|"
    r"system memory|main memory|cpu memory|host memory|\bswap\b|交换分区|mmap",
    "asks_rule_of_thumb": r"4\s*倍|4\s*[x×]|文章|seed|article|rule of thumb|经验公式",
    # jobs
    "asked_gpu_hours": r"gpu[\s-]*hours?|卡时|机时|算力总量",
    "yes_no": r"能|可以|够|行不行|吗|can\b|enough|afford|possible",
    # user code: from_pretrained without a dtype loads fp32 in transformers 4.x
    "from_pretrained_call": r"from_pretrained\s*\(",
    "dtype_set": r"torch_dtype|\bdtype\s*=|\.half\(\)|\.bfloat16\(\)|\.to\(\s*torch\.b?float16|load_in_[48]bit|"
    r"quantization_config|bnb_config",
    # OOM while the model loads (before training starts): each process holds the whole base first
    "oom_at_load": r"get_peft_model|from_pretrained|加载模型(?:时|的时候)|load(?:ing)? (?:the )?model|模型加载",
    # "I get OOM with my setup": the answer leads with what to change
    "oom_report": rf"(?:{OOM_WORDS})\s*(?:了|啦|error)?.{{0,12}}(?:怎么办|咋办|怎么解决|how|what|fix|help)|"
    rf"(?:报|出现|一直|总是|老是|还是|就|都|也|仍|仍然|依然|依旧)\s*(?:会|要)?\s*(?:报\s*)?(?:{OOM_WORDS})|(?:oom|爆显存|显存溢出)\s*了|"
    rf"(?:i get|getting|got|hit)\s+(?:an?\s+)?(?:cuda\s+)?(?:{OOM_WORDS})",
}
_MENTION_RES = {name: re.compile(p, re.I) for name, p in MENTIONS.items()}


# a shell line commented out in a pasted command (「# --gradient_checkpointing」): that option is off, not on
_COMMENTED_LINE = re.compile(r"^[ \t]*#[^\n]*$", re.M)


def mentions(text: str, raw: str | None = None) -> set[str]:
    """Shape words of the question; a commented-out command line names no setting (setups marked `raw` still
    see it in `raw`, the question as written: a comment inside a backslash-continued command is itself a cause)."""
    from assistant.offline.reading.setups import setup_mentions

    live = _COMMENTED_LINE.sub("", text)
    return {name for name, rx in _MENTION_RES.items() if rx.search(live)} | setup_mentions(text, raw)


# a size said as what a job uses or needs, not as what a card has: 「占用 20G」「吃了22G」 "consuming 20GB"
_USAGE_BEFORE = re.compile(
    r"(?:占用|占了|用了|吃了|使用了|涨到|升到|到了|达到|需要|要|峰值|peak|using|uses|used|consum\w*|takes?|took|"
    r"needs?|requires?|occup\w*)\s*(?:了|约|大约|about|around|~)?\s*$",
    re.I,
)


def card_sizes(text: str) -> list[int]:
    """'A100 40G 和 80G' → [40, 80]: two or more memory sizes named for one card. Sizes a job uses or needs
    (「未量化前占用 20G, 量化后占用 22G」) are not cards."""
    sizes = [
        int(m.group(1))
        for m in re.finditer(rf"(?<![\d.])(\d{{2,3}})\s*(?:g|gb|gib)(?![a-z]){NOT_A_RATE}", text, re.I)
        if not _USAGE_BEFORE.search(text[max(0, m.start() - 12) : m.start()])
    ]
    return list(dict.fromkeys(sizes)) if len(set(sizes)) >= 2 else []


_LINK_QTY = re.compile(r"(?<![A-Za-z0-9_.])(\d+)\s*(gbe|gbps|gbit|gb/s|gb|g)(?![a-z0-9])\s*(ib|roce|infiniband)?", re.I)
_NET_NEAR = re.compile(
    # ASCII boundaries: "IB带宽" has no \b between B and 带 (both word characters in Unicode)
    r"网卡|以太网|网络|网口|组网|光口|ethernet|network|(?<![a-z])nics?(?![a-z])|(?<![a-z])ib(?![a-z])|infiniband|"
    r"(?<![a-z])roce(?![a-z])|rdma|交换机|switch|互联|interconnect",
    re.I,
)
# what a "48G" / "24GB" right after or before the number is: a card's (or the host's) memory, not a link
_CAPACITY_AFTER = re.compile(
    r"^\s*(?:的)?\s*(?:显存|内存|gpus?|cards?|卡|显卡|vram|memory|ram|hbm|gddr|[a-z]{0,4}\d{2,4}\b)", re.I
)
_LINK_RATES = (1, 10, 25, 40, 50, 100, 200, 400, 800)


def network(text: str) -> str | None:
    """'10G以太网' → '10G', 'IB HDR' → 'IB HDR', '100G RoCE' → '100G RoCE'. A number is a link only by its unit
    (10GbE, 200Gb/s, 100Gbps) or a network word next to it; "one 48G GPU", "a 24GB K80", "32GB RAM" are memory
    and "160GB/s" (bytes per second) is a bandwidth figure, not a link."""
    for m in _LINK_QTY.finditer(text):
        n, unit, kind = int(m.group(1)), m.group(2), m.group(3)
        u = unit.lower()
        if u == "gb/s" and unit != "Gb/s":
            continue  # GB/s: a bandwidth in bytes, not a line rate
        bits = u in ("gbe", "gbps", "gbit") or unit == "Gb/s"
        if not bits:
            after = text[m.end() : m.end() + 12]
            if _CAPACITY_AFTER.match(text[m.end() :]) and not kind:
                continue
            near = _NET_NEAR.search(text[max(0, m.start() - 12) : m.start()]) or _NET_NEAR.search(after)
            if not (kind or near) or n not in _LINK_RATES:
                continue
        return f"{n}G" + (f" {kind.upper().replace('INFINIBAND', 'IB')}" if kind else "")
    named = re.search(r"(?<![a-z])(?:(ib|infiniband)\s*(ndr|hdr|edr)|roce)(?![a-z])", text, re.I)
    if named:
        return named.group(0).upper().replace("INFINIBAND", "IB")
    return None


# Requests to decline without a tool: unlawful or provider-terms-breaking ones, price forecasts.
_UNLAWFUL_RE = re.compile(
    r"绕过(?:出口)?(?:管制|限制|禁令)|规避(?:出口)?管制|走私|翻墙.*(?:租|买)|破解|盗版|多开.*(?:试用|免费)|"
    r"(?:批量|大量)(?:注册|开).*(?:免费|试用)|挖矿|挖币|mining (?:crypto|bitcoin|eth|program)|qubic|xmrig|nicehash|lolminer|t-rex miner|crypto[\s-]*min(?:ing|er)|\bminers?\b.*\bmine\b|"
    r"(?:bypass|evade|get around|circumvent)\s+(?:the\s+)?(?:export|sanction|ban|control|restriction)|"
    r"smuggl|(?:free|trial) (?:credits?|tier).*(?:multiple|many|fake) accounts|fake accounts|"
    r"(?:别人|他人|偷)的?(?:账号|服务器|算力)|(?:hack|break into|steal)\b.*(?:server|gpu|account)|ddos|"
    r"(?:转租|倒卖).*(?:违反|不让|禁止)|违反.*(?:条款|协议)|against (?:the )?(?:terms|tos)|violat\w* (?:the )?(?:terms|tos)",
    re.I,
)
_FORECAST_RE = re.compile(
    r"(?:明年|下个月|下半年|未来|以后|年底|过几个月|会不会|将来|预测|预计).{0,12}(?:价格|租金|涨|降|跌|便宜|贵)|"
    r"(?:显卡|gpu|卡价|租金|价格|算力).{0,6}(?:还要|还会|还得|会)\s*(?:涨|降|跌)(?:多久|到什么时候|吗|价)?|"
    r"(?:价格|租金|卡价).{0,8}(?:会不会|会|能不能|预计|预测).{0,6}(?:涨|降|跌|便宜|贵|下来)|"
    r"(?:will|going to)\s+(?:[\w-]+\s+){0,3}(?:prices?|rent\w*|costs?)\b.{0,30}(?:drop|fall|go down|rise|go up|increase|decrease)|"
    r"(?:price|rental)\s+(?:forecast|prediction)|predict\w*\s+(?:the\s+)?(?:price|rent)|"
    r"(?:next year|next month|in \d+ months?).{0,30}(?:price|cheaper|more expensive)",
    re.I,
)


def decline_of(text: str) -> str | None:
    """'unlawful' / 'forecast' / None for the user's own words."""
    if _UNLAWFUL_RE.search(text):
        return "unlawful"
    if _FORECAST_RE.search(text):
        return "forecast"
    return None
