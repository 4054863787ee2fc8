"""Follow-up turns that lean on the conversation: bare capacities (「12G？24G？」), host RAM after a CPU-inference turn
(「如果只有512G内存呢」), a quoted earlier answer, and a wordless turn answered in the conversation's language.

Expected values are worked by hand here:
- Qwen2.5-7B has 7.62e9 parameters (https://huggingface.co/Qwen/Qwen2.5-7B, model card "Number of Parameters: 7.61B");
  bf16 weights = 7.62e9 × 2 B ≈ 15.2 GB, so a 12 GB card cannot hold them and a 24 GB card can.
- Llama-3-8B LoRA on a 24 GB 4090 is the earlier turn; a weather question afterwards is still off-topic.
"""

from __future__ import annotations

import pytest

from assistant.offline import resolve_language
from assistant.offline.reading.followups import capacities
from tests.conversation import run_turns

_conv = run_turns


@pytest.mark.parametrize(
    "text, expected",
    [
        ("8g还是16g啊", [8.0, 16.0]),
        ("那24G的呢？", [24.0]),
        ("12G？24G？", [12.0, 24.0]),  # the second number has no unit of its own: it takes the first one's
        ("16GB enough?", [16.0]),
        ("如果只有1T呢", [1000.0]),  # T = 10^12 bytes = 1000 GB (decimal, as the product counts)
    ],
)
def test_bare_capacities_are_read(text: str, expected: list[float]) -> None:
    assert [gb for gb, _ in capacities(text)] == expected


@pytest.mark.parametrize("text", ["8卡呢", "那4090呢", "qwen 7b 16g", "7b要多少显存", "给我写首诗 8G"])
def test_turns_with_words_of_their_own_are_not_bare_capacities(text: str) -> None:
    assert capacities(text) == []


def test_capacity_followup_checks_each_card_for_the_earlier_model() -> None:
    intents, frame, composed, results = _conv(["qwen2.5-7b 推理用什么显卡好", "12G？24G？"])
    cards = [r.args.get("gpu") for r in results if r.name == "estimate_memory"]
    assert "12GB" in cards and "24GB" in cards
    assert all(r.args.get("model") == "Qwen2.5-7B" for r in results if r.name == "estimate_memory")
    text = composed.text
    assert composed.language == "zh"  # a turn with no words follows the conversation, not English
    first = text.splitlines()[0]
    assert "12 GB" in first and "放不下" in first  # 15.2 GB of bf16 weights > 12 GB
    assert "24 GB" in first and "能放下" in first


def test_wordless_turn_takes_the_conversation_language() -> None:
    zh = [{"role": "user", "content": "llama3 8b 推理要多少显存"}]
    en = [{"role": "user", "content": "how much memory for llama3 8b inference"}]
    assert resolve_language("auto", "16G？", zh) == "zh"
    assert resolve_language("auto", "16G？", en) == "en"
    assert resolve_language("auto", "what about 16GB?", zh) == "en"  # English words of its own: English


def test_host_ram_followup_stays_cpu_inference() -> None:
    intents, frame, composed, results = _conv(
        ["ktransformers 跑 deepseek r1 671b q4，双路 epyc 9004 1T内存 每秒几个token", "如果只有512G内存呢"]
    )
    assert intents[0] == "cpu_serving"
    assert frame.host_ram_gb == 512.0  # the RAM this turn names, not the earlier 1 TB
    cpu = [r for r in results if r.name == "cpu_inference"]
    assert cpu and all(r.args.get("host_ram_gb") == 512.0 for r in cpu)
    assert all(r.args.get("engine") == "KTransformers" for r in cpu)  # the engine named earlier carries


def test_short_in_domain_fragment_after_a_turn_is_not_declined() -> None:
    intents, frame, composed, _ = _conv(["llama3 8b lora 用4090够吗", "bs=8呢"])  # "bs=8" alone has no domain word
    assert intents[0] != "out_of_scope"
    assert frame.model == "Llama-3-8B" and frame.batch == 8


def test_off_topic_turn_in_a_conversation_is_still_declined() -> None:
    intents, *_ = _conv(["llama3 8b lora 用4090够吗", "今天天气怎么样"])
    assert intents == ["out_of_scope"]


def test_quoted_earlier_answer_carries_the_model() -> None:
    """A turn that quotes a maintainer and says the problem persists names only the cards: the model comes from
    the first turn. Llama-2-70B: 80 layers, 8 KV heads, head_dim 128 (config.json,
    https://huggingface.co/meta-llama/Llama-2-70b-hf) → bf16 weights 69e9 × 2 B ≈ 138 GB, ≈ 34.5 GB per card on 4."""
    first = "部署 llama2-70b，4张A100 40G，lmdeploy tp=4，跑着跑着就oom了"
    second = (
        "（维护者：kv cache 按 cache_max_entry_count × session_len 算，加上权重存不下）"
        "我后续把cache_max_entry_count改成8还是同样的问题，按你的公式应该放得下啊？"
    )
    intents, frame, composed, results = _conv([first, second])
    assert frame.model == "Llama-2-70B"
    assert frame.gpu_count == 4
    assert frame.concurrency == 8  # the integer setting the user changed to: sequences in the KV cache
    assert any(r.name in ("estimate_memory", "find_max_fit", "plan_serving") for r in results)
    assert "每卡" in composed.text
