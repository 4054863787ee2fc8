"""The model catalog (knowledge/models/*.yaml): breadth, provenance, counts against published figures, the alias
vocabulary, variants and their precision, local config.json files and unknown names.

Published figures used below (each is independent of this code):
- Llama-2-7B 6,738,415,616 and Llama-3-8B 8,030,261,248: the safetensors parameter totals of
  meta-llama/Llama-2-7b-hf and meta-llama/Meta-Llama-3-8B on the Hugging Face Hub.
- Gemma 2B / 7B non-embedding parameters 1,981,884,416 / 7,751,248,896: Gemma technical report
  (Gemma Team, arXiv:2403.08295) Table 2. (Its embedding column uses a 256,128 vocabulary; config.json has 256,000.)
- Qwen2.5-0.5B "0.49B (0.36B non-embedding)", Qwen2.5-7B "7.61B (6.53B non-embedding)", Qwen3-8B "8.2B (6.95B
  non-embedding)", Qwen3-30B-A3B "30.5B total, 3.3B activated (29.9B non-embedding)": the Qwen model cards.
- Mixtral-8x7B "46.7B total parameters but only uses 12.9B per token": Mistral AI, "Mixtral of experts" (Dec 2023).
- DeepSeek-V2 "236B total, 21B activated": DeepSeek-V2 paper (arXiv:2405.04434) abstract; DeepSeek-V2-Lite
  "15.7B total, 2.4B activated": its model card. DeepSeek-V3 "671B total, 37B activated": arXiv:2412.19437 abstract.
- gpt-oss-20b 20.91B total / 3.61B active, gpt-oss-120b 116.83B / 5.13B: OpenAI, "gpt-oss-120b & gpt-oss-20b Model
  Card" (Aug 2025) Table 1 (active counts exclude the input embedding).
- Phi-3.5-MoE "41.9B, 6.6B active": microsoft/Phi-3.5-MoE-instruct model card.
- Qwen1.5-MoE-A2.7B "14.3B in total and 2.7B activated": its model card.
- GLM-4.5 "355B total, 32B active", GLM-4.5-Air "106B total, 12B active": zai-org/GLM-4.5 README (active excludes
  the embedding and output layers; the 355B includes the MTP layer, which this catalog does not count — 1% allowed).
- Qwen3-Coder-480B-A35B "480B total, 35B activated": its model card.
"""

from __future__ import annotations

import json
import re

import pytest

from tests.cli_inprocess import run_cli_inprocess
from tools.errors import ToolInputError
from tools.models import (
    alias_index,
    count_params,
    load_catalog,
    normalise_name,
    resolve_model,
    variant_of,
)

# ---------------------------------------------------------------- breadth and provenance


def test_catalog_has_150_models_with_provenance():
    rows = load_catalog()
    assert len(rows) >= 150
    ids = [r.id for r in rows]
    assert len(ids) == len(set(ids))
    for r in rows:
        # the model's own published config.json on the Hub, and when it was read
        # (or, for weights published without one — Grok-1's raw checkpoint, GLM-130B on application — the
        # publisher's own repository, which states the shapes)
        hub = re.fullmatch(r"https://huggingface\.co/[\w.\-]+/[\w.\-]+/blob/main/config\.json", r.source)
        assert hub or r.source.startswith(f"https://github.com/{r.hf_repo} "), r.id
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", r.as_of), r.id
        assert r.params_published, r.id


def test_every_family_the_issue_names_is_there():
    have = {r.id for r in load_catalog()}
    wanted = [
        "Qwen-7B", "Qwen-14B", "Qwen-72B",
        "Qwen1.5-1.8B", "Qwen1.5-7B", "Qwen1.5-32B", "Qwen1.5-110B", "Qwen1.5-MoE-A2.7B",
        "Qwen2-7B", "Qwen2-72B", "Qwen2-57B-A14B",
        "Qwen2.5-0.5B", "Qwen2.5-72B", "Qwen2.5-Coder-32B", "Qwen2.5-Math-72B",
        "Qwen3-0.6B", "Qwen3-30B-A3B", "Qwen3-235B-A22B", "Qwen3-Coder-480B-A35B", "QwQ-32B",
        "DeepSeek-LLM-7B", "DeepSeek-LLM-67B", "DeepSeek-Coder-6.7B", "DeepSeek-Coder-33B",
        "DeepSeek-V2", "DeepSeek-V2-Lite", "DeepSeek-V2.5", "DeepSeek-V3", "DeepSeek-V3.1", "DeepSeek-R1",
        "DeepSeek-R1-Distill-Qwen-1.5B", "DeepSeek-R1-Distill-Qwen-7B", "DeepSeek-R1-Distill-Qwen-14B",
        "DeepSeek-R1-Distill-Qwen-32B", "DeepSeek-R1-Distill-Llama-8B", "DeepSeek-R1-Distill-Llama-70B",
        "Llama-2-7B", "Llama-3-8B", "Llama-3.1-405B", "Llama-3.2-1B", "Llama-3.3-70B", "CodeLlama-34B",
        "Mistral-7B-v0.1", "Mixtral-8x7B", "Mixtral-8x22B", "Mistral-Nemo-12B", "Mistral-Small-24B",
        "Gemma-7B", "Gemma-2-9B", "Gemma-3-27B",
        "Phi-3-mini-4k", "Phi-3.5-MoE", "Phi-4",
        "Yi-34B", "Yi-1.5-34B", "Baichuan2-13B", "ChatGLM2-6B", "ChatGLM3-6B", "GLM-4-9B", "GLM-4.5", "GLM-4.5-Air",
        "InternLM2-7B", "InternLM2.5-7B", "InternLM3-8B", "MiniCPM-2B", "MiniCPM3-4B", "MiniCPM4-8B",
        "Kimi-K2", "Moonlight-16B-A3B", "gpt-oss-20b", "gpt-oss-120b", "Command-R-35B", "Falcon-40B",
    ]  # fmt: skip
    assert [w for w in wanted if w not in have] == []


def test_moe_and_mla_fields_are_coherent():
    for r in load_catalog():
        a = r.arch
        if a.is_moe:
            assert 0 < a.experts_per_token <= a.num_experts, r.id
            assert a.first_k_dense_layers < a.num_layers, r.id
            assert count_params(a).active < count_params(a).total, r.id
        else:
            assert a.experts_per_token == 0 and a.num_shared_experts == 0, r.id
        if a.is_mla:  # multi-head latent attention needs its rope / nope / value head widths
            assert a.qk_rope_head_dim and a.qk_nope_head_dim and a.v_head_dim, r.id
        else:
            assert a.num_heads % a.num_kv_heads == 0, r.id
        if a.sliding_window:
            assert 0 < a.windowed_layers <= a.num_layers, r.id


@pytest.mark.parametrize(
    "name, experts, top_k, shared, mla",
    [
        ("DeepSeek-V3", 256, 8, 1, True),  # DeepSeek-V3 paper §2.1.2: 1 shared + 256 routed, 8 activated
        ("DeepSeek-V2", 160, 6, 2, True),  # DeepSeek-V2 paper §3.1: 2 shared + 160 routed, 6 activated
        ("Kimi-K2", 384, 8, 1, True),  # Kimi K2 card: 384 experts, 8 selected per token, 1 shared
        ("Qwen3-30B-A3B", 128, 8, 0, False),  # Qwen3 card: 128 experts, 8 activated
        ("Mixtral-8x7B", 8, 2, 0, False),
        ("gpt-oss-120b", 128, 4, 0, False),  # gpt-oss card: 128 experts, top-4
        ("GLM-4.5-Air", 128, 8, 1, False),
        ("MiniCPM3-4B", 0, 0, 0, True),  # dense model with MLA
    ],
)
def test_moe_and_mla_values(name, experts, top_k, shared, mla):
    a = resolve_model(name).arch
    assert (a.num_experts, a.experts_per_token, a.num_shared_experts, a.is_mla) == (experts, top_k, shared, mla)


# ---------------------------------------------------------------- counts against published totals


@pytest.mark.parametrize(
    "name, exact",
    [("Llama-2-7B", 6_738_415_616), ("Llama-3-8B", 8_030_261_248)],
)
def test_exact_hub_totals(name, exact):
    assert resolve_model(name).params == exact


@pytest.mark.parametrize("name, non_embedding", [("Gemma-2B", 1_981_884_416), ("Gemma-7B", 7_751_248_896)])
def test_gemma_report_non_embedding_counts_exact(name, non_embedding):
    m = resolve_model(name)
    assert m.params - count_params(m.arch).embedding == non_embedding


# name, total (B), non-embedding (B) or None, active (B) or None, what the active figure counts, tolerance.
# Model cards round to 3 significant figures: tolerance ±0.5% unless the card gives only 2 digits.
CARD_COUNTS = [
    ("Qwen2.5-0.5B", 0.49, 0.36, None, None, 0.02),
    ("Qwen2.5-7B", 7.61, 6.53, None, None, 0.005),
    ("Qwen3-8B", 8.2, 6.95, None, None, 0.01),
    ("Qwen3-30B-A3B", 30.5, 29.9, 3.3, "all", 0.01),
    ("Mixtral-8x7B", 46.7, None, 12.9, "all", 0.005),
    ("DeepSeek-V2", 236, None, 21, "all", 0.02),
    ("DeepSeek-V2-Lite", 15.7, None, 2.4, "no_input_embedding", 0.02),
    ("DeepSeek-V3", 671, None, 37, "no_input_embedding", 0.01),
    ("gpt-oss-20b", 20.91, None, 3.61, "no_input_embedding", 0.002),
    ("gpt-oss-120b", 116.83, None, 5.13, "no_input_embedding", 0.002),
    ("Phi-3.5-MoE", 41.9, None, 6.6, "all", 0.01),
    ("Qwen1.5-MoE-A2.7B", 14.3, None, 2.7, "all", 0.01),
    ("GLM-4.5", 355, None, 32, "no_embeddings", 0.01),
    ("GLM-4.5-Air", 106, None, 12, "no_embeddings", 0.015),
    ("Qwen3-Coder-480B-A35B", 480, None, 35, "all", 0.015),
]


@pytest.mark.parametrize("name, total_b, non_emb_b, active_b, counts, rel", CARD_COUNTS)
def test_model_card_counts(name, total_b, non_emb_b, active_b, counts, rel):
    m = resolve_model(name)
    pc = count_params(m.arch)
    assert m.params / 1e9 == pytest.approx(total_b, rel=rel)
    if non_emb_b is not None:
        assert (m.params - pc.embedding) / 1e9 == pytest.approx(non_emb_b, rel=max(rel, 0.01))
    if active_b is not None:
        table = m.arch.vocab_size * m.arch.hidden_size
        active = {"all": m.active_params, "no_input_embedding": m.active_params - table}.get(
            counts, m.active_params - pc.embedding
        )
        assert active / 1e9 == pytest.approx(active_b, rel=max(rel, 0.025))


def test_counts_sit_near_every_published_figure():
    """Catalog-wide guard against a mistyped shape: every computed total agrees with the card's figure to its
    printed rounding (+2%), or within 12% of a bare size class ("7B" for Qwen2-7B's 7.62B, "1T" for Kimi K2) or
    of a multimodal total (Gemma 3 cards include the vision tower)."""
    off = []
    for r in load_catalog():
        text = r.params_published or ""
        exact = re.match(r"\s*(\d{1,3}(?:,\d{3})+)\b", text)  # "6,738,415,616 (6.74B)"
        m = re.match(r"\s*([\d.]+)\s*([BT])", text)
        assert exact or m, r.id
        if exact:
            published = int(exact.group(1).replace(",", "")) / 1e9
        else:
            assert m is not None
            published = float(m.group(1)) * (1000 if m.group(2) == "T" else 1)
        total = (count_params(r.arch).total + r.arch.extra_params) / 1e9
        if exact or (m and "." in m.group(1)):
            # "7.61B" / "1.3B": the rounding of the last printed digit, plus 2% (cards also truncate: Phi-2 "2.7B")
            decimals = 0 if exact else len(m.group(1).split(".")[1])  # type: ignore[union-attr]
            tol = 0.5 * 10**-decimals / published + 0.02
        else:
            tol = 0.12  # "7B", "1T": only the size class
        if "vision" in text:
            tol = 0.12
        if abs(total / published - 1) > tol:
            off.append((r.id, round(total, 2), r.params_published))
    assert off == []


# ---------------------------------------------------------------- the alias vocabulary


@pytest.mark.parametrize(
    "query, expected",
    [
        ("qwen2.5 7b", "Qwen2.5-7B"),
        ("Qwen2.5-7B-Instruct", "Qwen2.5-7B"),
        ("千问2.5-7B", "Qwen2.5-7B"),
        ("qwen-2.5-7b", "Qwen2.5-7B"),
        ("通义千问2.5-72B", "Qwen2.5-72B"),
        ("Qwen/Qwen3-30B-A3B-Instruct-2507", "Qwen3-30B-A3B"),
        ("千问3 30b a3b", "Qwen3-30B-A3B"),
        ("qwen1.5 moe", "Qwen1.5-MoE-A2.7B"),
        ("Qwen-7B-Chat", "Qwen-7B"),
        ("ds r1 32b", "DeepSeek-R1-Distill-Qwen-32B"),
        ("deepseek-r1-distill-qwen-32b", "DeepSeek-R1-Distill-Qwen-32B"),
        ("深度求索 V3", "DeepSeek-V3"),
        ("DeepSeek-R1 满血版", "DeepSeek-R1"),
        ("deepseek v2 lite", "DeepSeek-V2-Lite"),
        ("llama3 8b", "Llama-3-8B"),
        ("Meta-Llama-3.1-8B-Instruct", "Llama-3.1-8B"),
        ("codellama 34b", "CodeLlama-34B"),
        ("glm4 9b", "GLM-4-9B"),
        ("智谱 GLM-4.5-Air", "GLM-4.5-Air"),
        ("chatglm3", "ChatGLM3-6B"),
        ("百川2-13B", "Baichuan2-13B"),
        ("零一万物 Yi-34B", "Yi-34B"),
        ("Yi-1.5-34B-Chat", "Yi-1.5-34B"),
        ("书生浦语2.5-7B", "InternLM2.5-7B"),
        ("InternLM3-8B-Instruct", "InternLM3-8B"),
        ("面壁 MiniCPM3", "MiniCPM3-4B"),
        ("月之暗面 Kimi K2", "Kimi-K2"),
        ("kimi k2", "Kimi-K2"),
        ("gpt oss 120b", "gpt-oss-120b"),
        ("mixtral 8x7b", "Mixtral-8x7B"),
        ("mistral nemo", "Mistral-Nemo-12B"),
        ("phi3.5 moe", "Phi-3.5-MoE"),
        ("qwq", "QwQ-32B"),
        # Ollama tags: deepseek-r1:32b is the Qwen-32B distill, deepseek-r1:671b the full model
        ("qwen2.5:7b", "Qwen2.5-7B"),
        ("deepseek-r1:32b", "DeepSeek-R1-Distill-Qwen-32B"),
        ("deepseek-r1:671b", "DeepSeek-R1"),
        ("llama3.1:8b", "Llama-3.1-8B"),
    ],
)
def test_alias_table(query, expected):
    assert variant_of(query).model_id == expected
    m = resolve_model(query)
    assert m.name == expected and m.kind == "catalog" and m.unknown_name is None


def test_alias_index_covers_every_name_unambiguously():
    index = alias_index()
    owners: dict[str, set[str]] = {}
    for r in load_catalog():
        repo = [r.hf_repo] if r.index_repo else []  # a bare repo name that is the family word is not a key
        names = [r.id, *repo, *r.aliases, *(x for rel in r.releases for x in (rel.name, rel.hf_repo) if x)]
        for n in names:
            key = normalise_name(n)
            assert index[key] == r.id, (n, index.get(key), r.id)
            owners.setdefault(key, set()).add(r.id)
    assert {k: v for k, v in owners.items() if len(v) > 1} == {}
    assert all(v in {r.id for r in load_catalog()} for v in index.values())


# ---------------------------------------------------------------- variants and precision


@pytest.mark.parametrize(
    "query, model_id, precision, origin",
    [
        ("Qwen2.5-72B-Instruct-AWQ", "Qwen2.5-72B", "awq-int4", "release"),
        ("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int8", "Qwen2.5-7B", "gptq-int8", "name_suffix"),
        ("deepseek-r1-distill-qwen-32b-awq", "DeepSeek-R1-Distill-Qwen-32B", "awq-int4", "name_suffix"),
        ("qwen2.5-7b-instruct-q4_k_m.gguf", "Qwen2.5-7B", "gguf-q4_k_m", "name_suffix"),
        ("unsloth/Meta-Llama-3.1-8B-Instruct-bnb-4bit", "Llama-3.1-8B", "bnb-nf4", "name_suffix"),
        ("Qwen3-235B-A22B-FP8", "Qwen3-235B-A22B", "fp8", "release"),
        ("GLM-4.5-Air-FP8", "GLM-4.5-Air", "fp8", "release"),
        ("Kimi-K2-Thinking", "Kimi-K2", "int4", "release"),  # Kimi K2 Thinking card: native INT4
        ("DeepSeek-V3", "DeepSeek-V3", "fp8", "shipped"),  # V3 paper §3.3: FP8 training; weights released in FP8
        ("gpt-oss-20b", "gpt-oss-20b", "mxfp4", "shipped"),  # gpt-oss card: MoE weights in MXFP4
        ("Llama-2-7b-chat-hf", "Llama-2-7B", "fp16", "shipped"),  # config.json torch_dtype float16
        ("qwen2.5:72b-instruct-q4_K_M", "Qwen2.5-72B", "gguf-q4_k_m", "name_suffix"),  # Ollama tag
    ],
)
def test_variants_resolve_to_architecture_and_precision(query, model_id, precision, origin):
    v = variant_of(query)
    assert (v.model_id, v.precision, v.precision_from) == (model_id, precision, origin)
    m = resolve_model(query)
    assert m.name == model_id and m.weights_precision == precision
    # same architecture and parameter count as the base model
    assert m.params == resolve_model(model_id).params
    if origin in ("release", "name_suffix"):
        assert any(precision in a["en"] and precision in a["zh"] for a in m.assumptions)


def test_variant_tags_are_recorded():
    assert set(variant_of("Qwen2.5-Coder-7B-Instruct").tags) >= {"coder", "instruct"}
    assert variant_of("DeepSeek-R1-Distill-Llama-8B").tags == ["distill"]


# ---------------------------------------------------------------- unknown names are said, never silently generic


def test_unknown_name_is_an_error_with_suggestions():
    with pytest.raises(ToolInputError) as err:
        resolve_model("qwen4-13b")
    assert "qwen4-13b" in err.value.zh and "qwen4-13b" in err.value.en
    assert err.value.suggestions and all(isinstance(s, str) for s in err.value.suggestions)
    assert variant_of("qwen4-13b").model_id is None


def test_unknown_name_with_a_size_can_be_estimated_but_says_so_first():
    m = resolve_model("mystery-llm-13b-chat", allow_unknown=True)
    assert m.kind == "generic" and m.unknown_name == "mystery-llm-13b-chat"
    assert m.params == 13_000_000_000
    first = m.assumptions[0]
    assert "不在模型目录" in first["zh"] and "not in the model catalog" in first["en"]
    assert "13B" in first["zh"] and "13B" in first["en"]
    with pytest.raises(ToolInputError):  # no size in the name: nothing to assume from
        resolve_model("mystery-llm", allow_unknown=True)


def test_lookup_tool_reports_an_unknown_name():
    from tools.registry import run_tool

    err = run_tool("lookup_model", {"query": "mystery-llm-13b"})
    assert "error" in err and err["error"]["zh"] and err["error"]["en"]
    out = run_tool("lookup_model", {"query": "mystery-llm-13b", "allow_unknown": True})
    assert out["unknown_name"] == "mystery-llm-13b" and out["kind"] == "generic"
    assert "not in the model catalog" in out["assumptions"][0]["en"]


def test_a_known_name_is_never_flagged_unknown():
    assert resolve_model("Qwen2.5-7B", allow_unknown=True).unknown_name is None


# ---------------------------------------------------------------- local config.json / model folder

# Qwen/Qwen2.5-7B-Instruct config.json (published values)
QWEN25_7B_CONFIG = {
    "architectures": ["Qwen2ForCausalLM"],
    "model_type": "qwen2",
    "hidden_size": 3584,
    "intermediate_size": 18944,
    "num_attention_heads": 28,
    "num_hidden_layers": 28,
    "num_key_value_heads": 4,
    "max_position_embeddings": 32768,
    "vocab_size": 152064,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "use_sliding_window": False,
    "sliding_window": 131072,
}


def test_local_model_folder_matches_the_catalog(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps(QWEN25_7B_CONFIG))
    m = resolve_model(str(tmp_path))
    assert m.kind == "config_file"
    assert m.params == resolve_model("Qwen2.5-7B").params
    assert m.params / 1e9 == pytest.approx(7.61, rel=0.005)  # Qwen2.5-7B card
    assert m.weights_precision == "bf16"
    assert not m.arch.sliding_window  # use_sliding_window false


def test_local_awq_config_reports_its_precision(tmp_path):
    cfg = {**QWEN25_7B_CONFIG, "torch_dtype": "float16", "quantization_config": {"quant_method": "awq", "bits": 4}}
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    assert resolve_model(str(tmp_path / "config.json")).weights_precision == "awq-int4"


def test_local_qwen_v1_config_halves_intermediate_size(tmp_path):
    # Qwen/Qwen-7B config.json keys (remote code): intermediate_size 22016 = 2 × the MLP width
    cfg = {
        "model_type": "qwen",
        "hidden_size": 4096,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "kv_channels": 128,
        "intermediate_size": 22016,
        "vocab_size": 151936,
        "tie_word_embeddings": False,
    }
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    m = resolve_model(str(tmp_path))
    assert m.arch.intermediate_size == 11008
    assert m.params == resolve_model("Qwen-7B").params


def test_local_deepseek_v3_config_keeps_moe_and_mla(tmp_path):
    # deepseek-ai/DeepSeek-V3 config.json (published values)
    cfg = {
        "model_type": "deepseek_v3",
        "hidden_size": 7168,
        "intermediate_size": 18432,
        "moe_intermediate_size": 2048,
        "num_hidden_layers": 61,
        "num_attention_heads": 128,
        "num_key_value_heads": 128,
        "n_routed_experts": 256,
        "n_shared_experts": 1,
        "num_experts_per_tok": 8,
        "first_k_dense_replace": 3,
        "q_lora_rank": 1536,
        "kv_lora_rank": 512,
        "qk_nope_head_dim": 128,
        "qk_rope_head_dim": 64,
        "v_head_dim": 128,
        "vocab_size": 129280,
        "tie_word_embeddings": False,
        "quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128]},
    }
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    m = resolve_model(str(tmp_path))
    assert m.arch.is_moe and m.arch.is_mla and m.weights_precision == "fp8"
    assert m.params == resolve_model("DeepSeek-V3").params


def test_folder_without_config_is_a_clear_error(tmp_path):
    with pytest.raises(ToolInputError) as err:
        resolve_model(str(tmp_path))
    assert "config.json" in err.value.zh and "config.json" in err.value.en


# ---------------------------------------------------------------- the CLI stays fast and answers


def test_models_cli_lists_and_looks_up(capsys):
    code, out, _ = run_cli_inprocess(capsys, "models", "--json")
    data = json.loads(out)
    assert code == 0 and data["count"] >= 150
    assert {"id", "params", "source", "shipped_precision", "aliases", "releases"} <= set(data["models"][0])
    code, out, _ = run_cli_inprocess(capsys, "models", "Qwen2.5-72B-Instruct-AWQ", "--json")
    one = json.loads(out)
    assert one["name"] == "Qwen2.5-72B" and one["weights_precision"] == "awq-int4"
    assert one["shipped_precision"] == "bf16" and one["params"] == resolve_model("Qwen2.5-72B").params
    code, _, err = run_cli_inprocess(capsys, "models", "qwen4-13b")
    assert code == 2 and "qwen4-13b" in err
