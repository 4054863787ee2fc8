"""Activation memory for training and the prefill workspace for inference.

Method: Korthikanti et al., "Reducing Activation Recomputation in Large Transformer Models"
(arXiv:2205.05198, §4): add up the tensors autograd keeps for the backward pass, per layer, in
bytes per token. The paper's GPT layer (LayerNorm, 4h MLP, dropout) gives sbh·(34 + 5as/h).
Here the same count is applied to the module shapes of a Llama-style layer as Hugging Face
transformers implements it (RMSNorm upcast to fp32, gated MLP, GQA, no dropout):

    norms:     6·h per norm   (fp32 copy of the input 4 B + bf16 normalised output 2 B)
    attention: 2·(h + q_dim + k_dim + v_dim + o_in)  (QKV input, post-RoPE q/k/v kept by the
               attention kernel, attention output = o_proj input; 2 bytes each)
    MLP:       2·(h + 4·f) gated (input, gate out, up out, act(gate), product) | 2·(h + 2·f) plain
    q/k norm:  6·(q_dim + k_dim) when the model normalises q and k per head (Qwen3, Gemma 3)
    eager attention (no FlashAttention/SDPA): + 5·a·s bytes per token (scores, softmax, mask)

Recomputation (paper §4–5):
    none      L·b·s·c                       selective: same without the 5as term
    full      L·b·s·2h (layer inputs)  + one layer's c·b·s while it is recomputed in backward
    both      + b·s·8h for the final norm and the LM-head input
Logits: b·s·V·bytes_per_element from the loss profile in knowledge/engines.yaml (transformers default 16:
bf16 logits 2 + fp32 upcast 4 + fp32 log-softmax 4 + its fp32 gradient 4 + bf16 gradient 2; bf16 losses 10; chunked
3.5; fused 0.5). LOGITS_BYTES_PER_ELEMENT (10) is the forward-only peak scripts/validate_memory.py measures.
The constants are checked against PyTorch's saved tensors by scripts/validate_memory.py.
"""

from __future__ import annotations

from tools.models import Architecture

ACT_BYTES = 2  # bf16/fp16 activations
NORM_BYTES_PER_ELEMENT = 6  # HF RMSNorm keeps an fp32 copy of its input (4) and the bf16 output (2)
# bf16 logits (2) + fp32 upcast inside the loss (4) + fp32 log-softmax kept for backward (4)
LOGITS_BYTES_PER_ELEMENT = 10
EAGER_SCORE_BYTES = 5  # Korthikanti: 2 (scores) + 2 (softmax) + 1 (dropout mask) per a·s² element


def attention_dims(arch: Architecture) -> tuple[int, int, int, int]:
    """(q_dim, k_dim, v_dim, o_in) in elements per token, for GQA or MLA."""
    if arch.is_mla:
        qk = (arch.qk_nope_head_dim or 0) + (arch.qk_rope_head_dim or 0)
        v = arch.v_head_dim or arch.head_dim
        return arch.num_heads * qk, arch.num_heads * qk, arch.num_heads * v, arch.num_heads * v
    q = arch.num_heads * arch.head_dim
    kv = arch.num_kv_heads * arch.head_dim
    return q, kv, kv, q


def effective_mlp_width(arch: Architecture) -> int:
    """Width of the MLP a token passes through: dense f, or top-k experts (+ shared) for MoE."""
    if not arch.is_moe:
        return arch.intermediate_size
    fe = arch.moe_intermediate_size or arch.intermediate_size
    shared = arch.shared_expert_intermediate_size or (fe * arch.num_shared_experts)
    return arch.experts_per_token * fe + shared


def layer_bytes_per_token(arch: Architecture, seq_len: int, flash_attention: bool = True) -> float:
    """Bytes one token's activations occupy in one layer with no recomputation."""
    h = arch.hidden_size
    q, k, v, o = attention_dims(arch)
    f = effective_mlp_width(arch)
    norms = arch.norms_per_layer * NORM_BYTES_PER_ELEMENT * h
    attn = ACT_BYTES * (h + q + k + v + o)
    mlp = ACT_BYTES * (h + (4 * f if arch.mlp_gated else 2 * f))
    qk_norm = NORM_BYTES_PER_ELEMENT * (q + k) if arch.qk_norm else 0  # Qwen3/Gemma3 per-head q/k RMSNorm
    eager = 0 if flash_attention else EAGER_SCORE_BYTES * arch.num_heads * seq_len
    return norms + attn + mlp + qk_norm + eager


def head_bytes_per_token(arch: Architecture) -> float:
    """Final norm (fp32 copy + bf16 output) and the LM-head input, kept for backward."""
    return (NORM_BYTES_PER_ELEMENT + ACT_BYTES) * arch.hidden_size


def training_activation_bytes(
    arch: Architecture, seq_len: int, batch: int, checkpointing: str, flash_attention: bool = True
) -> float:
    """Activations kept for backward on one GPU (no tensor/pipeline parallelism), logits excluded."""
    tokens = seq_len * batch
    L = arch.num_layers
    head = head_bytes_per_token(arch)
    if checkpointing == "full":
        per_layer_input = ACT_BYTES * arch.hidden_size
        return tokens * (L * per_layer_input + head + layer_bytes_per_token(arch, seq_len, flash_attention))
    flash = flash_attention or checkpointing == "selective"
    return tokens * (L * layer_bytes_per_token(arch, seq_len, flash) + head)


def logits_bytes(
    arch: Architecture, seq_len: int, batch: int, bytes_per_element: float = LOGITS_BYTES_PER_ELEMENT
) -> float:
    """The LM-head output and the loss's copies: b·s·V·bytes_per_element (the loss profile in
    knowledge/engines.yaml: HF fp32 upcast 16, bf16 10, chunked 3.5, fused 0.5). Large for 128k–256k vocabularies."""
    return seq_len * batch * arch.vocab_size * bytes_per_element


def prefill_workspace_bytes(arch: Architecture, chunk_tokens: int, sequences: int) -> float:
    """Inference peak outside weights and KV: one layer's transient tensors for a prefill chunk,
    b·s_chunk·(4h + 2f)·2 bytes (hidden, q/k/v/o and the MLP's gate/up outputs of one layer), plus fp32 logits for the last token of each
    sequence (servers such as vLLM compute logits only where a token is sampled)."""
    f = effective_mlp_width(arch)
    workspace = chunk_tokens * (4 * arch.hidden_size + 2 * f) * ACT_BYTES
    return workspace + sequences * arch.vocab_size * 4
