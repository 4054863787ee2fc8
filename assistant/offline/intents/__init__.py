"""Frame → tool calls, one module per intent family; which intent answers is one ordered list.

`PRECEDENCE` is read top to bottom: the first rule whose predicate holds for a part of the question
names the intent for that part. A question in several parts ("要多少显存？一个月多少钱？") gets one
intent per part, in order; their calls are asked together and each writes its part of the answer.
Adding an intent: a module with `calls` (and optionally `follow_ups`), one line here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from assistant.offline.intents import args as A
from assistant.offline.intents import (
    card_choice,
    conversions,
    cpu_serving,
    decline,
    diagnose,
    gpus,
    largest_model,
    links,
    memory,
    ops,
    plans,
    pooling,
    pretraining,
    prices,
    requirement,
    rule_check,
    serving,
    train_time,
)
from assistant.offline.intents.base import has_size, no_follow_ups
from assistant.offline.reading.frame import Frame
from assistant.offline.types import ToolCall, ToolResult

Predicate = Callable[[Frame], bool]
PCIE_LANES = "pcie_lanes"


@dataclass(frozen=True)
class Intent:
    name: str
    calls: Callable[[Frame], list[ToolCall]]
    follow_ups: Callable[[Frame, list[ToolResult]], list[ToolCall]] = no_follow_ups


INTENTS: dict[str, Intent] = {
    i.name: i
    for i in (
        Intent(decline.UNLAWFUL, decline.calls),
        Intent(decline.FORECAST, decline.calls),
        Intent(A.OUT_OF_SCOPE, decline.calls),
        Intent(A.INVALID, decline.calls),
        Intent(A.NO_DATA, decline.calls),
        Intent(memory.UNSIZED, decline.calls),
        Intent(requirement.NAME, requirement.calls),
        Intent(pooling.POOL, pooling.pooling_calls),
        Intent(pooling.RESERVE, pooling.reservation_calls, pooling.reservation_follow_ups),
        Intent(A.DIAGNOSE, diagnose.calls, diagnose.follow_ups),
        Intent(A.REPORTED_MEMORY, gpus.reported_memory_calls),
        Intent(A.CONVERT, conversions.convert_calls),
        Intent(A.BUSBW, conversions.busbw_calls),
        Intent(A.IMPLIED_MFU, conversions.mfu_calls),
        Intent(conversions.BATCH_SPLIT, conversions.batch_split_calls),
        Intent(conversions.WALL_CLOCK, conversions.wall_clock_calls),
        Intent(cpu_serving.NAME, cpu_serving.calls),
        Intent(cpu_serving.TRAINING, cpu_serving.training_calls),
        Intent(cpu_serving.UNSIZED, cpu_serving.unsized_calls),
        Intent(A.DECODE_SPEED, serving.calls),
        Intent(serving.SERVING, serving.serving_calls),
        Intent(serving.TEAM, serving.team_calls),
        Intent(serving.OLLAMA, serving.ollama_calls),
        Intent(serving.FRONTEND, serving.frontend_calls),
        Intent(serving.SHARING, serving.sharing_calls),
        Intent(serving.NON_LLM, serving.non_llm_calls),
        Intent(serving.R1_LOCAL, serving.r1_local_calls),
        Intent(serving.THROUGHPUT, serving.throughput_calls),
        Intent(plans.OWN_VS_RENT, plans.own_vs_rent_calls),
        Intent(plans.NO_HARDWARE, plans.no_hardware_calls),
        Intent(card_choice.NAME, card_choice.calls, memory.follow_ups),
        Intent(largest_model.NAME, largest_model.calls),
        Intent(prices.QUOTE, prices.quote_calls),
        Intent(prices.ELSEWHERE, prices.elsewhere_calls, prices.elsewhere_follow_ups),
        Intent(prices.BILLING, prices.billing_calls),
        Intent(plans.CHEAPEST, plans.cheapest_calls, plans.cheapest_follow_ups),
        Intent(plans.HOST_VS_API, plans.host_vs_api_calls),
        Intent(serving.RENTABILITY, serving.rentability_calls),
        Intent(train_time.STEP_TIME, train_time.step_time_calls),
        Intent(A.DELIVERY, ops.delivery_calls),
        Intent(A.TRAIN_TIME, train_time.calls, train_time.follow_ups),
        Intent(train_time.COMPLETED, train_time.completed_calls),
        Intent(train_time.RESCALE, train_time.rescale_calls),
        Intent(train_time.PUBLISHED, train_time.published_calls),
        Intent(pretraining.NAME, pretraining.calls, pretraining.follow_ups),
        Intent(rule_check.NAME, rule_check.calls),
        Intent(train_time.DIFFUSION, train_time.diffusion_calls),
        Intent(train_time.CARRY, train_time.carry_calls),
        Intent(train_time.BUDGET, train_time.budget_calls),
        Intent(A.PLAN, plans.calls, plans.follow_ups),
        Intent(A.PRICE, prices.calls),
        Intent(A.MODEL_INFO, gpus.model_info_calls),
        Intent(A.MAX_FIT, memory.max_fit_calls, memory.max_fit_follow_ups),
        Intent(A.MIN_GPUS, memory.min_gpus_calls, memory.min_gpus_follow_ups),
        Intent(A.MEMORY, memory.calls, memory.follow_ups),
        Intent(A.SPECS, gpus.specs_calls),
        Intent(A.INTERCONNECT, gpus.interconnect_calls),
        Intent(PCIE_LANES, links.calls),
        Intent(links.LINK_RATIO, links.ratio_calls),
        Intent(gpus.NODE_LAYOUT, gpus.node_layout_calls),
        Intent(A.ADVICE, ops.calls, ops.follow_ups),
    )
}

# The first rule that holds names the intent. Order is the policy: a paste before everything; refusals
# before any tool; specific shapes (a quoted algbw, published GPU-hours) before generic ones.
PRECEDENCE: list[tuple[str, Predicate]] = [
    (A.DIAGNOSE, diagnose.applies),
    (decline.UNLAWFUL, decline.applies_unlawful),
    (decline.FORECAST, decline.applies_forecast),
    # a money quote for compute, or the cost of running a published model, is in scope even when the
    # reading layer's domain words miss it ("$294/month for the VM", "cheapest way to run Grok-1")
    (prices.QUOTE, prices.applies_quote),  # "$294/month, I'd use it 48 hours": their rate × their hours
    (prices.ELSEWHERE, prices.applies_elsewhere),  # "GCP / TPU v3-256 多少钱": not carried — official page, China price
    (prices.BILLING, prices.applies_billing),  # "关机了还扣钱吗": stop versus release
    (
        train_time.PUBLISHED,
        train_time.applies_published,
    ),  # "LLaVA stage 1/2 要多久", "Vicuna only $300?": authors' figures
    (pretraining.NAME, pretraining.applies),  # "Llama 3 8B: 1.3M GPU-hours ÷ 24,576 GPUs = 53 h?": its authors' run
    (train_time.CARRY, train_time.applies_carry),  # "one week on 4 A800 — my one 3090?": FLOPS/bandwidth band
    (train_time.BUDGET, train_time.applies_budget),  # "8×A800 within a month, which size?": 6·N·D, Chinchilla
    (plans.NO_HARDWARE, plans.applies_no_hardware),  # 「教程是 8 卡 H800，我没有硬件，有替代吗」: one 24 GB card
    (plans.CHEAPEST, plans.applies_cheapest),  # "跑 X 最便宜的办法 / 预算多少": fewest cards, int4 and full, priced
    (serving.FRONTEND, serving.applies_frontend),  # 「NextChat 调 OpenAI API，服务器要多大」: no GPU
    (pooling.RESERVE, pooling.applies_reservation),  # 「vLLM 暴增到74G」: the engine's start-up fraction, computed
    (serving.SHARING, serving.applies_sharing),  # time-slicing / two workers on one card: no memory isolation
    (serving.R1_LOCAL, serving.applies_r1_local),  # 「本地跑 DeepSeek R1」: the distills by VRAM, not the 671B
    (serving.OLLAMA, serving.applies_ollama),  # "Ollama answers my users one by one": parallel slots
    (A.OUT_OF_SCOPE, decline.applies_out_of_scope),
    (A.INVALID, decline.applies_invalid),  # say what cannot be right instead of computing with it
    (A.NO_DATA, decline.applies_no_data),
    (rule_check.NAME, rule_check.applies),  # 「1B=4G 的折算对不对」: each quoted rule checked, not one job sized
    (cpu_serving.TRAINING, cpu_serving.applies_training),  # 「能用CPU训练吗」: the FLOPs gap, not a memory estimate
    (pooling.POOL, pooling.applies_pooling),  # 「两张2080ti共22GB够吗」: data parallel keeps a full copy per card
    (
        requirement.NAME,
        requirement.applies,
    ),  # 「官方说40G就够，我4张3090共96G还是OOM」: a stated per-card figure, no size
    (
        cpu_serving.NAME,
        cpu_serving.applies,
    ),  # 「双路 EPYC + 4090 跑满血 R1 几个 token/s」: host memory bandwidth decides
    (cpu_serving.UNSIZED, cpu_serving.applies_unsized),  # 「双CPU、2T内存、Q8多快」 with no model: the rule, cited
    (serving.NON_LLM, serving.applies_non_llm),  # 「FunASR 多个用户同时请求」: batching and workers, not weights
    (serving.THROUGHPUT, serving.applies_throughput),  # "1000 tokens/s on 8×H200, normal?": aggregate vs per request
    (
        train_time.DIFFUSION,
        train_time.applies_diffusion,
    ),  # "WAN LoRA, 10 videos, 4090 — hours or days?": steps × s/step
    (A.MEMORY, memory.applies_pipeline_first),  # FLUX / SDXL / Wan / Whisper: not the LLM serving/plan rules
    (A.REPORTED_MEMORY, gpus.applies_reported_memory),
    (A.CONVERT, conversions.applies_convert),
    (A.BUSBW, conversions.applies_busbw),
    (A.IMPLIED_MFU, conversions.applies_mfu),
    (conversions.BATCH_SPLIT, conversions.applies_batch_split),  # "4M-token batch, 8k, 8 GPUs: batch × accum?"
    (conversions.WALL_CLOCK, conversions.applies_wall_clock),  # "184320 GPU hours on 64 cards": ÷ cards, in days
    (links.LINK_RATIO, links.applies_ratio),  # 「NVLink 4 与 PCIe 5.0 约 14 倍？」: one basis, per direction
    (PCIE_LANES, links.applies),  # "PCI x1 or x16 for 10 GPUs", 「主板要能拆分 x8 吗」: the rate of each width
    (A.SPECS, gpus.applies_memory_variant),
    # 「8张H20每秒多少token？训练会比A100慢很多吗」: the decode speed, then the TFLOPS ratio
    (A.SPECS, gpus.applies_speed_parts),
    # 「8卡H20训练比A100慢多少」: no model to size, the asked axis as a ratio (a stated run time is a rescale)
    (A.SPECS, gpus.applies_speed_compare),
    (
        gpus.NODE_LAYOUT,
        gpus.applies_node_layout,
    ),  # "8*80G 是一个 node 还是多个": whole 8-GPU servers  # "V100 32G 比 16G 快吗" / "24GB K80": same chip, same compute
    (plans.OWN_VS_RENT, plans.applies_own_vs_rent),  # "买主机还是租云": utilisation decides
    (plans.HOST_VS_API, plans.applies_host_vs_api),  # "本地部署和调 API 有啥区别"
    (serving.TEAM, serving.applies_team),  # "200人的公司知识库要什么服务器": users/peak/rate → cards
    (train_time.RESCALE, train_time.applies_rescale),  # "6×H800 25h → 2×A800 要多久": dense peaks, same MFU
    (A.MEMORY, ops.quant_tp_asked),  # 「14B-Int4 为什么不支持多卡」: the int4 TP rule with its intermediate_size
    (A.MEMORY, ops.requirement_why),  # 「6B微调为啥需要60GB」: the breakdown against the quoted figure
    (A.ADVICE, ops.applies_rl_cause),  # "PPO 要 400 小时，咋回事": generation, which the estimate leaves out
    (
        train_time.COMPLETED,
        train_time.applies_measured,
    ),  # "88 hours on one 3090, normal?": the estimate beside it, before the cause rule
    (serving.SERVING, serving.applies_ttft),  # "首token 20 秒，提示 8k": the prefill floor leads
    (A.ADVICE, ops.applies_cause),  # "why / is it normal / how do I fix": the guide leads, numbers follow
    (A.MEMORY, memory.applies_pipeline),  # FLUX / SDXL / Wan / Whisper: the weights of each network, per card
    (serving.SERVING, serving.applies_serving),  # "自建还是调API": a serving plan, not training time
    (A.DECODE_SPEED, serving.applies),
    (serving.RENTABILITY, serving.applies_rentability),
    (train_time.STEP_TIME, train_time.applies_step_time),
    (train_time.COMPLETED, train_time.applies_reference),  # "训练 GPT-3 规模要多少钱": published N and D
    (train_time.COMPLETED, train_time.applies_unsized),  # "LoRA 训练要多久": the formula and one example
    (A.DELIVERY, ops.applies_delivery),
    (A.ADVICE, ops.applies_symptom),
    (A.INTERCONNECT, gpus.applies_allreduce),
    (A.TRAIN_TIME, train_time.applies),
    (card_choice.NAME, card_choice.applies),  # "H20 和 A800 哪个适合训练 70B": the choice and why, not per-card fits
    (
        largest_model.NAME,
        largest_model.applies_choice,
    ),  # 「4060ti 16g和4070 12g哪个适合跑大模型」: the larger model wins
    (largest_model.NAME, largest_model.applies),  # 「24G最大能跑多大的模型」: the card's size limit, no model named
    (A.MEMORY, memory.applies_requirement),  # "X 需要什么配置/多大显存": its memory first, not a rental plan
    (A.MIN_GPUS, memory.applies_min_gpus_training),  # "how many A100s to full-tune 13B": the count, not a plan
    (A.PLAN, plans.applies),
    (A.PRICE, prices.applies),
    (A.MODEL_INFO, gpus.applies_model_info),
    (A.SPECS, gpus.applies_spec_question),  # a model named in passing does not make it a memory question
    (A.SPECS, gpus.applies_performance),  # 「2080ti 魔改22G效果怎么样」: the row beside its family's stock card
    (A.MEMORY, memory.applies_trainable),
    (A.MAX_FIT, memory.applies_max_fit),
    (A.MIN_GPUS, memory.applies_min_gpus),
    (A.MEMORY, memory.applies),
    (
        memory.UNSIZED,
        memory.applies_unsized,
    ),  # "部署CosyVoice2要多大显存": no size known, ask for it (after every rule that can size something)
    (A.SPECS, gpus.applies_specs),
    (A.INTERCONNECT, gpus.applies_interconnect),
    (A.ADVICE, ops.applies_price_advice),
    (A.SPECS, gpus.applies_specs_fallback),
    (A.MEMORY, memory.applies_fallback),
    (A.ADVICE, ops.applies),
]

# Intents that answer without tools (a short statement from the writer).
STATEMENTS = {
    decline.UNLAWFUL,
    decline.FORECAST,
    A.OUT_OF_SCOPE,
    A.INVALID,
    A.NO_DATA,
    memory.UNSIZED,
    requirement.NAME,
}
# Intents a second part of a question may add (a part that only repeats the topic adds nothing).
_PART_INTENTS = {
    A.DECODE_SPEED,
    A.PRICE,
    A.TRAIN_TIME,
    A.MEMORY,
    A.MIN_GPUS,
    A.MAX_FIT,
    A.SPECS,
    A.INTERCONNECT,
    A.PLAN,
    gpus.NODE_LAYOUT,
}


def choose_intent(f: Frame, skip: Predicate | None = None) -> str:
    for name, applies in PRECEDENCE:
        if applies is not skip and applies(f):
            return name
    return A.ADVICE


def choose_intents(f: Frame) -> list[str]:
    """One intent per part of the question, in the order of the parts, without repeats. Each part is
    read on its own to decide what it asks (its own cue words and values); the calls then use every
    value the whole question gave. The whole question's intent is always among them."""
    from assistant.offline.reading import read_one

    first = choose_intent(f)
    if first == A.MEMORY and memory.applies_requirement(f) and plans.applies(f) and not (f.gpus or f.vram_gb):
        # "X 需要什么配置 / which GPU would you suggest" with no card of one's own: the model's memory leads,
        # the ranked cards follow (with a card named, the verdict on that card is the answer)
        return [A.MEMORY, A.PLAN]
    if first == A.DIAGNOSE and "line_rate" in f.log_kinds:
        return [first]  # a told measurement against stated NICs: the diagnosis answers every part of it
    if first == A.DIAGNOSE and pooling.applies_after_paste(f):
        return [first, pooling.RESERVE]  # an engine log plus what the user saw it hold: the reservation follows
    if first == A.DIAGNOSE and memory.applies(f) and not f.decline:
        # a paste plus the job in the user's own words ("全量微调 13B，单卡"): the memory of that job too
        return [first, A.MEMORY]
    if first == A.ADVICE and ops.applies_cause(f):
        # the cause is answered first; the numbers follow where they bear on it (ops.cause_follower)
        rest = choose_intent(f, skip=ops.applies_cause)
        followers = ops.cause_followers(f, rest)
        if followers[:1] == [A.MEMORY] and A.reports_oom(f):
            # an OOM with a job the tools can size: the estimate against the card is the cause; the guide follows
            return [A.MEMORY, first, *followers[1:]]
        if A.DECODE_SPEED in followers and serving.asks_if_speed_is_normal(f):
            # 「输出才5 tokens/s，正常吗」: the measured figure against the expected band leads, then the causes
            return [serving.THROUGHPUT, first, *(n for n in followers if n != A.DECODE_SPEED)]
        return [first, *followers]
    if first == train_time.COMPLETED and A.reports_oom(f) and memory.applies(f):
        # 「八卡 A100 微调 8B 就 OOM 了……训练 10 天，要怎么解决」: the OOM is answered first, then the run's time
        return [A.MEMORY, first]
    if (
        first == train_time.CARRY
        and not train_time.asks_carry_time(f)
        and ("asked_memory" in f.mentions or f.required_gb)
        and (memory.applies_pipeline(f) or memory.applies(f))
    ):
        # "is it possible to train on my 3090? (… they say 40G VRAM may be enough)": memory is the doubt, so
        # whether it fits the card leads; the run carried over to it follows
        return [A.MEMORY, first]
    if first == A.PLAN and "fit" in f.cues and f.gpu_count and (f.gpus or f.vram_gb) and memory.applies(f):
        # "What GPUs can fine-tune 72B with QLoRA? Is 8*24G possible?": the verdict on the stated setup leads,
        # the ranked cards follow
        return [A.MEMORY, A.PLAN]
    if first == A.SPECS and gpus.applies_speed_parts(f):
        return [first]  # 「8张H20每秒多少token？训练比A100慢吗」: the speed-parts rule writes both parts itself
    if first == A.DECODE_SPEED and len(f.asks) < 2 and {"fit", "requirement"} <= f.cues:
        # 「4090能跑72B吗速度多少」 in one breath: whether it fits, then how fast (the speed alone loses the fit)
        return [A.MEMORY, first] if memory.applies(f) else [first]
    if f.daily_quote_cny and f.gpus and first in (A.DECODE_SPEED, serving.SERVING, serving.THROUGHPUT, A.MEMORY):
        # 「A800 8卡 租一天要2000 … 一秒只能出15个token」: the user's own day price per card-hour is part of the sum
        return [first, A.PRICE]
    if first in STATEMENTS or first in (A.ADVICE, cpu_serving.NAME) or len(f.asks) < 2:
        return [first]
    chosen: list[str] = []
    for ask in f.asks:
        if not set(ask.cues) & _SHAPE_CUES:
            continue  # "训练7B时掉卡了" describes, it does not ask
        name = choose_intent(read_one(ask.text))
        if name not in _PART_INTENTS or (
            name == A.SPECS and has_size(f) and not set(ask.cues) & {"specs", "compare"} and not _sized(ask.text)
        ):
            # the part alone lacks the card or the model ("我用了5张V100，合计80G，还是OOM" after the model was
            # named): its cues on the whole frame, so it is not a spec question about the card
            name = choose_intent(f.model_copy(update={"cues": (f.cues - _SHAPE_CUES) | set(ask.cues)}))
        if name in _PART_INTENTS and name not in chosen:
            chosen.append(name)
    if first not in chosen:
        chosen.insert(0, first)
    return [chosen[0], *(n for n in chosen[1:] if _adds(n, chosen[0]) and _adds(n, first))]


def _sized(text: str) -> bool:
    from assistant.offline.reading import read_one

    return has_size(read_one(text))


_SHAPE_CUES = {
    "price",
    "time",
    "how_many",
    "fit",
    "max_fit",
    "specs",
    "compare",
    "plan",
    "interconnect",
    "decode_speed",
}


def _adds(name: str, first: str) -> bool:
    """A plan already prices and sizes; a spec comparison already prices two cards."""
    covered = {A.PLAN: {A.PRICE, A.MEMORY, A.MIN_GPUS, A.SPECS}, A.SPECS: {A.PRICE}, A.MIN_GPUS: {A.MEMORY}}
    return name not in covered.get(first, set())


def build_calls(f: Frame, intents: list[str]) -> list[ToolCall]:
    out: list[ToolCall] = []
    seen: set[tuple[str, str]] = set()
    from assistant.offline.intents.each import each_frames

    for name in intents:
        # 「BF16和FP8分别要多少」: the intent's calls once per value asked (intents/each.py)
        for c in (c for g in each_frames(f, name) for c in INTENTS[name].calls(g)):
            key = (c.name, repr(sorted(c.args.items())))
            if c.args is not None and key not in seen:
                seen.add(key)
                out.append(c)
    from assistant.offline.intents.same_chip import same_chip_calls
    from assistant.offline.intents.stack import stack_calls

    out[:0] = same_chip_calls(f, intents)  # 「A100 40G 换 80G 为什么还是 40 小时」: one chip, the same compute

    out += stack_calls(f, intents)  # a fit question on an Ascend / DCU / MLU / MUSA card: its software stack too
    from assistant.offline.intents import model_facts

    # the named model's weights when nothing sized it (an API front end needs no GPU: nothing to size)
    out += model_facts.calls(f, intents, out, STATEMENTS | {serving.FRONTEND})
    return out


def follow_up_calls(f: Frame, intents: list[str], results: list[ToolResult]) -> list[ToolCall]:
    out: list[ToolCall] = []
    for name in intents:
        mine = [r for r in results if A.intent_of(r.id) in (name, None)] if len(intents) > 1 else results
        out += INTENTS[name].follow_ups(f, mine)
    return [c for c in out if c.args is not None]


def analyse(question: str, history: list[dict] | None = None) -> tuple[list[str], Frame, bool]:
    """(intents in answer order, frame, carried from earlier turns)."""
    from assistant.offline.reading import read

    frame, carried = read(question, history)
    return choose_intents(frame), frame, carried


def plan(question: str, history: list[dict] | None = None, language: str = "auto") -> list[ToolCall]:
    intents, frame, _ = analyse(question, history)
    return build_calls(frame, intents)


def next_calls(question: str, history: list[dict] | None, language: str, results: list[ToolResult]) -> list[ToolCall]:
    """The one allowed second round."""
    intents, frame, _ = analyse(question, history)
    return follow_up_calls(frame, intents, results)
