"""The Frame: everything one question said, typed. Reading fills it; intents and writing only read it.

Entities (GPUs with count and stated capacity, models resolved to catalog rows, engine words) and
quantities (each with the words it was read from) are listed so constraint accounting can say which of
them an answer used and which it did not (`writing/accounting.py`). The flat fields (`gpus`, `params_b`,
`context`, …) are the values the intents pass to tools; `gpu_mentions` / `model_mentions` / `quantities`
say where each came from.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from assistant.offline.reading.load import Load

QuantityKind = Literal[
    "gpu_count",
    "card_memory_gb",
    "params_b",
    "precision",
    "context",
    "batch",
    "concurrency",
    "tokens",
    "samples",
    "sample_tokens",
    "epochs",
    "hours_per_day",
    "days_per_week",
    "project_months",
    "budget_cny",
    "deadline_hours",
    "link_gbps",
    "nodes",
    "nics_per_node",
    "period",
    "hourly_quote_cny",
    "monthly_quote_cny",
    "zero_stage",
    "monthly_tokens",
    "daily_tokens",
    "weeks",
    "gpu_memory_utilization",
    "budget_foreign",
]


class GpuMention(BaseModel):
    """A card named in the question: '两张 4090 48G 魔改' → RTX 4090, count 2, 48 GB stated, modded."""

    text: str
    name: str = Field(description="display name of the family ('RTX 4090'), or the word as typed if unknown")
    gpu_id: str | None = Field(None, description="row in knowledge/gpus.yaml; None = not in the table")
    count: int | None = None
    memory_gb: float | None = Field(None, description="capacity the user stated ('48G'), decimal GB")
    modded: bool = Field(False, description="stated capacity matches no variant in the table (魔改 / 22G 2080Ti)")
    form: str | None = None


class ModelMention(BaseModel):
    """A model named in the question, resolved against knowledge/models/."""

    text: str
    catalog_id: str | None = Field(None, description="catalog row whose architecture is used; None = unknown")
    variant: bool = Field(False, description="a Coder/Math/distill variant sized by catalog_id's architecture")
    size_b: float | None = None


class Quantity(BaseModel):
    """One number the question gave, with its unit and the words it came from."""

    kind: QuantityKind
    value: float
    unit: str = ""
    text: str = ""
    per: str | None = Field(None, description="'month' for a monthly budget, 'total' for a total, …")


class Ask(BaseModel):
    """One part of the question, in order ('要多少显存？' · '能在 4090 上跑吗？')."""

    text: str
    cues: list[str] = Field(default_factory=list)


class Frame(BaseModel):
    """Everything a question said (None = not said). Mutable while reading; read-only afterwards."""

    model_config = ConfigDict(validate_assignment=False, arbitrary_types_allowed=True)

    # ---- typed entities and quantities (where each value came from) ---------------------------
    gpu_mentions: list[GpuMention] = Field(default_factory=list)
    model_mentions: list[ModelMention] = Field(default_factory=list)
    engines: list[str] = Field(default_factory=list)  # vLLM, llama.cpp, LLaMA-Factory, DeepSpeed …
    unknown_model: str | None = Field(None, description="a model named without a size that no catalog row has")
    load: Load = Field(default_factory=Load, description="serving load said in this message (reading/load.py)")
    quantities: list[Quantity] = Field(default_factory=list)
    asks: list[Ask] = Field(default_factory=list)
    log_kinds: list[str] = Field(default_factory=list)  # what tools.diagnosis.detect recognised in a paste
    unread: list[str] = Field(default_factory=list)  # words that look like a setting but were not understood
    users: int | None = None  # "50个人同时用"
    samples: float | None = None  # training samples ("10万条")
    sample_tokens: float | None = None  # tokens per sample ("每条 2k token")
    epochs: float | None = None
    hours_per_day: float | None = None
    days_per_week: float | None = None
    project_months: float | None = None
    weeks: float | None = None  # usage pattern: project length in weeks ("做6周")
    gpu_memory_utilization: float | None = (
        None  # vLLM's fraction of the card it may use ("0.70", "--gpu-memory-utilization 0.95")
    )
    monthly_tokens: float | None = None  # a serving volume: tokens a month ("每月输出5亿token"), not a rental period
    daily_tokens: float | None = None  # the same volume as the user gave it per day ("每天100万token"); monthly = × 30
    budget_per: str | None = None  # "month" | "total"
    quoted_rates_gbs: list[float] = Field(default_factory=list)  # "160GB/s", "337.35 GB/s": bandwidths quoted, bytes/s
    link_gbps: float | None = None  # "10GbE" → 10, "200Gb/s" → 200, "NDR" → 400
    link_name: str | None = None
    nics_per_node: int | None = None  # "each machine has 8 *100 Gbps NICs" / 「每台4张200G的IB网卡」
    decline: str | None = None  # forecast | unlawful | unrealistic
    text: str = ""  # the user's own words (a paste's lines left out), for retrieval and restating
    paste: str | None = None  # the whole message when it carries a log (what diagnose_logs reads)
    mentions: set[str] = Field(default_factory=set)  # shaping words (reading/shapes.py)
    card_sizes: list[int] = Field(default_factory=list)  # "A100 40G 和 80G" → [40, 80]
    network: str | None = None  # the network named, as the interconnect tool reads it ("10G", "IB HDR")

    # ---- flat values the intents pass to tools ------------------------------------------------
    pipeline: str | None = None  # image/video/speech pipeline id (knowledge/pipelines.yaml): "FLUX.1-dev"
    model: str | None = None  # catalog id ("Qwen2.5-7B"), a typed name ("falcon-40b") or a bare size ("7b")
    params_b: float | None = None
    gpus: list[str] = Field(default_factory=list)  # display names, in order of mention
    gpu_memory_gb: int | None = None  # "A100 80G" → 80
    gpu_form: str | None = None  # SXM / PCIE / NVL
    gpu_alt_memory_gb: int | None = None  # "A100 40G vs 80G": the other memory size of the same card
    gpu_count: int | None = None
    # Parallel degrees a user states (Megatron/DeepSpeed/vLLM settings): cards per replica = TP × PP (× DP).
    tp_size: int | None = None
    pp_size: int | None = None
    dp_size: int | None = None
    # "同一张卡同时部署 7B 和 20B": every model meant to share the card(s), catalog ids or bare sizes ("20b")
    co_models: list[str] = Field(default_factory=list)
    # Local-runtime settings quoted ("-ngl 0", "cache_8bit", "gpu_split 20,24"): knowledge/engines.yaml local_runtimes
    runtime_settings: dict[str, str] = Field(default_factory=dict)
    vram_gb: float | None = None  # "24G显存" / "a 48GB card" with no GPU named
    # a per-card memory requirement someone stated ("官方说明40G显存就能搞定", "（维护者：预计 >20G 显存可用）"), GB
    required_gb: float | None = None
    stated_total_gb: float | None = None  # the user's own cards added up ("4张3090 共96G"): memory that does not pool
    nodes: int | None = None
    mode: str | None = None  # full | lora | qlora | pretrain | inference
    modes: list[str] = Field(default_factory=list)
    precision: str | None = None
    budget_foreign: tuple[float, str] | None = None  # "$50": (50, "USD"); no exchange rate, so named as not used
    weight_quant: str | None = None  # 「2-bit」「Q3_K_M」: a GGUF row of knowledge/cpus.yaml other than bf16/fp8/q8/q4
    kv_dtype: str | None = None  # "fp8 kv cache" / "--kv-cache-dtype fp8": the KV cache's dtype, not the weights'
    # "7B 用了 17G，那 72B 呢": the earlier model the user measured; the subject (`model`) is the one asked about
    measured_model: str | None = None
    optimizer: str | None = None
    zero_stage: int | None = None
    context: int | None = None
    batch: int | None = None
    tokens: float | None = None
    budget_cny: float | None = None
    hourly_quote_cny: float | None = None
    monthly_quote_cny: float | None = None
    daily_quote_cny: float | None = None  # 「8卡A800一天2000元」: a day's price for the machine (or the cards) named
    deadline_hours: float | None = None
    period_hours: float | None = None
    period_unit: str | None = None
    period_count: float | None = None
    concurrency: int | None = None
    checkpointing: str | None = None
    offload: str | None = None
    method: str | None = None  # training method beyond SFT: dpo | kto | orpo | simpo | ppo | grpo
    host_ram_gb: float | None = None  # host RAM the user has ("400G内存"), decimal GB
    lora_rank: int | None = None
    lora_targets: str | None = None
    convert: tuple[float, str, str] | None = None
    algbw_gbs: float | None = None
    collective: str | None = None
    gpu_hours: float | None = None
    measured_busbw_gbs: float | None = None
    reported_memory: tuple[float, str] | None = None
    is_log: bool = False
    invalid: list[tuple[str, str]] = Field(default_factory=list)
    out_of_scope: bool = False
    in_domain: bool = False
    cues: set[str] = Field(default_factory=set)
    finetune: bool = False
    training: bool = False

    @property
    def gpu(self) -> str | None:
        return self.gpus[0] if self.gpus else None

    @property
    def modded_gpu(self) -> GpuMention | None:
        """The first card whose stated capacity is not in the table (sized by that capacity)."""
        return next((g for g in self.gpu_mentions if g.modded and g.memory_gb), None)

    def to_dict(self) -> dict[str, Any]:
        d = self.model_dump()
        d["cues"] = sorted(self.cues)
        return d
