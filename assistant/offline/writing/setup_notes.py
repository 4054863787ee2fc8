"""The memory cause of the setup the user named (knowledge/setup_memory.yaml), written beside the estimate.

WHY: "7B needs 8.5 GB, why OOM on 24 GB with example.py" is answered by the script's KV pre-allocation, not by the
weights; the note text and its source live in knowledge/, this module only picks the ones the reading found
(`setup:<id>` mentions) and fills the checkpoint size from the estimate."""

from __future__ import annotations

from functools import lru_cache

from assistant.offline.writing.render import Writer


@lru_cache(maxsize=1)
def _notes() -> dict[str, dict]:
    from tools.data import load_yaml

    return {str(r["id"]): r for r in load_yaml("setup_memory.yaml").get("setups") or [] if r.get("id")}


def _fill(text: str, est: dict | None) -> str | None:
    """Placeholders from the estimate; a note that needs a number the estimate lacks is left out."""
    slots = {"{fp16_gb}": 2.0, "{int8_gb}": 1.0, "{int4_gb}": 0.5}  # bytes per parameter
    if not any(k in text for k in slots):
        return text
    params = (est or {}).get("params")
    if not isinstance(params, (int, float)) or params <= 0:
        return None
    for key, bpp in slots.items():
        text = text.replace(key, f"{params * bpp / 1e9:.1f}".removesuffix(".0"))  # "10 GB", "15.4 GB"
    for key, field in (("{gpu_gb}", "gpu_memory_gb"), ("{model}", "model")):
        if key in text:
            value = (est or {}).get(field)
            if value in (None, ""):
                return None
            text = text.replace(key, f"{value:.1f}".removesuffix(".0") if isinstance(value, float) else str(value))
    return text


def _lead_applies(row: dict, est: dict | None) -> bool:
    """`lead_when: weights_exceed_card` (quantising a model): line 1 only when the bf16 weights are larger than
    one card, the case where loading it whole is what ran out of memory."""
    if row.get("lead_when") != "weights_exceed_card":
        return True
    params, cap = (est or {}).get("params"), (est or {}).get("gpu_memory_gb")
    if not isinstance(params, (int, float)) or not isinstance(cap, (int, float)):
        return False
    return params * 2 / 1e9 > cap


def _join(text: object, sep: str) -> str:
    """A literal YAML block on one line: Chinese lines join with nothing, English ones with a space."""
    return sep.join(part.strip() for part in str(text or "").splitlines() if part.strip())


def setup_lead(w: Writer, said: set[str], est: dict | None = None) -> str | None:
    """Line 1 for a setup that decides the verdict by itself (Meta's example.py KV pre-allocation; quantising a
    model bigger than the card), its placeholders filled from the estimate."""
    table = _notes()
    for key in sorted(m for m in said if m.startswith("setup:")):
        row = table.get(key.split(":", 1)[1]) or {}
        if row.get("lead_zh") and row.get("lead_en") and _lead_applies(row, est):
            zh, en = _fill(str(row["lead_zh"]), est), _fill(str(row["lead_en"]), est)
            if zh and en:
                return w.t(zh, en)
    return None


def replaces_oom_lead(said: set[str], est: dict | None) -> bool:
    """A setup whose line 1 explains the OOM itself (quantising a model loaded whole): the generic "the estimate
    fits, lower the context" OOM line would point at the wrong cause."""
    table = _notes()
    for key in (m for m in said if m.startswith("setup:")):
        row = table.get(key.split(":", 1)[1]) or {}
        if row.get("replaces_oom_lead") and _lead_applies(row, est):
            return True
    return False


def setup_lines(w: Writer, said: set[str], est: dict | None = None, section: str = "verdict") -> list[str]:
    """One line per named setup (at most three), its source under assumptions; returns the ids written."""
    table = _notes()
    done: list[str] = []
    for key in sorted(m for m in said if m.startswith("setup:")):
        row = table.get(key.split(":", 1)[1])
        if not row or len(done) >= 3:
            continue
        zh, en = _fill(_join(row.get("zh"), ""), est), _fill(_join(row.get("en"), " "), est)
        if not zh or not en:
            continue
        w.add(section, zh, en)
        if row.get("source"):
            w.add("assumptions", f"出处：{row['source']}", f"Source: {row['source']}")
        done.append(str(row["id"]))
    return done
