"""Engine and training-stack profiles (knowledge/engines.yaml): what each runtime reserves and keeps.

Why a profile and not one constant: the same job needs different memory under Hugging Face `generate` (whole-prompt
prefill, nothing reserved), vLLM (a fixed fraction of the card reserved up front, chunked prefill, several GiB
outside PyTorch under tensor parallelism) or SGLang (a static fraction for weights + KV). Training stacks differ too:
DeepSpeed ZeRO keeps fp32 gradient partitions the ZeRO paper does not count, and the loss implementation decides
whether the logits cost 16 B or under 1 B per element. Every number comes from the YAML with its source and version.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, Field

from tools.data import load_yaml
from tools.errors import ToolInputError
from tools.registry import ToolSpec

InferenceEngine = Literal["hf", "vllm", "sglang"]
TrainingEngine = Literal["hf", "deepspeed", "fsdp"]
Loss = Literal["hf", "bf16", "chunked", "fused"]
GiB = 2**30


class InferenceProfile(BaseModel):
    id: str
    label: dict[str, str]
    version: str
    memory_fraction: float
    memory_fraction_key: str | None = None
    prefill: Literal["whole", "chunked"]
    prefill_chunk_tokens: int | None = None
    non_torch_gib: dict[int, float]
    notes: dict[str, str]
    source: str

    def non_torch_bytes(self, tensor_parallel: int) -> float:
        """Memory outside PyTorch per GPU: the entry for the largest TP size not above `tensor_parallel`."""
        keys = sorted(k for k in self.non_torch_gib if k <= max(1, tensor_parallel))
        return self.non_torch_gib[keys[-1]] * GiB


class TrainingProfile(BaseModel):
    id: str
    label: dict[str, str]
    version: str
    extra_fp32_grad_bytes: dict[int, float]
    default_loss: Loss
    source: str


class LossProfile(BaseModel):
    id: str
    label: dict[str, str]
    bytes_per_element: float
    version: str
    why: dict[str, str]
    source: str


@lru_cache(maxsize=1)
def _raw() -> dict:
    return load_yaml("engines.yaml")


@lru_cache(maxsize=8)
def inference_profile(engine: str) -> InferenceProfile:
    row = _raw()["inference"][engine]
    return InferenceProfile.model_validate({"id": engine, **row})


@lru_cache(maxsize=8)
def training_profile(engine: str) -> TrainingProfile:
    row = _raw()["training"][engine]
    return TrainingProfile.model_validate({"id": engine, **row})


@lru_cache(maxsize=8)
def loss_profile(loss: str) -> LossProfile:
    row = _raw()["losses"][loss]
    return LossProfile.model_validate({"id": loss, **row})


def inference_engines() -> list[str]:
    return list(_raw()["inference"])


def training_engines() -> list[str]:
    return list(_raw()["training"])


def losses() -> list[str]:
    return list(_raw()["losses"])


# ---------------------------------------------------------------- start-up reservation -----------
# What a serving engine takes at start-up (knowledge/engines.yaml `preallocation`): why nvidia-smi shows far more
# than the weights. Two bases: `total` (vLLM gpu_memory_utilization, SGLang mem_fraction_static: a fraction of the
# card, weights included) and `free_after_weights` (LMDeploy cache_max_entry_count, TensorRT-LLM
# kv_cache_free_gpu_memory_fraction: a fraction of what is still free once the weights are loaded, all KV cache).


class PreallocationProfile(BaseModel):
    engine: str
    setting: str
    spellings: list[str]
    default: float
    basis: Literal["total", "free_after_weights"]
    absolute: dict[str, str]
    order: dict[str, str] | None = None
    floor: dict[str, str] | None = None  # why lowering the fraction until start-up fails, and what to lower instead
    default_note: dict[str, str] | None = None
    # settings users take for a memory knob that only limit requests (LMDeploy --max-concurrent-requests):
    # {spellings: [...], zh, en} with {flag} for the spelling the user wrote
    not_memory: dict[str, Any] | None = None
    per_instance_since: str | None = None
    source: str
    as_of: str


def preallocation_engines() -> list[str]:
    return list(_raw().get("preallocation", {}))


@lru_cache(maxsize=8)
def preallocation_profile(engine: str) -> PreallocationProfile:
    rows = _raw()["preallocation"]
    key = next((k for k in rows if k.lower().replace("-", "") == engine.lower().replace("-", "")), None)
    if key is None:
        raise ToolInputError(
            f"没有引擎 {engine!r} 的预分配数据，可选：{'、'.join(rows)}",
            f"No start-up reservation data for engine {engine!r}; known: {', '.join(rows)}",
            field="engine",
            suggestions=list(rows),
        )
    return PreallocationProfile.model_validate({"engine": key, **rows[key]})


class EngineReservationInput(BaseModel):
    engine: str = Field(description="serving engine: vLLM | SGLang | LMDeploy | TensorRT-LLM")
    gpu: str | None = Field(None, description="GPU name ('A800 80G', '4090'); its memory comes from the GPU table")
    card_gb: float | None = Field(None, gt=0, le=2000, description="memory of one card, decimal GB (when no gpu)")
    fraction: float | None = Field(
        None, gt=0, le=1, description="the engine's setting as the user set it (None = the engine's default)"
    )
    gpus: int = Field(1, ge=1, le=64, description="cards the engine runs on (tensor parallel): each reserves its own")
    weights_gb: float | None = Field(
        None, ge=0, description="the whole model's weights, decimal GB (split over `gpus`); needed for the free basis"
    )
    used_before_gb: float = Field(
        0.0, ge=0, description="memory other processes already hold on each card when the engine starts, GB"
    )


class EngineReservation(BaseModel):
    engine: str
    setting: str
    fraction: float
    fraction_is_default: bool
    basis: str = Field(description="total = fraction of the card; free_after_weights = fraction of what is free")
    card_gb: float = Field(description="one card's memory, decimal GB (the table's figure or the user's)")
    card_total_mib: int | None = Field(None, description="the card's nvidia-smi total, MiB (when cited)")
    gpus: int
    weights_per_gpu_gb: float | None = None
    reserved_per_gpu_gb: float | None = Field(
        None, description="what the engine holds on each card after start-up, decimal GB (weights included)"
    )
    reserved_per_gpu_mib: int | None = Field(None, description="the same in MiB, as nvidia-smi prints it")
    kv_cache_per_gpu_gb: float | None = Field(None, description="of that, the KV-cache pool per card, GB")
    left_for_activations_gb: float | None = Field(
        None, description="free basis: the (1 − fraction) share left for activations and temporary buffers, GB"
    )
    formula: dict[str, str]
    lower: dict[str, str]
    order: dict[str, str] | None = None
    default_note: dict[str, str] | None = None
    source: str
    as_of: str


def engine_reservation(inp: EngineReservationInput) -> EngineReservation:
    """Reserved = fraction × card (total basis) or weights + fraction × (card − weights − others) (free basis)."""
    prof = preallocation_profile(inp.engine)
    card_gb, mib = inp.card_gb, None
    if inp.gpu:
        from tools.gpus import resolve_gpu

        spec = resolve_gpu(inp.gpu)
        card_gb = card_gb or float(spec.memory_gb)
        mib = spec.nvidia_smi_total_mib if not inp.card_gb else None
    if not card_gb:
        raise ToolInputError("请给出显卡型号或单卡显存（GB）", "Give the GPU or one card's memory in GB", field="gpu")
    frac = inp.fraction if inp.fraction is not None else prof.default
    w = inp.weights_gb / inp.gpus if inp.weights_gb is not None else None
    reserved = kv = left = None
    f_s, c_s = f"{frac:g}", f"{card_gb:g}"
    if prof.basis == "total":
        reserved = frac * card_gb
        kv = max(reserved - w, 0.0) if w is not None else None
        formula = {
            "zh": f"{prof.setting} {f_s} × 每卡 {c_s} GB = {reserved:.1f} GB（权重、激活和 KV cache 都在里面）",
            "en": f"{prof.setting} {f_s} × {c_s} GB per card = {reserved:.1f} GB (weights, activations and KV cache inside it)",
        }
    elif w is not None:
        free = max(card_gb - w - inp.used_before_gb, 0.0)
        kv, left = frac * free, (1 - frac) * free
        reserved = w + kv
        formula = {
            "zh": f"权重 {w:.1f} GB + {prof.setting} {f_s} × 加载权重后的空闲 ({c_s} − {w:.1f}"
            + (f" − {inp.used_before_gb:g}" if inp.used_before_gb else "")
            + f") GB = {w:.1f} + {kv:.1f} = {reserved:.1f} GB；剩给激活的只有 {left:.2f} GB",
            "en": f"weights {w:.1f} GB + {prof.setting} {f_s} × the free memory after loading ({c_s} − {w:.1f}"
            + (f" − {inp.used_before_gb:g}" if inp.used_before_gb else "")
            + f") GB = {w:.1f} + {kv:.1f} = {reserved:.1f} GB; only {left:.2f} GB is left for activations",
        }
    else:
        formula = {
            "zh": f"权重 + {prof.setting} {f_s} × 加载权重后的空闲显存（按每卡 {c_s} GB）",
            "en": f"weights + {prof.setting} {f_s} × the memory free after loading the weights ({c_s} GB per card)",
        }
    lower = {
        "zh": f"调小 {prof.setting}（现在是 {f_s}）就少占；" + prof.absolute["zh"],
        "en": f"lower {prof.setting} (now {f_s}) to reserve less; " + prof.absolute["en"],
    }
    reserved_mib = None
    if reserved is not None:
        reserved_mib = round(frac * mib) if (mib and prof.basis == "total") else round(reserved * 1e9 / 2**20)
    return EngineReservation(
        engine=prof.engine,
        setting=prof.setting,
        fraction=frac,
        fraction_is_default=inp.fraction is None,
        basis=prof.basis,
        card_gb=card_gb,
        card_total_mib=mib,
        gpus=inp.gpus,
        weights_per_gpu_gb=round(w, 3) if w is not None else None,
        reserved_per_gpu_gb=round(reserved, 3) if reserved is not None else None,
        reserved_per_gpu_mib=reserved_mib,
        kv_cache_per_gpu_gb=round(kv, 3) if kv is not None else None,
        left_for_activations_gb=round(left, 3) if left is not None else None,
        formula=formula,
        lower=lower,
        order=prof.order,
        default_note=prof.default_note,
        source=prof.source,
        as_of=prof.as_of,
    )


TOOLS: list[ToolSpec] = [
    ToolSpec(
        name="engine_reservation",
        description=(
            "What a serving engine reserves on each GPU at start-up, so nvidia-smi shows far more than the model: "
            "vLLM gpu_memory_utilization and SGLang mem_fraction_static take a fraction of the whole card (default "
            "0.9); LMDeploy cache_max_entry_count (default 0.8) and TensorRT-LLM kv_cache_free_gpu_memory_fraction "
            "(default 0.9) take a fraction of the memory free after the weights. Returns the reserved GB (and MiB) "
            "per GPU, the KV-cache share, the formula and how to reserve less, with the source."
        ),
        input_model=EngineReservationInput,
        func=engine_reservation,
    )
]
