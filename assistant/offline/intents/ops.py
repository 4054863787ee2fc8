"""Operations and how-to: delivery checks for a new server, a symptom described in words, and
questions the guide answers (one more look inside the best document as the follow-up).

A cause or remedy question ("why is it slow", 「这正常吗」, "how do I fix it") is a part of its own: the
guide answers it and leads, even when the question also names a model and a card; the numbers the
other intents would give follow only where they bear on the cause (`cause_follower`)."""

from __future__ import annotations

import re

from assistant.offline.intents import args as A
from assistant.offline.intents.args import ADVICE, DELIVERY
from assistant.offline.intents.base import has_size
from assistant.offline.intents.serving import SERVING
from assistant.offline.reading.frame import Frame
from assistant.offline.types import ToolCall, ToolResult
from tools.retrieval.leads import guide_leads

NAME = ADVICE


def applies_delivery(f: Frame) -> bool:
    return "delivery" in f.cues and not has_size(f)


def applies_symptom(f: Frame) -> bool:
    # a symptom described in words (no log): the guide explains causes and checks
    return "diagnose" in f.cues and not has_size(f) and not f.gpus


# The question asks for a cause, whether something is normal, or what to change — not for a figure.
_CAUSE = re.compile(
    r"为什么|为啥|为何|什么原因|啥原因|原因是|可能原因|什么问题|啥问题|咋回事|怎么回事|是否正常|正常吗|正常不|正常么|"
    r"正常(?:的)?(?:吗|么|嘛|不)|正不正常|是不是因为|是因为|怎么办|咋办|怎么解决|如何解决|怎么调整|如何调整|怎么调|怎么修|怎么排查|如何排查|需要排查|排查哪些|"
    r"怎么加速|如何加速|怎么提速|怎么优化|如何优化|怎么改|改什么|怎么(?:才)?能(?:够)?让|怎样(?:才)?能|有什么办法|有没有办法|怎么才能|如何才能|遇到过|能达到|能否达到|能不能达到|"
    r"\bwhy\b|what might|what could|any ideas?|is (?:this|it|that) (?:normal|expected)|how (?:do|can|should) (?:i|we) "
    r"(?:fix|solve|debug|resolve|change|increase|improve|avoid|make|load|get|use|speed|set|configure|launch|start)|"
    r"怎么填|如何填|填什么|填啥|分别填|怎么设置|如何设置|怎么配置|如何配置|怎么启动|如何启动|how to (?:fix|solve|debug|resolve|"
    r"avoid|improve|increase|speed)|can (?:we|i) change|root cause|what am i doing wrong|what(?:'s| is) causing|"
    r"is (?:this|that|it) expected|meet (?:your|the) expectations?|"
    r"is (?:this|that|it) (?:ok|okay|fine|safe|bad|a problem|dangerous)|should i (?:be )?worr|"
    r"要紧吗|要不要紧|有问题吗|有没有问题|没事吧|没问题吧|会不会坏|会坏吗|危险吗|安全吗|"
    r"哪里有问题|哪里出了问题|哪儿有问题|问题出在哪|哪里不对|需要修改吗|要改什么|该改什么|what(?:'s| is) wrong|"
    r"what should (?:i|we) (?:check|look at)|what to check|where (?:should i|to) look|该查什么|要查什么|需要检查什么|查哪些",
    re.I,
)
# Something behaves other than expected (slow, stuck, NaN, an error, a figure that looks wrong).
_SYMPTOM = re.compile(
    r"慢|才\s*\d|只\s*\d|低于|不如|差距|至\s*\d+\s*倍|卡住|卡死|不动了|上不去|不高|只有|仅有|利用率|nan|溢出|不下降|不降|震荡|不收敛|效果.{0,4}差|比较差|报错|错误|失败|"
    r"掉卡|温度|过热|高温|\d+\s*(?:度|°c|℃)|\d+\s*c\b|overheat|temperature|too hot|throttl|降频|"
    r"爆显存|爆掉|oom|超时|hang|无法|不能用|用不了|访问不了|被墙|连不上|打不开|不一样|不一致|不对|异常|只用了|只检测|"
    r"只显示|一个一个|越来越|变长|增加|上涨|不够|不足|duplicat|slow|faster|not improv|low util|stuck|fail|error|"
    r"diverg|not decreas|only|cannot|can't|can not|unable|wrong|increase|grow|hangs|timed? ?out|1 by 1|one by one|"
    r"runs? out of memory|out of memory|larger than|很高|太高|(?:very|too|so) high|speed|加速|提速|uses? all|"
    # memory that reads full or above what was set (the allocator, the CUDA context, preallocation)
    r"占满|吃满|顶满|吃光|占光|用满|拉满|多出|设置的多|设的多|memory_reserved|memory_allocated|(?:memory|vram) (?:is )?full",
    re.I,
)
_SLOW = re.compile(r"慢|耗时|小时|天|延迟|slow|hours|days|faster|latency|ttft", re.I)
# Engines that serve a model (names as reading/quantities.ENGINES writes them): their slowness is not a training step.
_SERVING_ENGINES = {
    "vLLM",
    "SGLang",
    "llama.cpp",
    "Ollama",
    "TensorRT-LLM",
    "LMDeploy",
    "TGI",
    "KTransformers",
    "MindIE",
    "Xinference",
    "FastChat",
}
_RL = re.compile(r"(?<![a-z])(?:ppo|grpo|rlhf|rl)(?![a-z])|强化学习|rollout", re.I)
# Shapes whose intent may follow a cause answer when the question also gave the job.
_FOLLOWERS = {A.MEMORY, A.MIN_GPUS, A.MAX_FIT, A.TRAIN_TIME, A.PLAN, A.PRICE}


# A symptom stated so plainly that the cause is what is wanted, even without "why" (「推理非常缓慢」,
# "training speed is not improved by using a better GPU").
_STATED = re.compile(
    r"出现.{0,24}(?:问题|错误|报错|nan)|遇到.{0,20}问题|不应该|怎么会|难道|非常缓慢|很慢|特别慢|太慢|极慢|巨慢|慢得|反而慢|反而更慢|比(?!较).{1,15}慢|慢了?\s*\d|慢出|卡住不动|loss.{0,8}不(?:下降|降)|"
    r"slower than|(?:very|so|really|extremely|inordinately|too) slow|not (?:significantly )?improv|no faster|not faster|"
    r"(?:can ?not|cannot|can't|unable to) improve|not as good as|hangs? up|only (?:answer|use|uses|get)s?\b|1 by 1|"
    r"one by one|(?:very|too|so) high|很高|太高|特别高",
    re.I,
)


# "会不会很慢" asks what would happen (the interconnect tool answers it), not why something is slow.
_HYPOTHETICAL = re.compile(r"会不会|会.{0,6}[慢卡]吗|would .{0,30}(?:be )?slow|will .{0,30}be slow", re.I)


def asks_cause(f: Frame) -> bool:
    return bool(
        _CAUSE.search(f.text)
        or _REFUND.search(f.text)  # a refund asked of the provider: what decides it (the billing guide)
        or (_STATED.search(f.text) and not _HYPOTHETICAL.search(f.text))
    )


def host_ram_asked(f: Frame) -> bool:
    """「没有足够的 CPU 内存初始化」, "how much CPU memory for ZeRO offload" about a sized training job: the host RAM
    it needs is a number the memory estimate gives (DeepSpeed's estimator), not know-how."""
    # 「需要多少内存？我128g内存」: a RAM size of one's own says 内存 is host RAM; alone, many users mean 显存 by it
    # (「5张V100合计80G，到底需要多少内存」)
    asked = "asked_host_ram" in f.mentions or ("requirement" in f.cues and f.host_ram_gb is not None)
    return f.training and has_size(f) and "host_ram_word" in f.mentions and asked and not f.pipeline


def quant_tp_asked(f: Frame) -> bool:
    """「14B-Int4 为什么不支持多卡并行」: int4 weights of a catalog model whose group size limits its tensor-parallel
    sizes (tools/memory_parallel.py); the estimate's rule is the cause, with the model's own intermediate_size."""
    if f.precision != "int4" or "multi_gpu_word" not in f.mentions or not f.model:
        return False
    from tools.memory_parallel import quant_limits_tp
    from tools.models import find_entry

    entry = find_entry(f.model)
    return entry is not None and quant_limits_tp(entry.arch)


_WHY = re.compile(r"为啥|为什么|为何|怎么会|咋会|\bwhy\b|how come", re.I)


def requirement_why(f: Frame) -> bool:
    """「6B微调为啥需要60GB」: why a sized job needs the figure someone quoted — the memory breakdown (weights,
    gradients, optimizer states, activations) is the answer, set against the quoted figure; the guide follows."""
    return bool(f.required_gb and has_size(f) and not f.is_log and _WHY.search(f.text or "") and not f.decline)


def applies_cause(f: Frame) -> bool:
    """「4090D比4060Ti慢20%，可能原因是？」: a cause asked about a symptom (or about nothing a tool computes).
    A log paste, a quoted measurement (busbw, reported memory) and the step-time question have their own
    tools, which answer the cause with numbers; they come earlier in PRECEDENCE."""
    from assistant.offline.intents.train_time import applies_step_time

    if f.measured_busbw_gbs or f.reported_memory or f.algbw_gbs or f.convert:
        return False  # "busbw 只有 380 GB/s 正常吗": the measurement's own tool says whether it is normal
    pooled = "pooled_memory" in f.mentions and bool(
        f.gpus
    )  # the card's own memory answers it (gpus.applies_spec_question)
    # 「这个35B的要8卡才能跑吗（vllm-ascend）」: a count asked for a sized model is the finding's own question; the
    # stack's guide call follows the count (intents/stack.py)
    counted = "how_many" in f.cues and has_size(f) and f.gpu_count is not None
    if host_ram_asked(f) or quant_tp_asked(f):
        return (
            False  # the memory estimate answers it (DeepSpeed's host-RAM figure, the int4 TP rule); the guide follows
        )
    if guide_leads(f.text) and not f.decline and not pooled and not counted:
        return True  # know-how the guide answers ("SSH 一断训练就停", "V100 能装 flash-attn 吗"): see tools/retrieval/leads
    serving = f.mode == "inference" or bool(set(f.engines) & _SERVING_ENGINES)
    rl = bool(_RL.search(f.text))  # RL time goes to generating rollouts, which the step-time model leaves out
    if not asks_cause(f) or f.decline or (applies_step_time(f) and not serving and not rl):
        return False  # a slow serving stack is not a training step (「微调后的 72B 用 vLLM 部署很慢」)
    if "delivery" in f.cues and not _SYMPTOM.search(f.text):
        return False  # 「验收要查什么」: the acceptance checklist, not a cause
    shapes = f.cues & {"price", "time", "how_many", "max_fit", "plan", "decode_speed", "fit", "specs", "compare"}
    return bool(_SYMPTOM.search(f.text)) or not shapes or bool(_REFUND.search(f.text))


# A refund or compensation asked of the provider: the billing guide says what decides it and what to send.
_REFUND = re.compile(r"能退吗|能不能退|可以退|能退款|退款|退钱|补偿|赔偿|\brefund|compensat", re.I)


def applies_rl_cause(f: Frame) -> bool:
    """「PPO 训练要 400 小时，咋回事」: an RL run slower than expected. The time estimate counts 6·N·D of training
    compute and leaves out generating the rollouts, which is most of an RL step, so the cause (generation)
    leads and the estimate follows; it comes before the measured-time rule in PRECEDENCE."""
    return bool(_RL.search(f.text)) and applies_cause(f)


def cause_followers(f: Frame, other: str) -> list[str]:
    """The intents whose numbers follow the guide's answer to a cause question. `other` is the intent
    the question would get without its cause part. Kept only where the numbers bear on the cause:
    the named cards side by side ("why is the 4090 faster than the A100"), whether the job fits the
    named cards (a card that seems too small, slow inference that may spill), the expected decode
    speed ("80 tok/s, is that normal"), how long the job should take (when the data size was given),
    or what was asked besides (price, plan)."""
    from assistant.offline.intents.base import has_size

    known = all(g.gpu_id for g in f.gpu_mentions)  # an unknown card would only add "not in the table"
    if has_size(f) and A.reports_oom(f) and f.training and "decode_speed" not in f.cues and not f.pipeline:
        # 「2 x 4090 微调 X 依旧 OOM（文档说 16 × A100）」: the job against the user's cards is the cause; a second
        # card quoted from a document is not a comparison to draw
        return [A.MEMORY]
    if len(f.gpus) >= 2 and known and has_size(f) and "decode_speed" in f.cues and not f.training:
        # 「A100 才 40 tokens/s，4090 和 L40 都 50 以上」: each card's bandwidth ceiling for this model, then the rows
        return [A.DECODE_SPEED, A.SPECS]
    if len(f.gpus) >= 2 and known and (other == A.SPECS or has_size(f) or f.pipeline):
        # "the H20 is slower than the L40": the two cards side by side are the deciding numbers, and with a
        # model to serve, which bound (compute or bandwidth) each card hits for it (serving plan per card)
        return [other, A.SPECS] if other == SERVING else [A.SPECS]
    if f.pipeline:  # FLUX / Wan / Whisper: its weights (and whether they fit a named card) bear on the cause
        return [A.MEMORY]
    if not has_size(f):
        return []
    if _SLOW.search(f.text) and (f.training or f.mode not in (None, "inference")) and (f.samples or f.tokens):
        return [A.TRAIN_TIME]  # "it says 3 days": how long the job should take is the deciding number
    has_cards = bool(f.gpus or f.vram_gb or f.gpu_memory_gb)
    serving = f.mode == "inference" or bool(set(f.engines) & _SERVING_ENGINES)
    if other == A.DECODE_SPEED or "decode_speed" in f.cues or (serving and _SLOW.search(f.text)):
        return [A.MEMORY, A.DECODE_SPEED] if has_cards else [A.DECODE_SPEED]
    if serving and not has_cards and (f.gpu_count or 0) >= 2:
        # 「--num-gpus 2 为什么不能多卡」: the model's weights split over those cards bear on the cause
        return [A.MEMORY]
    if other not in _FOLLOWERS and has_cards:
        other = A.MEMORY  # a card that seems too small, an engine that seems to waste memory: does it fit?
    if other == A.MEMORY and not has_cards:
        return []
    return [other] if other in _FOLLOWERS else []


def applies_price_advice(f: Frame) -> bool:
    return "price" in f.cues and not f.gpus


def applies(f: Frame) -> bool:
    return True  # the last resort: the guide


def delivery_calls(f: Frame) -> list[ToolCall]:
    return [
        A.call(DELIVERY, "delivery_checklist", gpus=f.gpu_count, model=A.gpu_arg(f)),
        A.call(DELIVERY, "search_guide", query=A.guide_query(f, DELIVERY), k=2),
    ]


# What names the setting rather than the problem: commands and flags, code spans, asides in brackets, and
# words with digits (cards, models, sizes, figures: 4090D, A100, 33b, 32G, 20%).
_FLAGS = re.compile(r"(?:^|(?<=\s))--?[A-Za-z][\w\-]*(?:[= ][^\s,，)）]+)?")
_CODE_SPAN = re.compile(r"`[^`]*`")
_ASIDE = re.compile(r"\([^)]*\)|（[^）]*）")
_WITH_DIGITS = re.compile(r"[A-Za-z_.\-]*\d[A-Za-z0-9_.\-%]*")
_SENTENCE = re.compile(r"(?<=[。！？!?；;：:\n])|(?<=\.)\s+")


def _setting_word(m: re.Match[str]) -> str:
    """A word with digits goes unless it is a technical term (zero-2, fp16, int4 name the method, not the card)."""
    from assistant.offline.reading.unknown_names import _terms

    return m.group(0) if m.group(0).lower() in _terms() else " "


def symptom_query(text: str) -> str:
    """The sentences of a question that state the symptom or ask the cause, without the commands, flags, card
    and model names and figures around them. Those name the setting, not the problem: in a long paste they
    outrank the section that explains the cause (「4090D比4060Ti慢20%，可能原因是？」 retrieves the 4090D spec
    page, not "a faster GPU that is no faster"). Empty when no sentence states a symptom."""
    keep: list[str] = []
    for part in _SENTENCE.split(text or ""):
        if not (_STATED.search(part) or _CAUSE.search(part) or _REFUND.search(part) or _SYMPTOM.search(part)):
            continue
        for rx in (_CODE_SPAN, _FLAGS, _ASIDE):
            part = rx.sub(" ", part)
        part = _WITH_DIGITS.sub(_setting_word, part)
        part = " ".join(part.split())
        if part:
            keep.append(part)
    return " ".join(keep)[:200]


def calls(f: Frame) -> list[ToolCall]:
    """The question as asked; for a cause question also its symptom alone (`symptom_query`), so the section
    on the cause competes with the pages about the cards and tools the question names."""
    from assistant.offline.intents.stack import with_card_names

    query = with_card_names(f, f.text.strip())[:300]  # 「MLU370-X8 …」 + 'Cambricon': the vendor's section
    # know-how a document's `leads` name: look inside that document too (a card or model named in passing
    # can outrank it in the open search)
    led = [A.call(NAME, "search_guide", query=query, k=3, doc_id=d) for d in guide_leads(f.text)[:1]]
    from assistant.offline.intents.stack import DOC, domestic_cards

    cards = domestic_cards(f)
    if not led and cards and not asks_cause(f):
        # 「MLU370-X8 用什么框架」: the vendor's stack is searched first, so its section is the one quoted; the card's
        # letter words ('MLU' of 'MLU370-X8', 'Cambricon') match the vendor's heading where the model number does not
        letters = " ".join(dict.fromkeys(w for name, _ in cards[:2] for w in re.findall(r"[A-Za-z]{2,}", name)))
        stack_query = f"{query} {letters} 软件栈"[:300]
        return [
            A.call(NAME, "search_guide", query=stack_query, k=3, doc_id=DOC),
            A.call(NAME, "search_guide", query=query, k=3),
        ]
    if not asks_cause(f):
        return [A.call(NAME, "search_guide", query=query, k=3), *led]
    # one more hit each: the section on the cause often ranks just below two on the named card or tool
    out = [A.call(NAME, "search_guide", query=query, k=4)]
    symptom = symptom_query(f.text)
    if len(symptom) >= 6 and symptom != query:
        out.append(A.call(NAME, "search_guide", query=symptom, k=4))
    return out + led


def follow_ups(f: Frame, results: list[ToolResult]) -> list[ToolCall]:
    """Retrieval shows at most two sections per document, so look inside the best document once more —
    the section that answers may be its third (passages.rank picks)."""
    from assistant.offline.writing.passages import rank

    searches = [r for r in results if r.name == "search_guide" and not r.error and not r.args.get("doc_id")]
    if not searches:
        return []
    query = str(searches[0].args.get("query") or "")  # the question as asked (a symptom search may follow)
    hits = [
        h for r in searches for h in r.result.get("hits") or [] if isinstance(h, dict) and not h.get("low_relevance")
    ]
    best = rank(hits, query)[:1]
    if best and best[0].get("kind", "guide") == "guide" and best[0].get("doc_id"):
        call = A.call(NAME, "search_guide", query=query, k=6, doc_id=best[0]["doc_id"])
        if "doc_id" in call.args:
            return [call]
    return []
