"""What a card really offers: nominal (datasheet, decimal GB), reported (what the driver shows), usable.

Why: card memory is GiB-sized while datasheets print decimal GB — an "80 GB" A100 reports 81,920 MiB = 85.9 GB in
nvidia-smi, a "24 GB" RTX 4090 24,564 MiB = 25.76 GB. A verdict against the nominal figure is wrong in exactly the
borderline cases users ask about. The reported figure (MiB, cited per card in knowledge/gpus.yaml) is what
torch.cuda.mem_get_info() and vLLM's `total_gpu_memory` see; usable = reported × the engine's memory fraction
(vLLM gpu_memory_utilization, SGLang mem_fraction_static; 1.0 for PyTorch training and HF generate, whose CUDA
context is counted in the estimate's overhead instead).
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from tools.errors import ToolInputError

MIB = 2**20
GB = 10**9


class GpuCapacity(BaseModel):
    name: str
    memory_gb: float = Field(description="nominal (datasheet) memory, decimal GB — kept for compatibility")
    reported_mib: int | None = Field(None, description="nvidia-smi memory total, MiB; None = not known")
    reported_gb: float = Field(description="reported_mib × 2^20 / 1e9, or the nominal size when not known")
    reported_source: str | None = None
    reported_confidence: str | None = Field(
        None, description="observed (public nvidia-smi output) | derived (reasoned from a sibling card) | nominal"
    )
    source: str | None = None
    caveat: str | None = Field(None, description="e.g. modded card, off-warranty (zh / en)")
    fp8_supported: bool | None = Field(
        None, description="FP8 tensor cores (gpus.yaml fp8_supported); None = a bare size"
    )
    bf16_supported: bool | None = Field(
        None, description="bf16 tensor math (gpus.yaml bf16_dense_tflops given); None = a bare size"
    )

    @property
    def nominal_gb(self) -> float:
        return self.memory_gb


def reported_gb_from_mib(mib: int) -> float:
    return mib * MIB / GB


def _sized_capacity(gb: float) -> GpuCapacity:
    """A bare size ("24G显存"): cards sold at that size carry binary-sized memory, so what the driver reports is the
    smallest nvidia-smi total among the table's cards of that nominal size (an "24 GB" card shows 23,028–24,576 MiB
    = 24.1–25.8 GB, never 24.0); a size no table card has is taken at face value."""
    from tools import gpus

    rows = [s for s in gpus.all_gpus() if float(s.memory_gb) == gb and s.nvidia_smi_total_mib]
    if not rows:
        return GpuCapacity(name=f"{gb:g} GB", memory_gb=gb, reported_gb=gb, reported_confidence="nominal")
    low = min(rows, key=lambda s: int(s.nvidia_smi_total_mib or 0))
    mib = int(low.nvidia_smi_total_mib or 0)
    return GpuCapacity(
        name=f"{gb:g} GB",
        memory_gb=gb,
        reported_mib=mib,
        reported_gb=round(reported_gb_from_mib(mib), 3),
        reported_source=(
            f"smallest nvidia-smi total among the {len(rows)} cards of {gb:g} GB in knowledge/gpus.yaml ({low.name}: "
            f"{mib} MiB; {low.nvidia_smi_total_source or 'gpus.yaml'})"
        ),
        reported_confidence="derived",
    )


def resolve_gpu_capacity(gpu: str) -> GpuCapacity:
    """A size ('24GB', '80G', '24') or a GPU name looked up in tools/gpus.py.

    A bare size is taken at face value for both nominal and reported memory (we cannot know which card the user
    means); a named card uses its cited nvidia-smi total."""
    from tools.quantities import parse_size_gb

    text = str(gpu).strip()
    bare = re.fullmatch(r"\d+(?:\.\d+)?", text)
    sized = re.match(r"^\d+(?:\.\d+)?\s*(?:gb|gib|g|tb|t)?(?:\s*(?:显存|vram|memory|hbm\w*|gddr\w*))?$", text.lower())
    if sized and not (bare and float(text) > 300):  # "4090" is a card, "24" / "24GB" / "24G显存" a size
        gb = parse_size_gb(text, field="gpu")
        return _sized_capacity(gb)
    try:
        from tools import gpus
    except ImportError:  # pragma: no cover - the table ships with the package
        raise ToolInputError(
            f"GPU 型号表还不可用，无法识别「{text}」；请直接给显存大小，如 24GB 或 80G",
            f"The GPU table is not available yet, cannot resolve {text!r}; give a size such as 24GB or 80G",
            field="gpu",
        ) from None
    spec = gpus.resolve_gpu(text)
    mib = spec.nvidia_smi_total_mib
    return GpuCapacity(
        name=spec.name,
        memory_gb=float(spec.memory_gb),
        reported_mib=mib,
        reported_gb=round(reported_gb_from_mib(mib), 3) if mib else float(spec.memory_gb),
        reported_source=spec.nvidia_smi_total_source,
        reported_confidence=spec.nvidia_smi_total_confidence if mib else "nominal",
        source=spec.source,
        caveat=spec.caveat,
        fp8_supported=spec.fp8_supported,
        # NVIDIA rows without a bf16 figure are the pre-Ampere cards (Volta, Turing, Pascal, Kepler); other vendors'
        # rows often lack the figure without lacking the format (910B has bf16), so they stay unknown
        bf16_supported=bool(spec.bf16_dense_tflops) if spec.is_nvidia else None,
    )
