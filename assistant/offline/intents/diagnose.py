"""A pasted log (anything tools.diagnosis.detect recognises): diagnose_logs on the paste, the guide on
its topics. What was rented (`expect`) comes only from the user's own words around the paste."""

from __future__ import annotations

import re

from assistant.offline.intents import args as A
from assistant.offline.intents.args import DIAGNOSE
from assistant.offline.intents.ops import asks_cause
from assistant.offline.reading.frame import Frame
from assistant.offline.reading.logs import fault_question
from assistant.offline.types import ToolCall, ToolResult

NAME = DIAGNOSE


def applies(f: Frame) -> bool:
    # a paste around a request to hide a process or dodge a licence is declined, not diagnosed
    from assistant.offline.intents.decline import cue_of

    return f.is_log and cue_of(f.text) is None


# What was rented, said as such: 「合同写的是8卡A100」「租的是4090」「说好的8卡」, "I paid for 8 H100s". A card named
# only as the setup ("8卡L40环境下微调报错") is not a promise the paste can break.
_RENTED_RE = re.compile(
    r"合同|验收|交付|以次充好|货不对板|说好|承诺|宣传|标称|页面上写|租的|租了|刚租|买的|订的|下单|商家|服务商|供应商|"
    r"rented|ordered|paid for|supposed to|advertised|listed as|promised|contract|delivered|provider gave|they gave",
    re.I,
)


def calls(f: Frame) -> list[ToolCall]:
    # 「合同写的是 8 卡 A100」: the user's words outside the paste (f.gpus never come from inside it), only when they
    # say that is what was rented or promised
    rented = "delivery" in f.cues or bool(_RENTED_RE.search(f.text or ""))
    expect = (f"{f.gpu_count}x {A.gpu_arg(f)}" if f.gpu_count else A.gpu_arg(f)) if f.gpus and rented else None
    # the model and request length the user named feed the serving arithmetic of a vLLM/LMDeploy paste
    args = {"model": f.model if f.model and not f.model[:1].isdigit() else None, "session_len": f.context}
    args["question"] = fault_question(f.text)  # 「是卡坏了吗」: the report answers it on line 1
    out = [A.call(NAME, "diagnose_logs", text=f.paste or f.text, expect=expect, **{k: v for k, v in args.items() if v})]
    own = f.text.strip()
    if own and own != (f.paste or "").strip() and asks_cause(f):
        # "fp16 出 NaN，怎么办" / "no error from NCCL, how do I debug this": the user's own question is
        # what the guide must answer; its passage is searched first, so it is the one quoted
        out.append(A.call(NAME, "search_guide", query=own[:300], k=3))
    out.append(A.call(NAME, "search_guide", query=_guide_query(f), k=3))
    net = f"{f.network or ''} {f.link_name or ''}"  # either reader may have seen the IB/RoCE word
    if "line_rate" in f.log_kinds and f.nics_per_node and f.gpus and re.search(r"\bib\b|infiniband|roce", net, re.I):
        # a told measurement against stated RDMA NICs on named cards: the interconnect model's expectation for that
        # exact setup follows the line-rate arithmetic (「每台4张200G的IB网卡，busbw只有40GB/s」); a bare "100G" is
        # left out, since the model would read it as TCP Ethernet and contradict the line rate
        from assistant.offline.intents.gpus import interconnect_calls

        out.extend(c for c in interconnect_calls(f) if c.name == "interconnect_advice")
    return out


def _guide_query(f: Frame) -> str:
    """The section on the class the paste shows (knowledge/diagnosis/<class>.yaml `guide_query`), else the user's
    words plus the log's topics."""
    from tools.diagnosis.signals import guide_query
    from tools.lang import has_cjk

    return guide_query(f.log_kinds, has_cjk(f.text or f.paste or "")) or A.guide_query(f, NAME)


# findings whose fix depends on the named model's own memory on one GPU: a smaller tensor-parallel size (a 7B at
# ~15 GB bf16 fits one 24-80 GB card: replicas, not TP, and no P2P to hang on; vLLM's default TP=1 on a model
# larger than one card)
_TP_FINDINGS = {
    "tp_size_not_dividing_heads",
    "p2p_hang_acs_iommu",
    "vllm_single_gpu_default",
}


def follow_ups(f: Frame, results: list[ToolResult]) -> list[ToolCall]:
    """After the paste is read: the TP-size finding on a catalog model → estimate_memory of that model on one GPU.
    The model is the user's own words, else the one the pasted launch command loads (`--model qwen/Qwen1.5-72B-Chat`)
    when the catalog knows it (a local folder name is not guessed at)."""
    if any(r.name == "estimate_memory" for r in results):
        return []
    model = f.model if f.model and not f.model[:1].isdigit() else _pasted_model(f.paste or f.text or "")
    if not model:
        return []
    found = {
        str(x.get("id"))
        for r in results
        if r.name == "diagnose_logs" and not r.error
        for x in (r.result.get("findings") or [])
        if isinstance(x, dict)
    }
    if not found & _TP_FINDINGS:
        return []
    return [A.call(NAME, "estimate_memory", model=model, mode="inference", gpus=1, gpu=A.gpu_arg(f))]


_LAUNCH_MODEL = re.compile(r"(?:--model(?:[-_]dir)?[= ]+|\bmodel\s*=\s*)[\"']?([\w./-]+)", re.I)


def _pasted_model(text: str) -> str | None:
    """The model a pasted vLLM / TensorRT-LLM command loads, if the catalog resolves it."""
    from tools.models import resolve_model

    m = _LAUNCH_MODEL.search(text)
    if not m:
        return None
    try:
        resolve_model(m.group(1))
    except Exception:  # an unknown local folder: no estimate rather than a guessed one  # noqa: BLE001
        return None
    return m.group(1)
