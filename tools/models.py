"""The model catalog: architecture from each published `config.json`, and a forgiving lookup.

`resolve_model("qwen2.5 7b")`, `resolve_model("Qwen2.5-7B-Instruct-AWQ")`, `resolve_model("千问2.5-7B")`,
`resolve_model("ds r1 32b")`, a bare size (`"7B"`, `"70亿"`, `"百亿"` → a generic dense architecture, said so in the
assumptions) or a local HF `config.json` path / model folder all give a `ResolvedModel` with parameter counts.
A name the catalog does not know is never silently replaced by a generic shape: it raises a bilingual error with
close names, or — with `allow_unknown=True` and a size in the name — resolves to the generic shape with
`unknown_name` set and the assumption stated first.

Vocabulary for other modules (the chat planner): `alias_index()` (normalised alias → canonical id),
`normalise_name()`, and `variant_of(name)` (base model, shipped/quantised precision, variant tags).

Parameter counting follows the module shapes of Hugging Face transformers' decoder implementations
(LlamaForCausalLM, Qwen2, Mixtral, DeepSeek-V3 …):
    attn  = h·n_q·d + 2·h·n_kv·d + n_q·d·h  (+ biases)        MLA: low-rank q/kv projections
    mlp   = 3·h·f (gated SwiGLU/GeGLU) or 2·h·f               MoE: E experts + router (+ shared)
    norms = k·h per layer + h final;  emb = V·h (×2 if the LM head is not tied)
Checked against published counts (tests/test_catalog.py): Llama‑2‑7B 6,738,415,616; Llama‑3‑8B 8,030,261,248;
Gemma 7B non-embedding 7,751,248,896 (Gemma report); gpt-oss-120b 116.83B / 5.13B active (OpenAI model card).
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
from tools.registry import operator_paths_allowed as _operator_paths_allowed
from tools.textcodec import read_regular_file as _read_regular

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
    # BERT-style encoder (embedding / reranker models): no LM-head logits in training, no KV cache in serving,
    # inputs no longer than max_position_embeddings (512 for most)
    encoder_only: bool = False
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
    # Hybrid models whose other layers keep no per-token KV cache (Qwen3-Next: 12 full-attention layers of 48, the
    # rest Gated DeltaNet with a fixed-size state; MiniMax-M1: 10 softmax layers of 80, the rest lightning
    # attention; Hunyuan-Large: cross-layer attention shares one KV between 2 layers). None = every layer.
    kv_layers: int | None = Field(None, gt=0, description="layers that keep their own per-token KV cache")
    # Parameters outside the text decoder (vision tower, MTP module) that the published total includes
    extra_params: int = 0
    extra_params_note: str | None = None
    vision_num_heads: int | None = Field(
        None,
        gt=0,
        description="vision encoder attention heads (config.json vision_config.num_heads): vLLM shards them by TP too",
    )

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
    def cached_layers(self) -> int:
        """Layers whose KV cache grows with the context (all of them unless `kv_layers` says fewer)."""
        return min(self.kv_layers or self.num_layers, self.num_layers)

    @property
    def windowed_layers(self) -> int:
        if not self.sliding_window:
            return 0
        return self.num_layers if self.sliding_window_layers is None else self.sliding_window_layers


Precision = str  # "bf16", "fp16", "fp32", "fp8", "mxfp4", "int4", "awq-int4", "gptq-int4", "gptq-int8", "gguf-q4_k_m" …


class Release(BaseModel):
    """An official (or widely used) re-release of a catalog model with other weights: same architecture."""

    name: str
    hf_repo: str | None = None
    precision: Precision
    note: str | None = None


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
    shipped_precision: Precision | None = Field(
        None,
        description="dtype of the official weights (config.json torch_dtype / quantization_config); None = not recorded",
    )
    releases: list[Release] = []
    index_repo: bool = Field(
        True,
        description="look the entry up by its repo name; False where the bare repo name is the family's word and "
        "would swallow other models named after it (openai-community/gpt2 vs gpt2-ml, a 1.5B Chinese model)",
    )
    example_dtype: Precision | None = Field(
        None,
        description="dtype the model card's own transformers snippet loads in (fp32 where it passes no torch_dtype); "
        "None = the card sets the checkpoint's dtype, which is what a user following it gets",
    )


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
    # Added for variant/precision awareness (issue 13): all optional, old readers ignore them.
    family: str | None = None
    query: str | None = Field(None, description="the name as the user wrote it")
    shipped_precision: Precision | None = Field(None, description="precision of the official base weights")
    weights_precision: Precision | None = Field(
        None, description="precision of the weights the query names (a quantised release or name suffix), else shipped"
    )
    variant_tags: list[str] = Field(default_factory=list, description="instruct / chat / base / coder … words seen")
    unknown_name: str | None = Field(None, description="set when the name was not in the catalog (generic shape used)")


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
        c = a.kv_lora_rank or 0
        kv = h * (c + rope) + c + c * a.num_heads * (nope + v)
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
        row_defaults = {k: v for k, v in defaults.items() if k != "arch"}
        for row in doc.get("models", []):
            data = {"family": family, "as_of": doc.get("as_of"), **row_defaults, **row}
            data["arch"] = {**defaults.get("arch", {}), **row.get("arch", {})}
            rows.append(ModelEntry.model_validate(data))
    return tuple(rows)


# Words after a model name that do not change the architecture. Quantisation words (awq, gptq, fp8, gguf …)
# are NOT here: `variant_of` peels them and records the precision they name.
_STRIP_WORDS = ("instruct", "chat", "hf", "base", "it", "sft", "dpo", "preview")
_FAMILY_ALIASES = {
    "千问": "qwen",
    "通义千问": "qwen",
    "通义": "qwen",
    "深度求索": "deepseek",
    "羊驼": "llama",
    "智谱清言": "glm",
    "智谱": "glm",
    "百川": "baichuan",
    "书生浦语": "internlm",
    "书生·浦语": "internlm",
    "书生": "internlm",
    "浦语": "internlm",
    "零一万物": "yi",
    "零一": "yi",
    "面壁智能": "minicpm",
    "面壁": "minicpm",
    "米斯特拉尔": "mistral",
    "月之暗面": "kimi",
    "猎鹰": "falcon",
    "书生·万象": "internvl",
    "书生万象": "internvl",
    "腾讯混元": "hunyuan",
    "混元": "hunyuan",
    "文心": "ernie",
    "天工": "skywork",
}


def family_words() -> dict[str, str]:
    """Chinese family names the catalog lookup understands (千问 → qwen), for readers that find names in text."""
    return dict(_FAMILY_ALIASES)


@lru_cache(maxsize=1)
def sized_families() -> dict[str, list[tuple[float, str]]]:
    """Catalog families with their sizes: 'llama3' → [(8, 'Llama-3-8B'), (70, 'Llama-3-70B')]."""
    out: dict[str, list[tuple[float, str]]] = {}
    for e in load_catalog():
        m = re.match(r"^(.*?)-(\d+(?:\.\d+)?)B$", e.id)
        if m:
            out.setdefault(re.sub(r"[\s.\-_]", "", m.group(1).lower()), []).append((float(m.group(2)), e.id))
    return {k: sorted(v) for k, v in out.items() if len(v) >= 2 and len(k) >= 4}


def _name_tokens(name: str) -> list[str]:
    """'Llama-3.1-8B' → ['llama', '3.1', '8', 'b']: letters and version numbers, so 'llama3' never prefixes 3.1."""
    return re.findall(r"[a-z]+|\d+(?:\.\d+)*", name.lower())


_OTHER_MODALITY = frozenset({"vision", "vl", "ocr", "audio", "omni"})


@lru_cache(maxsize=512)
def family_default(name: str) -> str | None:
    """The catalog model a family name without a size stands for ("chatglm", "codeqwen", "deepseek-coder",
    "mistral"): its smallest 7B-class dense member (>= 6B; the smallest when none is that big), the newest
    release among members of that size (ChatGLM3-6B over ChatGLM-6B) — the size most people run first.

    Why: a family named without a size is still a model question; sizing nothing answers another question, and
    dropping the sub-family word ("deepseek-coder" → DeepSeek-R1 671B) sizes another model. A member counts only
    when the name's words are its first words and a number follows them ("mistral" is not Mistral-Nemo); vision
    and other-modality rows count only when the name says so. None when no member matches."""
    sized = sized_families().get(re.sub(r"[\s.\-_]", "", name.lower()))
    if sized:
        return next((mid for size, mid in sized if size >= 6), sized[0][1])
    want = _name_tokens(name)
    if not want:
        return None
    members = []
    for e in load_catalog():
        toks = _name_tokens(e.id)
        if (
            len(toks) > len(want)
            and toks[: len(want)] == want
            and toks[len(want)][0].isdigit()
            and not (_OTHER_MODALITY & (set(toks) - set(want)))
        ):
            members.append(e)
    dense = [e for e in members if not e.arch.is_moe] or members
    sizes = sorted((count_params(e.arch).total, e.id) for e in dense)
    if not sizes:
        return None
    big = [x for x in sizes if x[0] >= 6e9]
    if not big:
        return sizes[0][1]
    return max(mid for p, mid in big if p <= big[0][0] * 1.15)  # same size: the newest release (ChatGLM3 > ChatGLM2)


# Colloquial words around a model name that do not change which model is meant:
# 「满血版」= the full model as released (e.g. DeepSeek-R1 671B, not a distill).
_FILLER_RE = re.compile(r"满血版?|完整版|原版|官方版?|模型|的")


# A version written with an underscore in file and folder names ("qwen1_5-14b-chat-q4_0.gguf", "internlm2_5-7b"):
# the underscore between a family's digit and the next digit is the dot, unless that digit starts a size ("_7b").
UNDERSCORE_VERSION_RE = re.compile(r"(?<=[a-z]{2}\d)_(?=\d(?![\d_]*[bm](?![a-z0-9])))")
# ModelScope's download folders escape every "." of a repo name as "___" ("qwen/Qwen1___5-7B-Chat",
# "Qwen2___5-7B-Instruct"): read back as the dot before anything else looks at the name.
MODELSCOPE_DOT_RE = re.compile(r"(?<=[A-Za-z0-9])___(?=[0-9])")


def _norm(text: str) -> str:
    """Lower-case, drop org prefix, chat/instruct suffixes and punctuation: 'Qwen2.5-7B-Instruct' → 'qwen2.57b'."""
    s = text.strip().lower()
    for zh, en in sorted(_FAMILY_ALIASES.items(), key=lambda kv: -len(kv[0])):  # 通义千问 before 千问
        if zh not in s:  # neither rule below can change s (~1,000 names are normalised per process)
            continue
        s = re.sub(re.escape(zh) + r"[\s\-_]*(?=" + en + ")", "", s)  # 智谱 GLM-4.5 → glm-4.5, not glmglm-4.5
        s = s.replace(zh, en)
    s = _FILLER_RE.sub(" ", s)
    s = s.split("/")[-1]
    s = MODELSCOPE_DOT_RE.sub(".", s)
    s = UNDERSCORE_VERSION_RE.sub(".", s)  # file and folder names: qwen2_5-7b, internlm2_5 → 2.5
    parts = [p for p in re.split(r"[\s_\-·:]+", s) if p]  # ':' — Ollama tags (qwen2.5:7b, deepseek-r1:32b)
    if len(parts) > 1 and parts[0] == "ds":  # "ds r1", "ds v3": the usual shorthand for DeepSeek
        parts[0] = "deepseek"
    if len(parts) > 1 and parts[0] == "meta" and parts[1].startswith("llama"):  # Meta-Llama-3-8B
        parts.pop(0)
    while len(parts) > 1 and parts[-1] in _STRIP_WORDS:
        parts.pop()
    s = "".join(parts)
    s = re.sub(r"v(\d)", r"\1", s) if s.startswith(("deepseekv", "mistralv", "llamav")) else s
    # 「Qwenvl2.5VL-7B」, "qwen-vl-2.5-7b": the VL moved before the version is still Qwen2.5-VL (Qwen-VL itself
    # has no version number, so a bare "qwenvl" / "qwen-vl-chat" is untouched)
    s = re.sub(r"^qwenvl(\d(?:\.\d)?)(?:vl)?", r"qwen\1vl", s)
    return s


def normalise_name(text: str) -> str:
    """The key `alias_index()` uses for a name ('Qwen2.5-7B-Instruct' → 'qwen2.57b'); public for the planner."""
    return _norm(text)


@lru_cache(maxsize=1)
def _index() -> dict[str, tuple[ModelEntry, Release | None]]:
    """Normalised key → (entry, release). Ids and HF repos first, then releases, then aliases: an exact name
    always beats somebody else's alias."""
    index: dict[str, tuple[ModelEntry, Release | None]] = {}
    catalog = load_catalog()
    for entry in catalog:
        for key in (entry.id, entry.hf_repo) if entry.index_repo else (entry.id,):
            index.setdefault(_norm(key), (entry, None))
    for entry in catalog:
        for rel in entry.releases:
            for name in (rel.name, rel.hf_repo):
                if name:
                    index.setdefault(_norm(name), (entry, rel))
    for entry in catalog:
        for key in entry.aliases:
            index.setdefault(_norm(key), (entry, None))
    return index


@lru_cache(maxsize=1)
def alias_index() -> dict[str, str]:
    """Every normalised name, HF repo, release and alias → canonical model id (the chat planner's vocabulary).

    Keys are `normalise_name(...)` forms; look a user's phrase up with `alias_index().get(normalise_name(text))`,
    or better `variant_of(text).model_id`, which also peels quantisation suffixes and accepts a matching size.
    """
    return {key: entry.id for key, (entry, _rel) in _index().items()}


# the size a name states: "qwen25-7b" → 7, "mixtral-8x7b" → 56; not an MoE's active size ("a14b")
_STATED_SIZE = re.compile(r"(?<![a-z0-9.])(?:(\d+)x)?(\d+(?:\.\d+)?)b(?![a-z0-9])", re.I)


def _size_disagrees(query: str, entry: ModelEntry) -> bool:
    """The normalised key drops separators ("llama-2-7b" = "llama2 7b"), so "qwen25-7b" meets Qwen2-57B's key: a
    size the query states that is far from the entry's parameter count means another model was named."""
    m = _STATED_SIZE.search(query)
    if not m:
        return False
    size = float(m.group(2)) * (int(m.group(1)) if m.group(1) else 1) * 1e9
    counted = count_params(entry.arch)
    total = counted.total + (getattr(entry.arch, "extra_params", None) or 0)  # a VLM's vision tower counts in its name
    if 0.5 * size <= total <= 2.0 * size:
        return False
    # an MoE named by its active size ("Llama-4-Scout-17B-16E": 17B active of 109B)
    return not (counted.active != counted.total and 0.7 * size <= counted.active <= 1.4 * size)


def _lookup(query: str) -> tuple[ModelEntry, Release | None] | None:
    hit = _index().get(_norm(query))
    if hit is not None and _size_disagrees(query, hit[0]):
        return None  # 「qwen25-7b」 is not Qwen2-57B-A14B
    if hit is not None:
        return hit
    m = re.match(r"^(.*?)[\s_\-:]*(\d+(?:\.\d+)?)\s*([bt])\s*$", query.strip(), flags=re.I)
    if m and m.group(1).strip():
        hit = _index().get(_norm(m.group(1)))
        if hit is not None:
            size = float(m.group(2)) * (1e12 if m.group(3).lower() == "t" else 1e9)
            if abs(count_params(hit[0].arch).total - size) <= 0.1 * size:
                return hit
    return None


def find_entry(query: str) -> ModelEntry | None:
    """Exact match on a normalised name, id, HF repo, release or alias (quantisation suffixes peeled); None if
    nothing matches.

    A trailing size that agrees with the model ("DeepSeek-R1 671B", "qwen3 30b a3b" is already a name)
    is accepted when dropping it leaves a catalog name whose parameter count is within 10% of it.
    """
    v = variant_of(query)
    return _entry_by_id(v.model_id) if v.model_id else None


def _entry_by_id(model_id: str) -> ModelEntry | None:
    return next((e for e in load_catalog() if e.id == model_id), None)


# ---------------------------------------------------------------- variants: quantised releases and suffixes

# Suffixes of quantised re-releases as they appear in repo and file names, outermost first. Each gives the
# precision of the weights in that release. AWQ and GPTQ without a bit width are 4-bit in practice
# (AutoAWQ supports only w4; Qwen/TheBloke GPTQ default -Int4). "bnb-4bit" (unsloth) is bitsandbytes NF4.
_SEP = r"[\s\-_.:]"
_QUANT_SUFFIXES: list[tuple[str, str]] = [
    (_SEP + r"(i?q\d_[a-z0-9_]+|q\d_\d)(?:\.gguf)?$", "gguf"),  # …-Q4_K_M.gguf, …-q8_0
    (_SEP + r"(f16|bf16|f32)\.gguf$", "gguf"),
    (r"\.gguf$", "gguf-file"),
    (_SEP + r"gguf$", "gguf"),
    (_SEP + r"gptq" + _SEP + r"?int8$", "gptq-int8"),
    (_SEP + r"gptq" + _SEP + r"?int4$", "gptq-int4"),
    (_SEP + r"gptq(?:" + _SEP + r"?4bit)?$", "gptq-int4"),
    (_SEP + r"awq$", "awq-int4"),
    (_SEP + r"bnb" + _SEP + r"?4bit$", "bnb-nf4"),
    (_SEP + r"bnb" + _SEP + r"?8bit$", "bnb-int8"),
    (_SEP + r"fp8(?:" + _SEP + r"(?:dynamic|block))?$", "fp8"),
    (_SEP + r"w8a8$", "w8a8-int8"),
    (_SEP + r"w4a16$", "w4a16-int4"),
    (_SEP + r"mxfp4$", "mxfp4"),
    (_SEP + r"nvfp4$", "nvfp4"),
    (_SEP + r"int4$", "int4"),
    (_SEP + r"int8$", "int8"),
    (_SEP + r"(?:mlx" + _SEP + r"?)?([48])bit$", "nbit"),
    (_SEP + r"mlx$", "mlx"),
    (_SEP + r"bf16$", "bf16"),
    (_SEP + r"fp16$", "fp16"),
]
_TAG_WORDS = ("instruct", "chat", "base", "hf", "it", "sft", "dpo", "preview", "coder", "math", "distill")


class Variant(BaseModel):
    """How a user's model name relates to the catalog: which model, which weights."""

    query: str
    base_name: str = Field(description="the name with quantisation suffixes removed")
    model_id: str | None = Field(description="canonical catalog id, None if unknown")
    family: str | None = None
    release: str | None = Field(None, description="a catalog release the name matched (e.g. Kimi-K2-Thinking)")
    precision: Precision | None = Field(
        None, description="precision of the named weights: from the release or the name suffix, else shipped"
    )
    precision_from: Literal["release", "name_suffix", "shipped", "unknown"] = "unknown"
    shipped_precision: Precision | None = None
    tags: list[str] = Field(default_factory=list, description="instruct / chat / base / coder … words in the name")


def _peel_quant(name: str) -> tuple[str, str | None]:
    """Strip quantisation suffixes; the innermost precise one decides ('…-GPTQ-Int4' → gptq-int4,
    '…-q4_k_m.gguf' → gguf-q4_k_m)."""
    base, precision = name.strip(), None
    for _ in range(4):
        for pattern, label in _QUANT_SUFFIXES:
            m = re.search(pattern, base, flags=re.I)
            if not m:
                continue
            if label == "gguf" and m.groups() and m.group(1):
                found: str | None = f"gguf-{m.group(1).lower()}"
            elif label == "nbit":
                found = f"int{m.group(1)}"
            elif label in ("gguf-file", "mlx"):
                found = None  # container only: the bit width is in another part of the name
            else:
                found = label
            if found and (precision is None or precision in ("gguf", "mlx")):
                precision = found
            elif label == "gguf-file" and precision is None:
                precision = "gguf"
            base = base[: m.start()]
            break
        else:
            break
    return base, precision


def variant_of(name: str) -> Variant:
    """Resolve a name people write to the catalog model and the precision of the weights it names.

    'Qwen2.5-72B-Instruct-AWQ' → Qwen2.5-72B, awq-int4 (release); 'deepseek-v3' → DeepSeek-V3, fp8 (shipped);
    'qwen2.5-7b-instruct-q4_k_m.gguf' → Qwen2.5-7B, gguf-q4_k_m (name suffix); unknown names give model_id None.
    """
    query = str(name)
    words = [w for w in re.split(r"[\s_\-/.·:]+", query.lower()) if w]
    tags = [w for w in _TAG_WORDS if w in words]
    hit = _lookup(query)  # a release such as "Qwen2.5-72B-Instruct-AWQ" is itself in the index
    base, suffix_precision = query, None
    if hit is None:
        base, suffix_precision = _peel_quant(query)
        hit = _lookup(base) if base.strip() else None
    if hit is None:
        return Variant(
            query=query,
            base_name=base,
            model_id=None,
            precision=suffix_precision,
            tags=tags,
            precision_from="name_suffix" if suffix_precision else "unknown",
        )
    entry, rel = hit
    if rel is not None:
        precision, origin = rel.precision, "release"
    elif suffix_precision is not None:
        precision, origin = suffix_precision, "name_suffix"
    elif entry.shipped_precision:
        precision, origin = entry.shipped_precision, "shipped"
    else:
        precision, origin = None, "unknown"
    return Variant(
        query=query,
        base_name=base,
        model_id=entry.id,
        family=entry.family,
        release=rel.name if rel else None,
        precision=precision,
        precision_from=origin,
        shipped_precision=entry.shipped_precision,
        tags=tags,
    )


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
    if mt == "qwen":  # Qwen v1 (modeling_qwen.py): w1, w2 = Linear(hidden, intermediate_size // 2)
        ffn //= 2
    # GPT-2 style families: plain GELU MLP, biases everywhere, LayerNorm with bias, learned positions
    gpt_style = mt in {"gpt_bigcode", "gpt2", "opt"}
    positions = pick("n_positions", "max_position_embeddings", default=0) if gpt_style else 0
    if mt == "opt":
        positions += 2  # OPT's learned position table has an offset of 2
    tie = cfg.get("tie_word_embeddings", mt in _TIED_BY_DEFAULT)
    experts = pick("num_local_experts", "n_routed_experts", "num_experts", default=0) or 0
    window = cfg.get("sliding_window") if cfg.get("use_sliding_window", True) else None
    window_layers = None
    layer_types = cfg.get("layer_types")
    if window and isinstance(layer_types, list) and layer_types:  # gpt-oss, newer Gemma/Qwen configs
        window_layers = sum(1 for t in layer_types if "sliding" in str(t))
    elif window and mt in {"gemma2"}:
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
        qkv_bias=bool(pick("attention_bias", "add_qkv_bias", "qkv_bias", default=mt in {"qwen", "qwen2", "qwen2_moe"})),
        mlp_bias=bool(cfg.get("mlp_bias", mt == "gpt_oss")),
        o_bias=bool(cfg.get("attention_bias", False)) and mt in {"gpt_oss", "phimoe"},
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
        router_bias=mt in {"deepseek_v3", "kimi_k2", "glm4_moe", "gpt_oss"},
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


def _resolved(
    name: str, kind: Literal["catalog", "generic", "config_file"], arch: Architecture, **extra
) -> ResolvedModel:
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


def _precision_from_config(cfg: dict) -> str | None:
    """Weights precision a local config.json declares: quantization_config wins over torch_dtype."""
    q = cfg.get("quantization_config") or (cfg.get("text_config") or {}).get("quantization_config")
    if isinstance(q, dict):
        method = str(q.get("quant_method", "")).lower()
        bits = q.get("bits") or q.get("w_bit")
        if method in ("awq", "gptq"):
            return f"{method}-int{bits or 4}"
        if method == "fp8":
            return "fp8"
        if method == "mxfp4":
            return "mxfp4"
        if method == "bitsandbytes":
            return "bnb-nf4" if q.get("load_in_4bit") else "bnb-int8"
        if method:
            return method
    dtype = str(cfg.get("torch_dtype") or cfg.get("dtype") or "").lower()
    return {"bfloat16": "bf16", "float16": "fp16", "float32": "fp32"}.get(dtype)


def resolve_model(
    query: str | None = None,
    params: str | int | float | None = None,
    *,
    allow_unknown: bool = False,
) -> ResolvedModel:
    """A catalog name (with variant/quantisation suffixes), a local config.json or model folder, or a bare
    size → `ResolvedModel`.

    `params` (e.g. "7B") overrides the size; with no name it selects the generic architecture.
    An unknown name raises ToolInputError (close catalog names as suggestions) — never a silent generic.
    With `allow_unknown=True` an unknown name that carries a size ("foo-13b") resolves to the generic shape
    for that size, `unknown_name` set and the first assumption saying so.
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
        operator = _operator_paths_allowed()  # issue 18: only the CLI's operator names files; the LLM/page never
        if operator and os.path.isdir(q) and os.path.isfile(os.path.join(q, "config.json")):
            q = os.path.join(q, "config.json")  # a local Hugging Face model folder
        elif operator and os.path.isdir(q):
            raise ToolInputError(f"文件夹 {q} 里没有 config.json", f"The folder {q} has no config.json", field="model")
        if operator and _looks_like_path(q):
            return _maybe_override(_from_config_file(q), params)
        v = variant_of(q)
        entry = _entry_by_id(v.model_id) if v.model_id else None
        if entry is not None:
            res = _resolved(
                entry.id,
                "catalog",
                entry.arch,
                params_published=entry.params_published,
                hf_repo=entry.hf_repo,
                source=entry.source,
                as_of=entry.as_of,
                family=entry.family,
                query=q,
                shipped_precision=entry.shipped_precision,
                weights_precision=v.precision,
                variant_tags=v.tags,
            )
            if v.precision_from in ("release", "name_suffix") and v.precision != entry.shipped_precision:
                what = f"「{v.release}」" if v.release else "名称后缀"
                what_en = v.release or "the name's suffix"
                res.assumptions.append(
                    {
                        "zh": f"{q} 按 {entry.id} 的架构计算；权重精度取自{what}：{v.precision}",
                        "en": f"{q} uses the {entry.id} architecture; weights precision from {what_en}: {v.precision}",
                    }
                )
            return _maybe_override(res, params)
        try:
            size = parse_param_count(q, field="model")
        except ToolInputError:
            if allow_unknown:
                guessed = size_in_name(q)
                if guessed is not None:
                    return _unknown(q, guessed)
            raise ToolInputError(
                f"模型目录里没有「{q}」；可以换个写法、给出参数量（如 7B），或给出本地 config.json 路径",
                f"No model {q!r} in the catalog; try another spelling, a size such as 7B, or a local config.json path",
                field="model",
                suggestions=suggestions(q),
            ) from None
        params = size
    size = parse_param_count(params, field="params")
    return _generic(size)


def _from_config_file(q: str) -> ResolvedModel:
    if not os.path.exists(q):
        raise ToolInputError(f"找不到文件 {q}", f"File not found: {q}", field="model")
    try:
        cfg = json.loads(_read_regular(q, max_bytes=2_000_000, field="model"))
    except json.JSONDecodeError as exc:
        raise ToolInputError(f"{q} 不是有效的 JSON：{exc}", f"{q} is not valid JSON: {exc}", field="model") from None
    if not isinstance(cfg, dict):
        raise ToolInputError(f"{q} 不是 config.json 格式", f"{q} is not a config.json object", field="model")
    arch = architecture_from_hf_config(cfg)
    precision = _precision_from_config(cfg)
    res = _resolved(
        os.path.basename(os.path.dirname(os.path.abspath(q))) or q,
        "config_file",
        arch,
        source=os.path.abspath(q),
        query=q,
        shipped_precision=precision,
        weights_precision=precision,
    )
    res.assumptions.append(
        {
            "zh": f"架构读自本地 config.json（{q}），参数量按形状计算",
            "en": f"Architecture read from the local config.json ({q}); parameters counted from shapes",
        }
    )
    return res


_SIZE_IN_NAME = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)\s*([bmt])(?![a-z])", re.I)


def size_in_name(name: str) -> int | None:
    """The largest 'NNb' / 'NNm' in a name ('my-llama-13b-v2' → 13e9); MoE names give the total ('…-30B-A3B')."""
    sizes = [
        float(m.group(1)) * {"b": 1e9, "m": 1e6, "t": 1e12}[m.group(2).lower()] for m in _SIZE_IN_NAME.finditer(name)
    ]
    return int(max(sizes)) if sizes else None


def _unknown(name: str, size: int) -> ResolvedModel:
    res = _generic(size)
    res.unknown_name = name
    res.query = name
    res.assumptions.insert(
        0,
        {
            "zh": f"「{name}」不在模型目录里：按名称中的 {size / 1e9:g}B 套用通用稠密架构估算，不是该模型的真实结构",
            "en": f"{name!r} is not in the model catalog: estimated with a generic dense architecture of the "
            f"{size / 1e9:g}B in its name, not that model's real shape",
        },
    )
    return res


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
    allow_unknown: bool = Field(
        False,
        description="if the name is not in the catalog but carries a size ('foo-13b'), estimate with a generic "
        "architecture of that size and say so (unknown_name set) instead of failing",
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
    family: str | None = None
    shipped_precision: str | None = Field(None, description="dtype of the official weights (bf16, fp8, mxfp4 …)")
    weights_precision: str | None = Field(None, description="precision of the weights the name refers to")
    variant_tags: list[str] = []
    unknown_name: str | None = Field(None, description="the name, when it is not in the catalog")


def lookup_model(inp: LookupModelInput) -> LookupModelOutput:
    """Tool body: resolve a model and report its architecture and parameter counts."""
    from tools.memory_kv import kv_bytes_per_token

    m = resolve_model(inp.query, allow_unknown=inp.allow_unknown)
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
        family=m.family,
        shipped_precision=m.shipped_precision,
        weights_precision=m.weights_precision,
        variant_tags=m.variant_tags,
        unknown_name=m.unknown_name,
    )


def _tools():
    from tools.registry import ToolSpec

    return [
        ToolSpec(
            name="lookup_model",
            description=(
                "Look up an open LLM (Llama, Qwen, DeepSeek, Mistral, GLM, Kimi, gpt-oss, Yi, Gemma, Phi, MiniCPM, "
                "InternLM, Baichuan, …; 150+ models) by a forgiving name (千问2.5-7B, ds r1 32b, "
                "Qwen2.5-72B-Instruct-AWQ), a bare size ('7B', '70亿') or a local config.json path. Returns the "
                "architecture from its published config.json (layers, hidden, heads, KV heads, MoE, MLA, "
                "sliding window), total and active parameter counts, KV-cache bytes per token at 16-bit, "
                "bf16 weight size in decimal GB, the precision the official / named weights ship in, and the source URL."
            ),
            input_model=LookupModelInput,
            func=lookup_model,
        )
    ]


TOOLS = _tools()
