"""Model catalog and parameter counting, checked against published figures.

Exact counts: Llama‑2 / Llama‑3 safetensors totals of the meta-llama checkpoints on the Hugging Face Hub (and PEFT's
print_trainable_parameters output for Llama‑2‑7B: "all params: 6,742,609,920" = 6,738,415,616 + 4,194,304
LoRA). Rounded counts: the model cards (Qwen2.5‑7B "7.61B", Mixtral "46.7B total / 12.9B active",
DeepSeek‑V3 "671B total / 37B activated", Qwen3 MoE "30.5B/3.3B", "235B/22B").
"""

from __future__ import annotations

import json
import re

import pytest

from tools.errors import ToolInputError
from tools.models import architecture_from_hf_config, count_params, find_entry, load_catalog, resolve_model
from tools.registry import run_tool


@pytest.mark.parametrize(
    "name, exact",
    [
        ("Llama-2-7B", 6_738_415_616),
        ("Llama-2-13B", 13_015_864_320),
        ("Llama-2-70B", 68_976_648_192),
        ("Llama-3-8B", 8_030_261_248),
        ("Llama-3-70B", 70_553_706_496),
    ],
)
def test_exact_published_counts(name, exact):
    assert resolve_model(name).params == exact


@pytest.mark.parametrize(
    "name, total_b, active_b, rel",
    [
        ("Qwen2.5-7B", 7.61, None, 0.005),
        ("Qwen2.5-72B", 72.7, None, 0.005),
        ("Mistral-7B-v0.1", 7.24, None, 0.005),
        ("ChatGLM3-6B", 6.24, None, 0.005),
        ("InternLM2.5-7B", 7.74, None, 0.005),
        ("Gemma-2-9B", 9.24, None, 0.005),
        ("Phi-4", 14.7, None, 0.005),
        ("Mixtral-8x7B", 46.7, 12.9, 0.005),
        ("Mixtral-8x22B", 141, 39, 0.01),
        ("DeepSeek-V3", 671, 37, 0.02),
        ("Qwen3-30B-A3B", 30.5, 3.3, 0.02),
        ("Qwen3-235B-A22B", 235, 22, 0.01),
    ],
)
def test_model_card_counts(name, total_b, active_b, rel):
    m = resolve_model(name)
    assert m.params / 1e9 == pytest.approx(total_b, rel=rel)
    if active_b is not None:
        assert m.active_params / 1e9 == pytest.approx(active_b, rel=max(rel, 0.02))
        assert m.active_params < m.params


def test_catalog_breadth_and_provenance():
    rows = load_catalog()
    assert len(rows) >= 40
    families = {r.family for r in rows}
    for fam in ["Llama", "Qwen", "DeepSeek", "Mistral", "GLM", "Baichuan", "Yi", "InternLM", "Gemma", "Phi", "MiniCPM"]:
        assert fam in families
    ids = [r.id for r in rows]
    assert len(ids) == len(set(ids))
    for r in rows:
        hf_config = r.source.startswith("https://huggingface.co/") and r.source.endswith("config.json")
        # weights published without a Hugging Face config.json (Grok-1's raw checkpoint, GLM-130B on application):
        # the publisher's own repository states the shapes
        publisher_repo = r.source.startswith(f"https://github.com/{r.hf_repo} ")
        assert hf_config or publisher_repo, r.id
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", r.as_of), r.id
        assert r.params_published, r.id
        a = r.arch
        assert a.num_heads % a.num_kv_heads == 0 or a.is_mla, r.id


def test_catalog_covers_the_issue_list():
    for name in [
        "Llama-2-7B",
        "Llama-3-8B",
        "Llama-3.1-8B",
        "Llama-3.2-3B",
        "Llama-3.3-70B",
        "Qwen2.5-0.5B",
        "Qwen2.5-72B",
        "Qwen3-8B",
        "Qwen3-30B-A3B",
        "Qwen3-235B-A22B",
        "QwQ-32B",
        "DeepSeek-V3",
        "DeepSeek-R1",
        "DeepSeek-R1-Distill-Qwen-7B",
        "Mistral-7B-v0.1",
        "Mixtral-8x7B",
        "Mixtral-8x22B",
        "GLM-4-9B",
        "ChatGLM3-6B",
        "Baichuan2-7B",
        "Yi-1.5-34B",
        "InternLM2.5-7B",
        "Gemma-2-9B",
        "Gemma-3-27B",
        "Phi-3-mini-4k",
        "Phi-4",
        "MiniCPM-2B",
    ]:
        assert find_entry(name) is not None, name


@pytest.mark.parametrize(
    "query, expected",
    [
        ("qwen2.5 7b", "Qwen2.5-7B"),
        ("Qwen2.5-7B-Instruct", "Qwen2.5-7B"),
        ("Qwen/Qwen2.5-7B-Instruct", "Qwen2.5-7B"),
        ("llama3 8b", "Llama-3-8B"),
        ("Meta-Llama-3-8B-Instruct", "Llama-3-8B"),
        ("deepseek r1", "DeepSeek-R1"),
        ("DeepSeek-V3", "DeepSeek-V3"),
        ("llama-2-7b-chat-hf", "Llama-2-7B"),
        ("qwq", "QwQ-32B"),
        ("glm4 9b", "GLM-4-9B"),
        ("mixtral 8x7b", "Mixtral-8x7B"),
        ("千问2.5-7b", "Qwen2.5-7B"),
    ],
)
def test_forgiving_lookup(query, expected):
    m = resolve_model(query)
    assert m.name == expected and m.kind == "catalog"


@pytest.mark.parametrize(
    "query, params",
    [
        ("7B", 7e9),
        ("70b", 70e9),
        ("1.5B", 1.5e9),
        ("70亿", 7e9),
        ("130亿", 13e9),
        ("百亿", 10e9),
    ],
)
def test_bare_sizes_use_a_stated_generic_architecture(query, params):
    m = resolve_model(query)
    assert m.kind == "generic" and m.params == int(params)
    text = " ".join(a["en"] + a["zh"] for a in m.assumptions)
    assert "generic" in text and "通用" in text
    # the generic shape really is about that size (so activations/KV are plausible)
    assert count_params(m.arch).total == pytest.approx(params, rel=0.08)


def test_unknown_model_is_a_bilingual_error_with_suggestions():
    with pytest.raises(ToolInputError) as err:
        resolve_model("qwen2.5 8b")
    assert err.value.zh and err.value.en
    assert any(s.startswith("Qwen2.5") for s in err.value.suggestions)


def test_local_config_json(tmp_path):
    # meta-llama/Llama-2-7b-hf config.json (published values)
    cfg = {
        "architectures": ["LlamaForCausalLM"],
        "model_type": "llama",
        "hidden_size": 4096,
        "intermediate_size": 11008,
        "num_attention_heads": 32,
        "num_hidden_layers": 32,
        "num_key_value_heads": 32,
        "vocab_size": 32000,
        "max_position_embeddings": 4096,
        "tie_word_embeddings": False,
        "rms_norm_eps": 1e-05,
    }
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    m = resolve_model(str(path))
    assert m.kind == "config_file" and m.params == 6_738_415_616
    assert resolve_model(str(tmp_path)).params == 6_738_415_616  # the model folder works too


def test_chatglm_style_config_keys():
    # THUDM/chatglm3-6b config.json: num_layers, multi_query_group_num, kv_channels, padded_vocab_size
    cfg = {
        "model_type": "chatglm",
        "num_layers": 28,
        "hidden_size": 4096,
        "num_attention_heads": 32,
        "kv_channels": 128,
        "multi_query_attention": True,
        "multi_query_group_num": 2,
        "ffn_hidden_size": 13696,
        "padded_vocab_size": 65024,
        "add_qkv_bias": True,
        "seq_length": 8192,
        "tie_word_embeddings": False,
    }
    a = architecture_from_hf_config(cfg)
    assert a.num_kv_heads == 2 and a.vocab_size == 65024
    assert count_params(a).total / 1e9 == pytest.approx(6.24, rel=0.005)  # model card: 6.24B


def test_qwen3_moe_config_keys():
    # Qwen/Qwen3-30B-A3B config.json
    cfg = {
        "model_type": "qwen3_moe",
        "hidden_size": 2048,
        "intermediate_size": 6144,
        "moe_intermediate_size": 768,
        "num_hidden_layers": 48,
        "num_attention_heads": 32,
        "num_key_value_heads": 4,
        "head_dim": 128,
        "num_experts": 128,
        "num_experts_per_tok": 8,
        "vocab_size": 151936,
        "tie_word_embeddings": False,
    }
    pc = count_params(architecture_from_hf_config(cfg))
    assert pc.total / 1e9 == pytest.approx(30.5, rel=0.01) and pc.active / 1e9 == pytest.approx(3.3, rel=0.03)


def test_bad_config_file(tmp_path):
    path = tmp_path / "config.json"
    path.write_text("{not json")
    with pytest.raises(ToolInputError):
        resolve_model(str(path))
    with pytest.raises(ToolInputError):
        resolve_model(str(tmp_path / "missing" / "config.json"))


def test_lookup_model_tool_kv_bytes():
    # vLLM paper arithmetic: 2 (K,V) · 32 layers · 4096 hidden · 2 bytes = 524,288 B/token for Llama-2-7B
    out = run_tool("lookup_model", {"query": "llama-2-7b"})
    assert out["params"] == 6_738_415_616 and out["kv_bytes_per_token_fp16"] == 524_288
    assert out["source"].startswith("https://huggingface.co/meta-llama/")
    # MLA (DeepSeek-V2 paper §2.1): cache (d_c + d_h^R) per layer = (512 + 64) · 61 layers · 2 bytes
    out = run_tool("lookup_model", {"query": "deepseek r1"})
    assert out["kv_bytes_per_token_fp16"] == (512 + 64) * 61 * 2 and out["is_mla"] and out["is_moe"]
    err = run_tool("lookup_model", {"query": "no-such-model-xyz"})
    assert "error" in err and err["error"]["zh"] and err["error"]["en"]
