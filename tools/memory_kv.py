"""KV-cache size, aware of GQA/MQA, MLA and sliding-window layers.

Per token and layer, standard attention caches one key and one value vector per KV head:
    2 · n_kv · head_dim · bytes                      (vLLM paper, Kwon et al. 2023, §2–3;
                                                      Llama‑2‑7B fp16: 2·32·4096·2 = 524,288 B/token)
MLA (DeepSeek‑V2/V3) caches the compressed latent plus the decoupled RoPE key instead:
    (kv_lora_rank + qk_rope_head_dim) · bytes        (DeepSeek‑V2 paper, arXiv:2405.04434, §2.1.2)
Sliding-window layers keep at most `window` tokens (Mistral 7B, Gemma 2/3 local layers).
Linear-attention layers of hybrid models (Qwen3-Next, MiniMax-M1) keep a fixed-size state, not a per-token
cache: only `Architecture.kv_layers` layers count.
"""

from __future__ import annotations

from tools.models import Architecture

# Bytes per cached value for each KV-cache dtype (int4 packs two values in a byte).
KV_DTYPE_BYTES = {"fp32": 4.0, "bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0, "int4": 0.5}


def kv_bytes_per_token_per_layer(arch: Architecture, bytes_per_value: float) -> float:
    if arch.is_mla:
        return ((arch.kv_lora_rank or 0) + (arch.qk_rope_head_dim or 0)) * bytes_per_value
    return 2 * arch.num_kv_heads * arch.head_dim * bytes_per_value


def kv_bytes_per_token(arch: Architecture, bytes_per_value: float) -> float:
    """Bytes one token adds to the cache across all layers (ignoring window limits)."""
    return arch.cached_layers * kv_bytes_per_token_per_layer(arch, bytes_per_value)


def kv_cache_bytes(
    arch: Architecture, context: int, sequences: int, bytes_per_value: float, tensor_parallel: int = 1
) -> float:
    """KV cache for `sequences` sequences of `context` tokens each, per GPU under tensor parallelism.

    Under TP the KV heads are split across GPUs; when there are fewer KV heads than GPUs each
    GPU still keeps one head (vLLM replicates them), and the MLA latent is replicated on every GPU.
    """
    per_layer_token = kv_bytes_per_token_per_layer(arch, bytes_per_value)
    if not arch.is_mla and tensor_parallel > 1:
        heads_per_gpu = max(1.0, arch.num_kv_heads / tensor_parallel)
        per_layer_token = per_layer_token * heads_per_gpu / arch.num_kv_heads
    windowed = arch.windowed_layers
    full_layers = arch.cached_layers - windowed
    window_tokens = min(context, arch.sliding_window or context)
    tokens = full_layers * context + windowed * window_tokens
    return per_layer_token * tokens * sequences
