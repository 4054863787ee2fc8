"""Engine and training-stack profiles (knowledge/engines.yaml): what each runtime reserves and keeps.

Why a profile and not one constant: the same job needs different memory under Hugging Face `generate` (whole-prompt
prefill, nothing reserved), vLLM (a fixed fraction of the card reserved up front, chunked prefill, several GiB
outside PyTorch under tensor parallelism) or SGLang (a static fraction for weights + KV). Training stacks differ too:
DeepSpeed ZeRO keeps fp32 gradient partitions the ZeRO paper does not count, and the loss implementation decides
whether the logits cost 16 B or under 1 B per element. Every number comes from the YAML with its source and version.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

from pydantic import BaseModel

from tools.data import load_yaml

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
