"""GPU memory per GPU for training, fine-tuning (LoRA/QLoRA) and serving — with verdicts.

Three tools share one engine (`breakdown`):
- `estimate_memory`: the per-GPU breakdown (decimal GB with GiB beside), assumptions, sources,
  and with a GPU: nominal / reported / usable memory (tools/memory_capacity.py), the three-way verdict with the
  changes that make it fit (tools/memory_verdict.py), the largest micro-batch and longest sequence that fit, and for
  serving the longest context and most concurrency per engine. Engine, stack and loss profiles (HF, vLLM, SGLang;
  Trainer, DeepSpeed, FSDP; fp32-upcast / chunked / fused cross-entropy) come from knowledge/engines.yaml
  (tools/memory_engines.py).
- `find_min_gpus`: the fewest GPUs of a type or size that fit the job (ZeRO‑3/FSDP by default).
- `find_max_fit`: the largest micro-batch, sequence length, context or concurrency that fits.

Formulas and sources (details in docs/memory.md):
- Model states (ZeRO paper, Rajbhandari et al., arXiv:1910.02054, §3.1 and Fig. 1): mixed-precision
  AdamW keeps bf16 weights (2Ψ) + bf16 gradients (2Ψ) + fp32 master, momentum, variance (KΨ, K = 12)
  = 16Ψ; ZeRO‑1 shards the K part, ZeRO‑2 also the gradients, ZeRO‑3 also the weights.
- Activations: Korthikanti et al. (arXiv:2205.05198) — see tools/memory_activations.py.
- KV cache: vLLM paper (Kwon et al., SOSP 2023) and DeepSeek‑V2 (MLA) — see tools/memory_kv.py.
- LoRA parameters: Hu et al. (arXiv:2106.09685): r·(d_in + d_out) per adapted matrix.
- QLoRA: Dettmers et al. (arXiv:2305.14314): NF4 with blocksize 64 absmax (0.5 bit/param), double
  quantisation 8‑bit absmax + fp32 per 256 blocks (0.127 bit/param).
- Offload host RAM: DeepSpeed ZeRO memory docs (docs/code-docs/source/memory.rst): 16–18 B/param × 1.5.
"""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator, model_validator

from tools.errors import ToolInputError
from tools.labels import label
from tools.memory_capacity import GpuCapacity as GpuCapacity  # re-exported for callers
from tools.memory_capacity import resolve_gpu_capacity as resolve_gpu_capacity
from tools.memory_host import HostRam
from tools.memory_methods import MethodMemory
from tools.memory_verdict import FitChange, fit_changes, nearest_option
from tools.memory_zero import SOURCE as ZERO_SOURCE
from tools.memory_zero import ZeroFormula, all_cards_short, zero_formula

GB = 10**9
GiB = 2**30

Mode = Literal["full", "lora", "qlora", "inference"]
Precision = Literal["fp32", "tf32", "bf16", "fp16", "fp8", "int8", "int4"]
Optimizer = Literal["adamw", "adamw_bf16", "adamw_8bit", "sgd", "adafactor"]
Checkpointing = Literal["none", "selective", "full"]
Offload = Literal["none", "optimizer", "optimizer_and_params"]
Fsdp = Literal["none", "full_shard", "shard_grad_op", "hybrid_shard", "no_shard"]
KvDtype = Literal["fp32", "bf16", "fp16", "fp8", "int8", "int4"]
Int4Format = Literal["awq", "gptq", "nf4", "q4_k_m"]
Engine = Literal["auto", "hf", "vllm", "sglang", "deepspeed", "fsdp"]
LossImpl = Literal["auto", "hf", "bf16", "chunked", "fused"]
AdapterDtype = Literal["fp32", "bf16"]
Verdict = Literal["fits", "fits_with_changes", "does_not_fit"]
Method = Literal["sft", "dpo", "kto", "orpo", "simpo", "ppo", "grpo"]
Rollout = Literal["hf", "vllm_colocate", "vllm_server"]

CUDA_CONTEXT_BYTES = 1.0 * GiB  # CUDA context + cuBLAS/cuDNN workspaces: 0.5–1.5 GiB (vLLM non_torch_memory logs)
FRAGMENTATION = 0.10  # PyTorch caching allocator slack on dynamic (activation) memory, 5–20 %
ZERO_BUCKET_ELEMENTS = 5e8  # DeepSpeed default reduce_bucket_size / allgather_bucket_size
OFFLOAD_BUFFER = 1.5  # DeepSpeed estimator's additional_buffer_factor for host memory
GPUS_PER_NODE = 8
GGUF_Q4_K_M_BITS = 4.84  # llama.cpp tools/quantize/README.md, Llama 2 7B: bits per weight over the whole file

SOURCES = {
    "zero": "Rajbhandari et al., ZeRO, arXiv:1910.02054, §3.1 & Fig. 1 (16Ψ model states; per-stage sharding)",
    "korthikanti": "Korthikanti et al., Reducing Activation Recomputation in Large Transformer Models, arXiv:2205.05198, §4",
    "vllm": "Kwon et al., Efficient Memory Management for LLM Serving with PagedAttention (vLLM), SOSP 2023, §2–3",
    "mla": "DeepSeek-AI, DeepSeek-V2, arXiv:2405.04434, §2.1 (MLA caches the kv_lora_rank latent + RoPE key)",
    "lora": "Hu et al., LoRA, arXiv:2106.09685, §4 (r·(d_in+d_out) parameters per adapted matrix)",
    "qlora": "Dettmers et al., QLoRA, arXiv:2305.14314, §3 (NF4 blocksize 64; double quantisation 0.127 bit/param)",
    "deepspeed": "DeepSpeed docs, memory.rst: ZeRO-2/3 model-state estimators and CPU-offload host memory (×1.5 buffer)",
    "hf_anatomy": "Hugging Face transformers docs, model_memory_anatomy: 18 B/param mixed-precision AdamW incl. fp32 grads; 8-bit AdamW 2 B/param states",
    "accelerate": "Hugging Face accelerate estimate-memory: fp16 'Training using Adam' = 4× fp16 weights (peak of stages, not the sum)",
    "gguf": "ggml-org/llama.cpp tools/quantize/README.md (Q4_K_M 4.84 bits per weight, Llama 2 7B); ollama library "
    "pages (default tags are Q4_K_M, e.g. llama3 8B = 4.7 GB)",
    "quant": "AWQ (arXiv:2306.00978) / GPTQ (arXiv:2210.17323): 4-bit weights with fp16 scale+zero per group of 128 ≈ 4.25 bits/param",
}


_SYNONYMS: dict[str, dict[str, str]] = {
    "mode": {
        "train": "full",
        "training": "full",
        "pretrain": "full",
        "pretraining": "full",
        "sft": "full",
        "full_ft": "full",
        "full_finetune": "full",
        "全量": "full",
        "全参": "full",
        "全量微调": "full",
        "serve": "inference",
        "serving": "inference",
        "infer": "inference",
        "推理": "inference",
        "部署": "inference",
    },
    "precision": {
        "bfloat16": "bf16",
        "float16": "fp16",
        "half": "fp16",
        "float32": "fp32",
        "float": "fp32",
        "fp4": "int4",
        "nf4": "int4",
        "4bit": "int4",
        "8bit": "int8",
        "w4a16": "int4",
        "w8a8": "int8",
    },
    "optimizer": {
        "adam": "adamw",
        "adamw_torch": "adamw",
        "adamw_8bit": "adamw_8bit",
        "adam8bit": "adamw_8bit",
        "paged_adamw_8bit": "adamw_8bit",
        "adamw_bnb_8bit": "adamw_8bit",
        "pure_bf16": "adamw_bf16",
        "sgd_momentum": "sgd",
        "lion": "sgd",
    },
    "checkpointing": {
        "true": "full",
        "yes": "full",
        "on": "full",
        "gradient_checkpointing": "full",
        "false": "none",
        "no": "none",
        "off": "none",
    },
    "offload": {
        "cpu": "optimizer",
        "optimizer_cpu": "optimizer",
        "all": "optimizer_and_params",
        "params": "optimizer_and_params",
        "full": "optimizer_and_params",
    },
    "fsdp": {"true": "full_shard", "yes": "full_shard", "full": "full_shard", "false": "none", "no": "none"},
    "kv_dtype": {"bfloat16": "bf16", "float16": "fp16", "fp8_e4m3": "fp8", "fp8_e5m2": "fp8"},
    "engine": {
        "transformers": "hf",
        "huggingface": "hf",
        "trainer": "hf",
        "hf_trainer": "hf",
        "ddp": "hf",
        "pytorch": "hf",
        "ds": "deepspeed",
        "zero": "deepspeed",
        "sgl": "sglang",
    },
    "method": {
        "rlhf": "ppo",
        "ipo": "dpo",
        "cpo": "simpo",
        "supervised": "sft",
        "none": "sft",
        "偏好": "dpo",
        "强化学习": "grpo",
    },
    "rollout_engine": {
        "vllm": "vllm_colocate",
        "colocate": "vllm_colocate",
        "server": "vllm_server",
        "transformers": "hf",
    },
    "loss": {
        "default": "hf",
        "transformers": "hf",
        "liger": "fused",
        "unsloth": "fused",
        "fused_ce": "fused",
        "torchtune": "chunked",
        "chunked_ce": "chunked",
    },
}


def _a(zh: str, en: str) -> dict[str, str]:
    return {"zh": zh, "en": en}


# ---------------------------------------------------------------- inputs


class MemoryJob(BaseModel):
    """What is being run, on how many GPUs, in what precision — shared by all three tools."""

    model: str | None = Field(
        None, description="model name ('qwen2.5 7b', 'Llama-3-8B'), a size ('7B', '70亿') or a local config.json path"
    )
    params: str | float | None = Field(
        None,
        description="parameter count, e.g. '7B', '70亿', 7e9; overrides the "
        "catalog size; alone it selects a generic dense architecture",
    )
    mode: Mode = Field("full", description="full = full training/fine-tuning; lora; qlora (4-bit base); inference")
    precision: Precision = Field(
        "bf16",
        description="training: weight/compute dtype (mixed precision for "
        "bf16/fp16/fp8); inference: weight dtype (int8/int4 = quantised)",
    )
    optimizer: Optimizer = Field(
        "adamw",
        description="adamw = mixed-precision AdamW (fp32 master+m+v, 12 B/param); "
        "adamw_bf16 = pure bf16 (4 B/param); adamw_8bit (bitsandbytes); "
        "sgd (momentum); adafactor",
    )
    fp32_grads: bool = Field(False, description="keep gradients in fp32 (DeepSpeed/HF accounting, 18 B/param)")
    gpus: int = Field(
        1, ge=1, le=100_000, description="GPUs: data-parallel degree for training, tensor-parallel degree for inference"
    )
    zero: int = Field(0, ge=0, le=3, description="DeepSpeed ZeRO stage 0–3 (sharding across `gpus`)")
    fsdp: Fsdp = Field(
        "none", description="PyTorch FSDP sharding strategy; full_shard ≈ ZeRO‑3, shard_grad_op ≈ ZeRO‑2"
    )
    offload: Offload = Field(
        "none", description="CPU offload: optimizer (ZeRO‑Offload) or optimizer_and_params (ZeRO‑3 / FSDP only)"
    )
    seq_len: int = Field(2048, ge=1, le=10_000_000, description="training sequence length in tokens")
    batch: int = Field(
        1,
        ge=1,
        le=100_000,
        description="micro-batch per GPU (training) or sequences (inference, if concurrency is not given)",
    )
    checkpointing: Checkpointing = Field(
        "full", description="activation recomputation: none, selective (Megatron), full (gradient checkpointing)"
    )
    flash_attention: bool = Field(True, description="FlashAttention/SDPA (no s² attention-score tensors)")
    lora_rank: int = Field(8, ge=1, le=4096, description="LoRA rank r")
    lora_targets: str = Field(
        "all", description="comma list of q,k,v,o,gate,up,down, or 'all' (all linear layers) / 'attn' / 'mlp'"
    )
    qlora_double_quant: bool = Field(True, description="QLoRA double quantisation of the NF4 scales")
    int4_format: Int4Format | None = Field(
        None,
        description="4-bit format: awq / gptq (g128) or nf4 (bitsandbytes); default awq for inference, nf4 for QLoRA "
        "(gptq/awq = LoRA on a GPTQ/AWQ base); q4_k_m = GGUF Q4_K_M, 4.84 bits/weight over the whole model (llama.cpp, "
        "ollama's default pull; inference only)",
    )
    gguf_quant: str | None = Field(
        None,
        description="a GGUF quantisation id from knowledge/cpus.yaml `quants` (q2_k, q3_k_m, q5_k_m, q6_k, "
        "ud_iq1_s…): weights at that table's bits per weight over the whole file (inference only; precision stays "
        "int4/int8 as the nearest family)",
    )
    context: int | None = Field(
        None, ge=1, le=10_000_000, description="inference: tokens per sequence (prompt + output); defaults to seq_len"
    )
    concurrency: int | None = Field(
        None, ge=1, le=1_000_000, description="inference: sequences served at once (defaults to batch)"
    )
    kv_dtype: KvDtype | None = Field(None, description="KV-cache dtype (default 16-bit)")
    gpu_memory_utilization: float = Field(
        0.9,
        gt=0.1,
        le=1.0,
        description="inference: fraction of GPU memory the serving engine may use (vLLM default 0.9)",
    )
    engine: Engine = Field(
        "auto",
        description="runtime: inference hf (transformers generate) | vllm (default) | sglang; training hf (Trainer/DDP, "
        "default) | deepspeed (default when zero > 0) | fsdp (default when fsdp is set); profiles in knowledge/engines.yaml",
    )
    loss: LossImpl = Field(
        "auto",
        description="training loss implementation: hf (transformers default, logits upcast to fp32, 16 B/logit) | bf16 "
        "(remote-code models, 10 B) | chunked (torchtune, 3.5 B) | fused (Liger/unsloth, ~0.5 B)",
    )
    adapter_dtype: AdapterDtype = Field(
        "fp32", description="LoRA/QLoRA adapter weights: fp32 (PEFT default autocast) or bf16 (unsloth, torchtune)"
    )
    mem_fraction_static: float | None = Field(
        None, gt=0.1, le=1.0, description="SGLang: static memory fraction for weights + KV (default 0.85)"
    )
    method: Method = Field(
        "sft",
        description="training method: sft (default) | dpo / kto (frozen reference model unless LoRA or "
        "precompute_ref_log_probs) | orpo / simpo (pairs, no reference) | ppo (policy + reference + reward + value "
        "models, rollouts) | grpo (policy + reference, num_generations rollouts); profiles in knowledge/engines.yaml",
    )
    precompute_ref_log_probs: bool = Field(
        False, description="DPO/KTO: reference log-probs computed up front (TRL), so no reference model is loaded"
    )
    kl_beta: float | None = Field(
        None,
        ge=0,
        le=10,
        description="GRPO KL coefficient; 0 = no reference model (TRL default 0.0 in recent releases)",
    )
    load_fp32: bool = Field(
        False, description="from_pretrained without torch_dtype (transformers 4.x loads fp32): host RAM at 4 B/param"
    )
    num_generations: int = Field(8, ge=1, le=1024, description="GRPO completions per prompt (TRL default 8)")
    rollout_engine: Rollout = Field(
        "hf",
        description="PPO/GRPO generation: hf (TRL default, on the training GPU) | vllm_colocate (vLLM on the "
        "training GPU: another copy of the weights) | vllm_server (separate GPUs, not counted here)",
    )

    @model_validator(mode="before")
    @classmethod
    def _forgive(cls, data: Any) -> Any:
        """Nulls mean 'use the default'; common spellings map onto the canonical values
        (an LLM or a form may send 'training', 'bfloat16', 'serving', 'deepspeed_zero3')."""
        if not isinstance(data, dict):
            return data
        data = {k: v for k, v in data.items() if v is not None}
        for key, table in _SYNONYMS.items():
            v = data.get(key)
            if isinstance(v, bool):
                v = str(v)
            if isinstance(v, str):
                low = v.strip().lower().replace("-", "_").replace(" ", "_")
                data[key] = table.get(low, low)
        return data

    @field_validator("model", mode="before")
    @classmethod
    def _blank_model(cls, v: Any) -> Any:
        return None if isinstance(v, str) and not v.strip() else v

    def check(self) -> "MemoryJob":
        """Cross-field rules, raised as ToolInputError so both languages reach the user."""
        if self.model is None and self.params is None:
            raise ToolInputError(
                "请给出模型名称（如 qwen2.5-7b）或参数量（如 7B）",
                "Give a model name (e.g. qwen2.5-7b) or a parameter count (e.g. 7B)",
                field="model",
            )
        if self.mode in ("full", "lora") and self.precision in ("int8", "int4"):
            raise ToolInputError(
                f"{self.mode} 训练不能用 {self.precision} 权重；低比特底座微调请用 --mode qlora",
                f"{self.mode} training cannot use {self.precision} weights; for a low-bit base use --mode qlora",
                field="precision",
            )
        if self.optimizer == "adamw_bf16" and self.precision in ("fp32", "tf32"):
            raise ToolInputError(
                "纯 bf16 AdamW 需要 bf16 精度", "Pure-bf16 AdamW needs bf16 precision", field="optimizer"
            )
        if self.offload == "optimizer_and_params" and self.zero_stage < 3:
            raise ToolInputError(
                "参数卸载到 CPU 需要 ZeRO‑3 或 FSDP full_shard",
                "Offloading parameters needs ZeRO‑3 or FSDP full_shard",
                field="offload",
            )
        if self.offload != "none" and self.mode == "inference":
            raise ToolInputError(
                "推理估算不支持 CPU 卸载", "CPU offload is not modelled for inference", field="offload"
            )
        if self.method != "sft" and self.mode == "inference":
            raise ToolInputError(
                f"{self.method} 是训练方法；推理请用默认的 sft 或去掉 method",
                f"{self.method} is a training method; for inference leave method at sft",
                field="method",
            )
        if self.int4_format == "q4_k_m" and self.mode != "inference":
            raise ToolInputError(
                "GGUF Q4_K_M 只用于推理（llama.cpp / ollama）；微调 4-bit 底座请用 QLoRA（nf4）",
                "GGUF Q4_K_M is for inference (llama.cpp / ollama); to fine-tune a 4-bit base use QLoRA (nf4)",
                field="int4_format",
            )
        if self.gguf_quant is not None:
            if self.mode != "inference":
                raise ToolInputError(
                    "GGUF 量化只用于推理（llama.cpp / ollama）；微调 4-bit 底座请用 QLoRA（nf4）",
                    "GGUF quantisations are for inference (llama.cpp / ollama); to fine-tune a 4-bit base use QLoRA",
                    field="gguf_quant",
                )
            if gguf_quant_row(self.gguf_quant) is None:
                raise ToolInputError(
                    f"不认识的 GGUF 量化「{self.gguf_quant}」",
                    f"Unknown GGUF quantisation '{self.gguf_quant}'",
                    field="gguf_quant",
                )
        if self.zero and self.fsdp != "none":
            raise ToolInputError("ZeRO 和 FSDP 只能选一个", "Choose either ZeRO or FSDP, not both", field="fsdp")
        infer = self.mode == "inference"
        if infer and self.engine in ("deepspeed", "fsdp"):
            raise ToolInputError(
                f"{self.engine} 是训练框架；推理请选 hf、vllm 或 sglang",
                f"{self.engine} is a training stack; for inference choose hf, vllm or sglang",
                field="engine",
                suggestions=["hf", "vllm", "sglang"],
            )
        if not infer and self.engine in ("vllm", "sglang"):
            raise ToolInputError(
                f"{self.engine} 是推理引擎；训练请选 hf、deepspeed 或 fsdp",
                f"{self.engine} is a serving engine; for training choose hf, deepspeed or fsdp",
                field="engine",
                suggestions=["hf", "deepspeed", "fsdp"],
            )
        return self

    @property
    def engine_id(self) -> str:
        """The concrete engine: inference defaults to vLLM, training to the stack the other options imply."""
        if self.engine != "auto":
            return self.engine
        if self.mode == "inference":
            return "vllm"
        if self.fsdp != "none":
            return "fsdp"
        return "deepspeed" if self.zero else "hf"

    @property
    def loss_id(self) -> str:
        return "hf" if self.loss == "auto" else self.loss

    @property
    def memory_fraction(self) -> float:
        """Share of the reported memory the engine plans within (1.0 for training and HF generate)."""
        if self.mode != "inference":
            return 1.0
        e = self.engine_id
        if e == "vllm":
            return self.gpu_memory_utilization
        if e == "sglang":
            from tools.memory_engines import inference_profile

            return self.mem_fraction_static or inference_profile("sglang").memory_fraction
        return 1.0

    @property
    def zero_stage(self) -> int:
        return {"none": self.zero, "no_shard": 0, "shard_grad_op": 2, "full_shard": 3, "hybrid_shard": 3}[self.fsdp]

    @property
    def shard_degree(self) -> int:
        """GPUs a ZeRO/FSDP shard spans (hybrid_shard shards within one node only)."""
        if self.fsdp == "hybrid_shard":
            return min(self.gpus, GPUS_PER_NODE)
        return self.gpus


class EstimateMemoryInput(MemoryJob):
    gpu: str | None = Field(None, description="GPU name ('A100 80G', '4090') or size ('24GB', '80G') for a verdict")
    gpus_owned: int | None = Field(
        None,
        ge=1,
        le=4096,
        description="cards the user already has when the job uses fewer ('8 × T4, --tp 1'): spreading over them is "
        "the nearest change, ahead of quantising",
    )


# ---------------------------------------------------------------- outputs


class SeedRule(BaseModel):
    """A common rule of thumb (optimizer ≈ 4× weights) next to the precise figure."""

    bytes_per_param: float
    model_states_gb: float
    precise_bytes_per_param: float
    precise_model_states_gb: float
    reason: dict[str, str]


class EstimateMemoryOutput(BaseModel):
    model: str
    model_kind: str
    mode: Mode
    precision: str
    optimizer: str | None
    gpus: int
    zero_stage: int
    params: int
    trainable_params: int
    # The per-GPU breakdown, decimal GB; labels are defined here once for every surface (tools/labels.py).
    weights_gb: float = Field(json_schema_extra=label("权重", "Weights"))
    gradients_gb: float = Field(json_schema_extra=label("梯度", "Gradients"))
    optimizer_gb: float = Field(
        description="optimizer states incl. fp32 master weights, per GPU",
        json_schema_extra=label("优化器状态", "Optimizer states", note_zh="含主权重", note_en="incl. master"),
    )
    model_states_gb: float = Field(
        description="weights + gradients + optimizer states", json_schema_extra=label("模型状态", "Model states")
    )
    activations_gb: float = Field(
        description="activations incl. logits (training) or prefill workspace (inference)",
        json_schema_extra=label("激活值", "Activations", note_zh="含 logits", note_en="incl. logits"),
    )
    logits_gb: float = Field(
        description="the logits buffer, already inside activations_gb (training)",
        json_schema_extra=label("logits 缓冲", "Logits buffer"),
    )
    kv_cache_gb: float = Field(json_schema_extra=label("KV 缓存", "KV cache"))
    overhead_gb: float = Field(json_schema_extra=label("框架开销", "Framework overhead"))
    total_gb: float = Field(
        description="model states + activations + KV cache + overhead", json_schema_extra=label("合计", "Total")
    )
    total_gib: float
    gib: dict[str, float] = Field(description="the same breakdown in GiB (2^30 bytes)")
    host_ram_gb: float = Field(
        0.0,
        description="CPU RAM per node for offloaded states (DeepSpeed ×1.5 buffer)",
        json_schema_extra=label("主机内存", "Host RAM", note_zh="CPU 卸载", note_en="CPU offload"),
    )
    method: str = Field("sft", description="training method: sft | dpo | kto | orpo | simpo | ppo | grpo")
    sequences_per_example: int = Field(1, description="sequences each example runs (2 for DPO/ORPO/SimPO pairs)")
    reference_model_gb: float = Field(
        0.0, description="frozen reference model per GPU, already inside weights_gb (DPO/KTO/PPO/GRPO, full training)"
    )
    reward_model_gb: float = Field(0.0, description="frozen reward model per GPU, inside weights_gb (PPO)")
    policy_weights_gb: float | None = Field(
        None, description="weights_gb without the frozen reference/reward models and a colocated vLLM copy"
    )
    value_model_gb: float = Field(
        0.0, description="value model (critic) states per GPU, inside weights/gradients/optimizer (PPO)"
    )
    rollout_kv_gb: float = Field(
        0.0, description="KV cache of the generated rollouts (PPO/GRPO); inside kv_cache_gb unless on a vLLM server"
    )
    whole_model_weights_gb: float | None = Field(
        None,
        description="the WHOLE model's weights at the precision used (params × bytes/param), before any sharding or "
        "tensor parallelism — what users compare with their cards",
    )
    whole_model_precision: str | None = Field(None, description="the precision whole_model_weights_gb is counted in")
    host_ram_total_gb: float | None = Field(
        None,
        description="host RAM (CPU memory, not GPU memory) per machine: loading copies per process, offloaded "
        "states; see host_ram",
        json_schema_extra=label("主机内存（RAM）", "Host RAM"),
    )
    host_ram: HostRam | None = Field(None, description="host RAM breakdown with notes and sources")
    total_gpu_memory_gb: float | None = Field(None, description="gpus × the card's nominal memory, decimal GB")
    training_state_gb: float | None = Field(
        None,
        description="training: the WHOLE job's model states (weights + gradients + optimizer) summed over all GPUs, "
        "decimal GB — what sharding divides and offload moves off the GPUs",
    )
    all_gpus_usable_gb: float | None = Field(None, description="gpus × one card's usable memory, decimal GB")
    state_exceeds_all_gpus: bool | None = Field(
        None,
        description="training without offload: the whole state exceeds all the cards together (no sharding fits it)",
    )
    zero_formula: ZeroFormula | None = Field(
        None, description="full training with AdamW: the ZeRO paper's per-GPU model states for this stage and N"
    )
    kv_cache_all_gpus_gb: float | None = Field(
        None, description="inference: the KV cache summed over all GPUs (tensor parallel splits it), GB"
    )
    kv_per_sequence_gb: float | None = Field(
        None, description="inference: one sequence's KV cache at the full context, whole model (all GPUs), GB"
    )
    shipped_precision: str | None = Field(None, description="precision of the official weights (catalog)")
    gpu_fp8: bool | None = Field(None, description="the card has FP8 tensor cores (None = no card / a bare size)")
    tp_valid: bool | None = Field(
        None, description="inference over several GPUs: the tensor-parallel size divides the attention and KV heads"
    )
    tp_sizes: list[int] | None = Field(None, description="valid tensor-parallel sizes for this model (≤ 16)")
    tp_note: dict[str, str] | None = Field(None, description="why this TP size will not start and what to use (zh/en)")
    quant_tp_note: dict[str, str] | None = Field(
        None,
        description="GPTQ/AWQ int4 weights that serve on fewer TP sizes than the bf16 model (intermediate_size ÷ TP "
        "must be a multiple of the 128-channel group), zh/en; None when the int4 release splits like the original",
    )
    bf16_note: dict[str, str] | None = Field(
        None, description="bf16 asked (or the default) on a card without bf16 (Volta, Turing, Pascal): run fp16"
    )
    fp8_note: dict[str, str] | None = Field(
        None, description="an FP8 release on a card without FP8 tensor cores: why bf16 weights are needed (zh/en)"
    )
    checkpointing: str | None = Field(
        None, description="training: activation recomputation assumed (none/selective/full)"
    )
    seq_len: int | None = None
    batch: int | None = None
    context: int | None = None
    concurrency: int | None = None
    kv_bytes_per_token: float | None = None
    seed_rule: SeedRule | None = None
    gpu: str | None = None
    gpu_memory_gb: float | None = Field(None, description="nominal (datasheet) memory, decimal GB")
    nominal_gb: float | None = Field(None, description="= gpu_memory_gb: the datasheet figure, decimal GB")
    reported_gb: float | None = Field(
        None, description="what the driver reports (nvidia-smi MiB × 2^20 / 1e9); the nominal size for a bare '24GB'"
    )
    reported_mib: int | None = Field(None, description="nvidia-smi memory total, MiB")
    reported_source: str | None = None
    reported_confidence: str | None = None
    reserve_gb: float | None = Field(None, description="reported − usable: what the engine keeps back, GB")
    usable_gb: float | None = Field(None, description="reported × engine memory fraction: what verdicts use, GB")
    engine: str = Field("hf", description="hf | vllm | sglang (inference); hf | deepspeed | fsdp (training)")
    engine_version: str | None = None
    engine_note: dict[str, str] | None = Field(
        None, description="how the engine plans memory (pre-allocation, prefill), zh/en (knowledge/engines.yaml notes)"
    )
    loss: str | None = Field(None, description="training loss implementation: hf | bf16 | chunked | fused")
    verdict: Verdict | None = Field(
        None, description="fits (as configured) | fits_with_changes (see changes) | does_not_fit (see nearest_option)"
    )
    changes: list[FitChange] = Field(default_factory=list, description="settings that make it fit, each with its total")
    changes_combined: bool = Field(
        False, description="false: each change fits on its own (alternatives); true: apply them together, in order"
    )
    nearest_option: FitChange | None = Field(
        None,
        description="whenever it does not fit as configured: the closest different job that does (LoRA, int4, more GPUs)",
    )
    context_capped_by_model: bool = Field(
        False,
        description="the longest sequence that fits is the model's own context limit (max_position_embeddings), not "
        "memory: memory alone would allow more",
    )
    max_context_fit: dict[str, int | None] | None = Field(
        None, description="inference: longest context per sequence that fits, per engine (hf / vllm / sglang)"
    )
    max_concurrency_fit: dict[str, int | None] | None = Field(
        None, description="inference: most concurrent sequences at this context that fit, per engine"
    )
    fits: bool | None = Field(None, description="fits as configured (verdict == 'fits')")
    headroom_gb: float | None = None
    borderline: bool | None = Field(
        None,
        description="true when the headroom is within 5% of the card's nominal memory either way: a close call "
        "that context length, batch, fragmentation or the engine's memory fraction can flip",
    )
    max_batch: int | None = Field(
        None, description="largest micro-batch (training) or concurrency (inference) that fits"
    )
    max_seq_len: int | None = Field(None, description="longest sequence (training) or context (inference) that fits")
    smallest_card_gb: float | None = Field(
        None,
        description="no GPU named, one GPU: the smallest on-board memory (GB, knowledge/gpus.yaml) among common "
        "rental cards that holds total_gb with 10% to spare",
    )
    smallest_card_names: list[str] = Field(default_factory=list, description="cards of that memory size")
    summary: dict[str, str]
    assumptions: list[dict[str, str]]
    sources: list[str]
    pipeline: dict[str, Any] | None = Field(
        None, description="image/video/speech pipeline models: the weights-only estimate (tools/pipeline_memory.py)"
    )


# The parts of EstimateMemoryOutput that add up to total_gb, in the order people read them
# (logits_gb is inside activations_gb; model_states_gb is the first three).
BREAKDOWN_PARTS = ("weights_gb", "gradients_gb", "optimizer_gb", "activations_gb", "kv_cache_gb", "overhead_gb")


# ---------------------------------------------------------------- GPU capacity

# ---------------------------------------------------------------- the engine


class Breakdown(BaseModel):
    """Bytes per GPU, plus what the output needs to explain them."""

    weights: float = 0
    gradients: float = 0
    optimizer: float = 0
    activations: float = 0
    logits: float = 0
    kv_cache: float = 0
    overhead: float = 0
    host_ram: float = 0
    trainable: int = 0
    kv_per_token: float | None = None
    seed_rule: SeedRule | None = None
    method: MethodMemory | None = None
    assumptions: list[dict[str, str]] = []
    sources: list[str] = []

    @property
    def model_states(self) -> float:
        return self.weights + self.gradients + self.optimizer

    @property
    def total(self) -> float:
        return self.model_states + self.activations + self.kv_cache + self.overhead


_TARGET_GROUPS = {
    "all": ["q", "k", "v", "o", "gate", "up", "down"],
    "attn": ["q", "k", "v", "o"],
    "mlp": ["gate", "up", "down"],
}
_TARGET_ALIASES = {
    "q_proj": "q",
    "k_proj": "k",
    "v_proj": "v",
    "o_proj": "o",
    "gate_proj": "gate",
    "up_proj": "up",
    "down_proj": "down",
    "query": "q",
    "key": "k",
    "value": "v",
    "all-linear": "all",
    "all_linear": "all",
}


def parse_lora_targets(text: str) -> list[str]:
    out: list[str] = []
    for raw in str(text).replace("，", ",").replace(" ", ",").split(","):
        t = _TARGET_ALIASES.get(raw.strip().lower(), raw.strip().lower())
        if not t:
            continue
        if t in _TARGET_GROUPS:
            out.extend(_TARGET_GROUPS[t])
        elif t in {"q", "k", "v", "o", "gate", "up", "down"}:
            out.append(t)
        else:
            raise ToolInputError(
                f"不认识的 LoRA 目标模块「{raw}」",
                f"Unknown LoRA target {raw!r}",
                field="lora_targets",
                suggestions=["all", "attn", "mlp", "q,v", "q,k,v,o"],
            )
    if not out:
        raise ToolInputError("LoRA 目标模块为空", "No LoRA target modules given", field="lora_targets")
    return sorted(set(out), key=["q", "k", "v", "o", "gate", "up", "down"].index)


def lora_param_count(arch, rank: int, targets: list[str]) -> int:
    """Σ_layers Σ_targets r·(d_in + d_out) (Hu et al.); MoE expert matrices count once per expert."""
    from tools.memory_activations import attention_dims

    h = arch.hidden_size
    q, k, v, o = attention_dims(arch)
    shapes_attn = {"q": (h, q), "k": (h, k), "v": (h, v), "o": (o, h)}
    per_attn = sum(rank * (a + b) for t, (a, b) in shapes_attn.items() if t in targets)

    def mlp_for(width: int, copies: int) -> int:
        shapes = {"gate": (h, width), "up": (h, width), "down": (width, h)}
        return copies * sum(
            rank * (a + b) for t, (a, b) in shapes.items() if t in targets and (t != "gate" or arch.mlp_gated)
        )

    dense_mlp = mlp_for(arch.intermediate_size, 1)
    if arch.is_moe:
        fe = arch.moe_intermediate_size or arch.intermediate_size
        moe_mlp = mlp_for(fe, arch.num_experts)
        if arch.num_shared_experts:
            moe_mlp += mlp_for(arch.shared_expert_intermediate_size or fe * arch.num_shared_experts, 1)
        n_dense = arch.first_k_dense_layers
        return arch.num_layers * per_attn + n_dense * dense_mlp + (arch.num_layers - n_dense) * moe_mlp
    return arch.num_layers * (per_attn + dense_mlp)


def _embedding_like_params(arch) -> int:
    """Parameters bitsandbytes/AWQ/GPTQ leave in 16-bit: embeddings, LM head, norms."""
    h = arch.hidden_size
    emb = arch.vocab_size * h * (1 if arch.tie_word_embeddings else 2)
    norms = (arch.num_layers * arch.norms_per_layer + 1) * h
    return emb + norms


def breakdown(job: MemoryJob, model=None) -> Breakdown:
    """Per-GPU bytes for `job` (the engine behind every tool here)."""
    from tools.models import resolve_model

    job.check()
    m = model or resolve_model(job.model, job.params)
    if job.mode == "inference":
        b = _inference(job, m)
    else:
        from tools.memory_methods import apply_method

        b = _training(job, m)
        b.method = apply_method(job, m, b, FRAGMENTATION)
    b.assumptions = list(m.assumptions) + b.assumptions
    return b


def _training(job: MemoryJob, m) -> Breakdown:
    from tools.memory_activations import logits_bytes, training_activation_bytes

    arch, P = m.arch, m.params
    N = job.shard_degree
    zero = job.zero_stage  # with N = 1 sharding divides by one: harmless
    sixteen_bit = job.precision in ("bf16", "fp16", "fp8")
    A: list[dict[str, str]] = []
    S = [SOURCES["zero"], SOURCES["korthikanti"]]

    # ---- bytes per parameter for trainable params
    if sixteen_bit:
        w_b, g_b = 2.0, (4.0 if job.fp32_grads else 2.0)
        master = 0.0 if job.optimizer == "adamw_bf16" else 4.0
    else:
        w_b, g_b, master = 4.0, 4.0, 0.0
    state_b = {"adamw": 8.0, "adamw_bf16": 4.0, "adamw_8bit": 2.0, "sgd": 4.0, "adafactor": 0.0}[job.optimizer]

    if job.mode == "full":
        trainable = P
        weights = P * w_b
        grads = trainable * g_b
        opt = trainable * (master + state_b)
        A.append(
            _a(
                f"全量训练：权重 {w_b:g} B/参数、梯度 {g_b:g} B/参数、优化器（含 fp32 主权重）{master + state_b:g} B/参数",
                f"Full training: weights {w_b:g} B/param, gradients {g_b:g} B/param, optimizer incl. fp32 master "
                f"{master + state_b:g} B/param",
            )
        )
    else:
        targets = parse_lora_targets(job.lora_targets)
        trainable = lora_param_count(arch, job.lora_rank, targets)
        S.append(SOURCES["lora"])
        # PEFT keeps adapter weights in fp32 (autocast_adapter_dtype=True since v0.12): 4 B weights + 4 B grads;
        # unsloth / torchtune keep them in bf16 (2 + 2)
        adapter_w = adapter_g = 4.0 if job.adapter_dtype == "fp32" else 2.0
        if job.mode == "lora":
            base = P * (2.0 if sixteen_bit else 4.0)
            A.append(
                _a(
                    f"LoRA：底座冻结（{'bf16' if sixteen_bit else 'fp32'}），适配器 r={job.lora_rank}、目标 "
                    f"{','.join(targets)}，可训练 {trainable:,} 个参数（{job.adapter_dtype} 适配器）",
                    f"LoRA: frozen base in {'bf16' if sixteen_bit else 'fp32'}, adapters r={job.lora_rank} on "
                    f"{','.join(targets)}: {trainable:,} trainable params ({job.adapter_dtype} adapters)",
                )
            )
        else:
            S.append(SOURCES["qlora"])
            unq = _embedding_like_params(arch)
            q = max(0, P - unq)
            if job.precision == "int8":
                per_q = 1.0 + 4.0 / arch.hidden_size  # LLM.int8(): int8 + an fp32 scale per row
                label = "int8 (LLM.int8)"
            elif job.int4_format in ("gptq", "awq"):
                # LoRA on a GPTQ/AWQ checkpoint (e.g. Qwen-7B-Chat-Int4): 4-bit + fp16 scale and zero per 128
                per_q = 0.5 + 32 / 128 / 8
                label = f"{job.int4_format.upper()} int4 g128"
            else:
                per_q = 0.5 + ((8 / 64 + 32 / (64 * 256)) / 8 if job.qlora_double_quant else 4 / 64)
                label = "NF4" + (" + 双重量化" if job.qlora_double_quant else "")
            base = q * per_q + unq * 2.0
            A.append(
                _a(
                    f"QLoRA：{q:,} 个线性层参数量化为 {label}（{per_q:.4f} B/参数），嵌入/输出层/归一化 {unq:,} 个参数保持 bf16；"
                    f"分页优化器吸收显存尖峰，不另加余量",
                    f"QLoRA: {q:,} linear-layer params in {label.replace('双重量化', 'double quant')} "
                    f"({per_q:.4f} B/param); embeddings/LM head/norms ({unq:,} params) stay bf16; the paged "
                    f"optimizer absorbs spikes, no extra margin added",
                )
            )
        weights = base + trainable * adapter_w
        grads = trainable * adapter_g
        opt = trainable * state_b
        A.append(
            _a(
                "冻结的底座层仍要为反向传播保存激活值，激活值按全量微调计",
                "Frozen base layers still keep activations for backward; activations count as in full fine-tuning",
            )
        )

    # ---- DeepSpeed keeps an fp32 gradient partition the ZeRO paper does not count (knowledge/engines.yaml)
    engine = job.engine_id
    extra_grad = 0.0
    if zero and not job.fp32_grads and job.offload == "none":
        from tools.memory_engines import training_profile

        extra_grad = trainable * training_profile(engine).extra_fp32_grad_bytes.get(zero, 0.0) / N
        if extra_grad:
            A.append(
                _a(
                    f"DeepSpeed ZeRO‑{zero} 另存一份 fp32 梯度分片：{extra_grad / GB:.2f} GB/卡"
                    f"（DeepSpeed 估算公式 {'2P+18P/N' if zero < 3 else '18P/N'}）",
                    f"DeepSpeed ZeRO-{zero} also keeps an fp32 gradient partition: {extra_grad / GB:.2f} GB per GPU "
                    f"(DeepSpeed's estimator: {'2P + 18P/N' if zero < 3 else '18P/N'})",
                )
            )
    # ---- sharding (ZeRO paper §5: P_os, P_os+g, P_os+g+p)
    if zero >= 1:
        opt /= N
    if zero >= 2:
        grads /= N
    if zero >= 3:
        weights /= N  # full weights, or the frozen base plus adapters, are partitioned under ZeRO‑3/FSDP
    grads += extra_grad
    if zero:
        name = {1: "ZeRO‑1（分片优化器状态）", 2: "ZeRO‑2（再分片梯度）", 3: "ZeRO‑3/FSDP（再分片权重）"}[zero]
        A.append(_a(f"{name}，分片到 {N} 张卡", f"ZeRO stage {zero} sharded over {N} GPUs"))

    host_ram = 0.0
    if job.offload != "none":
        S.append(SOURCES["deepspeed"])
        nodes = max(1, math.ceil(job.gpus / GPUS_PER_NODE))
        per_param_host = 16.0 if job.optimizer != "adamw_8bit" else 10.0
        opt = 0.0  # fp32 master, optimizer states and fp32 gradients live on the CPU
        grads = 0.0
        if job.offload == "optimizer_and_params":
            weights = 0.0
            per_param_host += 2.0
        host_ram = trainable * per_param_host * OFFLOAD_BUFFER / nodes
        if job.mode != "full":
            host_ram += P * 2.0 / nodes if job.offload == "optimizer_and_params" else 0.0
        A.append(
            _a(
                f"CPU 卸载（{job.offload}）：优化器状态和 fp32 梯度放到内存，每节点约需 {host_ram / GB:.0f} GB 内存"
                f"（DeepSpeed 公式 {per_param_host:g} B/参数 ×1.5）；优化器步骤受 PCIe 带宽限制，通常慢数倍",
                f"CPU offload ({job.offload}): optimizer states and fp32 gradients live in host RAM, about "
                f"{host_ram / GB:.0f} GB per node (DeepSpeed: {per_param_host:g} B/param ×1.5); the optimizer "
                f"step is PCIe-bound and usually several times slower",
            )
        )

    # ---- activations
    from tools.memory_engines import loss_profile

    seq = _encoder_length(arch, job.seq_len)
    acts = training_activation_bytes(arch, seq, job.batch, job.checkpointing, job.flash_attention)
    loss = loss_profile(job.loss_id)
    logits = 0.0 if arch.encoder_only else logits_bytes(arch, seq, job.batch, loss.bytes_per_element)
    if arch.encoder_only:
        A.append(_encoder_note(arch, job.seq_len, seq))
    A.append(
        _a(
            f"损失实现：{loss.label['zh']}，每个 logit 元素约 {loss.bytes_per_element:g} B（{loss.version}）：{loss.why['zh']}",
            f"Loss: {loss.label['en']}, about {loss.bytes_per_element:g} B per logit element ({loss.version}): "
            f"{loss.why['en']}",
        )
    )
    S.append(f"Loss memory: {loss.source}")
    ck = {
        "none": ("不重算（保存全部激活）", "no recomputation"),
        "selective": ("选择性重算（Megatron，仅重算注意力）", "selective recomputation (Megatron, attention only)"),
        "full": (
            "完整重算（梯度检查点，每层只存输入）",
            "full recomputation (gradient checkpointing: layer inputs only)",
        ),
    }
    A.append(
        _a(
            f"激活值：序列 {seq}、每卡 batch {job.batch}、{ck[job.checkpointing][0]}、"
            f"{'FlashAttention' if job.flash_attention else '普通注意力（保存 s² 注意力分数）'}；logits 缓冲 "
            f"{logits / GB:.2f} GB（词表 {arch.vocab_size}）",
            f"Activations: seq {seq}, micro-batch {job.batch} per GPU, {ck[job.checkpointing][1]}, "
            f"{'FlashAttention' if job.flash_attention else 'eager attention (s² scores stored)'}; logits buffer "
            f"{logits / GB:.2f} GB (vocab {arch.vocab_size})",
        )
    )
    if job.precision == "fp8":
        A.append(
            _a(
                "FP8 训练（Transformer Engine）仍保留 bf16 权重与 fp32 主权重，省的是算力而不是模型状态显存",
                "FP8 training (Transformer Engine) still keeps bf16 weights and fp32 master weights: it saves "
                "compute, not model-state memory",
            )
        )

    # ---- overhead
    overhead = CUDA_CONTEXT_BYTES + FRAGMENTATION * (acts + logits)
    bucket = 0.0
    if zero in (1, 2) and job.gpus > 1:
        bucket = min(trainable, ZERO_BUCKET_ELEMENTS) * 2.0
    elif zero == 3 and job.gpus > 1:
        bucket = (4.0 if job.mode == "full" else 2.0) * m.largest_layer_params
    overhead += bucket
    A.append(
        _a(
            f"框架开销 {overhead / GB:.2f} GB：CUDA 上下文约 1 GiB、激活值碎片约 10%"
            + (f"、ZeRO 通信桶/聚合层 {bucket / GB:.2f} GB" if bucket else "")
            + "（经验值，实际 ±0.5–2 GB）",
            f"Framework overhead {overhead / GB:.2f} GB: ~1 GiB CUDA context, ~10% allocator fragmentation on "
            f"activations"
            + (f", ZeRO buckets / gathered layer {bucket / GB:.2f} GB" if bucket else "")
            + " (rule of thumb; real runs vary by ±0.5–2 GB)",
        )
    )
    if job.gpus > 1 and zero == 0:
        A.append(
            _a(
                "纯数据并行（DDP）：每张卡都存一份完整的模型状态",
                "Plain data parallel (DDP): every GPU holds the full model states",
            )
        )

    seed = None
    if job.mode == "full" and sixteen_bit and job.optimizer in ("adamw", "adamw_bf16"):
        precise = w_b + g_b + master + state_b
        seed = SeedRule(
            bytes_per_param=8.0,
            model_states_gb=round(P * 8.0 / GB, 2),
            precise_bytes_per_param=precise,
            precise_model_states_gb=round(P * precise / GB, 2),
            reason=_a(
                "常见经验算法「约为权重的 4 倍」= bf16 权重 + bf16 梯度 + 两份 bf16 Adam 状态（8 B/参数），没有 fp32 主权重；"
                "主流混合精度训练（DeepSpeed、Megatron、HF Trainer）还保留 fp32 主权重和 fp32 的 m、v，共 16 B/参数"
                "（ZeRO 论文）；8 B/参数只是纯 bf16 训练的下限。两者都不含激活值",
                "The common rule of thumb '≈4× the weights' = bf16 weights + bf16 grads + two bf16 Adam states (8 B/param) "
                "with no fp32 master; standard mixed precision (DeepSpeed, Megatron, HF Trainer) also keeps an "
                "fp32 master copy and fp32 m, v: 16 B/param (ZeRO paper); 8 B/param is the pure-bf16 lower "
                "bound. Neither includes activations.",
            ),
        )
        S.append(SOURCES["accelerate"])
        if job.optimizer == "adamw_bf16":
            A.append(
                _a(
                    "纯 bf16 AdamW（无 fp32 主权重）：省显存，但长时间训练可能损失精度（NeMo 文档提醒）",
                    "Pure-bf16 AdamW (no fp32 master): saves memory but can hurt long runs (NeMo docs warn)",
                )
            )
    if job.fp32_grads:
        S.append(SOURCES["hf_anatomy"])
    if job.optimizer == "adafactor":
        A.append(
            _a(
                "Adafactor 的二阶矩按行/列分解，状态约为 O(行+列)，按 0 计；一阶矩关闭（默认）",
                "Adafactor's factored second moment is O(rows+cols) per matrix, counted as ~0; first moment off "
                "(default)",
            )
        )
    if job.optimizer == "adamw_8bit":
        S.append(SOURCES["hf_anatomy"])

    return Breakdown(
        weights=weights,
        gradients=grads,
        optimizer=opt,
        activations=acts + logits,
        logits=logits,
        overhead=overhead,
        host_ram=host_ram,
        trainable=trainable,
        seed_rule=seed,
        assumptions=A,
        sources=S,
    )


def gguf_quant_row(quant_id: str):
    """The knowledge/cpus.yaml quantisation row (bits per weight over a whole GGUF file) for an id, or None."""
    from tools.cpu_inference import quants

    return next((q for q in quants() if q.id == quant_id), None)


def _whole_file_bits(job: MemoryJob) -> bool:
    """GGUF figures are bits per weight over every tensor, embeddings included (llama.cpp quantize README)."""
    return job.gguf_quant is not None or (job.int4_format == "q4_k_m" and job.precision == "int4")


def inference_weight_bytes_per_param(job: MemoryJob) -> tuple[float, str]:
    if job.gguf_quant is not None:
        row = gguf_quant_row(job.gguf_quant)
        if row is not None:
            return row.bits / 8, f"GGUF {row.label} ({row.bits:.2f} bits/weight incl. embeddings)"
    p = job.precision
    if p in ("fp32", "tf32"):
        return 4.0, "fp32"
    if p in ("bf16", "fp16"):
        return 2.0, p
    if p == "fp8":
        return 1.0, "fp8 (per-channel scales ≈ 0)"
    if p == "int8":
        return 1.0, "int8 (per-row fp16 scales ≈ 0)"
    if job.int4_format == "q4_k_m":
        return GGUF_Q4_K_M_BITS / 8, "GGUF Q4_K_M (4.84 bits/weight incl. embeddings)"
    if job.int4_format == "nf4":
        return 0.5 + ((8 / 64 + 32 / (64 * 256)) / 8 if job.qlora_double_quant else 4 / 64), "NF4 (bitsandbytes)"
    fmt = (job.int4_format or "awq").upper()
    return 0.5 + 32 / 128 / 8, f"int4 {fmt} g128 (+fp16 scale/zero per 128 ≈ 0.25 bit)"


def _encoder_length(arch, seq: int) -> int:
    """An encoder reads at most max_position_embeddings tokens per input (512 for BERT / XLM-R, 8,192 for bge-m3)."""
    if arch.encoder_only and arch.max_position_embeddings:
        return min(seq, arch.max_position_embeddings)
    return seq


def _encoder_note(arch, asked: int, used: int) -> dict[str, str]:
    capped_zh = f"（输入上限 {used:,} token，按 {used:,} 算）" if used < asked else ""
    capped_en = f" (inputs stop at {used:,} tokens, sized at {used:,})" if used < asked else ""
    return _a(
        f"编码器模型（embedding / reranker，BERT 类）：没有语言模型头的 logits，推理也没有 KV 缓存，显存是权重加一批"
        f"输入的激活值{capped_zh}",
        f"Encoder model (embedding / reranker, BERT-style): no LM-head logits and no KV cache when serving; memory is the "
        f"weights plus one batch's activations{capped_en}",
    )


def _inference(job: MemoryJob, m) -> Breakdown:
    from tools.memory_activations import prefill_workspace_bytes
    from tools.memory_engines import inference_profile
    from tools.memory_kv import KV_DTYPE_BYTES, kv_bytes_per_token, kv_cache_bytes

    arch, P = m.arch, m.params
    tp = job.gpus
    prof = inference_profile(job.engine_id)
    layer_split = prof.id == "hf"  # device_map="auto": whole layers per GPU, not tensor parallel
    ctx = _encoder_length(arch, job.context or job.seq_len)
    seqs = job.concurrency or job.batch
    per_q, label = inference_weight_bytes_per_param(job)
    A: list[dict[str, str]] = []
    S = [SOURCES["vllm"]]
    if _whole_file_bits(job):
        weights = P * per_q  # the GGUF figure is over every tensor, embeddings included
        S.append(SOURCES["gguf"])
        A.append(
            _a(
                f"权重：{label}，{per_q:.4f} B/参数（ollama 默认拉取的就是 Q4_K_M 这类 4-bit GGUF）",
                f"Weights: {label}, {per_q:.4f} B/param (ollama's default pull is a 4-bit GGUF such as Q4_K_M)",
            )
            if job.gguf_quant is None
            else _a(f"权重：{label}，{per_q:.4f} B/参数", f"Weights: {label}, {per_q:.4f} B/param")
        )
    elif per_q < 2.0:
        unq = _embedding_like_params(arch)
        weights = max(0, P - unq) * per_q + unq * 2.0
        S.append(SOURCES["quant"])
        A.append(
            _a(
                f"权重：线性层 {label}，{per_q:.4f} B/参数；嵌入/输出层/归一化保持 16 位",
                f"Weights: linear layers {label}, {per_q:.4f} B/param; embeddings/LM head/norms stay 16-bit",
            )
        )
    else:
        weights = P * per_q
        A.append(_a(f"权重：{label}，{per_q:g} B/参数", f"Weights: {label}, {per_q:g} B/param"))
    weights /= tp
    kv_dtype = job.kv_dtype or ("fp32" if job.precision in ("fp32", "tf32") else "bf16")
    kvb = KV_DTYPE_BYTES[kv_dtype]
    if layer_split:
        kv = kv_cache_bytes(arch, ctx, seqs, kvb) / tp  # each GPU caches its own layers' K/V
    else:
        kv = kv_cache_bytes(arch, ctx, seqs, kvb, tensor_parallel=tp)
    per_token = kv_bytes_per_token(arch, kvb)
    if arch.encoder_only:  # an embedding / reranker forward pass caches nothing between calls
        kv, per_token = 0.0, 0
        A.append(_encoder_note(arch, job.context or job.seq_len, ctx))
    if arch.is_mla:
        S.append(SOURCES["mla"])
        A.append(
            _a(
                f"MLA：每层每 token 只缓存 {arch.kv_lora_rank}+{arch.qk_rope_head_dim} 维潜向量",
                f"MLA: each layer caches a {arch.kv_lora_rank}+{arch.qk_rope_head_dim}-dim latent per token",
            )
        )
    heads_zh = "MLA 潜向量" if arch.is_mla else f"{arch.num_kv_heads} 个 KV 头"
    heads_en = "MLA latent" if arch.is_mla else f"{arch.num_kv_heads} KV heads"
    A.append(
        _a(
            f"KV 缓存：{seqs} 条序列 × {ctx} token，{kv_dtype}，每 token {per_token / 1024:.1f} KiB"
            f"（{heads_zh}）"
            # TP splits the KV heads: each card holds its share of every token (655,360 B = 640 KiB for 72B at TP 4)
            + (f"，{tp} 卡张量并行时每卡每 token {kv / (seqs * ctx) / 1024:.1f} KiB" if tp > 1 and seqs * ctx else "")
            + (f"；{arch.windowed_layers} 层滑动窗口 {arch.sliding_window}" if arch.windowed_layers else ""),
            f"KV cache: {seqs} sequence{'s' if seqs != 1 else ''} × {ctx} tokens, {kv_dtype}, {per_token / 1024:.1f} KiB per token "
            f"({heads_en})"
            + (
                f", {kv / (seqs * ctx) / 1024:.1f} KiB per token per GPU at tensor parallel {tp}"
                if tp > 1 and seqs * ctx
                else ""
            )
            + (
                f"; {arch.windowed_layers} layers use a {arch.sliding_window}-token window"
                if arch.windowed_layers
                else ""
            ),
        )
    )
    if prof.prefill == "whole":
        chunk = ctx * seqs  # HF generate prefills every prompt token in one forward
        acts = prefill_workspace_bytes(arch, chunk, seqs)  # one layer at a time, on whichever GPU holds it
    else:
        chunk = min(ctx * seqs, prof.prefill_chunk_tokens or 8192)
        acts = prefill_workspace_bytes(arch, chunk, seqs) / tp
    overhead = prof.non_torch_bytes(tp)
    S.append(f"Engine {prof.id} ({prof.version}): {prof.source}")
    frac = job.memory_fraction
    reserve_zh = (
        f"，并按总显存的 {frac:.0%}（{prof.memory_fraction_key}）规划" if prof.memory_fraction_key else "，不预留显存"
    )
    reserve_en = (
        f"; it plans within {frac:.0%} of total memory ({prof.memory_fraction_key})"
        if prof.memory_fraction_key
        else "; nothing is pre-reserved"
    )
    A.append(
        _a(
            f"引擎 {prof.label['zh']}（{prof.version}）：预填充{'整段一次' if prof.prefill == 'whole' else '分块'}，"
            f"每次 {chunk:,} token 的临时显存；PyTorch 之外每卡约 {overhead / GiB:.1f} GiB（CUDA 上下文"
            f"{'、NCCL 缓冲' if tp > 1 and not layer_split else ''}{'、CUDA 图' if prof.id != 'hf' else ''}）"
            + reserve_zh,
            f"Engine {prof.label['en']} ({prof.version}): {'whole-prompt' if prof.prefill == 'whole' else 'chunked'} "
            f"prefill, workspace for {chunk:,} tokens at a time; about {overhead / GiB:.1f} GiB per GPU outside "
            f"PyTorch (CUDA context{', NCCL buffers' if tp > 1 and not layer_split else ''}"
            f"{', CUDA graphs' if prof.id != 'hf' else ''})" + reserve_en,
        )
    )
    if layer_split and tp > 1:
        A.append(
            _a(
                f'device_map="auto" 把层平分到 {tp} 张卡：每卡放 1/{tp} 的权重和 KV 缓存，一次只有一张卡在算',
                f'device_map="auto" splits the layers over {tp} GPUs: each holds 1/{tp} of the weights and KV '
                f"cache, and only one GPU computes at a time",
            )
        )
    elif tp > 1:
        A.append(
            _a(
                f"张量并行 {tp} 卡：权重与 KV 头平分到每张卡",
                f"Tensor parallel over {tp} GPUs: weights and KV heads split per GPU",
            )
        )
    if arch.is_moe:
        A.append(
            _a(
                f"MoE：全部 {P / 1e9:.1f}B 参数都要放进显存，每 token 只激活约 {m.active_params / 1e9:.1f}B",
                f"MoE: all {P / 1e9:.1f}B parameters must be resident; each token activates ~{m.active_params / 1e9:.1f}B",
            )
        )
    return Breakdown(
        weights=weights,
        activations=acts,
        logits=0.0 if arch.encoder_only else seqs * arch.vocab_size * 4 / tp,
        kv_cache=kv,
        overhead=overhead,
        trainable=0,
        kv_per_token=per_token,
        assumptions=A,
        sources=S,
    )


# ---------------------------------------------------------------- tools


# Cards renters commonly choose, one or two per memory size (ids in knowledge/gpus.yaml, which gives the memory).
_COMMON_CARDS = (
    "rtx_4060_ti_16gb",
    "t4",
    "rtx_3090",
    "rtx_4090",
    "rtx_5090",
    "v100_32gb_sxm2",
    "l40s",
    "rtx_a6000",
    "a100_80gb_sxm",
    "h100_sxm_80gb",
    "h20",
    "h200_sxm_141gb",
)


def _smallest_card(total_gb: float | None) -> dict[str, Any]:
    """「需要多大显存的显卡」 with no card: the smallest memory size that holds the estimate with 10% to spare (the
    estimate is at batch 1, and within 5% the verdict already counts as a close call)."""
    from tools.gpus import all_gpus

    if not total_gb or total_gb <= 0:
        return {}
    rows = {g.id: g for g in all_gpus()}
    cards = [rows[i] for i in _COMMON_CARDS if i in rows]
    sizes = sorted({g.memory_gb for g in cards if total_gb <= 0.9 * g.memory_gb})
    if not sizes:
        return {}
    names = [g.name.removeprefix("NVIDIA ").removeprefix("GeForce ") for g in cards if g.memory_gb == sizes[0]]
    return {"smallest_card_gb": sizes[0], "smallest_card_names": names[:2]}


def _round(x: float, n: int = 3) -> float:
    return round(x, n)


def _usable(job: MemoryJob, cap: GpuCapacity) -> float:
    """Reported memory × the engine's fraction (vLLM gpu_memory_utilization, SGLang mem_fraction_static, 1.0 for
    training and HF generate, whose CUDA context is already in the estimate's overhead)."""
    return cap.reported_gb * GB * job.memory_fraction


def whole_model_weights(job: MemoryJob, model) -> tuple[float, str]:
    """The whole model's weights (decimal GB) at the precision the job uses, before sharding: the per-GPU weights on
    one GPU (exact, incl. 16-bit embeddings of quantised models); otherwise the same bytes per parameter applied to
    the whole model. QLoRA bases are NF4 (QLoRA paper §3); full/LoRA training holds 16-bit (or fp32) weights."""
    one = job.model_copy(update={"gpus": 1, "zero": 0, "fsdp": "none", "offload": "none", "method": "sft"})
    if job.mode == "inference":
        per_q, _ = inference_weight_bytes_per_param(job)
        if _whole_file_bits(job):
            row = gguf_quant_row(job.gguf_quant) if job.gguf_quant else None
            return model.params * per_q / GB, f"GGUF {row.label}" if row else "GGUF Q4_K_M"
        if per_q < 2.0:
            unq = _embedding_like_params(model.arch)
            total = max(0, model.params - unq) * per_q + unq * 2.0
        else:
            total = model.params * per_q
        prec = job.precision if job.precision != "int4" else f"int4 {(job.int4_format or 'awq').upper()}"
        return total / GB, prec
    if job.mode == "qlora":
        b = _training(one, model)
        return (b.weights - b.trainable * (4.0 if job.adapter_dtype == "fp32" else 2.0)) / GB, "NF4"
    bpp = 4.0 if job.precision in ("fp32", "tf32") else 2.0
    return model.params * bpp / GB, ("fp32" if bpp == 4.0 else job.precision if job.precision != "fp8" else "bf16")


FP8_SOURCE = (
    "deepseek-ai/DeepSeek-V3 README §6 (FP8 weights only; inference/fp8_cast_bf16.py converts to BF16); SGLang "
    "DeepSeek docs (A100/A800: convert the FP8 checkpoint to BF16); NVIDIA Hopper/Ada whitepapers (FP8 tensor cores "
    "from Ada/Hopper on; Ampere/Volta have none)"
)


def _bf16_note(job: MemoryJob, cap: GpuCapacity) -> dict[str, str] | None:
    """bf16 on a card without it (gpus.yaml bf16_dense_tflops null: V100, T4, 2080 Ti, P40): the same 2 bytes run as
    fp16, which is what the user must select; the memory figures do not change."""
    if job.precision != "bf16" or cap.bf16_supported is not False:
        return None
    card = cap.name.replace("NVIDIA ", "")
    train = job.mode != "inference"
    return _a(
        f"{card} 不支持 bf16，要用 fp16（同样每参数 2 字节，显存不变）："
        + (
            "训练开 fp16 混合精度（--fp16，配 loss scaling）"
            if train
            else "vLLM 加 --dtype float16，transformers 用 torch_dtype=torch.float16"
        )
        + "；直接选 bf16 会报错或退回很慢的模拟",
        f"The {card} has no bf16, so use fp16 (also 2 bytes per parameter, same memory): "
        + (
            "fp16 mixed precision for training (--fp16, with loss scaling)"
            if train
            else "vLLM --dtype float16, transformers torch_dtype=torch.float16"
        )
        + "; selecting bf16 errors out or falls back to slow emulation",
    )


def _fp8_note(job: MemoryJob, model, cap: GpuCapacity) -> dict[str, str] | None:
    """An FP8 release on a card without FP8 tensor cores: why it is sized in bf16 (or why fp8 will not run)."""
    if job.mode != "inference" or cap.fp8_supported is not False:
        return None
    shipped = str(model.shipped_precision or "")
    if job.precision == "fp8" or shipped.startswith("fp8"):
        bf16 = model.params * 2 / GB
        from tools.gpus import fp8_usage, resolve_gpu

        try:
            arch = resolve_gpu(cap.name).architecture
        except ToolInputError:
            arch = "Ampere or older"
        why_zh, why_en = fp8_usage(cap.name, arch, False, None)
        return _a(
            f"{why_zh}。{model.name} 官方发布的是 FP8 权重；走 bf16 的路（官方 fp8_cast_bf16.py 转换，或下载 bf16 版）"
            f"按 2 B/参数算：{model.params / 1e9:.0f}B × 2 B = {bf16:,.0f} GB",
            f"{why_en}. {model.name} is released in FP8; the BF16 route (the official fp8_cast_bf16.py conversion or "
            f"a bf16 upload) takes 2 B/param: {model.params / 1e9:.0f}B × 2 B = {bf16:,.0f} GB",
        )
    return None


def _whole_state(
    job: MemoryJob, model, usable: float | None
) -> tuple[float | None, float | None, bool | None, ZeroFormula | None]:
    """(whole training state GB, all cards' usable GB, state > all cards, the ZeRO paper's formula).

    The state is the model states of the job on one unsharded GPU: sharding only divides it, so without offload
    it must fit N cards together (arXiv:1910.02054 §5). The paper's formula is given for full training with
    mixed-precision AdamW (K = 12) without offload, the case it covers."""
    if job.mode == "inference":
        return None, None, None, None
    one = job.model_copy(update={"gpus": 1, "zero": 0, "fsdp": "none", "offload": "none"})
    state = breakdown(one, model).model_states / GB
    all_usable = usable * job.gpus / GB if usable is not None else None
    exceeds = None
    if all_usable is not None:
        exceeds = job.offload == "none" and all_cards_short(state, 1, all_usable)
    formula = None
    if (
        job.mode == "full"
        and job.optimizer == "adamw"
        and job.precision in ("bf16", "fp16")
        and job.gpus > 1
        and job.offload == "none"  # the paper's figures keep every state on the GPUs
    ):
        formula = zero_formula(int(model.params), job.gpus, job.zero_stage)
    return state, all_usable, exceeds, formula


def _fits(job: MemoryJob, cap: GpuCapacity, model) -> bool:
    return breakdown(job, model).total <= _usable(job, cap)


def _length_limit(model, field: str, default: int) -> int:
    """Sequence/context searches stop at the model's context limit: its native window when the publisher gives
    one (longer needs rope scaling such as YaRN), else max_position_embeddings."""
    if field in ("seq_len", "context") and model.arch.context_limit:
        return min(default, model.arch.context_limit)
    return default


def _context_cap_note(arch, limit: int) -> dict:
    """Why the length stops at `limit`, and whether rope scaling (YaRN) allows more."""
    if arch.native_context and arch.rope_scaled_context:
        src = f"（{arch.context_source}）" if arch.context_source else ""
        src_en = f" ({arch.context_source})" if arch.context_source else ""
        return _a(
            f"最长长度封顶于模型的原生上下文 {limit:,} tokens；要到 {arch.rope_scaled_context:,} 需开启 rope scaling："
            f"{arch.rope_scaling}{src}",
            f"The longest length is capped at the model's native context of {limit:,} tokens; reaching "
            f"{arch.rope_scaled_context:,} needs rope scaling: {arch.rope_scaling}{src_en}",
        )
    return _a(
        f"最长长度封顶于模型的上下文上限 {limit:,}（max_position_embeddings），显存本身还能容纳更长",
        f"The longest length is capped at the model's context limit {limit:,} "
        f"(max_position_embeddings); memory alone would allow more",
    )


def _max_value(
    job: MemoryJob, cap: GpuCapacity, model, field: str, hi_limit: int, model_limit: bool = True
) -> int | None:
    """Largest value of `field` that fits (total memory is monotone in it); None if even 1 does not.
    For lengths the search stops at the model's context limit unless `model_limit` is False."""
    if model_limit:
        hi_limit = _length_limit(model, field, hi_limit)

    def ok(v: int) -> bool:
        return _fits(job.model_copy(update={field: v}), cap, model)

    if not ok(1):
        return None
    lo, hi = 1, 2
    while hi <= hi_limit and ok(hi):
        lo, hi = hi, hi * 2
    if hi > hi_limit:
        return lo if not ok(hi_limit) else hi_limit
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            lo = mid
        else:
            hi = mid
    return lo


def _engine_note(job: MemoryJob) -> dict[str, str] | None:
    """The serving engine's own memory behaviour (what it reserves at start-up), from knowledge/engines.yaml."""
    if job.mode != "inference":
        return None
    from tools.memory_engines import inference_profile

    notes = inference_profile(job.engine_id).notes
    return {"zh": notes.get("zh", ""), "en": notes.get("en", "")} if notes else None


def _engine_version(job: MemoryJob) -> str:
    from tools.memory_engines import inference_profile, training_profile

    e = job.engine_id
    return inference_profile(e).version if job.mode == "inference" else training_profile(e).version


def _capacity_note(job: MemoryJob, cap: GpuCapacity, usable: float) -> dict[str, str]:
    """Nominal, reported and usable side by side, with where the reported figure comes from."""
    frac = job.memory_fraction
    if cap.reported_mib:
        rep_zh = f"nvidia-smi 显示 {cap.reported_mib} MiB ≈ {cap.reported_gb:.1f} GB"
        rep_en = f"nvidia-smi reports {cap.reported_mib} MiB ≈ {cap.reported_gb:.1f} GB"
        if cap.reported_confidence == "derived":
            rep_zh += "（推算值）"
            rep_en += " (derived)"
    else:
        rep_zh, rep_en = "按给出的大小计", "taken at the size given"
    use_zh = f"可用 {usable / GB:.2f} GB" + (f"（引擎占比 {frac:g}）" if frac < 1 else "（CUDA 上下文已计入开销）")
    use_en = f"usable {usable / GB:.2f} GB" + (
        f" (engine fraction {frac:g})" if frac < 1 else " (the CUDA context is counted in the overhead)"
    )
    return _a(
        f"显存：标称 {cap.memory_gb:g} GB（十进制）；{rep_zh}；{use_zh}。结论按可用显存判断",
        f"GPU memory: nominal {cap.memory_gb:g} GB (decimal); {rep_en}; {use_en}. The verdict uses usable memory",
    )


def _summary(
    job: MemoryJob,
    name: str,
    b: Breakdown,
    cap: GpuCapacity | None,
    fits: bool | None,
    headroom: float | None,
    changes: list[FitChange] | None = None,
    nearest: FitChange | None = None,
    combined: bool = False,
) -> dict[str, str]:
    mode_zh = {"full": "全量训练", "lora": "LoRA 微调", "qlora": "QLoRA 微调", "inference": "推理"}[job.mode]
    mode_en = {
        "full": "full training",
        "lora": "LoRA fine-tuning",
        "qlora": "QLoRA fine-tuning",
        "inference": "inference",
    }[job.mode]
    if job.method != "sft":
        mode_zh, mode_en = f"{job.method.upper()} {mode_zh}", f"{job.method.upper()} {mode_en}"
    gpus = f"{job.gpus} 张卡" if job.gpus > 1 else "单卡"
    zh = f"{name} {mode_zh}（{gpus}）每卡约需 {b.total / GB:.1f} GB（{b.total / GiB:.1f} GiB）"
    en = f"{name} {mode_en} ({job.gpus} GPU{'s' if job.gpus > 1 else ''}) needs about {b.total / GB:.1f} GB ({b.total / GiB:.1f} GiB) per GPU"
    if cap is not None:
        if fits:
            zh += f"，{cap.name} 放得下，余量 {headroom:.1f} GB"
            en += f"; fits on {cap.name} with {headroom:.1f} GB to spare"
        else:
            short = -(headroom or 0.0)
            short_zh = f"差 {short:.1f} GB" if short >= 0.05 else "差不到 0.1 GB"
            short_en = f"short by {short:.1f} GB" if short >= 0.05 else "short by under 0.1 GB"
            zh += f"，{cap.name} 放不下，{short_zh}"
            en += f"; does not fit on {cap.name}, {short_en}"
            if changes:
                sep_zh, sep_en = ("，再 ", "; then ") if combined else ("；或 ", "; or ")
                zh += "；改设置后可以：" + sep_zh.join(
                    f"{c.label['zh']}（约 {c.total_gb:.1f} GB）" for c in changes[:4]
                )
                en += "; it fits with: " + sep_en.join(f"{c.label['en']} (~{c.total_gb:.1f} GB)" for c in changes[:4])
            if nearest and not changes:
                zh += f"；最接近的可行方案：{nearest.label['zh']}（约 {nearest.total_gb:.1f} GB/卡）"
                en += f"; nearest option that fits: {nearest.label['en']} (~{nearest.total_gb:.1f} GB per GPU)"
        if _borderline(headroom, cap):
            zh += "（临界：缩短上下文/序列、减小 batch 或调高显存占用比例就可能翻转结论）"
            en += " (a close call: a shorter context/sequence, a smaller batch or a higher memory fraction can flip it)"
    return {"zh": zh, "en": en}


BORDERLINE_FRACTION = 0.05


def _borderline(headroom_gb: float | None, cap: GpuCapacity | None) -> bool | None:
    """Within 5% of the card's memory either way: real runs differ from estimates by that much (fragmentation,
    engine versions), so a context, batch or memory-fraction change can flip the verdict."""
    if headroom_gb is None or cap is None:
        return None
    return abs(headroom_gb) < BORDERLINE_FRACTION * cap.memory_gb


def estimate_memory(inp: EstimateMemoryInput) -> EstimateMemoryOutput:
    """Tool body: the per-GPU breakdown and, with a GPU, the verdict."""
    from tools.models import resolve_model
    from tools.pipeline_memory import as_memory_output

    piped = as_memory_output(inp)  # FLUX / SDXL / Wan / Whisper …: several networks, sized by their weights
    if piped is not None:
        return EstimateMemoryOutput.model_validate(piped)
    inp.check()
    model = resolve_model(inp.model, inp.params)
    b = breakdown(inp, model)
    cap = resolve_gpu_capacity(inp.gpu) if inp.gpu else None
    fits = headroom = usable = None
    fp8_note = None
    max_batch = max_seq = None
    capped = False  # the longest sequence that fits is the model's own context limit, not memory
    assumptions = list(b.assumptions)
    sources = list(dict.fromkeys(b.sources))
    verdict: str | None = None
    changes: list[FitChange] = []
    combined = False
    nearest: FitChange | None = None
    ctx_fit: dict[str, int | None] | None = None
    conc_fit: dict[str, int | None] | None = None
    if cap is not None:
        usable = _usable(inp, cap)
        fits = b.total <= usable
        headroom = (usable - b.total) / GB
        if cap.source:
            sources.append(f"GPU memory: {cap.source}")
        if cap.reported_source:
            sources.append(f"GPU reported memory: {cap.reported_source}")
        assumptions.append(_capacity_note(inp, cap, usable))
        if cap.caveat:
            assumptions.append(_a(cap.caveat.split(" / ")[0], cap.caveat.split(" / ")[-1]))
        fp8_note = _fp8_note(inp, model, cap)
        if fp8_note:
            assumptions.insert(0, fp8_note)
            sources.append(FP8_SOURCE)

        def evaluate(job: MemoryJob) -> tuple[float, float]:
            return breakdown(job, model).total, _usable(job, cap)

        def best(job: MemoryJob, field: str) -> int | None:
            limit = {"batch": 1 << 16, "seq_len": 1 << 24, "context": 1 << 24, "concurrency": 1 << 20}[field]
            base = job.model_copy(update={"batch": 1}) if field == "concurrency" else job
            return _max_value(base, cap, model, field, limit)

        if fits:
            verdict = "fits"
        else:
            changes, combined = fit_changes(inp, evaluate, best)
            for c in changes:
                if c.kind == "cpu_offload":  # say how much host RAM the offloaded states need
                    upd: dict[str, Any] = {"offload": "optimizer"}
                    if inp.zero_stage < 2 and inp.fsdp == "none":
                        upd["zero"] = 2
                    ram_gb = breakdown(inp.model_copy(update=upd), model).host_ram / GB
                    c.label = _a(
                        c.label["zh"] + f"，需约 {ram_gb:,.0f} GB 内存", c.label["en"] + f", ~{ram_gb:,.0f} GB host RAM"
                    )
            verdict = "fits_with_changes" if changes else "does_not_fit"
            from tools.memory_parallel import tp_allowed

            nearest = nearest_option(
                inp, evaluate, cap.fp8_supported, lambda n: tp_allowed(model.arch, n), owned=inp.gpus_owned
            )
        if inp.mode == "inference":
            max_batch = _max_value(inp.model_copy(update={"batch": 1}), cap, model, "concurrency", 1 << 20)
            max_seq = _max_value(inp, cap, model, "context", 1 << 24)
            ctx_fit, conc_fit = {}, {}
            for e in ("hf", "vllm", "sglang"):
                ej = inp.model_copy(update={"engine": e})
                ctx_fit[e] = max_seq if e == inp.engine_id else best(ej, "context")
                conc_fit[e] = max_batch if e == inp.engine_id else best(ej, "concurrency")
        else:
            max_batch = _max_value(inp, cap, model, "batch", 1 << 16)
            max_seq = _max_value(inp, cap, model, "seq_len", 1 << 24)
        limit = model.arch.context_limit
        if limit and max_seq == limit:
            capped = True
            assumptions.append(_context_cap_note(model.arch, limit))
    assumptions.append(
        _a(
            "单位：GB = 10^9 字节，GiB = 2^30 字节；真实运行与估算通常相差 ±10–20%",
            "Units: GB = 10^9 bytes, GiB = 2^30 bytes; real runs typically differ by ±10–20%",
        )
    )
    gib = {
        k: _round(v / GiB)
        for k, v in {
            "weights": b.weights,
            "gradients": b.gradients,
            "optimizer": b.optimizer,
            "model_states": b.model_states,
            "activations": b.activations,
            "kv_cache": b.kv_cache,
            "overhead": b.overhead,
            "total": b.total,
        }.items()
    }
    inference = inp.mode == "inference"
    whole_gb, whole_prec = whole_model_weights(inp, model)
    from tools.memory_host import host_ram

    ram = host_ram(inp, model, b, whole_gb)
    from tools.memory_parallel import tp_check

    tp_ok, tp_sizes, tp_note = tp_check(inp, model)
    from tools.memory_parallel import QUANT_SOURCE, quant_tp_note

    quant_note = quant_tp_note(inp, model)
    if quant_note:
        sources.append(QUANT_SOURCE)
    kv_all = kv_seq = None
    if inp.mode == "inference":
        from tools.memory_kv import KV_DTYPE_BYTES, kv_cache_bytes

        kvb = KV_DTYPE_BYTES[inp.kv_dtype or ("fp32" if inp.precision in ("fp32", "tf32") else "bf16")]
        ctx_all = inp.context or inp.seq_len
        kv_seq = kv_cache_bytes(model.arch, ctx_all, 1, kvb)  # the whole model's cache for one sequence
        kv_all = kv_seq * (inp.concurrency or inp.batch)
    if tp_note:
        assumptions.insert(0, tp_note)
    state_gb, all_usable, exceeds, formula = _whole_state(inp, model, usable)
    if exceeds:  # the invariant: no per-GPU figure may say "fits" when the state cannot fit all the cards together
        fits = False
        changes, combined = [c for c in changes if c.kind == "cpu_offload"], False
        verdict = "fits_with_changes" if changes else "does_not_fit"
    if formula is not None:
        sources.append(ZERO_SOURCE)
    return EstimateMemoryOutput(
        model=model.name,
        model_kind=model.kind,
        mode=inp.mode,
        precision=inp.precision,
        optimizer=None if inference else inp.optimizer,
        gpus=inp.gpus,
        zero_stage=0 if inference else inp.zero_stage,
        params=model.params,
        trainable_params=b.trainable,
        weights_gb=_round(b.weights / GB),
        gradients_gb=_round(b.gradients / GB),
        optimizer_gb=_round(b.optimizer / GB),
        model_states_gb=_round(b.model_states / GB),
        activations_gb=_round(b.activations / GB),
        logits_gb=_round(b.logits / GB),
        kv_cache_gb=_round(b.kv_cache / GB),
        overhead_gb=_round(b.overhead / GB),
        total_gb=_round(b.total / GB),
        total_gib=gib["total"],
        gib=gib,
        host_ram_gb=_round(b.host_ram / GB),
        method=inp.method,
        sequences_per_example=b.method.sequences_per_example if b.method else 1,
        reference_model_gb=_round(b.method.reference_bytes / GB) if b.method else 0.0,
        reward_model_gb=_round(b.method.reward_bytes / GB) if b.method else 0.0,
        policy_weights_gb=_round(
            (
                b.weights
                - b.method.reference_bytes
                - b.method.reward_bytes
                - b.method.rollout_weights_bytes * (inp.rollout_engine == "vllm_colocate")
            )
            / GB
        )
        if b.method
        else None,
        value_model_gb=_round(b.method.value_bytes / GB) if b.method else 0.0,
        rollout_kv_gb=_round(b.method.rollout_kv_bytes / GB) if b.method else 0.0,
        whole_model_weights_gb=_round(whole_gb, 2),
        whole_model_precision=whole_prec,
        host_ram_total_gb=ram.total_gb,
        host_ram=ram,
        total_gpu_memory_gb=_round(cap.memory_gb * inp.gpus, 1) if cap else None,
        training_state_gb=_round(state_gb, 1) if state_gb is not None else None,
        all_gpus_usable_gb=_round(all_usable, 1) if all_usable is not None else None,
        state_exceeds_all_gpus=exceeds,
        zero_formula=formula,
        kv_cache_all_gpus_gb=_round(kv_all / GB) if kv_all is not None else None,
        kv_per_sequence_gb=_round(kv_seq / GB) if kv_seq is not None else None,
        shipped_precision=model.shipped_precision,
        gpu_fp8=cap.fp8_supported if cap else None,
        tp_valid=tp_ok,
        tp_sizes=tp_sizes,
        quant_tp_note=quant_note,
        tp_note=tp_note,
        fp8_note=fp8_note,
        bf16_note=_bf16_note(inp, cap) if cap else None,
        checkpointing=None if inference else inp.checkpointing,
        seq_len=None if inference else inp.seq_len,
        batch=None if inference else inp.batch,
        context=(inp.context or inp.seq_len) if inference else None,
        concurrency=(inp.concurrency or inp.batch) if inference else None,
        kv_bytes_per_token=b.kv_per_token,
        seed_rule=b.seed_rule,
        gpu=cap.name if cap else None,
        gpu_memory_gb=cap.memory_gb if cap else None,
        nominal_gb=cap.memory_gb if cap else None,
        reported_gb=cap.reported_gb if cap else None,
        reported_mib=cap.reported_mib if cap else None,
        reported_source=cap.reported_source if cap else None,
        reported_confidence=cap.reported_confidence if cap else None,
        reserve_gb=_round(cap.reported_gb - usable / GB) if cap is not None and usable is not None else None,
        usable_gb=_round(usable / GB) if usable is not None else None,
        engine=inp.engine_id,
        engine_version=_engine_version(inp),
        engine_note=_engine_note(inp),
        loss=None if inference else inp.loss_id,
        verdict=verdict,
        changes=changes,
        changes_combined=combined,
        nearest_option=nearest,
        max_context_fit=ctx_fit,
        context_capped_by_model=capped,
        max_concurrency_fit=conc_fit,
        fits=fits,
        headroom_gb=_round(headroom) if headroom is not None else None,
        max_batch=max_batch,
        max_seq_len=max_seq,
        **_smallest_card(b.total / GB if cap is None and inp.gpus == 1 else None),
        borderline=_borderline(headroom, cap),
        summary=_summary(inp, model.name, b, cap, fits, headroom, changes, nearest, combined),
        assumptions=assumptions,
        sources=list(dict.fromkeys(sources)),
    )


# ---- find_min_gpus


class FindMinGpusInput(MemoryJob):
    gpu: str = Field(description="GPU name ('A100 80G', 'H20', '4090') or size ('80GB')")
    zero: int = Field(3, ge=0, le=3, description="ZeRO stage used when sharding (default 3 ≈ FSDP full_shard)")
    max_gpus: int = Field(1024, ge=1, le=100_000, description="search limit")


class FindMinGpusOutput(BaseModel):
    gpu: str
    gpu_memory_gb: float
    reported_gb: float | None = Field(None, description="what the driver reports per GPU (nvidia-smi MiB), GB")
    usable_gb: float | None = Field(None, description="reported × engine memory fraction: what the search fits into")
    min_gpus: int | None = Field(description="fewest GPUs that fit; null if none up to max_gpus")
    nodes: int | None = Field(description="8-GPU nodes needed")
    per_gpu_total_gb: float | None
    headroom_gb: float | None
    estimate: EstimateMemoryOutput | None
    rent_gpus: int | None = Field(
        None,
        description="GPUs as actually rented: whole 8-GPU servers above 8, else "
        "1/2/4/8 for training; equals min_gpus when that is already so",
    )
    rent_per_gpu_total_gb: float | None = Field(None, description="per-GPU decimal GB when sharded over rent_gpus")
    rent_headroom_gb: float | None = Field(None, description="headroom per GPU (decimal GB) over rent_gpus")
    notes: list[dict[str, str]] = Field(
        default_factory=list, description="what the minimum means when renting (whole servers, thin headroom), zh/en"
    )
    states_gb: float | None = Field(
        None,
        description="what must be split across the GPUs before activations: the whole model's weights (inference) "
        "or weights + gradients + optimizer states (training), decimal GB",
    )
    floor_gpus: int | None = Field(
        None,
        description="ceil(states_gb / usable_gb): the count by capacity alone; min_gpus adds the activations, KV "
        "cache, overhead and the TP sizes the model accepts",
    )
    layout: dict[str, Any] | None = Field(
        None,
        description="training beyond one server: tp × pp (TP inside a server on NVLink, PP across servers), gpus, "
        "nodes, reason zh/en, source (tools/memory_parallel.training_layout)",
    )
    one_server_offload: dict[str, Any] | None = Field(
        None,
        description="training that needs more than one 8-GPU server: the same job on one server with ZeRO-3 "
        "offloading parameters and optimizer states to CPU (per_gpu_gb, fits, host_ram_gb per machine by "
        "DeepSpeed's estimator formula, source) — what a team with one machine can do, at a large speed cost",
    )
    summary: dict[str, str]
    assumptions: list[dict[str, str]]
    sources: list[str]


# Below this headroom the minimum is a paper fit: allocator fragmentation and step-to-step peaks
# routinely move real usage by 0.5–2 GB (see the overhead assumption), so say so.
THIN_HEADROOM_FRACTION = 0.05


def _rentable_count(n: int, mode: str) -> int:
    """How servers are rented: whole 8-GPU machines above 8; 1/2/4/8-GPU instances below (training)."""
    if n > GPUS_PER_NODE:
        return math.ceil(n / GPUS_PER_NODE) * GPUS_PER_NODE
    if mode != "inference":
        return next(k for k in (1, 2, 4, 8) if k >= n)
    return n


def _rent_notes(
    found: int, est: EstimateMemoryOutput, cap: GpuCapacity, rent: int, rent_est: EstimateMemoryOutput | None
) -> list[dict[str, str]]:
    notes: list[dict[str, str]] = []
    if rent_est is not None and rent != found:
        nodes = math.ceil(rent / GPUS_PER_NODE)
        where_zh = f"{nodes} 台 8 卡机" if rent >= GPUS_PER_NODE else f"一台 {rent} 卡机"
        where_en = (
            f"{nodes} 8-GPU server{'s' if nodes > 1 else ''}" if rent >= GPUS_PER_NODE else f"one {rent}-GPU server"
        )
        notes.append(
            _a(
                f"{found} 张是理论最少；实际按整机租是 {rent} 张（{where_zh}），分片到 {rent} 张时每卡约 "
                f"{rent_est.total_gb:.1f} GB，余量约 {rent_est.headroom_gb:.1f} GB",
                f"{found} is the bare minimum; rented as whole machines that is {rent} GPUs ({where_en}), "
                f"about {rent_est.total_gb:.1f} GB per GPU with {rent_est.headroom_gb:.1f} GB to spare",
            )
        )
    if est.headroom_gb is not None and est.headroom_gb < THIN_HEADROOM_FRACTION * cap.memory_gb:
        notes.append(
            _a(
                f"{found} 张时余量只有 {est.headroom_gb:.1f} GB（不到显存的 5%），显存碎片和峰值波动就可能 OOM；"
                f"建议多租卡，或开 CPU 卸载、缩短序列",
                f"With {found} GPUs only {est.headroom_gb:.1f} GB (under 5% of memory) is left: fragmentation and "
                f"peaks can tip it into OOM; rent more GPUs, offload to CPU or shorten the sequence",
            )
        )
    return notes


def _pcie_only_note(gpu: str, rent: int) -> list[dict[str, str]]:
    """More than one server of cards without NVLink (GeForce: no P2P either): every tensor-parallel all-reduce
    crosses PCIe and then the network. knowledge/gpus.yaml nvlink_gbs_bidir = 0 marks such cards."""
    if rent <= GPUS_PER_NODE:
        return []
    from tools.gpus import resolve_gpu

    try:
        spec = resolve_gpu(gpu)
    except Exception:  # a bare size ("24GB"): nothing known about its links  # noqa: BLE001
        return []
    if spec.nvlink_gbs_bidir:
        return []
    name = spec.name.replace("NVIDIA ", "").replace("GeForce ", "")
    pcie = (spec.pcie_gbs_bidir or 0) / 2
    return [
        _a(
            f"{rent} 张 {name} 要跨 {math.ceil(rent / GPUS_PER_NODE)} 台机器：这种卡没有 NVLink，卡间通信只走 PCIe"
            f"（单向约 {pcie:g} GB/s），跨机再走网络，张量并行的通信会比计算还慢，实际不可行、不推荐；"
            "要么量化（int4/int8）减少卡数，要么换 80 GB 以上带 NVLink 的卡",
            f"{rent} × {name} spans {math.ceil(rent / GPUS_PER_NODE)} servers: the card has no NVLink, so GPU-to-GPU "
            f"traffic goes over PCIe (about {pcie:g} GB/s per direction) and then the network; "
            "tensor-parallel communication would outweigh the compute, so it is impractical: quantise (int4/int8) "
            "to need fewer cards, or use 80 GB+ cards with NVLink",
        )
    ]


def _training_layout(inp: FindMinGpusInput, model: Any, found: int) -> dict[str, Any] | None:
    if inp.mode == "inference":
        return None
    from tools.gpus import resolve_gpu
    from tools.memory_parallel import training_layout

    assumed = None
    try:
        nvlink = resolve_gpu(inp.gpu).nvlink_gbs_bidir
    except Exception:  # a bare size ("80GB"): an 80 GB training card is the A100/H100 SXM class  # noqa: BLE001
        if resolve_gpu_capacity(inp.gpu).memory_gb < 80:
            return None
        assumed = resolve_gpu("A100 80GB")
        nvlink = assumed.nvlink_gbs_bidir
    layout = training_layout(model.arch, found, nvlink)
    if layout and assumed:
        layout["reason"] = {
            "zh": layout["reason"]["zh"] + "（80 GB 的卡按 A100 80GB SXM 的 NVLink 计）",
            "en": layout["reason"]["en"] + " (an 80 GB card taken as the A100 80GB SXM for its NVLink)",
        }
    return layout


def _layout_note(layout: dict[str, Any] | None) -> list[dict[str, str]]:
    if not layout:
        return []
    tp, pp, n, nodes = layout["tp"], layout["pp"], layout["gpus"], layout["nodes"]
    return [
        _a(
            f"不用 ZeRO-3 而用 Megatron 式 3D 并行时：TP={tp}（机内）× PP={pp}（跨机）= {n} 张（{nodes} 台 8 卡机）构成一个"
            f"模型副本，再按数据并行成倍扩展；" + layout["reason"]["zh"],
            f"With Megatron-style 3D parallelism instead of ZeRO-3: TP={tp} (inside a server) × PP={pp} (across "
            f"servers) = {n} GPUs ({nodes} 8-GPU servers) per model replica, multiplied by data parallelism; "
            + layout["reason"]["en"],
        )
    ]


def find_min_gpus(inp: FindMinGpusInput) -> FindMinGpusOutput:
    """Fewest GPUs of one type: training shards with ZeRO/FSDP (per-GPU memory falls with N),
    inference splits weights and KV heads by tensor parallelism (powers of two)."""
    from tools.models import resolve_model

    model = resolve_model(inp.model, inp.params)
    cap = resolve_gpu_capacity(inp.gpu)
    data = inp.model_dump(exclude={"gpu", "max_gpus"})
    if inp.fsdp != "none":
        data["zero"] = 0
    job = MemoryJob.model_validate(data).check()
    if inp.mode == "inference":
        from tools.memory_parallel import tp_allowed

        # TP sizes the model accepts (vLLM: heads divisible by TP); above one server, TP 8 × pipeline stages
        candidates = [
            n
            for n in (1, 2, 4, 8, 16, 32, 64, 128)
            if n <= inp.max_gpus and (n > GPUS_PER_NODE or job.engine_id == "hf" or tp_allowed(model.arch, n))
        ]
    else:
        candidates = list(range(1, inp.max_gpus + 1))
    found = None
    lo, hi = 0, len(candidates) - 1
    if candidates and _fits(job.model_copy(update={"gpus": candidates[-1]}), cap, model):
        while lo < hi:  # per-GPU memory never rises with more sharding, so bisect
            mid = (lo + hi) // 2
            if _fits(job.model_copy(update={"gpus": candidates[mid]}), cap, model):
                hi = mid
            else:
                lo = mid + 1
        found = candidates[lo]
    A = [
        _a(
            f"训练按 ZeRO‑{job.zero_stage} 分片在 N 张卡上搜索最少卡数；推理按张量并行 1/2/4/8… 卡搜索",
            f"Training: smallest N with ZeRO‑{job.zero_stage} sharding over N GPUs; inference: tensor parallel over 1/2/4/8… GPUs",
        )
    ]
    if found is None:
        return FindMinGpusOutput(
            gpu=cap.name,
            gpu_memory_gb=cap.memory_gb,
            reported_gb=cap.reported_gb,
            usable_gb=_round(_usable(job, cap) / GB),
            min_gpus=None,
            nodes=None,
            per_gpu_total_gb=None,
            headroom_gb=None,
            estimate=None,
            summary=_a(
                f"最多 {inp.max_gpus} 张 {cap.name} 也放不下；考虑 LoRA/QLoRA、CPU 卸载、更短序列或更大显存的卡",
                f"Even {inp.max_gpus} × {cap.name} do not fit; consider LoRA/QLoRA, CPU offload, shorter "
                f"sequences or a larger GPU",
            ),
            assumptions=A,
            sources=[SOURCES["zero"]],
        )
    est = estimate_memory(EstimateMemoryInput.model_validate({**job.model_dump(), "gpus": found, "gpu": inp.gpu}))
    nodes = math.ceil(found / GPUS_PER_NODE)
    usable = _usable(job, cap)
    layout = _training_layout(inp, model, found)
    sharded = est.weights_gb + (0.0 if inp.mode == "inference" else est.gradients_gb + est.optimizer_gb)
    states = (est.whole_model_weights_gb or sharded * found) * GB if inp.mode == "inference" else sharded * found * GB
    rent = _rentable_count(found, inp.mode)
    rent_est = (
        est
        if rent == found
        else estimate_memory(EstimateMemoryInput.model_validate({**job.model_dump(), "gpus": rent, "gpu": inp.gpu}))
    )
    return FindMinGpusOutput(
        one_server_offload=_one_server_offload(job, inp.gpu, rent),
        gpu=cap.name,
        gpu_memory_gb=cap.memory_gb,
        reported_gb=cap.reported_gb,
        usable_gb=_round(_usable(job, cap) / GB),
        min_gpus=found,
        nodes=nodes,
        per_gpu_total_gb=est.total_gb,
        headroom_gb=est.headroom_gb,
        estimate=est,
        rent_gpus=rent,
        rent_per_gpu_total_gb=rent_est.total_gb,
        rent_headroom_gb=rent_est.headroom_gb,
        notes=_rent_notes(found, est, cap, rent, rent_est) + _pcie_only_note(inp.gpu, rent) + _layout_note(layout),
        layout=layout,
        states_gb=_round(states / GB),
        floor_gpus=math.ceil(states / usable) if usable > 0 else None,
        summary=_a(
            f"至少 {found} 张 {cap.name}（{nodes} 台 8 卡机）：每卡约 {est.total_gb:.1f} GB，余量 {est.headroom_gb:.1f} GB",
            f"At least {found} × {cap.name} ({nodes} 8-GPU node{'s' if nodes > 1 else ''}): about "
            f"{est.total_gb:.1f} GB per GPU, {est.headroom_gb:.1f} GB to spare",
        ),
        assumptions=A + est.assumptions,
        sources=est.sources,
    )


def _one_server_offload(job: MemoryJob, gpu: str, rent: int) -> dict[str, Any] | None:
    """Training past one server, re-run on one 8-GPU server with ZeRO-3 parameter + optimizer offload (the
    DeepSpeed ZeRO-Infinity/Offload setting a one-machine team reaches for): the GPU side shrinks to
    activations, the host must hold the offloaded states (DeepSpeed memory.rst estimator, 1.5× buffer)."""
    if job.mode == "inference" or rent <= GPUS_PER_NODE or job.offload != "none":
        return None
    try:
        est = estimate_memory(
            EstimateMemoryInput.model_validate(
                {
                    **job.model_dump(),
                    "gpus": GPUS_PER_NODE,
                    "zero": 3,
                    "fsdp": "none",
                    "offload": "optimizer_and_params",
                    "gpu": gpu,
                }
            )
        )
    except (ToolInputError, ValueError):
        return None
    return {
        "gpus": GPUS_PER_NODE,
        "per_gpu_gb": est.total_gb,
        "fits": est.fits,
        "host_ram_gb": est.host_ram_gb,
        "source": "DeepSpeed docs memory.rst (estimate_zero3_model_states_mem_needs, offload_param + offload_optimizer)",
    }


# ---- find_max_fit


class FindMaxFitInput(MemoryJob):
    gpu: str = Field(description="GPU name or size ('24GB')")
    solve_for: Literal["batch", "seq_len", "context", "concurrency"] = Field(
        "batch",
        description="batch = largest micro-batch (training); seq_len = longest training sequence; "
        "context = longest inference context; concurrency = most sequences served at once",
    )


class FindMaxFitOutput(BaseModel):
    gpu: str
    gpu_memory_gb: float
    reported_gb: float | None = Field(None, description="what the driver reports per GPU (nvidia-smi MiB), GB")
    usable_gb: float | None = Field(None, description="reported × engine memory fraction: what the search fits into")
    solve_for: str
    max_value: int | None = Field(description="largest value that fits; null if even 1 does not")
    capped_by_model: bool = Field(
        False,
        description="true when the model's context limit (native window, else "
        "max_position_embeddings), not memory, set the limit",
    )
    native_context: int | None = Field(None, description="the model's native window when capped by it (tokens)")
    rope_scaled_context: int | None = Field(
        None, description="longest context with the publisher's rope scaling (e.g. YaRN), tokens"
    )
    max_with_rope_scaling: int | None = Field(
        None, description="longest length memory allows up to rope_scaled_context, tokens (same settings)"
    )
    estimate: EstimateMemoryOutput | None
    summary: dict[str, str]
    assumptions: list[dict[str, str]]
    sources: list[str]


def find_max_fit(inp: FindMaxFitInput) -> FindMaxFitOutput:
    """Largest micro-batch / sequence / context / concurrency that fits (bisection on a monotone total)."""
    from tools.models import resolve_model

    model = resolve_model(inp.model, inp.params)
    cap = resolve_gpu_capacity(inp.gpu)
    job = MemoryJob.model_validate(inp.model_dump(exclude={"gpu", "solve_for"})).check()
    field = inp.solve_for
    if job.mode == "inference" and field in ("batch", "seq_len"):
        field = "concurrency" if field == "batch" else "context"
    if job.mode != "inference" and field in ("context", "concurrency"):
        field = "seq_len" if field == "context" else "batch"
    limit = {"batch": 1 << 16, "seq_len": 1 << 24, "context": 1 << 24, "concurrency": 1 << 20}[field]
    value = _max_value(job, cap, model, field, limit)
    names = {
        "batch": ("微批", "micro-batch"),
        "seq_len": ("序列长度", "sequence length"),
        "context": ("上下文长度", "context length"),
        "concurrency": ("并发序列数", "concurrent sequences"),
    }
    zh_n, en_n = names[field]
    if value is None:
        return FindMaxFitOutput(
            gpu=cap.name,
            gpu_memory_gb=cap.memory_gb,
            reported_gb=cap.reported_gb,
            usable_gb=_round(_usable(job, cap) / GB),
            solve_for=field,
            max_value=None,
            estimate=None,
            summary=_a(f"{cap.name} 连 {zh_n}=1 都放不下", f"{cap.name} cannot fit even {en_n} = 1"),
            assumptions=[
                _a(
                    "其余设置按输入不变；可试 LoRA/QLoRA、量化、更多卡或更大显存的卡",
                    "Other settings as given; try LoRA/QLoRA, quantisation, more GPUs or a larger GPU",
                )
            ],
            sources=[SOURCES["zero"], SOURCES["vllm"]],
        )
    est = estimate_memory(EstimateMemoryInput.model_validate({**job.model_dump(), field: value, "gpu": inp.gpu}))
    capped = field in ("seq_len", "context") and value == model.arch.context_limit
    assumptions = list(est.assumptions)
    if capped:
        note = _context_cap_note(model.arch, value)
        assumptions = [note] + [a for a in assumptions if a != note]
    arch = model.arch
    scaled = arch.rope_scaled_context if capped and arch.native_context == value else None
    with_scaling = _max_value(job, cap, model, field, scaled, model_limit=False) if scaled else None
    return FindMaxFitOutput(
        gpu=cap.name,
        gpu_memory_gb=cap.memory_gb,
        reported_gb=cap.reported_gb,
        usable_gb=_round(_usable(job, cap) / GB),
        solve_for=field,
        max_value=value,
        estimate=est,
        capped_by_model=capped,
        native_context=arch.native_context if scaled else None,
        rope_scaled_context=scaled,
        max_with_rope_scaling=with_scaling,
        summary=_a(
            f"{cap.name} 上最大{zh_n}约 {value:,}（每卡 {est.total_gb:.1f} GB）"
            + ("，已到模型的上下文上限" if capped else ""),
            f"Largest {en_n} on {cap.name}: about {value:,} ({est.total_gb:.1f} GB per GPU)"
            + ("; this is the model's context limit" if capped else ""),
        ),
        assumptions=assumptions,
        sources=est.sources,
    )


def _tools():
    from tools.registry import ToolSpec

    units = "All sizes per GPU in decimal GB (10^9 bytes) with GiB (2^30) beside; every result lists assumptions and sources."
    return [
        ToolSpec(
            name="estimate_memory",
            description=(
                "GPU memory per GPU for full training/fine-tuning, LoRA, QLoRA or inference: weights, "
                "gradients, optimizer states (incl. fp32 master), activations (Korthikanti et al., with "
                "none/selective/full recomputation) incl. logits, KV cache (GQA/MLA/sliding window), "
                "framework overhead, total. Supports ZeRO 0–3/FSDP over N GPUs, CPU offload (host RAM "
                "needed), precisions fp32…int4 and optimizers. With `gpu` (name or '24GB'): fits, "
                "headroom_gb, max_batch, max_seq_len, usable_gb (driver-reported memory × engine fraction), verdict "
                "fits | fits_with_changes | does_not_fit with numbered changes. Also returns a common rule of thumb "
                "(optimizer ≈ 4× weights) beside the precise 16 B/param figure. " + units
            ),
            input_model=EstimateMemoryInput,
            func=estimate_memory,
        ),
        ToolSpec(
            name="find_min_gpus",
            description=(
                "Fewest GPUs of one type (name or size) that fit a job: training sharded with ZeRO‑3/"
                "FSDP by default (set zero), inference by tensor parallelism. Returns min_gpus, 8-GPU "
                "nodes, per-GPU total and headroom (decimal GB) and the full estimate."
            ),
            input_model=FindMinGpusInput,
            func=find_min_gpus,
        ),
        ToolSpec(
            name="find_max_fit",
            description=(
                "Largest micro-batch, training sequence length, inference context length or number of "
                "concurrent sequences that fits on a GPU (name or size). Returns max_value and the "
                "estimate at that value (decimal GB)."
            ),
            input_model=FindMaxFitInput,
            func=find_max_fit,
        ),
    ]


TOOLS = _tools()
