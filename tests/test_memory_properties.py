"""Properties any honest memory estimate must have (hypothesis): more batch, longer sequences or
more parameters never need less memory; more sharding or more GPUs never raise per-GPU memory."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tools.memory import MemoryJob, breakdown
from tools.models import resolve_model

MODELS = [
    "Llama-2-7B",
    "Llama-3-8B",
    "Qwen2.5-7B",
    "Qwen3-30B-A3B",
    "DeepSeek-V3",
    "Gemma-2-9B",
    "Mistral-7B-v0.1",
    "ChatGLM3-6B",
]
_RESOLVED = {name: resolve_model(name) for name in MODELS}

modes = st.sampled_from(["full", "lora", "qlora", "inference"])
checkpointing = st.sampled_from(["none", "selective", "full"])
models = st.sampled_from(MODELS)
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _total(model: str, **kw) -> float:
    job = MemoryJob(model=model, **kw)
    return breakdown(job, _RESOLVED[model]).total


@SETTINGS
@given(
    model=models,
    mode=modes,
    ck=checkpointing,
    batch=st.integers(1, 64),
    seq=st.integers(1, 32768),
    extra=st.integers(1, 64),
)
def test_monotone_in_batch(model, mode, ck, batch, seq, extra):
    kw = dict(mode=mode, checkpointing=ck, seq_len=seq)
    assert _total(model, batch=batch + extra, **kw) >= _total(model, batch=batch, **kw)


@SETTINGS
@given(
    model=models,
    mode=modes,
    ck=checkpointing,
    batch=st.integers(1, 8),
    seq=st.integers(1, 65536),
    extra=st.integers(1, 65536),
)
def test_monotone_in_sequence(model, mode, ck, batch, seq, extra):
    kw = dict(mode=mode, checkpointing=ck, batch=batch)
    assert _total(model, seq_len=seq + extra, **kw) >= _total(model, seq_len=seq, **kw)


@SETTINGS
@given(mode=modes, p=st.floats(0.1e9, 500e9), factor=st.floats(1.0, 10.0), seq=st.integers(1, 8192))
def test_monotone_in_parameters(mode, p, factor, seq):
    small = breakdown(MemoryJob(params=int(p), mode=mode, seq_len=seq)).total
    big = breakdown(MemoryJob(params=int(p * factor), mode=mode, seq_len=seq)).total
    assert big >= small


@SETTINGS
@given(
    model=models,
    mode=st.sampled_from(["full", "lora", "qlora"]),
    zero=st.integers(0, 2),
    gpus=st.integers(2, 512),
    seq=st.integers(128, 8192),
)
def test_higher_zero_stage_never_raises_per_gpu_memory(model, mode, zero, gpus, seq):
    kw = dict(mode=mode, gpus=gpus, seq_len=seq)
    assert _total(model, zero=zero + 1, **kw) <= _total(model, zero=zero, **kw)


@SETTINGS
@given(
    model=models,
    mode=st.sampled_from(["full", "lora", "qlora", "inference"]),
    zero=st.integers(1, 3),
    gpus=st.integers(2, 512),
    more=st.integers(1, 512),
)
def test_more_gpus_never_raise_per_gpu_memory(model, mode, zero, gpus, more):
    kw = dict(mode=mode, zero=0 if mode == "inference" else zero)
    assert _total(model, gpus=gpus + more, **kw) <= _total(model, gpus=gpus, **kw)


@SETTINGS
@given(model=models, zero=st.integers(0, 3), gpus=st.integers(1, 64))
def test_offload_never_raises_gpu_memory(model, zero, gpus):
    base = _total(model, zero=zero, gpus=gpus)
    assert _total(model, zero=zero, gpus=gpus, offload="optimizer") <= base
    if zero == 3:
        assert _total(model, zero=3, gpus=gpus, offload="optimizer_and_params") <= base


@SETTINGS
@given(model=models, seq=st.integers(128, 16384))
def test_qlora_below_lora_below_full(model, seq):
    """gpu_poor issue #1 reported QLoRA above LoRA; ours must order them."""
    qlora, lora, full = (_total(model, mode=m, seq_len=seq) for m in ("qlora", "lora", "full"))
    assert qlora < lora < full


@SETTINGS
@given(model=models, ctx=st.integers(1, 131072), seqs=st.integers(1, 256))
def test_breakdown_parts_are_non_negative_and_sum(model, ctx, seqs):
    b = breakdown(MemoryJob(model=model, mode="inference", context=ctx, concurrency=seqs), _RESOLVED[model])
    parts = [b.weights, b.gradients, b.optimizer, b.activations, b.kv_cache, b.overhead]
    assert all(x >= 0 for x in parts)
    assert abs(sum(parts) - b.total) < 1
