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
