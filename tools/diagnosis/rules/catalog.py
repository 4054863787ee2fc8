"""Findings from the error and symptom catalogs (knowledge/diagnosis/error_catalog.yaml, symptom_catalog.yaml).

The YAML holds the words and the advice with their sources; this module fills the placeholders with the paste's
own numbers (the user's log, not a guide's example), drops a cause or action whose `when` does not match, replaces
the generic finding a rule `supersedes`, and adds to the finding a rule `augments` (Xid 79). The few checks that
need arithmetic (ranks in an nccl-tests run, ollama's shortfall, a MiB series that plateaus) live in CHECKS.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tools.diagnosis import signals
from tools.diagnosis.findings import Text
from tools.diagnosis.parsers.error_catalog import Catalog, Hit
from tools.diagnosis.rules.context import Ctx

Check = Callable[[Ctx, Hit, Catalog], "dict[str, Any] | None"]


def _num(x: str | None) -> float | None:
    try:
        return float(x) if x is not None else None
    except ValueError:
        return None


def _fmt(x: float) -> str:
    s = f"{x:,.1f}"
    return s[:-2] if s.endswith(".0") else s


def _piece(name: str, rule: str, key: str, values: dict[str, Any]) -> tuple[str, str]:
    entry = ((signals.load(name).get("rules") or {})[rule].get("texts") or {})[key]
    return signals.pair(entry, values)


def _flash(c: Ctx, hit: Hit, cat: Catalog) -> dict[str, Any]:
    out: dict[str, Any] = {"gpu_zh": "", "gpu_en": ""}
    out["then_zh"], out["then_en"] = _piece("error_catalog", hit.rule, "fix", {})
    m = re.search(
        r"(?<![A-Za-z0-9.])(RTX\s*20[6-8]0(?:\s*(?:Ti|SUPER))?|20[6-8]0\s*Ti|20[6-8]0|Tesla\s*[TV]\d+\w*|T4|V100\w*|"
        r"GTX\s*1[06]\d0(?:\s*Ti)?|P40|P100|TITAN\s*(?:RTX|V))(?![a-z\d])",
        cat.text,
        re.I,
    )
    if m:
        out["gpu_zh"], out["gpu_en"] = _piece("error_catalog", hit.rule, "gpu", {"gpu": " ".join(m.group(1).split())})
    oom = next((f for f in c.findings if f.id == "oom_exceeds_capacity"), None)
    torch = c.p.get("torch_errors")
    o = torch.ooms[0] if torch and torch.ooms else None
    if oom is not None and o is not None and o.requested_gib is not None and o.total_gib:
        vals = {"req": f"{o.requested_gib:.2f} GiB", "total": f"{o.total_gib:.2f} GiB"}
        out["then_zh"], out["then_en"] = _piece("error_catalog", hit.rule, "oom", vals)
        out["_evidence"] = oom.evidence
    return out


def _single_rank(c: Ctx, hit: Hit, cat: Catalog) -> dict[str, Any] | None:
    ranks = len(set(re.findall(r"#?\s*Rank\s+(\d+)\s+(?:Group\s+\d+\s+)?Pid", cat.text)))
    g = hit.values.get("gpus_per_proc")
    n = hit.values.get("procs")
    told = int(g.split()[0]) * (int(n) if n else 1) if g else (int(n) if n else None)
    if ranks > 1 or (told is not None and told > 1):
        return None  # several ranks and still 0: a real fault, for the nccl-tests rules
    one = _piece("error_catalog", hit.rule, "one_gpu", {})
    return {"ranks_zh": one[0], "ranks_en": one[1]}


def _ollama(c: Ctx, hit: Hit, cat: Catalog) -> dict[str, Any] | None:
    v = {k: _num(x) for k, x in hit.values.items() if k != "model"}
    req = v.get("required")
    if req is None:
        return None
    out: dict[str, Any] = {"required": _fmt(req), "weights_zh": "", "weights_en": ""}
    weights = v.get("weights")
    if weights:
        out["weights_zh"], out["weights_en"] = _piece("error_catalog", hit.rule, "weights", {"weights": _fmt(weights)})
    total, free, swap, vram = v.get("total"), v.get("free"), v.get("swap") or 0.0, v.get("vram") or 0.0
    if total is not None and free is not None:
        have = free + swap + vram
        vals = {"total": _fmt(total), "free": _fmt(free), "swap": _fmt(swap), "vram": _fmt(vram)}
        out["have_zh"], out["have_en"] = _piece("error_catalog", hit.rule, "have_full", vals)
    elif (available := v.get("available")) is not None:
        have = available
        out["have_zh"], out["have_en"] = _piece("error_catalog", hit.rule, "have_available", {"available": _fmt(have)})
    else:
        return None
    out["short"] = _fmt(max(req - have, 0.0))
    return out


_MIB = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s*MiB", re.I)


def _plateau(c: Ctx, hit: Hit, cat: Catalog) -> dict[str, Any]:
    """A told series of nvidia-smi MiB figures that rises and then holds at its maximum: quote it."""
    rows = [ln for ln in cat.text.split("\n") if _MIB.search(ln)]
    series = [(ln, float(_MIB.findall(ln)[-1].replace(",", ""))) for ln in rows]
    out: dict[str, Any] = {"series_zh": "", "series_en": ""}
    if len(series) < 3:
        return out
    values = [v for _, v in series]
    peak = max(values)
    first_peak = values.index(peak)
    if first_peak == 0 or first_peak == len(values) - 1 or any(v < peak for v in values[first_peak:]):
        return out  # still rising at the end, or falling: not the cached plateau
    label = re.sub(r"[|│]", " ", series[first_peak][0])
    label = " ".join(_MIB.sub("", label).split()) or f"#{first_peak + 1}"
    vals = {"first": f"{values[0]:,.0f}", "peak": f"{peak:,.0f}", "peak_at": label[:40]}
    out["series_zh"], out["series_en"] = _piece("symptom_catalog", hit.rule, "series", vals)
    return out


_TIMED = re.compile(r"\d\s*(?:ms|us|µs)\b", re.I)
_TFLOPS = re.compile(r"(\d+(?:\.\d+)?)\s*TFLOPS", re.I)
# ASCII boundaries: in 「一张4090上」 the CJK characters around the card are word characters to `\w`
_GPU_TOKEN = re.compile(
    r"(?<![A-Za-z0-9_.])((?:RTX\s*)?[A-Z]{0,2}\d{2,4}[A-Z]?(?:\s*(?:Ti|SXM|PCIe))?)(?![A-Za-z0-9_.])", re.I
)


def _named_gpu(text: str) -> Any:
    """The first card named in `text` that knowledge/gpus.yaml knows (tools.gpus.resolve_gpu), else None."""
    from tools.errors import ToolInputError
    from tools.gpus import resolve_gpu

    for m in _GPU_TOKEN.finditer(text):
        token = m.group(1)
        if not re.search(r"[A-Za-z]", token) and len(token) != 4:
            continue  # a bare '129' or '8192' is a figure, not a card
        try:
            return resolve_gpu(token)
        except (ToolInputError, ValueError, KeyError):
            continue
    return None


def _near_peak(c: Ctx, hit: Hit, cat: Catalog) -> dict[str, Any] | None:
    """A told TFLOPS figure against the named card's dense BF16 peak: only a figure at 70% or more is 'near the
    ceiling' (below that the kernel may well have headroom, and this rule says nothing)."""
    spec = _named_gpu(cat.text)
    timed = [ln for ln in cat.text.split("\n") if _TIMED.search(ln)]
    measured = max((float(x) for ln in timed for x in _TFLOPS.findall(ln)), default=None)
    peak = getattr(spec, "bf16_dense_tflops", None) if spec is not None else None
    if not spec or not measured or not peak or not 0.7 <= measured / peak <= 1.05:
        return None
    out: dict[str, Any] = {"gpu": spec.name, "peak": _fmt(peak), "pct": f"{100 * measured / peak:.0f}"}
    out["measured"] = _fmt(measured)
    gbs, bw = _num(hit.values.get("gbs")), spec.mem_bw_gbs
    if gbs and bw:
        vals = {"gbs": _fmt(gbs), "mem_bw": _fmt(bw), "bw_pct": f"{100 * gbs / bw:.0f}"}
        out["bw_zh"], out["bw_en"] = _piece("symptom_catalog", hit.rule, "bw", vals)
    return out


def _buckets(c: Ctx, hit: Hit, cat: Catalog) -> dict[str, Any]:
    """Each bucket the config names, in elements and in GB at 2 bytes per element (fp16/bf16)."""
    parts = []
    for key, name in (("reduce", "reduce_bucket_size"), ("prefetch", "stage3_prefetch_bucket_size")):
        n = _num(hit.values.get(key))
        if n:
            parts.append(f"{name} {hit.values[key]} ≈ {_fmt(n * 2 / 1e9)} GB")
    out: dict[str, Any] = {"sizes_zh": "", "sizes_en": ""}
    if parts:
        out["sizes_zh"], out["sizes_en"] = _piece("error_catalog", hit.rule, "sizes", {"sizes": "; ".join(parts)})
    return out


_HCA = re.compile(r"\[\d+\]([A-Za-z][\w]*?)(?::\d+)?(?:/\w+)?(?=\s|;|$)")


def _ib_hcas(c: Ctx, hit: Hit, cat: Catalog) -> dict[str, Any]:
    """The HCAs NCCL did open (its `NET/IB : Using [0]mlx5_1:1/RoCE [1]...` line): the list NCCL_IB_HCA should name."""
    used = next((ln for ln in cat.text.split("\n") if re.search(r"NET/IB ?: Using \[\d+\]", ln)), "")
    names = _HCA.findall(used.split("OOB")[0])
    hca_list = ",".join(dict.fromkeys(names)) or "mlx5_0"
    out: dict[str, Any] = {"hca_list": hca_list}
    out["hcas_zh"], out["hcas_en"] = _piece("error_catalog", hit.rule, "hcas", out)
    return out


def _divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


_TP_PIECES = {
    "heads": (
        "——hidden {hidden} ÷ TP {tp} = {num} 维，不是每头 {den} 维的整数倍；{hidden} ÷ {den} = {heads} 个头，{tp} 不能整除 {heads}",
        " — hidden {hidden} ÷ TP {tp} = {num} is not a whole multiple of the {den}-wide head; {hidden} ÷ {den} = {heads} heads, "
        "and {tp} does not divide {heads}",
    ),
    "fix": ("（{heads} 个头、{tp} 张卡时用 {choices}）", " ({heads} heads on {tp} GPUs: {choices})"),
}


def _tp_heads(c: Ctx, hit: Hit, cat: Catalog) -> dict[str, Any]:
    """`96 is not divisible by 64` with TP 8: per-rank hidden 96 × 8 = 768, 768 ÷ 64 = 12 heads, and the TP sizes
    that divide 12 and the card count (2, 4) are the fix. Only when the numbers make that story whole."""
    out: dict[str, Any] = {f"{k}_{lang}": "" for k in _TP_PIECES for lang in ("zh", "en")}
    num, den, tp = (_num(hit.values.get(k)) for k in ("num", "den", "tp"))
    if not (num and den and tp) or num * tp % den or tp < 2:
        return out
    n, d, t = int(num), int(den), int(tp)
    hidden, heads = n * t, n * t // d
    ok = [x for x in _divisors(heads) if 1 < x < t and t % x == 0] or [x for x in _divisors(heads) if 1 < x < t]
    if heads % t == 0 or not ok:
        return out
    vals = {"hidden": hidden, "tp": t, "num": n, "den": d, "heads": heads}
    out["heads_zh"] = _TP_PIECES["heads"][0].format(**vals)
    out["heads_en"] = _TP_PIECES["heads"][1].format(**vals)
    zh = " 或 ".join(f"TP={x}" for x in reversed(ok))
    en = " or ".join(f"TP={x}" for x in reversed(ok))
    out["fix_zh"] = _TP_PIECES["fix"][0].format(choices=zh, **vals)
    out["fix_en"] = _TP_PIECES["fix"][1].format(choices=en, **vals)
    return out


_NCCL_NAME = re.compile(r"(?<![A-Za-z0-9_])NCCL[_-]?[A-Za-z0-9]+(?:[_-][A-Za-z0-9]+)*")


def _nccl_typos(c: Ctx, hit: Hit, cat: Catalog) -> dict[str, Any]:
    """NCCL_* names the user set that NCCL does not know but that are one slip away from a name it does
    (NCCL_P2P5ISABLE → NCCL_P2P_DISABLE, NCCL_IB-DISABLE → NCCL_IB_DISABLE): NCCL ignores unknown names silently."""
    import difflib

    rule = (signals.load("symptom_catalog").get("rules") or {})[hit.rule]
    known = [str(k) for k in rule.get("known") or []]
    typos: dict[str, str] = {}
    for name in dict.fromkeys(_NCCL_NAME.findall(cat.text)):
        if name in known or not name.isupper() and name.upper() in known:
            continue
        close = difflib.get_close_matches(name.upper().replace("-", "_"), known, n=1, cutoff=0.8)
        if close and close[0] != name:
            typos[name] = close[0]
    out: dict[str, Any] = {"typo_zh": "", "typo_en": ""}
    if typos:
        vals = {"typos": "、".join(typos), "fixed": "、".join(typos.values())}
        out["typo_zh"] = _piece("symptom_catalog", hit.rule, "typo", vals)[0]
        vals = {"typos": ", ".join(typos), "fixed": ", ".join(typos.values())}
        out["typo_en"] = _piece("symptom_catalog", hit.rule, "typo", vals)[1]
    return out


_COUNT_GB = re.compile(
    r"(\d+)\s*(?:个|份|路|instances?|workers?|copies|replicas?)\s*([A-Za-z_\u4e00-\u9fff]{0,16}?)\s*"
    r"(?:在|是|占用?了?|用了?|时|at|uses?|takes?|:|：|=|→|->)?\s*(?:约|大约|about|~)?\s*(\d+(?:\.\d+)?)\s*(?:G|GB|GiB)\b",
    re.I,
)


def _linear(c: Ctx, hit: Hit, cat: Catalog) -> dict[str, Any] | None:
    """Told (count, GB) points of one setting (「8个estimator在22.6G，4个在17.5G，2个在14G」): a least-squares line
    through at least three distinct counts, rising and close to straight (R² ≥ 0.95), is per-copy cost + a fixed part."""
    pts: dict[int, float] = {}
    item = ""
    for m in _COUNT_GB.finditer(cat.text):
        pts.setdefault(int(m.group(1)), float(m.group(3)))
        item = item or m.group(2)
    if len(pts) < 3:
        return None
    xs, ys = list(pts), list(pts.values())
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    syy = sum((y - my) ** 2 for y in ys)
    if not sxx or not syy:
        return None
    slope = sxy / sxx
    r2 = sxy * sxy / (sxx * syy)
    if slope <= 0 or r2 < 0.95:
        return None
    intercept = my - slope * mx
    item_zh = (f" {item} " if item.isascii() else item) if item else "实例"
    item_en = item or "instances"
    return {
        "n": n,
        "slope": f"{slope:.2f}",
        "intercept": _fmt(max(intercept, 0.0)),
        "item_zh": item_zh,
        "item_en": item_en,
    }


def _renumber(c: Ctx, hit: Hit, cat: Catalog) -> dict[str, Any] | None:
    """`CUDA_VISIBLE_DEVICES=3,4` → cuda:0 is physical 3, cuda:1 is physical 4 (CUDA enumerates the visible cards in
    the order listed). Only integer lists that do not start at 0 (a list starting at 0 keeps GPU 0 as card 0)."""
    ids = [x.strip() for x in str(hit.values.get("ids") or "").split(",") if x.strip().isdigit()]
    if not ids or ids[0] == "0":
        return None
    pairs = list(enumerate(ids))[:8]
    return {
        "first": ids[0],
        "map_zh": "、".join(f"物理 {p} 号 → cuda:{i}" for i, p in pairs),
        "map_en": ", ".join(f"physical {p} → cuda:{i}" for i, p in pairs),
    }


_WORD_N = {"two": 2, "three": 3, "four": 4, "eight": 8, "两": 2, "二": 2, "三": 3, "四": 4, "八": 8}
_NICS = re.compile(
    r"(two|three|four|eight|[2-8]|两|二|三|四|八)\s*(?:x|×)?\s*(?:个|张|块|路)?\s*(?:(\d{2,3})\s*G(?:b|bps|bit|bE)?(?:/s)?\s*)?"
    r"(?:RoCE\w*|IB|InfiniBand|CX-?\d|ConnectX-?\d)?\s*(?:NICs?|HCAs?|网卡|ports?|rails?)",
    re.I,
)


def _one_hca(c: Ctx, hit: Hit, cat: Catalog) -> dict[str, Any] | None:
    """One HCA named out of the N NICs the user has: the ceiling is one NIC's line rate (Gb/s ÷ 8 = GB/s) instead of
    N of them. Only a single name (a comma-separated list is fine) and a told count of at least two."""
    if "," in str(hit.values.get("hca") or ""):
        return None
    m = _NICS.search(cat.text)
    if not m:
        return None
    n = _WORD_N.get(m.group(1).lower(), None) or (int(m.group(1)) if m.group(1).isdigit() else 0)
    if n < 2:
        return None
    out: dict[str, Any] = {"n": n, "one_zh": "", "one_en": "", "all_zh": "", "all_en": ""}
    if m.group(2):
        gbps = int(m.group(2))
        one, every = gbps / 8, n * gbps / 8
        out["one_zh"] = f"（{gbps} Gb/s ÷ 8 ≈ {_fmt(one)} GB/s）"
        out["one_en"] = f" ({gbps} Gb/s ÷ 8 ≈ {_fmt(one)} GB/s)"
        out["all_zh"] = f"（{n} × {_fmt(one)} = {_fmt(every)} GB/s）"
        out["all_en"] = f" ({n} × {_fmt(one)} = {_fmt(every)} GB/s)"
    return out


def _build_request(c: Ctx, hit: Hit, cat: Catalog) -> dict[str, Any] | None:
    """TensorRT's "Requested amount of GPU memory (N bytes)" / "requires N bytes of scratch space, but only M is
    available": N ÷ 1e9 GB and ÷ 2^30 GiB (and M ÷ 1e9 GB)."""
    n = _num(hit.values.get("bytes"))
    if not n:
        return None
    out = {"gb": f"{n / 1e9:.1f}", "gib": f"{n / 2**30:.1f}"}
    if (avail := _num(hit.values.get("avail"))) is not None:
        out["avail_gb"] = f"{avail / 1e9:.1f}"
    return out


def _util_budget(c: Ctx, hit: Hit, cat: Catalog) -> dict[str, Any] | None:
    """gpu_memory_utilization × the named card's nvidia-smi total (MiB, knowledge/gpus.yaml): the share one
    instance may take, said in GiB beside the fraction ("0.25 × 24,564 MiB ≈ 6.0 GiB")."""
    util = _num(hit.values.get("util"))
    if util is None or not 0 < util < 1:
        return None
    out: dict[str, Any] = {"util": f"{util:g}", "budget_zh": "", "budget_en": ""}
    spec = _named_gpu(cat.text)
    mib = getattr(spec, "nvidia_smi_total_mib", None) if spec is not None else None
    if mib:
        vals = {"util": f"{util:g}", "mib": f"{mib:,}", "gib": f"{util * mib / 1024:.1f}", "gpu": spec.name}
        out["budget_zh"], out["budget_en"] = _piece("error_catalog", hit.rule, "budget", vals)
    return out


_MODEL_TOKEN = re.compile(r"(?<![\w.-])([A-Za-z][\w.]*(?:-[\w.]+)*-\d+(?:\.\d+)?[Bb](?:-[\w.]+)*)")
_GROUP = 128  # GPTQ/AWQ int4 group size of the usual checkpoints


def _quant_tp(c: Ctx, hit: Hit, cat: Catalog) -> dict[str, Any] | None:
    """The tensor-parallel sizes (1, 2, 4, 8) whose share of the named model's intermediate_size is a whole number of
    128-channel quantisation groups (knowledge/models), with the factorisation said: 13696 = 128 × 107 → TP 1 only."""
    from tools.models import find_entry

    out: dict[str, Any] = {}
    for m in _MODEL_TOKEN.finditer(cat.text):
        entry = find_entry(m.group(1))
        inter = getattr(getattr(entry, "arch", None), "intermediate_size", None) if entry else None
        if entry is not None and inter and inter % _GROUP == 0:
            ok = [t for t in (1, 2, 4, 8) if inter % (_GROUP * t) == 0]
            vals = {"model": entry.id, "inter": inter, "groups": inter // _GROUP, "ok": "/".join(map(str, ok))}
            out["model_zh"], out["model_en"] = _piece("error_catalog", hit.rule, "model", vals)
            break
    return out


_DRIVER_VERSION = re.compile(r"(?<![\d.])(\d{3}\.\d{2,3}(?:\.\d{2})?)(?!\d)(?!\.\d)")


def _driver_versions(c: Ctx, hit: Hit, cat: Catalog) -> dict[str, Any]:
    """The driver versions the paste names (570.124.04 from the .run, 570.124.06 from the module source): quoted when
    there are two different full versions, so the reply says which two must become one."""
    full = [v for v in dict.fromkeys(_DRIVER_VERSION.findall(cat.text)) if v.count(".") == 2]
    out: dict[str, Any] = {"versions_zh": "", "versions_en": ""}
    if len(full) >= 2:
        out["versions_zh"] = f"（你这里是 {full[0]} 和 {full[1]} 两个版本）"
        out["versions_en"] = f" (here {full[0]} and {full[1]})"
    return out


CHECKS: dict[str, Check] = {
    "nccl_ib_hca_single_of_several": _one_hca,
    "trtllm_build_activation_oom": _build_request,
    "trtllm_plugin_scratch_space": _build_request,
    "vllm_util_share_of_whole_card": _util_budget,
    "quant_tp_not_aligned": _quant_tp,
    "nvml_mismatch_mixed_install": _driver_versions,
    "cuda_visible_devices_renumbered": _renumber,
    "memory_linear_in_instances": _linear,
    "nccl_env_not_taking_effect": _nccl_typos,
    "nccl_ib_hca_unopenable": _ib_hcas,
    "tp_split_not_whole_heads": _tp_heads,
    "zero3_bucket_sizes_too_big": _buckets,
    "measured_tflops_near_peak": _near_peak,
    "flash_attn_needs_ampere": _flash,
    "nccl_tests_single_rank_zero_busbw": _single_rank,
    "ollama_system_memory_short": _ollama,
    "gpu_memory_cached_not_leaked": _plateau,
}


_FIELD = re.compile(r"\{(\w+)\}")


def _optional_texts(rule: dict[str, Any], values: dict[str, Any]) -> dict[str, str]:
    """`texts` pieces whose placeholders the paste filled ({peer} → 「（对端 10.0.0.2）」) become `<key>_zh/_en`;
    the others are empty, so a title reads whole whether or not the log carried the number. A CHECK may
    still overwrite them."""
    out: dict[str, str] = {}
    for key, entry in (rule.get("texts") or {}).items():
        names = set(_FIELD.findall(str(entry.get("zh", "")) + str(entry.get("en", ""))))
        if names and names <= set(values):
            out[f"{key}_zh"], out[f"{key}_en"] = signals.pair(entry, values)
        else:
            out[f"{key}_zh"] = out[f"{key}_en"] = ""
    return out


def _texts(entries: list[dict[str, Any]], values: dict[str, Any], text: str) -> list[tuple[str, str]]:
    return [signals.pair(e, values) for e in entries if not e.get("when") or re.search(str(e["when"]), text, re.I)]


def _apply(c: Ctx, name: str, kind: str) -> None:
    cat: Catalog | None = c.p.get(kind)
    if not cat:
        return
    rules = signals.load(name).get("rules") or {}
    for hit in cat.hits:
        rule = rules[hit.rule]
        values: dict[str, Any] = dict(hit.values)
        values.update(_optional_texts(rule, values))
        check = CHECKS.get(hit.rule)
        if check is not None:
            extra = check(c, hit, cat)
            if extra is None:
                continue
            values.update(extra)
        evidence = [hit.line, *values.pop("_evidence", [])]
        causes = _texts(rule.get("causes") or [], values, cat.text)
        actions = _texts(rule.get("actions") or [], values, cat.text)
        targets = [f for f in c.findings if f.id in (rule.get("augments") or [])]
        if targets:
            for f in targets:
                f.causes.extend(Text(zh=z, en=e) for z, e in causes)
                f.actions[1:1] = [Text(zh=z, en=e) for z, e in actions]  # after "stop using it", before the ticket
            continue
        if rule.get("augments") and not rule.get("title"):
            continue  # nothing to add to
        replaced = set(rule.get("supersedes") or [])
        c.findings = [f for f in c.findings if f.id not in replaced]
        c.add(
            hit.rule,
            str(rule.get("severity") or "warning"),
            signals.pair(rule["title"], values),
            evidence,
            causes,
            actions,
        )
        _lead(c, set(rule.get("leads") or []))


def _lead(c: Ctx, over: set[str]) -> None:
    """Move the finding just added ahead of the generic ones it explains (`leads`: a watchdog timeout whose
    cause is the missing libibverbs), so the reply opens with what to change rather than with the symptom."""
    at = next((i for i, f in enumerate(c.findings[:-1]) if f.id in over), None)
    if at is not None:
        c.findings.insert(at, c.findings.pop())


def rules_error_catalog(c: Ctx) -> None:
    _apply(c, "error_catalog", "error_catalog")


def rules_symptom_catalog(c: Ctx) -> None:
    _apply(c, "symptom_catalog", "symptom_catalog")
