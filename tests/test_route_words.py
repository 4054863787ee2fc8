"""Self-host and API words come from knowledge/route_words.yaml: new phrasings route to the self-host-vs-API
comparison, and plain memory questions that say "本地跑" stay memory questions."""

from __future__ import annotations

import pytest

from assistant.offline.intents.plans import applies_host_vs_api
from assistant.offline.reading import read_one
from assistant.offline.reading.routes import route_regex, says_api, says_self_host
from tools.data import load_yaml


@pytest.mark.parametrize(
    "question",
    [
        "我们打算自己租卡部署qwen2.5-32b，跟直接调接口比哪个省钱？",
        "租服务器部署glm4-9b划算还是用百炼的api划算",
        "Should we run our own Llama 3.1 70B on rented GPUs or just pay per token for an API?",
        "self host qwen3-8b vs openai api, which is cheaper for 2k requests a day",
    ],
)
def test_route_phrasings_reach_the_self_host_vs_api_rule(question: str) -> None:
    assert applies_host_vs_api(read_one(question))


@pytest.mark.parametrize(
    "question",
    [
        "本地跑qwen2.5-7b要多少显存",  # a memory question: no API on the other side
        "rapid prototyping locally on a 4090, how much VRAM for Llama 3 8B?",  # 'api' inside 'rapid' is no API
    ],
)
def test_one_route_alone_is_not_the_comparison(question: str) -> None:
    assert not applies_host_vs_api(read_one(question))


def test_every_listed_word_matches_itself_and_ascii_words_are_bounded() -> None:
    data = load_yaml("route_words.yaml")
    for kind in ("self_host", "api"):
        for word in data[kind]:
            assert route_regex(kind).search(str(word)), (kind, word)
    assert says_self_host("we self-host it") and says_self_host("Self Host") and says_self_host("selfhost")
    assert not says_api("capital") and says_api("调 API")


def test_self_hosting_a_14b_is_priced_on_cards_rented_one_at_a_time() -> None:
    """「自己租卡部署」 names renting cards: a ≤ 40B model is priced on RTX 4090s (rented per card on AutoDL-class
    platforms, knowledge/rentability.yaml), not on an A100 SXM that only rents as a whole 8-card server."""
    from assistant.advisor import ask

    a = ask("每天调用2万次左右 每次3000 token，自己租卡部署qwen2.5-14b还是直接用api便宜？")
    serving = next(c for c in a.tool_calls if c.name == "plan_serving")
    assert "4090" in str(serving.args["gpu"])
    assert serving.args["monthly_output_mtok"] == pytest.approx(2e4 * 3000 * 30 / 1e6)  # 1,800 M a month


@pytest.mark.parametrize(
    ("question", "card"),
    [("部署qwen2.5-14b 每百万token成本", "4090"), ("自己部署qwen2.5-72b，每百万token成本多少", "H20")],
)
def test_serving_cost_with_no_card_named_is_priced_on_a_card_rented_one_at_a_time(question: str, card: str) -> None:
    """knowledge/rentability.yaml: RTX 4090 and H20 rent per card on Chinese platforms; the A100 SXM only as whole
    8-card servers — so it is not the default for a per-token cost."""
    from assistant.advisor import ask

    serving = next(c for c in ask(question).tool_calls if c.name == "plan_serving")
    assert card in str(serving.args["gpu"])


@pytest.mark.parametrize(
    "question", ["显存24G，qwen2.5-7b上下文最长能开多少", "my VRAM is 24GB, how long a context for qwen2.5-7b"]
)
def test_memory_size_after_the_memory_word_is_the_card(question: str) -> None:
    from assistant.advisor import ask

    fit = next(c for c in ask(question).tool_calls if c.name == "find_max_fit")
    assert fit.args["gpu"] == "24GB"
