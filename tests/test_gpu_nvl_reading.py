"""NVL parts are read as themselves, not as their SXM siblings."""

from __future__ import annotations

import pytest

from assistant.advisor import ask


@pytest.mark.parametrize(
    ("question", "card_id"), [("8块H200 NVL 跑70B", "h200_nvl_141gb"), ("H100 NVL 能跑70B吗", "h100_nvl_94gb")]
)
def test_an_nvl_card_is_read_as_the_nvl_part(question: str, card_id: str) -> None:
    """The NVL parts differ from the SXM ones (H200 NVL: 835.5 dense BF16 TFLOPS and 600 W vs 989.4 and 700 W,
    H200 datasheet); the form word spelled inside an alias must not be dropped."""
    from assistant.offline.reading import read_one

    f = read_one(question)
    assert f.gpu_mentions[0].form == "NVL" or f.gpu_form == "NVL"
    a = ask(question)
    est = next(c for c in a.tool_calls if c.name == "estimate_memory")
    assert "NVL" in str(est.result.get("gpu"))
