"""Form values from the page → tool arguments → JSON-ready tool results (via the registry).

The page never computes a number itself; it only maps widgets to tool inputs.
"""

from __future__ import annotations

from typing import Any

from tools.registry import run_tool

SAMPLE_NVIDIA_SMI = """帮我看看这台机器正常吗？
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  NVIDIA A100-SXM4-80GB          On  |   00000000:07:00.0 Off |                    0 |
| N/A   34C    P0             61W /  400W |       4MiB /  81920MiB |      0%      Default |
|                                         |                        |             Disabled |
+-----------------------------------------+------------------------+----------------------+
|   1  NVIDIA A100-SXM4-80GB          On  |   00000000:0F:00.0 Off |                    0 |
| N/A   33C    P0             89W /  400W |   81003MiB /  81920MiB |    100%      Default |
|                                         |                        |             Disabled |
+-----------------------------------------+------------------------+----------------------+"""


def _int(value: Any, default: int) -> int:
    try:
        return max(1, int(value))
    except (TypeError, ValueError):
        return default


def backend_settings(backend: str | None, base_url: str | None, model: str | None, api_key: str | None) -> Any:
    """BackendSettings for the chat, or None for the offline default (policy: assistant.settings.visitor_settings)."""
    from assistant.settings import visitor_settings

    return visitor_settings(backend, base_url, model, api_key)


def run_diagnosis(text: str, expect: str | None) -> dict[str, Any]:
    args: dict[str, Any] = {"text": text}
    if expect and expect.strip():
        args["expect"] = expect.strip()
    return run_tool("diagnose_logs", args)


def _optional_int(value: Any) -> int | None:
    try:
        number = int(value)
    except (TypeError, ValueError):
        return None
    return number if number >= 1 else None


def _tool_fields(name: str) -> set[str]:
    """The input fields a registry tool accepts (so the page passes only what the tool knows)."""
    from tools.registry import get_tool

    return set(get_tool(name).input_model.model_fields)


def estimate_accepts(field: str) -> bool:
    return field in _tool_fields("estimate_memory")


def run_estimate(
    model: str,
    mode: str,
    gpu: str,
    gpus: Any,
    seq_len: Any,
    batch: Any,
    *,
    precision: str | None = None,
    kv_dtype: str | None = None,
    context: Any = None,
    concurrency: Any = None,
    engine: str | None = None,
) -> dict[str, Any]:
    """Memory per GPU. Precision applies to every mode; KV dtype, context, concurrency and engine
    only to inference (a training estimate ignores them rather than failing)."""
    args: dict[str, Any] = {
        "model": (model or "").strip(),
        "mode": mode,
        "gpus": _int(gpus, 1),
        "seq_len": _int(seq_len, 2048),
        "batch": _int(batch, 1),
    }
    if gpu and gpu.strip():
        args["gpu"] = gpu.strip()
    if precision:
        args["precision"] = precision
    if mode == "inference":
        if kv_dtype and kv_dtype != "auto":
            args["kv_dtype"] = kv_dtype
        if _optional_int(context):
            args["context"] = _optional_int(context)
        if _optional_int(concurrency):
            args["concurrency"] = _optional_int(concurrency)
        # ENGINE HOOK: `engine` (hf / vllm / sglang) is passed once estimate_memory accepts it
        # (helper h13's change); until then the field is absent and the choice is not sent.
        if engine and engine != "auto" and "engine" in _tool_fields("estimate_memory"):
            args["engine"] = engine
    return run_tool("estimate_memory", args)


def run_plan(
    model: str,
    mode: str,
    tokens: str,
    deadline: str,
    budget: str,
    *,
    concurrency: Any = None,
    context: Any = None,
) -> dict[str, Any]:
    args: dict[str, Any] = {"model": (model or "").strip(), "mode": mode}
    if mode != "inference" and tokens and tokens.strip():
        args["tokens"] = tokens.strip()
    if deadline and deadline.strip() and mode != "inference":
        args["deadline"] = deadline.strip()
    if budget and budget.strip():
        args["budget"] = budget.strip()
    if mode == "inference":
        if _optional_int(concurrency):
            args["concurrency"] = _optional_int(concurrency)
        if _optional_int(context):
            args["context"] = _optional_int(context)
    return run_tool("plan_configurations", args)


def run_gpu_specs(names: list[str]) -> list[dict[str, Any]]:
    if not names:
        return []
    result = run_tool("gpu_specs", {"names": list(names)[:4]})
    if "error" in result:
        return []
    return list(result.get("gpus") or [])


def gpu_names() -> list[str]:
    from tools.gpus import all_gpus

    return [g.name for g in all_gpus()]


def default_comparison(names: list[str]) -> list[str]:
    """The comparison people ask about most: A100 80GB SXM vs H100 SXM vs RTX 4090."""
    wanted = ("A100 80GB SXM4", "H100 SXM5", "RTX 4090 24GB")
    picked = [next((n for n in names if w in n), None) for w in wanted]
    return [p for p in picked if p] or names[:3]
