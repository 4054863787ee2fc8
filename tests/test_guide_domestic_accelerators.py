"""Questions about Chinese accelerators are answered from knowledge/guide/domestic-accelerators.md.

Phrasings are our own. Facts come from the sources in the guide's front matter: Ascend selects cards with
ASCEND_RT_VISIBLE_DEVICES and passes /dev/davinci* devices to Docker (vLLM Ascend install docs); Hygon's DTK is
ROCm-compatible and its monitor is hy-smi (ktransformers #2065, FunASR #2972); Cambricon's PyTorch plugin is
torch_mlu and its monitor cnmon (transformers #29627, LLaMA-Factory #6429); Moore Threads uses torch_musa and
mthreads-gmi (torch_musa #12, #135).
"""

from __future__ import annotations

import re

import pytest

from assistant.advisor import ask

CASES = [
    ("docker里怎么把昇腾的卡挂进去", r"davinci"),
    ("昇腾服务器上怎么指定用哪几张卡训练，CUDA_VISIBLE_DEVICES 没用", r"ASCEND_RT_VISIBLE_DEVICES"),
    ("hygon dcu 上怎么跑vllm", r"DTK"),
    ("how do I check the cards on a Hygon DCU box, there is no nvidia-smi", r"hy-smi"),
    ("寒武纪的卡 pytorch 要装什么", r"torch_mlu"),
    ("摩尔线程S4000 容器里 mthreads-gmi 看不到驱动", r"宿主机"),
    ("vllm-ascend 推理只有7 token/s，npu-smi 里 AICore 占用很低", r"图模式|enforce-eager"),
]


@pytest.mark.parametrize("question, must", CASES)
def test_domestic_accelerator_answer_leads_with_its_stack(question: str, must: str) -> None:
    a = ask(question, backend="offline")
    lead = a.answer.split("<details>")[0]
    assert re.search(must, lead), lead[:500]
    assert "search_guide" in [c.name for c in a.tool_calls]


def test_nvidia_questions_do_not_get_the_domestic_guide() -> None:
    a = ask("docker 容器里 nvidia-smi 看不到卡，怎么把4090挂进去", backend="offline").answer
    assert "davinci" not in a and "domestic-accelerators" not in a


@pytest.mark.parametrize(
    "question, plugin",
    [
        ("昇腾910B上装了torch，torch.cuda.is_available()一直是False，怎么回事", "torch_npu"),
        ("hy-smi 能看到卡，但是 torch.cuda.is_available() 输出 False，torch 2.8.0+cu128", "DTK"),
    ],
)
def test_cuda_unavailable_on_a_domestic_card_names_its_plugin_not_nvidia_smi(question: str, plugin: str) -> None:
    # a CUDA wheel never sees a non-NVIDIA card (vLLM Ascend install docs; FunASR #2972 for hy-smi + cu128)
    a = ask(question, backend="offline")
    assert "diagnose_logs" in [c.name for c in a.tool_calls]
    assert plugin in a.answer and "--gpus all" not in a.answer and "先运行 nvidia-smi" not in a.answer


def test_cuda_unavailable_on_an_nvidia_card_still_starts_with_nvidia_smi() -> None:
    a = ask("torch.cuda.is_available() returns False on my 4090 box", backend="offline").answer
    assert "nvidia-smi" in a and "torch_npu" not in a


def test_the_delivery_check_is_not_given_for_a_hygon_box() -> None:
    lead = ask("how do I check the cards on a Hygon DCU box, there is no nvidia-smi", backend="offline").answer
    assert "hy-smi" in lead.split("<details>")[0] and "all_reduce_perf" not in lead.split("<details>")[0]
