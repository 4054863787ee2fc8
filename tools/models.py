"""The model catalog: architecture from each published `config.json`, and a forgiving lookup.

`resolve_model("qwen2.5 7b")`, `resolve_model("Qwen2.5-7B-Instruct")`, `resolve_model("deepseek r1")`,
a bare size (`"7B"`, `"70亿"`, `"百亿"` → a generic dense architecture, said so in the
assumptions) or a local HF `config.json` path all give a `ResolvedModel` with parameter counts.

Parameter counting follows the module shapes of a decoder-only transformer (estimators.md §5.1):
    attn  = h·n_q·d + 2·h·n_kv·d + n_q·d·h  (+ biases)        MLA: low-rank q/kv projections
    mlp   = 3·h·f (gated SwiGLU/GeGLU) or 2·h·f               MoE: E experts + router (+ shared)
    norms = k·h per layer + h final;  emb = V·h (×2 if the LM head is not tied)
Checked against published counts: Llama‑2‑7B 6,738,415,616; Llama‑3‑8B 8,030,261,248.
"""

from __future__ import annotations

import difflib
import json
import os
import re
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, Field

from tools.errors import ToolInputError

CATALOG_DIR = ("models",)


class Architecture(BaseModel):
    """Shapes taken from a model's `config.json` (text decoder only)."""

    num_layers: int = Field(gt=0)
    hidden_size: int = Field(gt=0)
    num_heads: int = Field(gt=0)
    num_kv_heads: int = Field(gt=0, description="key/value heads (GQA/MQA); = num_heads for MHA")
    head_dim: int = Field(gt=0)
    intermediate_size: int = Field(gt=0, description="dense MLP width (dense layers of an MoE model)")
    vocab_size: int = Field(gt=0)
    tie_word_embeddings: bool = False
    mlp_gated: bool = True
    qkv_bias: bool = False
    o_bias: bool = False
    mlp_bias: bool = False
    norms_per_layer: int = 2
    norm_bias: bool = False
    qk_norm: bool = False
    max_position_embeddings: int | None = None
    # Native window when the publisher says longer contexts need rope scaling (Qwen2.5: 32,768 native,
    # 131,072 only with YaRN factor 4) — the limit a plain deployment has; None = max_position_embeddings.
    native_context: int | None = None
    rope_scaled_context: int | None = Field(
        None, description="longest context the publisher supports with rope scaling"
    )
    rope_scaling: str | None = Field(
        None, description="how, e.g. 'YaRN factor 4.0 (original_max_position_embeddings 32768)'"
    )
    context_source: str | None = None
    # Mixture of experts
    num_experts: int = 0
    experts_per_token: int = 0
    num_shared_experts: int = 0
    moe_intermediate_size: int | None = None
    shared_expert_intermediate_size: int | None = None
    shared_expert_gate: bool = False
    first_k_dense_layers: int = 0
    router_bias: bool = False
    # Multi-head latent attention (DeepSeek-V2/V3, MiniCPM3)
    q_lora_rank: int | None = None
    kv_lora_rank: int | None = None
    qk_nope_head_dim: int | None = None
    qk_rope_head_dim: int | None = None
    v_head_dim: int | None = None
    # Sliding-window attention: how many of the layers use a window of `sliding_window` tokens
    sliding_window: int | None = None
    sliding_window_layers: int | None = None
    # Parameters outside the text decoder (vision tower, MTP module) that the published total includes
    extra_params: int = 0
    extra_params_note: str | None = None

    @property
    def context_limit(self) -> int | None:
        """Longest context without rope scaling: the native window when published, else max_position_embeddings."""
        return self.native_context or self.max_position_embeddings

    @property
    def is_moe(self) -> bool:
        return self.num_experts > 0

    @property
    def is_mla(self) -> bool:
        return self.kv_lora_rank is not None

    @property
    def windowed_layers(self) -> int:
        if not self.sliding_window:
            return 0
        return self.num_layers if self.sliding_window_layers is None else self.sliding_window_layers


class ModelEntry(BaseModel):
    """One catalog row (knowledge/models/*.yaml)."""

    id: str
    family: str
    hf_repo: str
    aliases: list[str] = []
    params_published: str | None = Field(None, description="as the model card states it, e.g. '7.61B'")
    active_params_published: str | None = None
    arch: Architecture
    source: str
    as_of: str
    notes: str | None = None


class ParamCount(BaseModel):
    total: int
    active: int
    embedding: int
    per_layer_max: int = Field(description="largest single layer (ZeRO-3 gathers one at a time)")
    attention_per_layer: int
    mlp_per_layer: int


class ResolvedModel(BaseModel):
    """What the estimators consume: a name, an architecture and parameter counts."""

    name: str
    kind: Literal["catalog", "generic", "config_file"]
    arch: Architecture
    params: int
    active_params: int
    params_published: str | None = None
    largest_layer_params: int
    hf_repo: str | None = None
    source: str | None = None
    as_of: str | None = None
    assumptions: list[dict[str, str]] = []


# ---------------------------------------------------------------- parameter counting


def _attention_params(a: Architecture) -> int:
    h = a.hidden_size
    if a.is_mla:
        nope, rope, v = a.qk_nope_head_dim or 0, a.qk_rope_head_dim or 0, a.v_head_dim or a.head_dim
        qk = nope + rope
        if a.q_lora_rank:
            q = h * a.q_lora_rank + a.q_lora_rank + a.q_lora_rank * a.num_heads * qk
        else:
            q = h * a.num_heads * qk
        kv = h * (a.kv_lora_rank + rope) + a.kv_lora_rank + a.kv_lora_rank * a.num_heads * (nope + v)
        return q + kv + a.num_heads * v * h
    d = a.head_dim
    q = h * a.num_heads * d
    kv = 2 * h * a.num_kv_heads * d
    o = a.num_heads * d * h
    total = q + kv + o
    if a.qkv_bias:
        total += a.num_heads * d + 2 * a.num_kv_heads * d
    if a.o_bias:
        total += h
    if a.qk_norm:
        total += 2 * d
    return total


def _mlp_params(h: int, f: int, gated: bool, bias: bool) -> int:
    n = (3 if gated else 2) * h * f
    if bias:
        n += (2 * f if gated else f) + h
    return n


def _moe_params(a: Architecture) -> tuple[int, int]:
    """(all experts + router + shared, the part one token uses)."""
    h, fe = a.hidden_size, a.moe_intermediate_size or a.intermediate_size
    expert = _mlp_params(h, fe, a.mlp_gated, a.mlp_bias)
    router = a.num_experts * h + (a.num_experts if a.router_bias else 0)
    shared = 0
    if a.num_shared_experts:
        fs = a.shared_expert_intermediate_size or fe * a.num_shared_experts
        shared = _mlp_params(h, fs, a.mlp_gated, a.mlp_bias) + (h if a.shared_expert_gate else 0)
    total = a.num_experts * expert + router + shared
    active = a.experts_per_token * expert + router + shared
    return total, active


def count_params(a: Architecture) -> ParamCount:
    """Exact parameter count from shapes (embeddings, layers, norms, LM head)."""
    h = a.hidden_size
    attn = _attention_params(a)
    norms = a.norms_per_layer * h * (2 if a.norm_bias else 1)
    dense_mlp = _mlp_params(h, a.intermediate_size, a.mlp_gated, a.mlp_bias)
    dense_layer = attn + norms + dense_mlp
    if a.is_moe:
        moe_total, moe_active = _moe_params(a)
        n_dense = a.first_k_dense_layers
        n_moe = a.num_layers - n_dense
        layers_total = n_dense * dense_layer + n_moe * (attn + norms + moe_total)
        layers_active = n_dense * dense_layer + n_moe * (attn + norms + moe_active)
        per_layer_max = max(dense_layer if n_dense else 0, attn + norms + moe_total)
        mlp_layer = moe_total
    else:
        layers_total = layers_active = a.num_layers * dense_layer
        per_layer_max = dense_layer
        mlp_layer = dense_mlp
    embedding = a.vocab_size * h * (1 if a.tie_word_embeddings else 2)
    final_norm = h * (2 if a.norm_bias else 1)
    total = layers_total + embedding + final_norm
    active = layers_active + embedding + final_norm
    return ParamCount(
        total=total,
        active=active,
        embedding=embedding,
        per_layer_max=max(per_layer_max, a.vocab_size * h),
        attention_per_layer=attn,
        mlp_per_layer=mlp_layer,
    )


# ---------------------------------------------------------------- catalog


@lru_cache(maxsize=1)
def load_catalog() -> tuple[ModelEntry, ...]:
    """Every model row in knowledge/models/*.yaml (validated once, cached)."""
    from tools.data import load_yaml_dir

    rows: list[ModelEntry] = []
    for _path, doc in load_yaml_dir(*CATALOG_DIR):
        family = doc.get("family", "")
        defaults = doc.get("defaults", {}) or {}
        for row in doc.get("models", []):
            data = {"family": family, "as_of": doc.get("as_of"), **row}
            data["arch"] = {**defaults.get("arch", {}), **row.get("arch", {})}
            rows.append(ModelEntry.model_validate(data))
    return tuple(rows)


_STRIP_WORDS = (
    "instruct",
    "chat",
    "hf",
    "base",
    "it",
    "sft",
    "dpo",
    "preview",
    "fp8",
    "awq",
    "gptq",
    "int4",
    "int8",
    "gguf",
    "bf16",
)
_FAMILY_ALIASES = {
    "千问": "qwen",
    "通义千问": "qwen",
    "通义": "qwen",
    "深度求索": "deepseek",
    "羊驼": "llama",
    "智谱": "glm",
    "百川": "baichuan",
    "书生": "internlm",
    "零一万物": "yi",
    "面壁": "minicpm",
    "米斯特拉尔": "mistral",
}


def family_words() -> dict[str, str]:
    """Chinese family names the catalog lookup understands (千问 → qwen), for readers that find names in text."""
    return dict(_FAMILY_ALIASES)


# Colloquial words around a model name that do not change which model is meant:
# 「满血版」= the full model as released (e.g. DeepSeek-R1 671B, not a distill).
_FILLER_RE = re.compile(r"满血版?|完整版|原版|官方版?|模型|的")


def _norm(text: str) -> str:
    """Lower-case, drop org prefix, chat/instruct suffixes and punctuation: 'Qwen2.5-7B-Instruct' → 'qwen2.57b'."""
    s = text.strip().lower()
    for zh, en in sorted(_FAMILY_ALIASES.items(), key=lambda kv: -len(kv[0])):  # 通义千问 before 千问
        s = s.replace(zh, en)
    s = _FILLER_RE.sub(" ", s)
    s = s.split("/")[-1]
    parts = [p for p in re.split(r"[\s_\-]+", s) if p]
    if len(parts) > 1 and parts[0] == "ds":  # "ds r1", "ds v3": the usual shorthand for DeepSeek
        parts[0] = "deepseek"
    while len(parts) > 1 and parts[-1] in _STRIP_WORDS:
        parts.pop()
    s = "".join(parts)
    s = re.sub(r"v(\d)", r"\1", s) if s.startswith(("deepseekv", "mistralv")) else s
    return s


@lru_cache(maxsize=1)
def _index() -> dict[str, ModelEntry]:
    index: dict[str, ModelEntry] = {}
    for entry in load_catalog():
        for key in [entry.id, entry.hf_repo, *entry.aliases]:
            index.setdefault(_norm(key), entry)
    return index


def find_entry(query: str) -> ModelEntry | None:
    """Exact match on a normalised name, id, HF repo or alias; None if nothing matches.

    A trailing size that agrees with the model ("DeepSeek-R1 671B", "qwen3 30b a3b" is already a name)
    is accepted when dropping it leaves a catalog name whose parameter count is within 10% of it.
    """
    hit = _index().get(_norm(query))
    if hit is not None:
        return hit
    m = re.match(r"^(.*?)[\s_\-]*(\d+(?:\.\d+)?)\s*([bt])\s*$", query.strip(), flags=re.I)
    if m and m.group(1).strip():
        entry = _index().get(_norm(m.group(1)))
        if entry is not None:
            size = float(m.group(2)) * (1e12 if m.group(3).lower() == "t" else 1e9)
            if abs(count_params(entry.arch).total - size) <= 0.1 * size:
                return entry
    return None


def suggestions(query: str, n: int = 6) -> list[str]:
    ids = {_norm(e.id): e.id for e in load_catalog()}
    keys = difflib.get_close_matches(_norm(query), list(ids), n=n, cutoff=0.5)
    if not keys:
        head = re.match(r"[a-z]+", _norm(query) or "")
        keys = [k for k in ids if head and k.startswith(head.group(0)[:4])][:n]
    return [ids[k] for k in keys]


# ---------------------------------------------------------------- generic architecture for a bare size

# Llama-style reference shapes (hidden, heads, ffn); the layer count is solved to hit the size.
_GENERIC_SHAPES = [
    (0.5e9, 1024, 16, 2816),
    (1.5e9, 2048, 16, 5632),
    (3e9, 3072, 24, 8192),
    (7e9, 4096, 32, 11008),
    (13e9, 5120, 40, 13824),
    (34e9, 7168, 56, 20480),
    (70e9, 8192, 64, 28672),
    (175e9, 12288, 96, 49152),
    (405e9, 16384, 128, 53248),
]
GENERIC_VOCAB = 128_256
GENERIC_KV_HEADS = 8


def generic_architecture(params: int) -> Architecture:
    """A Llama-3-style dense shape (SwiGLU, GQA with 8 KV heads, vocab 128k) for `params`."""
    import math

    _, h, heads, ffn = min(_GENERIC_SHAPES, key=lambda s: abs(math.log(s[0]) - math.log(params)))
    d = h // heads
    kv = min(GENERIC_KV_HEADS, heads)
    probe = Architecture(
        num_layers=1,
        hidden_size=h,
        num_heads=heads,
        num_kv_heads=kv,
        head_dim=d,
        intermediate_size=ffn,
        vocab_size=GENERIC_VOCAB,
    )
    per_layer = _attention_params(probe) + 2 * h + _mlp_params(h, ffn, True, False)
    emb = 2 * GENERIC_VOCAB * h
    layers = max(1, round((params - emb) / per_layer))
    return probe.model_copy(update={"num_layers": layers})


# ---------------------------------------------------------------- HF config.json

_TIED_BY_DEFAULT = {"gemma", "gemma2", "gemma3", "gemma3_text", "minicpm"}


def architecture_from_hf_config(cfg: dict) -> Architecture:
    """Map a Hugging Face `config.json` dict onto `Architecture` (Llama/Qwen/Mistral/Mixtral/
    Gemma/Phi-3/DeepSeek-V3/ChatGLM style keys)."""
    if "text_config" in cfg and "num_hidden_layers" not in cfg:
        cfg = {**cfg["text_config"], "model_type": cfg["text_config"].get("model_type", cfg.get("model_type"))}
    mt = str(cfg.get("model_type", "")).lower()

    def pick(*keys, default=None):
        for k in keys:
            if cfg.get(k) is not None:
                return cfg[k]
        return default

    layers = pick("num_hidden_layers", "num_layers", "n_layer")
    hidden = pick("hidden_size", "d_model", "n_embd")
    heads = pick("num_attention_heads", "n_head")
    if not (layers and hidden and heads):
        raise ToolInputError(
            "config.json 缺少层数/隐藏维度/注意力头数",
            "config.json lacks num_hidden_layers / hidden_size / num_attention_heads",
            field="model",
        )
    kv = pick("num_key_value_heads", default=None)
    if kv is None and cfg.get("multi_query_attention"):
        kv = cfg.get("multi_query_group_num", 1)
    if kv is None and cfg.get("multi_query"):  # GPT-BigCode (StarCoder): one shared K/V head
        kv = 1
    head_dim = pick("head_dim", "kv_channels", default=hidden // heads)
    ffn = pick("intermediate_size", "ffn_hidden_size", "n_inner", "ffn_dim", default=4 * hidden)
    # GPT-2 style families: plain GELU MLP, biases everywhere, LayerNorm with bias, learned positions
    gpt_style = mt in {"gpt_bigcode", "gpt2", "opt"}
    positions = pick("n_positions", "max_position_embeddings", default=0) if gpt_style else 0
    if mt == "opt":
        positions += 2  # OPT's learned position table has an offset of 2
    tie = cfg.get("tie_word_embeddings", mt in _TIED_BY_DEFAULT)
    experts = pick("num_local_experts", "n_routed_experts", "num_experts", default=0) or 0
    window = cfg.get("sliding_window") if cfg.get("use_sliding_window", True) else None
    window_layers = None
    if window and mt in {"gemma2"}:
        window_layers = layers // 2
    elif window and mt.startswith("gemma3"):
        pattern = cfg.get("sliding_window_pattern", 6)
        window_layers = layers - layers // pattern
    elif window and "max_window_layers" in cfg and mt.startswith("qwen"):
        window_layers = max(0, layers - cfg["max_window_layers"])
    if gpt_style:
        return Architecture(
            num_layers=layers,
            hidden_size=hidden,
            num_heads=heads,
            num_kv_heads=kv or heads,
            head_dim=head_dim,
            intermediate_size=ffn,
            vocab_size=pick("vocab_size"),
            tie_word_embeddings=bool(cfg.get("tie_word_embeddings", True)),
            mlp_gated=False,
            qkv_bias=True,
            o_bias=True,
            mlp_bias=True,
            norm_bias=True,
            max_position_embeddings=positions or None,
            extra_params=positions * hidden,
            extra_params_note="learned position embeddings",
        )
    return Architecture(
        num_layers=layers,
        hidden_size=hidden,
        num_heads=heads,
        num_kv_heads=kv or heads,
        head_dim=head_dim,
        intermediate_size=ffn,
        vocab_size=pick("padded_vocab_size", "vocab_size"),
        tie_word_embeddings=bool(tie),
        qkv_bias=bool(pick("attention_bias", "add_qkv_bias", "qkv_bias", default=mt in {"qwen2", "qwen2_moe"})),
        mlp_bias=bool(cfg.get("mlp_bias", False)),
        norms_per_layer=4 if mt.startswith(("gemma2", "gemma3")) else 2,
        qk_norm=mt.startswith(("qwen3", "gemma3")),
        max_position_embeddings=pick("max_position_embeddings", "seq_length"),
        num_experts=experts,
        experts_per_token=pick("num_experts_per_tok", default=0) or 0,
        num_shared_experts=pick("n_shared_experts", default=1 if cfg.get("shared_expert_intermediate_size") else 0)
        or 0,
        moe_intermediate_size=pick("moe_intermediate_size", default=None) if experts else None,
        shared_expert_intermediate_size=cfg.get("shared_expert_intermediate_size"),
        shared_expert_gate=bool(cfg.get("shared_expert_intermediate_size")),
        first_k_dense_layers=pick("first_k_dense_replace", default=0) or 0,
        router_bias=mt in {"deepseek_v3"},
        q_lora_rank=cfg.get("q_lora_rank"),
        kv_lora_rank=cfg.get("kv_lora_rank"),
        qk_nope_head_dim=cfg.get("qk_nope_head_dim"),
        qk_rope_head_dim=cfg.get("qk_rope_head_dim"),
        v_head_dim=cfg.get("v_head_dim"),
        sliding_window=window,
        sliding_window_layers=window_layers,
    )


def _looks_like_path(query: str) -> bool:
    return query.endswith(".json") or (os.sep in query and os.path.exists(query))


# ---------------------------------------------------------------- resolution


def _resolved(name: str, kind, arch: Architecture, **extra) -> ResolvedModel:
    pc = count_params(arch)
    return ResolvedModel(
        name=name,
        kind=kind,
        arch=arch,
        params=pc.total + arch.extra_params,
        active_params=pc.active + arch.extra_params,
        largest_layer_params=pc.per_layer_max,
        **extra,
    )


def resolve_model(query: str | None = None, params: str | int | float | None = None) -> ResolvedModel:
    """A catalog name, a local config.json path, or a bare size → `ResolvedModel`.

    `params` (e.g. "7B") overrides the size; with no name it selects the generic architecture.
    Raises ToolInputError for an unknown name (with close catalog names as suggestions).
    """
    from tools.quantities import parse_param_count

    if query is not None and not str(query).strip():
        query = None
    if query is None and params is None:
        raise ToolInputError(
            "请给出模型名称或参数量（例如 qwen2.5-7b 或 7B）",
            "Give a model name or a parameter count (e.g. qwen2.5-7b or 7B)",
            field="model",
        )
    if query is not None:
        q = str(query).strip()
        if os.path.isdir(q) and os.path.isfile(os.path.join(q, "config.json")):
            q = os.path.join(q, "config.json")  # a local Hugging Face model folder
        if _looks_like_path(q):
            if not os.path.exists(q):
                raise ToolInputError(f"找不到文件 {q}", f"File not found: {q}", field="model")
            with open(q, encoding="utf-8") as fh:
                try:
                    cfg = json.load(fh)
                except json.JSONDecodeError as exc:
                    raise ToolInputError(
                        f"{q} 不是有效的 JSON：{exc}", f"{q} is not valid JSON: {exc}", field="model"
                    ) from None
            arch = architecture_from_hf_config(cfg)
            res = _resolved(
                os.path.basename(os.path.dirname(os.path.abspath(q))) or q,
                "config_file",
                arch,
                source=os.path.abspath(q),
            )
            res.assumptions.append(
                {
                    "zh": f"架构读自本地 config.json（{q}），参数量按形状计算",
                    "en": f"Architecture read from the local config.json ({q}); parameters counted from shapes",
                }
            )
            return _maybe_override(res, params)
        entry = find_entry(q)
        if entry is not None:
            res = _resolved(
                entry.id,
                "catalog",
                entry.arch,
                params_published=entry.params_published,
                hf_repo=entry.hf_repo,
                source=entry.source,
                as_of=entry.as_of,
            )
            return _maybe_override(res, params)
        try:
            size = parse_param_count(q, field="model")
        except ToolInputError:
            raise ToolInputError(
                f"模型目录里没有「{q}」；可以换个写法、给出参数量（如 7B），或给出本地 config.json 路径",
                f"No model {q!r} in the catalog; try another spelling, a size such as 7B, or a local config.json path",
                field="model",
                suggestions=suggestions(q),
            ) from None
        params = size
    size = parse_param_count(params, field="params")
    return _generic(size)


def _generic(size: int) -> ResolvedModel:
    arch = generic_architecture(size)
    pc = count_params(arch)
    res = ResolvedModel(
        name=f"generic-{size / 1e9:g}B",
        kind="generic",
        arch=arch,
        params=size,
        active_params=size,
        largest_layer_params=pc.per_layer_max,
    )
    res.assumptions.append(
        {
            "zh": (
                f"只给了参数量 {size / 1e9:g}B，按通用 Llama 式稠密架构估算（{arch.num_layers} 层、隐藏维度 "
                f"{arch.hidden_size}、{arch.num_heads} 个注意力头、{arch.num_kv_heads} 个 KV 头（GQA）、词表 "
                f"{arch.vocab_size}）；激活值和 KV 缓存依赖真实架构，给出模型名更准"
            ),
            "en": (
                f"Only a size ({size / 1e9:g}B) was given: a generic Llama-style dense architecture is assumed "
                f"({arch.num_layers} layers, hidden {arch.hidden_size}, {arch.num_heads} heads, {arch.num_kv_heads} "
                f"KV heads (GQA), vocab {arch.vocab_size}); activations and KV cache depend on the real "
                f"architecture — name the model for a better figure"
            ),
        }
    )
    return res


def _maybe_override(res: ResolvedModel, params: str | int | float | None) -> ResolvedModel:
    if params is None:
        return res
    from tools.quantities import parse_param_count

    size = parse_param_count(params, field="params")
    res.assumptions.append(
        {
            "zh": f"参数量按给定的 {size / 1e9:g}B 计，架构仍用 {res.name}",
            "en": f"Parameter count set to the given {size / 1e9:g}B; architecture still from {res.name}",
        }
    )
    return res.model_copy(update={"params": size, "active_params": min(res.active_params, size)})


# ---------------------------------------------------------------- the tool


class LookupModelInput(BaseModel):
    query: str = Field(
        description="model name as people write it ('qwen2.5 7b', 'Llama-3-8B-Instruct', "
        "'deepseek r1'), a bare size ('7B', '70亿'), or a local config.json path"
    )


class LookupModelOutput(BaseModel):
    name: str
    kind: str
    hf_repo: str | None
    params: int
    params_b: float
    active_params: int
    params_published: str | None
    is_moe: bool
    is_mla: bool
    architecture: Architecture
    kv_bytes_per_token_fp16: int = Field(description="KV cache bytes per token at 16-bit, all layers")
    weights_bf16_gb: float = Field(description="params × 2 bytes, decimal GB")
    assumptions: list[dict[str, str]]
    source: str | None
    as_of: str | None


def lookup_model(inp: LookupModelInput) -> LookupModelOutput:
    """Tool body: resolve a model and report its architecture and parameter counts."""
    from tools.memory_kv import kv_bytes_per_token

    m = resolve_model(inp.query)
    return LookupModelOutput(
        name=m.name,
        kind=m.kind,
        hf_repo=m.hf_repo,
        params=m.params,
        params_b=round(m.params / 1e9, 3),
        active_params=m.active_params,
        params_published=m.params_published,
        is_moe=m.arch.is_moe,
        is_mla=m.arch.is_mla,
        architecture=m.arch,
        kv_bytes_per_token_fp16=int(kv_bytes_per_token(m.arch, 2.0)),
        weights_bf16_gb=round(m.params * 2 / 1e9, 3),
        assumptions=m.assumptions,
        source=m.source,
        as_of=m.as_of,
    )


def _tools():
    from tools.registry import ToolSpec

    return [
        ToolSpec(
            name="lookup_model",
            description=(
                "Look up an open LLM (Llama, Qwen, DeepSeek, Mistral, GLM, Yi, Gemma, Phi, MiniCPM, …) by a "
                "forgiving name, a bare size ('7B', '70亿') or a local config.json path. Returns the "
                "architecture from its published config.json (layers, hidden, heads, KV heads, MoE, MLA, "
                "sliding window), total and active parameter counts, KV-cache bytes per token at 16-bit, "
                "bf16 weight size in decimal GB, and the source URL."
            ),
            input_model=LookupModelInput,
            func=lookup_model,
        )
    ]


TOOLS = _tools()
