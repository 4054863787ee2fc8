"""zh/en labels for the memory breakdown are declared once, on EstimateMemoryOutput (issue 17, item 3)."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, Field

from tools.labels import field_label, field_note, label, labelled_fields
from tools.lang import has_cjk
from tools.memory import BREAKDOWN_PARTS, EstimateMemoryInput, EstimateMemoryOutput, estimate_memory

# Every figure of the breakdown a surface shows (the CLI table, the page chart, the offline writer).
BREAKDOWN = (*BREAKDOWN_PARTS, "model_states_gb", "logits_gb", "total_gb", "host_ram_gb")


@pytest.mark.parametrize("name", BREAKDOWN)
def test_every_breakdown_field_has_both_labels(name):
    zh = field_label(EstimateMemoryOutput, name, "zh")
    en = field_label(EstimateMemoryOutput, name, "en")
    assert has_cjk(zh), f"{name}: zh label {zh!r} has no Chinese"
    assert en.strip() and not has_cjk(en), f"{name}: en label {en!r}"


def test_the_labels_people_read():
    """The terms a Chinese reader expects (as the page and the offline writer used them before)."""
    want = {
        "weights_gb": ("权重", "Weights"),
        "gradients_gb": ("梯度", "Gradients"),
        "optimizer_gb": ("优化器状态", "Optimizer states"),
        "activations_gb": ("激活值", "Activations"),
        "logits_gb": ("logits 缓冲", "Logits buffer"),
        "kv_cache_gb": ("KV 缓存", "KV cache"),
        "overhead_gb": ("框架开销", "Framework overhead"),
        "total_gb": ("合计", "Total"),
    }
    for name, (zh, en) in want.items():
        assert (field_label(EstimateMemoryOutput, name, "zh"), field_label(EstimateMemoryOutput, name, "en")) == (
            zh,
            en,
        )
    assert field_note(EstimateMemoryOutput, "optimizer_gb", "zh") == "含主权重"
    assert field_note(EstimateMemoryOutput, "weights_gb", "en") is None


def test_breakdown_parts_add_up_to_the_total():
    """BREAKDOWN_PARTS is the set a chart may stack: 7B full AdamW = 14 + 14 + 84 GB of states (ZeRO paper §3)."""
    out = estimate_memory(EstimateMemoryInput(params="7B", mode="full"))
    assert (out.weights_gb, out.gradients_gb, out.optimizer_gb) == (14.0, 14.0, 84.0)
    assert sum(getattr(out, n) for n in BREAKDOWN_PARTS) == pytest.approx(out.total_gb, abs=0.05)
    assert set(BREAKDOWN) <= set(labelled_fields(EstimateMemoryOutput))


def test_inline_english_keeps_acronyms():
    assert field_label(EstimateMemoryOutput, "weights_gb", "en", inline=True) == "weights"
    assert field_label(EstimateMemoryOutput, "kv_cache_gb", "en", inline=True) == "KV cache"
    assert field_label(EstimateMemoryOutput, "kv_cache_gb", "zh", inline=True) == "KV 缓存"


def test_a_missing_label_is_an_error_not_a_blank():
    class M(BaseModel):
        a: float = Field(json_schema_extra=label("甲", "A"))
        b: float

    assert labelled_fields(M) == ["a"]
    with pytest.raises(KeyError):
        field_label(M, "b", "zh")
    with pytest.raises(ValueError):
        label("甲", "A", note_zh="只有中文")


def test_the_cli_table_uses_the_model_labels(monkeypatch):
    """`gpu-advisor estimate` prints the model's labels, so renaming one there renames it in the CLI."""
    from assistant.commands import estimate

    field = EstimateMemoryOutput.model_fields["weights_gb"]
    monkeypatch.setattr(field, "json_schema_extra", label("权重测试", "Weights-test"))
    assert estimate._row_label("weights_gb") == "权重测试 Weights-test"
    assert estimate._row_label("optimizer_gb") == "优化器状态（含主权重） Optimizer states (incl. master)"
