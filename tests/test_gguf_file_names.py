"""GGUF file and folder names, and llama.cpp's layer offload, read as what they mean.

Hand-worked values (decimal GB):
- Q4_0 is ggml's block_q4_0: one fp16 scale (2 bytes) + 32 four-bit values (16 bytes) per 32 weights = 18 bytes / 32
  = 4.5 bits per weight (ggml/src/ggml-common.h).
- Qwen1.5-14B: 14.17e9 parameters (Qwen/Qwen1.5-14B config.json: 40 layers, hidden 5120, intermediate 13696,
  vocab 152064, untied embeddings) × 4.5 / 8 = 7.97 GB of Q4_0 weights; Q4_K_M (4.8944 bpw) would be 8.7 GB.
- Llama-2-7B: 6.74e9 × 4.8944 / 8 = 4.12 GB of Q4_K_M weights (llama.cpp's quantize table lists 3.80 GiB = 4.08 GB);
  a T4 reports 15,360 MiB = 16.1 GB, so it holds them.
- File names write the version with an underscore: "qwen1_5" is Qwen1.5, "Qwen2_5-7B" is Qwen2.5-7B (not the
  Qwen2-57B-A14B MoE that "2_5…7b" once collapsed into), "internlm2_5" is InternLM2.5; "qwen2_7b" is Qwen2-7B.
- llama.cpp's "offloaded 0/41 layers to GPU" and -ngl put layers on the GPU for inference; they are not the ZeRO
  optimizer offload that marks a training question.
"""

from __future__ import annotations

import re

import pytest

from assistant.offline import answer
from assistant.offline.reading.slots import extract
from tools.cpu_inference import quants
from tools.models import find_entry


def _text(question: str) -> str:
    out = answer(question)
    return out[0].text if isinstance(out, tuple) else str(out)


def test_q4_0_is_eighteen_bytes_per_thirty_two_weights() -> None:
    q4_0 = {x.id: x for x in quants()}["q4_0"]
    assert q4_0.bits == pytest.approx(18 * 8 / 32)


@pytest.mark.parametrize(
    ("name", "model"),
    [
        ("qwen1_5-14b-chat-q4_0.gguf", "Qwen1.5-14B"),
        ("Qwen2_5-7B-Instruct", "Qwen2.5-7B"),
        ("internlm2_5-7b-chat", "InternLM2.5-7B"),
        ("qwen2_7b", "Qwen2-7B"),
        ("Qwen2-57B-A14B", "Qwen2-57B-A14B"),
    ],
)
def test_underscore_versions_in_file_names(name: str, model: str) -> None:
    entry = find_entry(name)
    assert entry is not None and entry.id == model


@pytest.mark.parametrize(
    "question",
    [
        "llama.cpp: offloaded 0/41 layers to GPU, why is it so slow",
        "用 -ngl 99 跑 qwen 7b q4 够吗",
        "ollama num_gpu 设成多少能把层全部放到GPU",
        "how many layers to offload to GPU for a 13B Q4 on a 3060",
    ],
)
def test_layer_offload_is_inference_not_training(question: str) -> None:
    assert extract(question).training is False


def test_zero_offload_is_still_training() -> None:
    assert extract("ZeRO-3 offload optimizer to CPU for a 7B full fine-tune").training is True


def test_gguf_on_a_t4_with_ngl_is_answered_as_inference() -> None:
    text = _text("I run llama-2-7b Q4_K_M gguf on a T4 with llama.cpp -ngl 35, will it fit in VRAM?")
    assert text.startswith("Yes")
    assert "QLoRA" not in text.split("<details>")[0]
    assert re.search(r"4\.[01] GB", text), text[:400]


def test_q4_0_file_name_sizes_qwen1_5_14b() -> None:
    text = _text("qwen1_5-14b-chat-q4_0.gguf 用llama.cpp跑要多少显存？单张3060 12G能全部放到GPU吗")
    assert "Qwen1.5-14B" in text
    assert re.search(r"(?:7\.9|8\.0) GB", text), text[:400]
