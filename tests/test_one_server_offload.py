"""Training that needs several servers, redone on one 8-GPU server with ZeRO-3 CPU offload.

Host RAM is DeepSpeed's own estimator (docs memory.rst, estimate_zero3_model_states_mem_needs with offload_param,
offload_optimizer and zero_init): 18 B/param × 1.5 buffer. 70e9 × 18 × 1.5 = 1,890 GB, worked by hand; the
TigerBot maintainers' "1 TB of RAM on one 8 × 40G machine" (https://github.com/TigerResearch/TigerBot/issues/165)
is below that figure.
"""

from __future__ import annotations

from assistant.advisor import ask
from tools.memory import FindMinGpusInput, find_min_gpus


def test_one_server_offload_needs_the_deepspeed_host_ram() -> None:
    r = find_min_gpus(FindMinGpusInput(params="70B", mode="full", gpu="A100 80GB"))
    assert r.rent_gpus and r.rent_gpus > 8
    one = r.one_server_offload
    assert one is not None and one["gpus"] == 8 and one["fits"]
    assert one["host_ram_gb"] == 1890.0


def test_one_server_fits_needs_no_offload_line() -> None:
    assert find_min_gpus(FindMinGpusInput(params="7B", mode="full", gpu="A100 80GB")).one_server_offload is None
    assert find_min_gpus(FindMinGpusInput(params="70B", mode="inference", gpu="A100 80GB")).one_server_offload is None


def test_the_answer_names_the_ram_for_one_machine() -> None:
    r = ask("70B全参数持续预训练，至少需要多少台8卡A100机器？", backend="offline")
    assert "1,890 GB 内存" in r.answer and "offload" in r.answer
