"""Check the memory estimator against real PyTorch tensors on the CPU (no download, no GPU).

Builds small random-initialised Llama- and Qwen2/Qwen3-architecture models from config objects with
transformers, runs one training step with AdamW and compares:

- parameter, gradient and optimizer-state bytes with `tools.memory` (must match exactly), for
  fp32 AdamW (4 + 4 + 8 = 16 B/param) and pure-bf16 AdamW (2 + 2 + 4 = 8 B/param);
- activation bytes kept for backward (every tensor autograd saves, counted once per storage,
  parameters excluded) with the Korthikanti-style count in `tools.memory_activations` (ratio).

Needs the optional extras:  .venv/bin/pip install torch==2.13.0 'transformers>=4.46,<6'
Run:  .venv/bin/python scripts/validate_memory.py      (prints a Markdown table for docs/memory.md)
This is not part of the pytest suite: CI does not install torch.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def _configs():
    from transformers import LlamaConfig, Qwen2Config, Qwen3Config

    common = dict(
        hidden_size=512,
        intermediate_size=1408,
        num_hidden_layers=4,
        num_attention_heads=8,
        num_key_value_heads=2,
        vocab_size=8000,
        max_position_embeddings=1024,
        attention_dropout=0.0,
        use_cache=False,
    )
    return [
        ("Llama (GQA 8/2, untied)", LlamaConfig(**common, tie_word_embeddings=False)),
        ("Llama (MHA 8/8, untied)", LlamaConfig(**{**common, "num_key_value_heads": 8}, tie_word_embeddings=False)),
        ("Qwen2 (qkv bias, tied)", Qwen2Config(**common, tie_word_embeddings=True)),
        ("Qwen3 (qk-norm, untied)", Qwen3Config(**common, head_dim=64, tie_word_embeddings=False)),
    ]


def _arch(cfg):
    from tools.models import architecture_from_hf_config

    d = cfg.to_dict()
    d.setdefault("model_type", cfg.model_type)
    return architecture_from_hf_config(d)


def _model_state_bytes(model, optimizer) -> tuple[int, int, int]:
    params = sum(p.numel() * p.element_size() for p in model.parameters())
    grads = sum(p.grad.numel() * p.grad.element_size() for p in model.parameters() if p.grad is not None)
    states = 0
    for state in optimizer.state.values():
        for name, t in state.items():
            if name == "step":  # a scalar counter per tensor, not per parameter
                continue
            states += t.numel() * t.element_size()
    return params, grads, states


def _saved_activation_bytes(model, input_ids, vocab: int) -> tuple[int, int]:
    """Bytes of tensors autograd saves during forward (unique storages, parameters excluded),
    split into (everything except logits-sized tensors, logits-sized tensors)."""
    import torch

    param_ptrs = {p.data_ptr() for p in model.parameters()}
    seen: dict[int, tuple[int, bool]] = {}

    def pack(t):
        try:
            storage = t.untyped_storage()
            ptr = storage.data_ptr()
            if ptr not in param_ptrs and ptr not in seen:
                seen[ptr] = (storage.nbytes(), t.dim() >= 1 and t.shape[-1] == vocab)
        except Exception:  # noqa: S110 -- pragma: no cover; sparse or meta tensors have no storage to count
            pass
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = model(input_ids=input_ids, labels=input_ids)
    out.loss.backward()
    logits = sum(n for n, is_logit in seen.values() if is_logit)
    other = sum(n for n, is_logit in seen.values() if not is_logit)
    return other, logits


def _peak_dynamic_bytes(model, input_ids) -> int:
    """Peak of live CPU allocations during one forward + backward (torch profiler memory records),
    measured from just before the forward: activations, logits, loss buffers and gradients."""
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        out = model(input_ids=input_ids, labels=input_ids)
        out.loss.backward()
    records = sorted(
        (e.start_ns(), e.nbytes()) for e in prof.profiler.kineto_results.events() if e.name() == "[memory]"
    )
    live = peak = 0
    for _, n in records:
        live += n
        peak = max(peak, live)
    return peak


def main() -> int:
    try:
        import torch
        from transformers import AutoModelForCausalLM
    except ImportError:
        print("needs torch and transformers: .venv/bin/pip install torch==2.13.0 'transformers>=4.46,<6'")
        return 1
    from tools.memory import MemoryJob, breakdown
    from tools.memory_activations import head_bytes_per_token, logits_bytes, training_activation_bytes
    from tools.models import ResolvedModel, count_params

    torch.manual_seed(0)
    seq, batch = 256, 2
    rows_states, rows_act, rows_ck, rows_peak = [], [], [], []
    ok = True
    for label, cfg in _configs():
        arch = _arch(cfg)
        pc = count_params(arch)
        resolved = ResolvedModel(
            name=label,
            kind="config_file",
            arch=arch,
            params=pc.total,
            active_params=pc.active,
            largest_layer_params=pc.per_layer_max,
        )
        for dtype, precision, opt in ((torch.float32, "fp32", "adamw"), (torch.bfloat16, "bf16", "adamw_bf16")):
            model = AutoModelForCausalLM.from_config(cfg, attn_implementation="sdpa").to(dtype)
            model.train()
            optim = torch.optim.AdamW(model.parameters(), lr=1e-4)
            ids = torch.randint(0, cfg.vocab_size, (batch, seq))
            if dtype is torch.bfloat16:
                act, logit = _saved_activation_bytes(model, ids, cfg.vocab_size)
            else:
                model(input_ids=ids, labels=ids).loss.backward()
            optim.step()
            p_b, g_b, s_b = _model_state_bytes(model, optim)
            est = breakdown(
                MemoryJob(
                    params=pc.total,
                    mode="full",
                    precision=precision,
                    optimizer=opt,
                    seq_len=seq,
                    batch=batch,
                    checkpointing="none",
                ),
                resolved,
            )
            n_params = sum(p.numel() for p in model.parameters())
            match = n_params == pc.total and p_b == est.weights and g_b == est.gradients and s_b == est.optimizer
            ok &= match
            rows_states.append(
                (
                    label,
                    precision,
                    n_params,
                    pc.total,
                    p_b,
                    int(est.weights),
                    g_b,
                    int(est.gradients),
                    s_b,
                    int(est.optimizer),
                    "exact" if match else "MISMATCH",
                )
            )
            if dtype is torch.bfloat16:
                est_act = training_activation_bytes(arch, seq, batch, "none", flash_attention=True)
                est_logit = logits_bytes(arch, seq, batch)
                rows_act.append((label, act, int(est_act), act / est_act, logit, int(est_logit), logit / est_logit))
                fresh = AutoModelForCausalLM.from_config(cfg, attn_implementation="sdpa").to(dtype)
                fresh.train()
                peak = _peak_dynamic_bytes(fresh, ids)
                est_peak = est_act + est_logit + est.gradients
                rows_peak.append((label, peak, int(est_peak), peak / est_peak))
                del fresh
                # full recomputation: what stays saved through the forward pass is each layer's input
                ck = AutoModelForCausalLM.from_config(cfg, attn_implementation="sdpa").to(dtype)
                ck.train()
                import warnings

                with warnings.catch_warnings():  # the method was renamed in transformers 5.x; keep one call for 4.x/5.x
                    warnings.simplefilter("ignore", FutureWarning)
                    ck.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": True})
                ck_act, _ = _saved_activation_bytes(ck, ids, cfg.vocab_size)
                est_inputs = seq * batch * (arch.num_layers * 2 * arch.hidden_size + head_bytes_per_token(arch))
                est_full = training_activation_bytes(arch, seq, batch, "full", flash_attention=True)
                rows_ck.append((label, ck_act, est_inputs, ck_act / est_inputs, int(est_full)))
                del ck
            del model, optim

    print(
        f"torch {torch.__version__}, transformers {__import__('transformers').__version__}, CPU; "
        f"seq {seq}, micro-batch {batch}, hidden 512, 4 layers, vocab 8000\n"
    )
    print(
        "| model | dtype / optimizer | params (torch) | params (estimator) | weights B (torch / est.) | "
        "grads B (torch / est.) | optimizer B (torch / est.) | result |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in rows_states:
        print(
            f"| {r[0]} | {r[1]} AdamW | {r[2]:,} | {r[3]:,} | {r[4]:,} / {r[5]:,} | {r[6]:,} / {r[7]:,} | "
            f"{r[8]:,} / {r[9]:,} | {r[10]} |"
        )
    print(
        "\n| model (bf16, SDPA, no recomputation) | saved activations B (torch) | estimator | ratio | "
        "logits-sized B (torch) | estimator | ratio |"
    )
    print("|---|---|---|---|---|---|---|")
    for r in rows_act:
        print(f"| {r[0]} | {r[1]:,} | {r[2]:,} | {r[3]:.3f} | {r[4]:,} | {r[5]:,} | {r[6]:.3f} |")
    print(
        "\n| model (bf16, SDPA, no recomputation) | peak live bytes in forward+backward (torch profiler) | "
        "estimator activations + logits + gradients | ratio |"
    )
    print("|---|---|---|---|")
    for r in rows_peak:
        print(f"| {r[0]} | {r[1]:,} | {r[2]:,} | {r[3]:.3f} |")
    print(
        "\n| model (bf16, gradient checkpointing) | saved through forward B (torch) | estimator b·s·(L·2h + 8h) | ratio | "
        "estimator peak incl. one recomputed layer |"
    )
    print("|---|---|---|---|---|")
    for r in rows_ck:
        print(f"| {r[0]} | {r[1]:,} | {r[2]:,} | {r[3]:.3f} | {r[4]:,} |")
    print("\nmodel states:", "all exact" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
