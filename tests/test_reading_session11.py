"""A family and release named in one place and the size in another ("Meta Llama 3. The 8B model…", 「qwen2.5 的 7b
版本」) name one released model; a sentence's full stop is not the dot of a version number. Phrasings are written
for this test; the expected ids are the releases the sentences name (Meta's Llama 3 came in 8B and 70B; Qwen2.5 in
0.5B–72B, including 7B)."""

from __future__ import annotations

import pytest

from assistant.offline.reading.slots import extract


@pytest.mark.parametrize(
    "q, model",
    [
        ("Meta released Llama 3. The 8B model was trained on 15T tokens, how many GPU hours is that?", "Llama-3-8B"),
        ("qwen2.5 的 7b 版本推理要多少显存", "Qwen2.5-7B"),
        ("I want to run Llama 3 but only the 70B size, on A100s", "Llama-3-70B"),
    ],
)
def test_release_named_apart_from_its_size(q: str, model: str) -> None:
    assert extract(q).model == model


@pytest.mark.parametrize(
    "q",
    [
        "deepseek v4 的 7b 版本推理要多少显存",  # no such release in the catalog: not a guessed id
        "llama 3 和 qwen2.5 哪个好，7b 的",  # two releases named: the size belongs to neither for certain
    ],
)
def test_no_single_catalog_release_keeps_the_bare_size(q: str) -> None:
    s = extract(q)
    assert s.params_b == 7.0
    assert s.model == "7b"


def test_the_equivalent_figure_for_another_model_sizes_that_model() -> None:
    """ "Llama 2 7B took 184320 GPU hours … an equivalent number for MiniCPM-2B (~1T tokens)": MiniCPM-2B is asked
    about; 6 × 2.72e9 × 1e12 ≈ 1.6e22 FLOPs ÷ (312 TFLOPS × 35% MFU) ≈ 41,500 A100-hours."""
    from assistant.advisor import ask

    r = ask(
        "Llama 2 shares the number of A100 GPU hours used for training (Llama 2 7B 184320 GPU hours). It would be "
        "amazing to have an equivalent number of GPU hours for the MiniCPM models (MiniCPM-2B, ~1T tokens).",
        backend="offline",
    )
    call = next(c for c in r.tool_calls if c.name == "estimate_training_time")
    assert call.args["model"] == "MiniCPM-2B"
    assert 1.6e22 / (312e12 * 0.35) / 3600 == pytest.approx(call.result["gpu_hours"]["mid"], rel=0.05)


def test_one_billion_equals_n_gigabytes_is_a_rule_not_a_model_or_a_card() -> None:
    """「折算是1B=4G的显存，就是70B模型需要280G显存」: the model is 70B (70 × 4 = 280, the user's own arithmetic); neither
    the 4G of the rate nor the 280G someone says it needs is the user's card."""
    s = extract("LoRA或者推理，FP32精度，折算是1B=4G的显存，就是70B模型需要280G显存")
    assert s.params_b == 70
    assert s.vram_gb is None
