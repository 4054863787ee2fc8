"""The GPU spec table: forgiving lookup, side-by-side comparison, and corrections to common claims.

Data: `knowledge/gpus.yaml` (each row with `source`, `as_of`, `confidence`; `nvidia_smi_total_mib` for every card).
Dense and sparse Tensor figures are separate fields and the tools use dense unless asked;
GeForce/RTX BF16 dense is the FP32-accumulate rate (NVIDIA Ada whitepaper App. A).

Other modules call `resolve_gpu(name) -> GpuSpec` (memory sizing, prices, planner,
diagnosis) and `all_gpus()`; `GpuSpec.dense_tflops(precision)` gives the peak used for time
estimates.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, Field, computed_field, field_validator

from tools.data import load_yaml
from tools.errors import ToolInputError
from tools.registry import ToolSpec

Precision = Literal["bf16", "fp16", "fp8", "tf32", "fp32", "int8"]


class GpuSpec(BaseModel):
    """One GPU as the datasheet (or the best cited source) describes it. None = not supported / not published."""

    id: str
    name: str
    family: str
    vendor: str
    is_nvidia: bool
    architecture: str
    form_factor: str
    memory_gb: float = Field(description="on-board memory, decimal GB")
    memory_type: str | None = Field(None, description="None = not published in the sources checked")
    mem_bw_gbs: float | None = Field(None, description="memory bandwidth GB/s")
    fp32_tflops: float | None = None
    fp64_tflops: float | None = None
    tf32_dense_tflops: float | None = None
    tf32_sparse_tflops: float | None = None
    bf16_dense_tflops: float | None = None
    fp16_dense_tflops: float | None = None
    bf16_fp16_sparse_tflops: float | None = None
    fp8_dense_tflops: float | None = None
    fp8_sparse_tflops: float | None = None
    fp4_dense_tflops: float | None = None
    fp4_sparse_tflops: float | None = None
    int8_dense_tops: float | None = None
    int8_sparse_tops: float | None = None
    nvlink_version: str | None = None
    nvlink_gbs_bidir: float | None = Field(None, description="NVLink total bidirectional GB/s per GPU; 0 = none")
    pcie_gen: int | None = None
    pcie_lanes: int | None = None
    pcie_gbs_bidir: float | None = Field(None, description="NVIDIA-style bidirectional x16 figure, GB/s")
    tdp_w: float | None = None
    release_year: int | None = None
    transformer_engine_fp8: bool = False
    fp8_supported: bool = False
    china_specific: bool = False
    china_export_status: str | None = None
    china_availability: str | None = None
    notes: str | None = None
    price_key: str | None = Field(None, description="row in knowledge/prices.yaml, None = no price data")
    aliases: list[str] = Field(default_factory=list)
    nvidia_smi_names: list[str] = Field(default_factory=list)
    nvidia_smi_total_mib: int | None = Field(
        None, description="memory total nvidia-smi prints, MiB (2^20 bytes); None = no public log cited"
    )
    nvidia_smi_total_source: str | None = None
    nvidia_smi_total_confidence: str | None = Field(
        None, description="observed = seen in public nvidia-smi output; derived = reasoned from a sibling card"
    )
    gpus_per_board: int = Field(
        1, description="GPUs on one board (Tesla K80 = 2 × GK210): memory_gb is per GPU, as nvidia-smi lists it"
    )
    modded: bool = Field(False, description="memory-modded board (e.g. 4090 48G, 2080 Ti 22G): not an NVIDIA SKU")
    caveat: str | None = Field(None, description="renter-facing caveat, zh / en (modded, off-warranty, old)")
    reliability: str | None = Field(None, description="what is publicly known about reliability, zh / en")
    lookup_rank: int = 0
    source: str
    as_of: str
    confidence: str
    lookup_note: str | None = Field(None, description="set when a vague name was resolved to a default variant")
    nvlink_links: int | None = Field(
        None, description="NVLink links per GPU (A100 SXM 12, A800 SXM 8): the bandwidth is links × per-link rate"
    )
    corrected_from: str | None = Field(
        None,
        description="zh / en premise correction when the name as typed gave a size its family does not have and a "
        "sibling card does ('5090 24G' → the 24 GB RTX 5090 D V2): the answer states it in one line",
    )

    @field_validator("as_of", mode="before")
    @classmethod
    def _iso(cls, v: object) -> str:
        return str(v)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def reported_gb(self) -> float | None:
        """What the driver reports, decimal GB (nvidia-smi MiB × 2^20 / 1e9); None when not cited."""
        return round(self.nvidia_smi_total_mib * 2**20 / 1e9, 3) if self.nvidia_smi_total_mib else None

    @property
    def nvlink_gbs_per_direction(self) -> float:
        return (self.nvlink_gbs_bidir or 0) / 2

    @property
    def has_nvlink(self) -> bool:
        return bool(self.nvlink_gbs_bidir)

    @property
    def is_sxm(self) -> bool:
        """SXM/HGX boards: NVLink to every peer through NVSwitch (not a 2-card bridge)."""
        f = self.form_factor.lower()
        return "sxm" in f or "hgx" in f or "oam" in f

    def dense_tflops(self, precision: str, *, tf32_enabled: bool = False) -> float | None:
        """Dense peak for `precision` (no sparsity). `fp32` uses TF32 only when `tf32_enabled`;
        `bf16` on cards without BF16 (V100, T4) returns None — use fp16 there."""
        p = precision.lower()
        if p == "bf16":
            return self.bf16_dense_tflops
        if p == "fp16":
            return self.fp16_dense_tflops or self.bf16_dense_tflops
        if p == "fp8":
            return self.fp8_dense_tflops
        if p == "tf32":
            return self.tf32_dense_tflops
        if p == "fp32":
            return self.tf32_dense_tflops if tf32_enabled and self.tf32_dense_tflops else self.fp32_tflops
        if p == "int8":
            return self.int8_dense_tops
        raise ToolInputError(
            f"未知精度 {precision}",
            f"Unknown precision {precision}",
            field="precision",
            suggestions=["bf16", "fp16", "fp8", "tf32", "fp32"],
        )


class SeedNote(BaseModel):
    """A common claim that simplifies, with the precise statement beside it."""

    id: str
    seed_claim: str
    verdict: str
    zh: str
    en: str
    source: str
    as_of: str
    applies_to: list[str] = Field(default_factory=list)

    @field_validator("as_of", mode="before")
    @classmethod
    def _iso(cls, v: object) -> str:
        return str(v)


# ---------------------------------------------------------------- loading and lookup


@lru_cache(maxsize=1)
def _table() -> tuple[dict[str, GpuSpec], list[SeedNote]]:
    raw = load_yaml("gpus.yaml")
    gpus = {row["id"]: GpuSpec.model_validate(row) for row in raw["gpus"]}
    notes = [SeedNote.model_validate(n) for n in raw.get("seed_notes", [])]
    return gpus, notes


def all_gpus() -> list[GpuSpec]:
    """Every GPU in the table, in file order (copies; safe to modify)."""
    return [g.model_copy() for g in _table()[0].values()]


def seed_notes_for(gpu_ids: list[str] | None = None) -> list[SeedNote]:
    """Corrections to common claims relevant to these GPUs (all when None)."""
    notes = _table()[1]
    if gpu_ids is None:
        return list(notes)
    wanted = set(gpu_ids)
    return [n for n in notes if wanted & set(n.applies_to)]


def fp8_usage(name: str, architecture: str, supported: bool, fp8_dense: float | None) -> tuple[str, str]:
    """(zh, en) of what FP8 means on this card (knowledge/gpus.yaml `fp8_usage`): native FP8 and how a
    pre-quantized checkpoint is picked up, or weight-only dequantization to BF16 on a card without FP8 cores."""
    body = load_yaml("gpus.yaml").get("fp8_usage") or {}
    rule = body.get("supported" if supported else "unsupported") or {}
    fill = {"name": name, "arch": architecture, "fp8": f"{fp8_dense:g}" if fp8_dense else "?"}
    return str(rule.get("zh") or "").format(**fill), str(rule.get("en") or "").format(**fill)


_DROP_WORDS = (
    "nvidia",
    "geforce",
    "tesla",
    "huawei",
    "华为",
    "英伟达",
    "显卡",
    "tensorcoregpu",
    "tensorcore",
    "graphicscard",
    "gpu",
    "卡",
    "generation",
)
# Family tokens, most specific first ("a100" before "a10", "h200" before "h20", "l40s" before "l40" before "l4").
_FAMILY_PATTERNS: list[tuple[str, str]] = [
    ("pro6000", r"pro6000"),
    ("6000ada", r"6000ada"),
    ("a6000", r"a6000"),
    ("4090d", r"4090d"),
    ("4090", r"4090"),
    ("4080", r"4080"),
    ("4070ti", r"4070ti"),
    ("4070", r"4070"),
    ("4060m", r"4060(?:laptop|m(?![a-z]))"),
    ("4060ti", r"4060ti"),
    ("4060", r"4060"),
    ("2080ti", r"2080ti"),
    ("2080super", r"2080(?:super|s(?![a-z]))"),
    ("2080", r"2080"),
    ("2070super", r"2070(?:super|s(?![a-z]))"),
    ("2070", r"2070"),
    ("2060", r"2060"),
    ("1660ti", r"1660ti"),
    ("1660super", r"1660(?:super|s(?![a-z]))"),
    ("1080ti", r"1080ti"),
    ("1080", r"1080"),
    ("1070", r"1070"),
    ("5090d", r"5090d"),
    ("5090", r"5090"),
    ("5080", r"5080"),
    ("3090ti", r"3090ti"),
    ("3090", r"3090"),
    ("3080", r"3080"),
    ("3070ti", r"3070ti"),
    ("3070", r"3070"),
    ("3060ti", r"3060ti"),
    ("3060", r"3060"),
    ("3050tim", r"3050ti(?:laptop|m(?![a-z]))"),
    ("3050", r"3050"),
    ("a2000", r"a2000"),
    ("rtx8000", r"(?:rtx|quadro)8000"),
    ("rtx4000", r"(?:rtx|quadro)4000(?!\d)"),
    ("l40s", r"l40s"),
    ("l40", r"l40"),
    ("l20", r"l20"),
    ("h100", r"h100"),
    ("h800", r"h800"),
    ("h200", r"h200"),
    ("h20", r"h20"),
    ("b200", r"b200"),
    ("a100", r"a100"),
    ("a800", r"a800"),
    ("a10g", r"a10g"),
    ("a10", r"a10(?!0)"),
    ("a30", r"a30"),
    ("a40", r"a40"),
    ("l4", r"l4"),
    ("v100", r"v100"),
    ("t4", r"t4"),
    ("k80", r"k80"),
    ("p40", r"p40"),
    ("p100", r"p100"),
    ("910b4", r"910b4"),
    ("910b", r"910b"),
    ("910a", r"910a|ascend910(?![a-z0-9])"),
    # Chinese accelerators: a bare 「MLU370」 is the family (X4 by lookup_rank, and the answer says so); the K100-AI is
    # another SKU than the K100, a Z100 another than the Z100L (no rows: unknown, never swapped)
    ("mlu370", r"mlu370"),
    ("k100", r"k100(?!ai)"),
    ("z100l", r"z100l"),
    ("s4000", r"s4000"),
    ("s3000", r"s3000"),
    ("s80", r"(?:mtt|摩尔线程)s80(?!\d+(?![\dg]))"),  # 'mtt s80 16g' is the S80; 'mtt s800' is not
    ("p4", r"(?<![a-z0-9])p4(?!\d)"),
]


def _normalise(text: str) -> str:
    """Case-, width- and punctuation-insensitive key: 'NVIDIA A100-SXM4-80GB' -> 'a100sxm480g'."""
    s = unicodedata.normalize("NFKC", text).lower().replace("昇腾", "ascend")
    s = re.sub(r"(\d)\s*(?:gib|gb|g)\b", r"\1g", s)
    s = re.sub(r"(\d)\s*(?:gib|gb|g)(?=[^a-z]|$)", r"\1g", s)
    s = re.sub(r"[^0-9a-z\u4e00-\u9fff]+", "", s)
    for word in _DROP_WORDS:
        s = s.replace(word, "")
    return s


def _strip_count(text: str) -> str:
    """Drop a leading/trailing card count: '8x A100', '8×4090', '4张4090', 'A100 x8', '8卡A100'."""
    t = unicodedata.normalize("NFKC", text).strip()
    t = re.sub(r"^\s*\d+\s*(?:x|×|\*|张|块|卡|台)\s*", "", t, flags=re.I)
    # the x of "RTX 4000" is part of the name, not a count ("A100 x8", "A100x8" are counts)
    t = re.sub(r"\s*(?<![a-z])(?:x|×|\*)\s*\d+\s*$", "", t, flags=re.I)
    return t


@lru_cache(maxsize=1)
def _alias_index() -> dict[str, str]:
    index: dict[str, str] = {}
    for gpu in _table()[0].values():
        keys = [gpu.id, gpu.name, *gpu.aliases, *gpu.nvidia_smi_names]
        for key in keys:
            norm = _normalise(key)
            if norm and norm not in index:
                index[norm] = gpu.id
    return index


def _tokens(text: str) -> tuple[float | None, str | None]:
    """Memory size (GB) and form factor named in free text, if any."""
    t = unicodedata.normalize("NFKC", text).lower()
    mem = None
    m = re.search(r"(?<![a-z0-9])(\d{1,3})\s*(?:gib|gb|g)(?![a-z])(?!\s*/\s*s)", t)
    if m:
        mem = float(m.group(1))
    form = None
    if "sxm" in t or "hgx" in t:
        form = "sxm"
    elif "nvl" in t:
        form = "nvl"
    elif "pcie" in t or "pci-e" in t:
        form = "pcie"
    return mem, form


def _by_tokens(text: str) -> tuple[GpuSpec | None, list[GpuSpec]]:
    """Family + memory + form heuristics; returns (choice, other candidates)."""
    gpus = _table()[0]
    norm = _normalise(_strip_count(text))
    hit = next(((fam, m) for fam, pat in _FAMILY_PATTERNS if (m := re.search(pat, norm))), None)
    if hit is None:
        return None, []
    family, fm = hit
    cands = [g for g in gpus.values() if g.family == family]
    tier = re.match(r"ti|super", norm[fm.end() :])
    if tier and not any(tier.group(0) in g.id.split("_") for g in cands):
        return None, []  # "RTX 3060 Ti" is not an RTX 3060 (a different, smaller card): unknown, not swapped
    mem, form = _tokens(text)
    if mem is not None:
        cands = [g for g in cands if abs(g.memory_gb - mem) < 1]
    if form == "sxm":
        cands = [g for g in cands if g.is_sxm]
    elif form == "nvl":
        cands = [g for g in cands if "nvl" in g.id]
    elif form == "pcie":
        cands = [g for g in cands if not g.is_sxm and "nvl" not in g.id] or cands
    if not cands:
        return None, [g for g in gpus.values() if g.family == family]
    cands.sort(key=lambda g: g.lookup_rank)
    return cands[0], cands[1:]


def suggest_gpus(text: str, limit: int = 6) -> list[str]:
    """Close names for an unknown GPU (display names)."""
    gpus = _table()[0]
    index = _alias_index()
    close = difflib.get_close_matches(_normalise(text), list(index), n=limit * 3, cutoff=0.4)
    out: list[str] = []
    for key in close:
        name = gpus[index[key]].name
        if name not in out:
            out.append(name)
    return out[:limit] or [g.name for g in list(gpus.values())[:limit]]


def _variant_note(name: str, spec: GpuSpec, others: list[GpuSpec]) -> str:
    alt_zh = "、".join(o.name for o in others[:3])
    alt_en = ", ".join(o.name for o in others[:3])
    return (
        f"「{name}」按 {spec.name} 处理；同系列还有 {alt_zh}，如不是请写明。 / "
        f"Read '{name}' as {spec.name}; other variants: {alt_en} — say so if you meant one of them."
    )


def _sibling_at_size(name: str, family_rows: list[GpuSpec]) -> GpuSpec | None:
    """A size the named family lacks but one sibling family (same base number: '5090' → '5090d', '3080' → '3080m'
    for the laptop part) has: that row, marked `corrected_from`, so the answer states the premise's fix. A modded
    board is never a sibling (a 22 GB 2080 Ti is named as such), and two candidates mean no guess."""
    mem, _ = _tokens(name)
    if mem is None or not family_rows:
        return None
    family = family_rows[0].family
    rows = [
        g
        for g in _table()[0].values()
        if g.family.startswith(family)
        and g.family[len(family) :].isalpha()
        and abs(g.memory_gb - mem) < 1
        and not g.modded
    ]
    if len({g.family for g in rows}) != 1:
        return None
    spec = min(rows, key=lambda g: g.lookup_rank).model_copy()
    sizes = "/".join(sorted({f"{g.memory_gb:g}" for g in family_rows}, key=float))
    short = _short(family_rows[0].name).rsplit(" ", 1)[0]  # 'GeForce RTX 5090 32GB' → 'GeForce RTX 5090'
    spec.corrected_from = (
        f"「{name}」这个说法不准：{short} 是 {sizes} GB；{mem:g} GB 的是 {_short(spec.name)}，下面按它计算。 / "
        f"'{name}' is not quite right: the {short} has {sizes} GB; the {mem:g} GB card is the {_short(spec.name)}, "
        f"used below."
    )
    return spec


def resolve_gpu(name: str) -> GpuSpec:
    """Forgiving lookup: '4090', 'a100 80g', 'NVIDIA A100-SXM4-80GB' (nvidia-smi), 'H800', '910B', '昇腾910B'.

    A vague name ('a100') resolves to the family's default variant and says so in `lookup_note`.
    Raises ToolInputError (bilingual, with suggestions) when nothing matches.
    """
    if not isinstance(name, str) or not name.strip():
        raise ToolInputError(
            "请给出 GPU 型号",
            "Please name a GPU",
            field="gpu",
            suggestions=["4090", "A100 80G", "H100", "L40S", "910B"],
        )
    gpus = _table()[0]
    if name in gpus:  # exact table id ('rtx_4090'): what other modules pass around
        return gpus[name].model_copy()
    index = _alias_index()
    for candidate in (name, _strip_count(name)):
        key = _normalise(candidate)
        if key in index:
            spec = gpus[index[key]].model_copy()
            if key in {_normalise(n) for n in [spec.name, *spec.nvidia_smi_names]}:
                return spec
            _, others = _by_tokens(candidate)
            # a memory-modded board (4090 48G) is named explicitly, never offered as "the other variant"
            others = [o for o in others if o.id != spec.id and not o.modded]
            # a name that already picks one sibling ('MLU370-X4' beside the X8) is not vague: no variant note
            others = [o for o in others if any(_normalise(n).startswith(key) for n in [o.name, *o.aliases])]
            if others and _tokens(candidate)[1] is None:
                spec.lookup_note = _variant_note(name, spec, others)
            return spec
    choice, others = _by_tokens(name)
    if choice is not None:
        spec = choice.model_copy()
        others = [o for o in others if not o.modded]
        if others:
            spec.lookup_note = _variant_note(name, spec, others)
        return spec
    sibling = _sibling_at_size(name, others)
    if sibling is not None:  # "5090 24G": the RTX 5090 is 32 GB; the 24 GB card is the RTX 5090 D V2
        return sibling
    if others:  # the family is known but not at that memory size (e.g. a modded 48GB 4090D, a 141GB H20)
        sizes = "/".join(sorted({f"{o.memory_gb:g}GB" for o in others}))
        raise ToolInputError(
            f"表中 {others[0].family} 系列只有 {sizes} 版本，没有「{name}」；改装或其他显存版本请直接给显存大小（如 48GB）",
            f"The table has the {others[0].family} family only as {sizes}, not '{name}'; for modded or other "
            f"memory variants give the memory size instead (e.g. 48GB)",
            field="gpu",
            suggestions=[o.name for o in others],
        )
    raise ToolInputError(
        f"GPU 表里没有「{name}」", f"No GPU named '{name}' in the table", field="gpu", suggestions=suggest_gpus(name)
    )


# ---------------------------------------------------------------- comparison

COMPARE_FIELDS: list[tuple[str, str, str]] = [
    ("memory_gb", "显存 GB", "Memory GB"),
    ("memory_type", "显存类型", "Memory type"),
    ("mem_bw_gbs", "显存带宽 GB/s", "Memory BW GB/s"),
    ("fp32_tflops", "FP32 TFLOPS", "FP32 TFLOPS"),
    ("tf32_dense_tflops", "TF32 稠密", "TF32 dense"),
    ("bf16_dense_tflops", "BF16 稠密", "BF16 dense"),
    ("fp16_dense_tflops", "FP16 稠密", "FP16 dense"),
    ("bf16_fp16_sparse_tflops", "BF16/FP16 稀疏", "BF16/FP16 sparse"),
    ("fp8_dense_tflops", "FP8 稠密", "FP8 dense"),
    ("int8_dense_tops", "INT8 稠密 TOPS", "INT8 dense TOPS"),
    ("nvlink_gbs_bidir", "NVLink GB/s(双向)", "NVLink GB/s (bidir)"),
    ("pcie_gen", "PCIe 代", "PCIe gen"),
    ("tdp_w", "功耗 W", "TDP W"),
    ("form_factor", "形态", "Form factor"),
    ("architecture", "架构", "Architecture"),
    ("release_year", "年份", "Year"),
    ("confidence", "可信度", "Confidence"),
]


class CompareRow(BaseModel):
    field: str
    label_zh: str
    label_en: str
    values: list[float | int | str | None]
    best_index: int | None = Field(
        None, description="index of the best numeric value (higher is better), if meaningful"
    )


class GpuComparison(BaseModel):
    gpus: list[GpuSpec]
    rows: list[CompareRow]
    ratios: dict[str, float] = Field(
        default_factory=dict, description="second..nth GPU vs the first for bf16 dense, memory BW, memory"
    )


_HIGHER_BETTER = {
    "memory_gb",
    "mem_bw_gbs",
    "fp32_tflops",
    "tf32_dense_tflops",
    "bf16_dense_tflops",
    "fp16_dense_tflops",
    "bf16_fp16_sparse_tflops",
    "fp8_dense_tflops",
    "int8_dense_tops",
    "nvlink_gbs_bidir",
    "pcie_gen",
}


def compare_gpus(names: list[str]) -> GpuComparison:
    """Side-by-side table for 2–4 cards (1 is allowed and just lists it)."""
    if not 1 <= len(names) <= 4:
        raise ToolInputError("请给出 1–4 个 GPU 型号", "Give 1 to 4 GPU names", field="names")
    specs = [resolve_gpu(n) for n in names]
    rows = []
    for field, zh, en in COMPARE_FIELDS:
        values = [getattr(s, field) for s in specs]
        best = None
        if field in _HIGHER_BETTER and len(specs) > 1:
            numeric = [(v, i) for i, v in enumerate(values) if isinstance(v, (int, float))]
            top = max((v for v, _ in numeric), default=None)
            # a star only for a strict winner: ties (24 vs 24 GB, no NVLink on either) have no "best"
            if len(numeric) > 1 and top and sum(1 for v, _ in numeric if v == top) == 1:
                best = max(numeric)[1]
        rows.append(CompareRow(field=field, label_zh=zh, label_en=en, values=values, best_index=best))
    ratios: dict[str, float] = {}
    base = specs[0]
    for other in specs[1:]:
        for field in ("bf16_dense_tflops", "mem_bw_gbs", "memory_gb"):
            a, b = getattr(base, field), getattr(other, field)
            if field == "bf16_dense_tflops":
                a = a or base.fp16_dense_tflops
                b = b or other.fp16_dense_tflops
            if a and b:
                ratios[f"{other.id}/{base.id}:{field}"] = round(b / a, 3)
    return GpuComparison(gpus=specs, rows=rows, ratios=ratios)


# ---------------------------------------------------------------- tool


class GpuSpecsInput(BaseModel):
    names: list[str] = Field(
        ...,
        min_length=1,
        max_length=4,
        description="1–4 GPU names, forgiving: '4090', 'A100 80G', 'NVIDIA A100-SXM4-80GB', 'H800', '910B', '昇腾910B'",
    )
    include_seed_notes: bool = Field(True, description="add the corrections to common claims that concern these GPUs")
    counts: list[int] | None = Field(
        None,
        description="cards of each name in a setup comparison ('1 × 5090 vs 2 × 2080 Ti 22G' → [1, 2]); same order",
    )


class VariantFinding(BaseModel):
    """Two rows of one chip that differ only in memory, or a board carrying several GPUs: what it means for speed."""

    rule: Literal["memory_variant", "multi_gpu_board", "same_chip"]
    gpus: list[str] = Field(description="the rows' names, as in `gpus`")
    chip: str
    compute_tflops: float | None = Field(description="the shared peak: BF16 dense, else FP16 tensor, else FP32")
    compute_label: str = Field(description="which peak compute_tflops is (BF16 dense / FP16 tensor / FP32)")
    memory_gb: list[float] = Field(description="memory per GPU of each row, decimal GB")
    board_memory_gb: float | None = Field(None, description="multi_gpu_board: memory of the whole board")
    zh: str
    en: str
    source: str
    as_of: str


class SpeedRatio(BaseModel):
    """One spec of two cards as a ratio both ways, for a speed comparison's lead ("0.47× the A100's compute")."""

    a: str = Field(description="gpu id of the first card")
    b: str = Field(description="gpu id of the second card")
    field: str = Field(description="peak_half_tflops (BF16 dense, else FP16 tensor) | mem_bw_gbs | nvlink_gbs_bidir")
    a_over_b: float
    b_over_a: float


class SetupTotal(BaseModel):
    """N cards of one kind side by side with another setup: memory adds up (split by tensor/pipeline parallel),
    per-card bandwidth does not — each card reads only its shard, and the split adds inter-card communication."""

    gpu: str
    count: int
    memory_gb_total: float
    peak_half_tflops_total: float | None
    bf16_dense_tflops_total: float | None = None
    fp8_dense_tflops_total: float | None = None
    bf16_dense_pflops_total: float | None = Field(None, description="bf16_dense_tflops_total ÷ 1000, 3 significant")
    fp8_dense_pflops_total: float | None = Field(None, description="fp8_dense_tflops_total ÷ 1000, 3 significant")


class DecodeCeiling(BaseModel):
    """Single-stream decode ceiling with the card's memory filled by weights: bandwidth ÷ bytes read per token
    (every weight is read once per generated token; roofline bound, before the 60–90% achieved-bandwidth factor)."""

    gpu: str
    weights_gb: float = Field(description="90% of the card's memory as weights (the rest: KV cache, CUDA context)")
    tokens_per_s: float


_RATIO_FIELDS = ("peak_half_tflops", "mem_bw_gbs", "nvlink_gbs_bidir")


def _ratio_value(s: GpuSpec, field: str) -> float | None:
    if field == "peak_half_tflops":
        return s.bf16_dense_tflops or s.fp16_dense_tflops
    return getattr(s, field)


def speed_ratios(specs: list[GpuSpec]) -> list[SpeedRatio]:
    """Every pair's compute, bandwidth and NVLink as ratios (which binds depends on the job: training → compute,
    decode → bandwidth, multi-GPU → link)."""
    out: list[SpeedRatio] = []
    for i, a in enumerate(specs):
        for b in specs[i + 1 :]:
            for field in _RATIO_FIELDS:
                va, vb = _ratio_value(a, field), _ratio_value(b, field)
                if va and vb:
                    out.append(
                        SpeedRatio(a=a.id, b=b.id, field=field, a_over_b=round(va / vb, 3), b_over_a=round(vb / va, 3))
                    )
    return out


def decode_ceilings(specs: list[GpuSpec]) -> list[DecodeCeiling]:
    out = []
    for s in specs:
        if s.mem_bw_gbs and s.memory_gb:
            weights = round(s.memory_gb * 0.9, 1)
            out.append(DecodeCeiling(gpu=s.id, weights_gb=weights, tokens_per_s=round(s.mem_bw_gbs / weights, 1)))
    return out


class GpuSpecsOutput(BaseModel):
    gpus: list[GpuSpec]
    comparison: list[CompareRow] | None = Field(None, description="side-by-side rows when 2–4 GPUs were given")
    ratios: dict[str, float] = Field(default_factory=dict)
    seed_notes: list[SeedNote] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    variants: list[VariantFinding] = Field(
        default_factory=list,
        description="same-chip memory variants (same compute, only capacity differs) and multi-GPU boards",
    )
    speed_ratios: list[SpeedRatio] = Field(default_factory=list, description="pairwise compute/bandwidth/NVLink ratios")
    setups: list[SetupTotal] = Field(default_factory=list, description="totals per setup when counts were given")
    decode_ceilings: list[DecodeCeiling] = Field(
        default_factory=list, description="single-stream decode ceiling per card with its memory filled by weights"
    )


@lru_cache(maxsize=1)
def _variant_rules() -> dict[str, dict[str, str]]:
    return {str(r["id"]): r for r in load_yaml("gpus.yaml").get("variant_rules", [])}


def _peak(s: GpuSpec) -> tuple[float | None, str]:
    """The headline compute a renter compares: BF16 dense, else FP16 tensor (Volta/Turing), else FP32 (Kepler)."""
    for value, label in ((s.bf16_dense_tflops, "BF16 dense"), (s.fp16_dense_tflops, "FP16 tensor")):
        if value:
            return value, label
    return s.fp32_tflops, "FP32"


_LABEL_ZH = {"BF16 dense": "BF16 稠密", "FP16 tensor": "FP16 Tensor", "FP32": "FP32"}


def _short(name: str) -> str:
    """'NVIDIA Tesla K80 (one of the board's two GK210 GPUs, 12GB)' → 'Tesla K80'."""
    return re.sub(r"\s*\(.*\)", "", name).replace("NVIDIA ", "").strip()


def _chip(s: GpuSpec) -> str:
    """'Volta (GV100)' → 'GV100'; 'Kepler (GK210, 2 per board)' → 'GK210'."""
    m = re.search(r"\(([^,)]+)", s.architecture)
    return m.group(1).strip() if m else s.architecture


def _same_chip_diffs(a: GpuSpec, b: GpuSpec) -> tuple[str, str, str]:
    """(zh, en, speed key) of what two same-chip rows list as different: memory, bandwidth, NVLink."""
    zh: list[str] = []
    en: list[str] = []
    for field, lzh, len_, unit in (
        ("memory_gb", "显存", "memory", "GB"),
        ("mem_bw_gbs", "显存带宽", "memory bandwidth", "GB/s"),
        ("nvlink_gbs_bidir", "NVLink（双向合计）", "NVLink (bidirectional)", "GB/s"),
    ):
        va, vb = getattr(a, field), getattr(b, field)
        if va != vb:
            ca, cb = (f"{v:g}" if v else "0" for v in (va, vb))
            zh.append(f"{lzh}{'' if lzh.endswith('）') else ' '}{ca} 对 {cb} {unit}")
            en.append(f"{len_} {ca} vs {cb} {unit}")
    if not zh:
        return "", "", "same"
    speed = "bw" if a.mem_bw_gbs != b.mem_bw_gbs else "link" if a.nvlink_gbs_bidir != b.nvlink_gbs_bidir else "same"
    return "；差别只在 " + "、".join(zh), "; they differ only in " + ", ".join(en), speed


def _finding(
    rule_id: Literal["memory_variant", "multi_gpu_board", "same_chip"],
    specs: list[GpuSpec],
    board_gb: float | None = None,
) -> VariantFinding | None:
    rule = _variant_rules().get(rule_id)
    if rule is None:
        return None
    a = specs[0]
    compute, label = _peak(a)
    bws = {s.mem_bw_gbs for s in specs}
    bw_en = f"{a.mem_bw_gbs:g} GB/s" + (" each" if len(specs) > 1 else "") if len(bws) == 1 and a.mem_bw_gbs else ""
    if len(bws) > 1:
        bw_en = " vs ".join(f"{s.mem_bw_gbs:g}" for s in specs) + " GB/s"
    bw_zh = bw_en.replace(" each", "（两者相同）").replace(" vs ", " 对 ")
    speed = "same" if len(bws) == 1 else "bw"
    diffs_zh = diffs_en = ""
    if rule_id == "same_chip":
        diffs_zh, diffs_en, speed = _same_chip_diffs(a, specs[-1])
    fill = {
        "a": _short(a.name),
        "b": _short(specs[-1].name),
        "chip": _chip(a),
        "compute": f"{compute:g}" if compute else "?",
        "mem_a": f"{a.memory_gb:g}",
        "mem_b": f"{specs[-1].memory_gb:g}",
        "n": str(a.gpus_per_board),
        "board_gb": f"{board_gb:g}" if board_gb else "",
    }
    return VariantFinding(
        rule=rule_id,
        gpus=[s.name for s in specs],
        chip=_chip(a),
        compute_tflops=compute,
        compute_label=label,
        memory_gb=[s.memory_gb for s in specs],
        board_memory_gb=board_gb,
        zh=str(rule["zh"]).format(
            **fill,
            compute_label=_LABEL_ZH[label],
            bw=bw_zh,
            diffs=diffs_zh,
            speed=rule.get(f"speed_{speed}_zh", ""),
        ),
        en=str(rule["en"]).format(
            **fill, compute_label=label, bw=bw_en, diffs=diffs_en, speed=rule.get(f"speed_{speed}_en", "")
        ),
        source=str(rule["source"]),
        as_of=str(rule["as_of"]),
    )


def variant_findings(specs: list[GpuSpec]) -> list[VariantFinding]:
    """Same family and chip, different memory, equal compute: a memory variant (speed is the same).
    Same chip and compute under another name (A800 beside A100, H800 beside H100): the compute is the same, the
    rows' other differences (NVLink, bandwidth) are named. A board of several GPUs (Tesla K80): its memory is per
    GPU, the board figure is their sum."""
    out: list[VariantFinding] = []
    for i, a in enumerate(specs):
        for b in specs[i + 1 :]:
            if a.architecture != b.architecture or _peak(a) != _peak(b) or _peak(a)[0] is None:
                continue
            if a.gpus_per_board > 1 or b.gpus_per_board > 1:
                continue
            if a.family == b.family and a.memory_gb != b.memory_gb:
                found = _finding("memory_variant", sorted([a, b], key=lambda s: -s.memory_gb))
            else:
                found = _finding("same_chip", [a, b])
            if found:
                out.append(found)
    for s in specs:
        if s.gpus_per_board > 1:
            found = _finding("multi_gpu_board", [s], board_gb=s.memory_gb * s.gpus_per_board)
            if found:
                out.append(found)
    return out


def _setups(specs: list[GpuSpec], counts: list[int] | None) -> list[SetupTotal]:
    if not counts or len(counts) != len(specs):
        return []
    out = []
    for s, n in zip(specs, counts, strict=True):
        peak = _ratio_value(s, "peak_half_tflops")
        out.append(
            SetupTotal(
                gpu=s.id,
                count=n,
                memory_gb_total=round(s.memory_gb * n, 1),
                peak_half_tflops_total=round(peak * n, 1) if peak else None,
                bf16_dense_tflops_total=round(s.bf16_dense_tflops * n, 1) if s.bf16_dense_tflops else None,
                fp8_dense_tflops_total=round(s.fp8_dense_tflops * n, 1) if s.fp8_dense_tflops else None,
                bf16_dense_pflops_total=float(f"{s.bf16_dense_tflops * n / 1000:.3g}") if s.bf16_dense_tflops else None,
                fp8_dense_pflops_total=float(f"{s.fp8_dense_tflops * n / 1000:.3g}") if s.fp8_dense_tflops else None,
            )
        )
    return out


def gpu_specs(inp: GpuSpecsInput) -> GpuSpecsOutput:
    comp = compare_gpus(inp.names)
    notes = [s.lookup_note for s in comp.gpus if s.lookup_note]
    for s in comp.gpus:
        if not s.is_nvidia:
            notes.append(
                f"{s.name}：非 NVIDIA 芯片，数据可信度低（{s.confidence}），需 CANN/torch_npu，不能直接跑 CUDA。 / "
                f"{s.name} is not an NVIDIA GPU; figures are low-confidence ({s.confidence}) and it needs CANN/torch_npu, not CUDA."
            )
        if s.confidence in ("derived", "estimate"):
            notes.append(
                f"{s.name}：部分算力数字是推算值（{s.confidence}）。 / {s.name}: some compute figures are {s.confidence}."
            )
    notes.append(
        "算力为稠密值（无 2:4 稀疏）；GeForce 卡 BF16 为 FP32 累加速率。 / Compute is dense (no 2:4 sparsity); "
        "GeForce BF16 is the FP32-accumulate rate."
    )
    seed = seed_notes_for([s.id for s in comp.gpus]) if inp.include_seed_notes else []
    return GpuSpecsOutput(
        gpus=comp.gpus,
        comparison=comp.rows if len(comp.gpus) > 1 else None,
        ratios=comp.ratios,
        seed_notes=seed,
        notes=notes,
        variants=variant_findings(comp.gpus),
        speed_ratios=speed_ratios(comp.gpus),
        setups=_setups(comp.gpus, inp.counts),
        decode_ceilings=decode_ceilings(comp.gpus),
    )


# ---------------------------------------------------------------- "nvidia-smi shows only 23GB — fake?"

MIB = 2**20
SeenUnit = Literal["auto", "MiB", "GiB", "GB", "MB"]


class ReportedMemoryInput(BaseModel):
    gpu: str = Field(..., description="the card the user rented, forgiving name: '4090', 'A100 80G', 'H100'")
    seen_value: float = Field(..., gt=0, description="the memory total the user saw, e.g. 23 (from '23GB') or 24564")
    seen_unit: SeenUnit = Field(
        "auto",
        description="unit the user wrote; 'auto' = 'G/GB' as people read nvidia-smi "
        "(MiB ÷ 1024, i.e. GiB, often truncated or rounded); values ≥ 1000 are taken as MiB",
    )


class ReportedMemoryOutput(BaseModel):
    gpu: str
    verdict: Literal["normal", "suspicious", "more_than_spec", "unknown"]
    expected_mib: int | None = Field(None, description="nvidia-smi total for a genuine card, MiB; None = not cited")
    expected_gib: float | None = Field(None, description="expected_mib / 1024, GiB")
    memory_gb: float = Field(description="datasheet memory, decimal GB")
    datasheet_mib: float = Field(description="memory_gb × 1e9 / 2^20, MiB")
    seen_mib_low: float = Field(description="lowest MiB the user's figure can stand for")
    seen_mib_high: float = Field(description="highest MiB the user's figure can stand for")
    interpretation: Literal["mib", "gb", "gib", "gib_rounded", "gb_or_gib"] = Field(
        description="how the user's figure was read: MiB, decimal GB, GiB, GiB rounded/truncated, or either GB or GiB"
    )
    mib_per_gib: int = Field(1024, description="GiB = 1024 MiB (the conversion the answer uses)")
    source: str | None = None
    commands: list[str] = Field(default_factory=list, description="what to run to check")
    notes: list[str] = Field(default_factory=list)


def _seen_range_mib(value: float, unit: str) -> tuple[float, float, str]:
    """MiB interval a displayed figure can mean. "23GB" read off nvidia-smi is 24564 MiB ÷ 1024 = 23.99 GiB,
    truncated or rounded: an integer GiB figure v covers [v − 0.5, v + 1) GiB."""
    if unit == "auto":
        unit = "MiB" if value >= 1000 else "GiB"
    if unit == "MiB":
        return value, value, "mib"
    if unit == "MB":  # nvidia-smi's "MB" before driver 5xx was MiB
        return value, value, "mib"
    if unit == "GB":
        v = value * 1e9 / MIB
        return v, v, "gb"
    if float(value).is_integer():
        return (value - 0.5) * 1024, (value + 1) * 1024, "gib_rounded"
    return value * 1024 - 5.12, value * 1024 + 10.24, "gib"


def check_reported_memory(inp: ReportedMemoryInput) -> ReportedMemoryOutput:
    """Is the memory total a user saw normal for this card? Compares in MiB with the cited nvidia-smi total."""
    spec = resolve_gpu(inp.gpu)
    lo, hi, how = _seen_range_mib(inp.seen_value, inp.seen_unit)
    # When the user wrote "GB" it may be decimal GB or (far more often) nvidia-smi MiB ÷ 1024: accept both readings.
    if inp.seen_unit == "GB" and inp.seen_value < 1000:
        glo, ghi, _ = _seen_range_mib(inp.seen_value, "GiB")
        lo, hi, how = min(lo, glo), max(hi, ghi), "gb_or_gib"
    # a derived total (reasoned from a sibling card) is good enough for sizing, not for calling a card fake
    derived = spec.nvidia_smi_total_confidence == "derived"
    expected = None if derived else spec.nvidia_smi_total_mib
    datasheet_mib = spec.memory_gb * 1e9 / MIB
    tol = 0.01  # 1 %: driver versions differ by a few MiB in reservations
    commands = [
        "nvidia-smi -q -d MEMORY",
        "nvidia-smi --query-gpu=name,memory.total --format=csv",
        "gpu-advisor checklist",
    ]
    notes = [
        "MiB = 2^20 字节，GiB = 2^30，GB = 10^9；nvidia-smi 显示的是 MiB。 / "
        "MiB = 2^20 bytes, GiB = 2^30, GB = 10^9; nvidia-smi prints MiB."
    ]
    if expected is None and derived:
        verdict = "unknown"
        notes.append(
            f"{spec.name} 没有可引用的 nvidia-smi 实测总数；推算值约 {spec.nvidia_smi_total_mib:,} MiB"
            f"（{spec.nvidia_smi_total_source}），只能作参考。 / No cited nvidia-smi total for the {spec.name}; the "
            f"derived figure is about {spec.nvidia_smi_total_mib:,} MiB ({spec.nvidia_smi_total_source}), a guide only."
        )
    elif expected is None:
        verdict = "unknown"
        notes.append(
            f"没有可引用的 {spec.name} nvidia-smi 显存总数；规格 {spec.memory_gb:g} GB = {datasheet_mib:,.0f} MiB。 / "
            f"No cited nvidia-smi total for the {spec.name}; the datasheet {spec.memory_gb:g} GB = "
            f"{datasheet_mib:,.0f} MiB."
        )
    elif lo <= expected * (1 + tol) and hi >= expected * (1 - tol):
        verdict = "normal"
    elif hi < expected * (1 - tol):
        verdict = "suspicious"
    else:
        verdict = "more_than_spec"
    return ReportedMemoryOutput(
        gpu=spec.name,
        verdict=verdict,
        expected_mib=expected,
        expected_gib=round(expected / 1024, 2) if expected else None,
        memory_gb=spec.memory_gb,
        datasheet_mib=round(datasheet_mib, 1),
        seen_mib_low=round(lo, 1),
        seen_mib_high=round(hi, 1),
        interpretation=how,
        source=spec.nvidia_smi_total_source,
        commands=commands,
        notes=notes,
    )


TOOLS = [
    ToolSpec(
        name="check_reported_memory",
        description=(
            "Judge whether the GPU memory total a user saw (e.g. '4090 shows only 23GB in nvidia-smi') is normal: "
            "converts the figure (GB/GiB/MiB) to MiB and compares with the cited nvidia-smi total for a genuine "
            "card (MiB). Returns verdict normal | suspicious | more_than_spec | unknown, expected_mib, "
            "the MiB range the figure stands for, source, and commands to verify."
        ),
        input_model=ReportedMemoryInput,
        func=check_reported_memory,
    ),
    ToolSpec(
        name="gpu_specs",
        description=(
            "Look up 1–4 GPUs (forgiving names, incl. nvidia-smi names and 昇腾910B) and return datasheet specs: "
            "memory (GB, decimal), memory bandwidth (GB/s), dense TFLOPS per precision (sparse kept apart), "
            "NVLink (GB/s, bidirectional), PCIe gen, TDP (W), China availability, source/as_of/confidence; "
            "with 2–4 names also a side-by-side table and ratios, plus corrections to common claims; nvidia_smi_total_mib "
            "/ reported_gb (what the driver shows) beside the nominal memory_gb."
        ),
        input_model=GpuSpecsInput,
        func=gpu_specs,
    ),
]
