"""Pure rendering helpers for the page (no gradio import): HTML for charts and findings,
rows for tables. Kept apart so they are testable and the page module stays thin."""

from __future__ import annotations

import html
import json
from typing import Any

from tools.diagnosis.incidents import VERDICT_LEAD
from tools.labels import field_label
from tools.lang import has_cjk
from tools.memory import BREAKDOWN_PARTS, EstimateMemoryOutput

# Breakdown parts in the order people read them, with bilingual labels and colours.
_PART_COLOURS = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#bab0ac")
# (field, zh label, en label, colour): the labels are the output model's own (tools/labels.py), defined once
MEMORY_PARTS: list[tuple[str, str, str, str]] = [
    (f, field_label(EstimateMemoryOutput, f, "zh"), field_label(EstimateMemoryOutput, f, "en"), c)
    for f, c in zip(BREAKDOWN_PARTS, _PART_COLOURS, strict=True)
]

SEVERITY_COLOURS = {
    "ok": ("#1a7f37", "#e6f4ea"),
    "info": ("#0b5cad", "#e7f0fb"),
    "warning": ("#9a6700", "#fff4d6"),
    "critical": ("#b42318", "#fde8e7"),
    "unknown": ("#57606a", "#f3f4f6"),  # nothing recognised: grey, never "info"
}

SEVERITY_LABELS = {
    "ok": ("正常", "OK"),
    "info": ("提示", "Info"),
    "warning": ("警告", "Warning"),
    "critical": ("严重", "Critical"),
    "unknown": ("未识别", "Not recognised"),
}


def _t(lang: str, zh: str, en: str) -> str:
    return zh if lang == "zh" else en


def _text(value: Any, lang: str) -> str:
    """A {zh, en} dict, a "中文 / English" string, or a plain string, in the requested language."""
    if isinstance(value, dict):
        return str(value.get(lang) or value.get("en") or value.get("zh") or "")
    if value is None:
        return ""
    text = str(value)
    zh, sep, en = text.partition(" / ")
    if sep and has_cjk(zh) and not has_cjk(en):
        return zh if lang == "zh" else en
    return text


def _num(value: Any) -> float:
    try:
        return float(value or 0.0)
    except (TypeError, ValueError):
        return 0.0


def memory_chart_html(estimate: dict[str, Any], lang: str = "zh") -> str:
    """A stacked bar of the per-GPU memory breakdown drawn against the card's capacity.

    The scale is max(total, capacity) so an overflow is visible as a bar running past the
    capacity marker. Pure HTML/CSS: nothing is fetched from the network.
    """
    if "error" in estimate:
        return error_html(estimate["error"], lang)
    total = _num(estimate.get("total_gb"))
    capacity = _num(estimate.get("gpu_memory_gb"))
    scale = max(total, capacity, 1e-9)
    segments, legend = [], []
    for key, zh, en, colour in MEMORY_PARTS:
        value = _num(estimate.get(key))
        if value <= 0:
            continue
        width = 100.0 * value / scale
        label = _t(lang, zh, en)
        segments.append(
            f'<div class="ga-seg" title="{html.escape(label)}: {value:.2f} GB" '
            f'style="width:{width:.3f}%;background:{colour}"></div>'
        )
        legend.append(
            f'<span class="ga-legend-item"><i style="background:{colour}"></i>'
            f"{html.escape(label)} {value:.2f} GB</span>"
        )
    marker = ""
    verdict = ""
    if capacity > 0:
        left = 100.0 * capacity / scale
        marker = (
            f'<div class="ga-cap" style="left:{left:.3f}%" '
            f'title="{_t(lang, "显卡容量", "GPU capacity")}: {capacity:g} GB"></div>'
        )
        legend.append(
            f'<span class="ga-legend-item"><i style="background:#111;width:3px"></i>'
            f"{_t(lang, '显卡容量', 'GPU capacity')} {capacity:g} GB</span>"
        )
        fits = estimate.get("fits")
        headroom = _num(estimate.get("headroom_gb"))
        if fits is True:
            verdict = (
                f'<div class="ga-verdict ga-ok">{_t(lang, "放得下", "Fits")} — '
                f"{_t(lang, '余量', 'headroom')} {headroom:.2f} GB</div>"
            )
        elif fits is False:
            verdict = (
                f'<div class="ga-verdict ga-bad">{_t(lang, "放不下", "Does not fit")} — '
                f"{_t(lang, '超出', 'over by')} {abs(headroom):.2f} GB</div>"
            )
    notes = []
    if estimate.get("summary"):
        notes.append(f'<div class="ga-note">{html.escape(_text(estimate["summary"], lang))}</div>')
    seed = estimate.get("seed_rule") or {}
    if seed.get("model_states_gb") is not None and seed.get("precise_model_states_gb") is not None:
        notes.append(
            f'<div class="ga-note">{_t(lang, "常见经验算法", "A common rule of thumb")} '
            f"{seed.get('bytes_per_param', 0):g} B/{_t(lang, '参数', 'param')} → {seed['model_states_gb']:.1f} GB{_t(lang, '；', '; ')}"
            f"{_t(lang, '精确', 'precise')} {seed.get('precise_bytes_per_param', 0):g} B/{_t(lang, '参数', 'param')} → "
            f"{seed['precise_model_states_gb']:.1f} GB<br><small>{html.escape(_text(seed.get('reason'), lang))}</small></div>"
        )
    gpu_name = html.escape(str(estimate.get("gpu") or estimate.get("gpu_name") or ""))
    cap_text = f" / {capacity:g} GB {gpu_name}" if capacity > 0 else ""
    title = _t(lang, "每张卡的显存", "Memory per GPU")
    return (
        f'<div class="ga-mem" data-total-gb="{total:.3f}" data-capacity-gb="{capacity:.3f}">'
        f'<div class="ga-mem-title">{title}: <b>{total:.2f} GB</b>{cap_text}</div>'
        f'<div class="ga-bar">{"".join(segments)}{marker}</div>'
        f'<div class="ga-legend">{"".join(legend)}</div>{verdict}{"".join(notes)}</div>'
    )


def error_html(error: dict[str, Any], lang: str) -> str:
    msg = _text({"zh": error.get("zh"), "en": error.get("en")}, lang)
    other = error.get("en") if lang == "zh" else error.get("zh")
    hint = ""
    if error.get("suggestions"):
        hint = "<br>" + _t(lang, "可选：", "Did you mean: ") + html.escape(", ".join(error["suggestions"][:6]))
    return f'<div class="ga-error">{html.escape(msg or "")}<br><small>{html.escape(other or "")}</small>{hint}</div>'


def findings_html(report: dict[str, Any], lang: str = "zh") -> str:
    """Diagnosis findings as coloured cards, worst first, with the one next action on top."""
    if "error" in report:
        return error_html(report["error"], lang)
    parts: list[str] = []
    severity = str(report.get("severity", "ok"))
    fg, bg = SEVERITY_COLOURS.get(severity, SEVERITY_COLOURS["info"])
    kinds = ", ".join(report.get("kinds") or []) or _t(lang, "未识别", "none recognised")
    next_action = _text(report.get("next_action"), lang)
    verdict = VERDICT_LEAD.get(str(report.get("verdict") or ""))  # the engine's own words for who acts
    if verdict:  # the renter's next step first: who acts, then what (unless the action already says so)
        who = _t(lang, verdict[0], verdict[1])
        next_action = next_action if next_action.startswith(who) else f"{who} — {next_action}" if next_action else who
    parts.append(
        f'<div class="ga-summary" data-severity="{html.escape(severity)}" style="border-color:{fg};background:{bg}">'
        f"<b>{_t(lang, '总体', 'Overall')}: {html.escape(_text(dict(zip(('zh', 'en'), SEVERITY_LABELS.get(severity, (severity, severity)), strict=True)), lang))}</b>"
        f" · {_t(lang, '识别到', 'Detected')}: {html.escape(kinds)}"
        + (
            f'<div class="ga-next"><b>{_t(lang, "下一步", "Next step")}:</b> {html.escape(next_action)}</div>'
            if next_action
            else ""
        )
        + "</div>"
    )
    for incident in report.get("incidents") or []:
        ticket = _text(incident.get("ticket"), lang) if isinstance(incident, dict) else ""
        if ticket:  # ready to paste into the provider's ticket form
            parts.append(
                f'<div class="ga-ticket"><b>{_t(lang, "工单内容（可直接复制）", "Ticket text (copy as is)")}</b>'
                f'<pre style="white-space:pre-wrap;overflow-wrap:anywhere">{html.escape(ticket)}</pre></div>'
            )
    order = {"critical": 0, "warning": 1, "info": 2, "ok": 3, "unknown": 4}
    for finding in sorted(report.get("findings") or [], key=lambda f: order.get(str(f.get("severity")), 9)):
        sev = str(finding.get("severity", "info"))
        fg, bg = SEVERITY_COLOURS.get(sev, SEVERITY_COLOURS["info"])
        label = _text(dict(zip(("zh", "en"), SEVERITY_LABELS.get(sev, (sev, sev)), strict=True)), lang)
        evidence = "".join(f"<code>{html.escape(str(line))}</code><br>" for line in (finding.get("evidence") or [])[:6])
        causes = "".join(f"<li>{html.escape(_text(c, lang))}</li>" for c in (finding.get("causes") or []))
        actions = "".join(f"<li>{html.escape(_text(a, lang))}</li>" for a in (finding.get("actions") or []))
        parts.append(
            f'<div class="ga-finding" data-severity="{html.escape(sev)}" style="border-left:6px solid {fg};background:{bg}">'
            f'<div><span class="ga-badge" style="background:{fg}">{html.escape(label)}</span> '
            f"<b>{html.escape(_text(finding.get('title'), lang))}</b></div>"
            + (f'<div class="ga-evidence">{evidence}</div>' if evidence else "")
            + (f"<div><b>{_t(lang, '可能原因', 'Likely causes')}</b><ul>{causes}</ul></div>" if causes else "")
            + (f"<div><b>{_t(lang, '建议', 'What to do')}</b><ul>{actions}</ul></div>" if actions else "")
            + "</div>"
        )
    return '<div class="ga-findings">' + "".join(parts) + "</div>"


PLAN_COLUMNS = {
    "zh": [
        "GPU",
        "卡数",
        "节点",
        "互联",
        "每卡显存 GB",
        "天数（中）",
        "费用元（中）",
        "天数范围",
        "费用范围（元）",
        "说明",
    ],
    "en": [
        "GPU",
        "Count",
        "Nodes",
        "Interconnect",
        "Per-GPU GB",
        "Days (mid)",
        "Cost CNY (mid)",
        "Days range",
        "Cost range (CNY)",
        "Notes",
    ],
}
PLAN_COLUMN_WIDTHS: list[str | int] = ["15%", "5%", "5%", "12%", "7%", "7%", "8%", "9%", "10%", "22%"]


def _band(value: Any, key: str) -> Any:
    return value.get(key) if isinstance(value, dict) else None


def _round(value: Any, digits: int = 1) -> Any:
    return round(value, digits) if isinstance(value, (int, float)) else value


def _range(value: Any, digits: int) -> str:
    low, high = _band(value, "low"), _band(value, "high")
    if not isinstance(low, (int, float)) or not isinstance(high, (int, float)):
        return ""
    return f"{low:,.{digits}f}–{high:,.{digits}f}"


_SENTENCE_END = ("。", ".", "！", "？", "!", "?")


def join_notes(notes: list[Any], lang: str) -> str:
    """Notes as sentences, each ended once: 「…更省。按月租…」 / "… cheaper. Rent monthly …" (never 「。；」 or ".;")."""
    out = []
    for note in notes:
        text = _text(note, lang).strip().rstrip("；;，,")
        if not text:
            continue
        if not text.endswith(_SENTENCE_END):
            text += "。" if lang == "zh" else "."
        out.append(text)
    return ("" if lang == "zh" else " ").join(out)


def plan_rows(plan: dict[str, Any], lang: str = "zh") -> list[list[Any]]:
    """Planner options as table rows; the mid figures stay numbers so the table sorts numerically."""
    rows = []
    for opt in plan.get("options") or []:
        notes = [n for n in (opt.get("why"), opt.get("billing"), *(opt.get("notes") or [])) if n]
        rows.append(
            [
                opt.get("gpu_name") or opt.get("gpu"),
                opt.get("count"),
                opt.get("nodes"),
                _text(opt.get("interconnect"), lang),
                _round(opt.get("per_gpu_gb")),
                _round(_band(opt.get("days"), "mid"), 2),
                _round(_band(opt.get("cost_cny"), "mid"), 0),
                _range(opt.get("days"), 2),
                _range(opt.get("cost_cny"), 0),
                join_notes(notes, lang),
            ]
        )
    return rows


# Serving (inference) columns: (key in the option, zh header, en header, digits). A column with no
# value in any option is left out, so a planner without the serving figures shows fewer columns.
SERVING_FIELDS: list[tuple[str, str, str, int]] = [
    ("tokens_per_s", "每用户 tokens/s", "Tokens/s per user", 1),
    ("decode_tokens_per_s", "总吞吐 tokens/s", "Total tokens/s", 0),
    ("ttft_s", "首 token 延迟 s", "TTFT s", 2),
    ("cost_per_mtok_cny", "元 / 百万输出 token", "CNY per M output tokens", 2),
    ("cost_per_mtok_input_cny", "元 / 百万输入 token", "CNY per M input tokens", 2),
    ("cost_cny", "月费（元，中）", "Cost CNY / month (mid)", 0),
]
SERVING_HEAD = {
    "zh": ["GPU", "卡数", "节点", "互联", "每卡显存 GB"],
    "en": ["GPU", "Count", "Nodes", "Interconnect", "Per-GPU GB"],
}


def _mid(value: Any, digits: int) -> Any:
    """A band's mid (or a plain number), rounded; None when absent."""
    number = _band(value, "mid") if isinstance(value, dict) else value
    return round(number, digits) if isinstance(number, (int, float)) else None


def serving_table(plan: dict[str, Any], lang: str = "zh") -> tuple[list[str], list[list[Any]]]:
    """Inference options: memory and the serving figures (tokens/s, TTFT, CNY per million tokens),
    no training columns (days, training cost)."""
    options = plan.get("options") or []
    fields = [f for f in SERVING_FIELDS if any(_mid(o.get(f[0]), f[3]) is not None for o in options)]
    headers = SERVING_HEAD[lang] + [_t(lang, zh, en) for _, zh, en, _ in fields] + [_t(lang, "说明", "Notes")]
    rows = []
    for opt in options:
        notes = [n for n in (opt.get("why"), opt.get("billing"), *(opt.get("notes") or [])) if n]
        rows.append(
            [
                opt.get("gpu_name") or opt.get("gpu"),
                opt.get("count"),
                opt.get("nodes"),
                _text(opt.get("interconnect"), lang),
                _round(opt.get("per_gpu_gb")),
                *(_mid(opt.get(key), digits) for key, _, _, digits in fields),
                join_notes(notes, lang),
            ]
        )
    return headers, rows


def column_widths(headers: list[str]) -> list[str | int]:
    """Widths for a plan table: the training table's fixed set, or for the serving table GPU 16%,
    four narrow columns, up to 8% per figure and the rest (at least 15%) for the notes (so notes never squeeze to a
    few characters per line)."""
    if headers in (PLAN_COLUMNS["zh"], PLAN_COLUMNS["en"]):
        return PLAN_COLUMN_WIDTHS
    figures = max(0, len(headers) - 6)
    each = min(8, 40 // figures) if figures else 0  # the notes keep at least 15%
    notes = 100 - (16 + 5 + 5 + 12 + 7) - each * figures
    return ["16%", "5%", "5%", "12%", "7%", *([f"{each}%"] * figures), f"{notes}%"]


def plan_table(plan: dict[str, Any], lang: str = "zh") -> tuple[list[str], list[list[Any]]]:
    """Headers and rows for the Plan tab: training columns, or serving columns in inference mode."""
    if str(plan.get("mode", "")) == "inference":
        return serving_table(plan, lang)
    return PLAN_COLUMNS[lang], plan_rows(plan, lang)


def _cell(value: Any) -> str:
    if value is None or value == "":
        return "—"
    if isinstance(value, float):
        return f"{value:,.2f}".rstrip("0").rstrip(".") if abs(value) < 1000 else f"{value:,.0f}"
    if isinstance(value, int):
        return f"{value:,}" if abs(value) >= 10000 else str(value)
    return str(value)


def cards_html(headers: list[str], rows: list[list[Any]], css_id: str) -> str:
    """The same table as cards, one per row (the phone layout): the first cell is the card's title,
    the rest are label/value lines, so nothing is squeezed into a narrow column."""
    cards = []
    for row in rows:
        title = html.escape(_cell(row[0]) if row else "")
        lines = "".join(
            f'<div class="ga-card-line"><span class="ga-card-k">{html.escape(str(h))}</span>'
            f'<span class="ga-card-v">{html.escape(_cell(v))}</span></div>'
            for h, v in zip(headers[1:], row[1:], strict=False)
            if v not in (None, "")
        )
        cards.append(f'<div class="ga-card"><div class="ga-card-title">{title}</div>{lines}</div>')
    return f'<div class="ga-cards" id="{html.escape(css_id)}">' + "".join(cards) + "</div>"


def compare_cards_html(headers: list[str], rows: list[list[Any]]) -> str:
    """The GPU comparison (fields × cards) as one card per GPU."""
    cards = [[name] + [row[i + 1] for row in rows] for i, name in enumerate(headers[1:])]
    return cards_html([headers[0]] + [row[0] for row in rows], cards, "compare-cards-list")


GPU_FIELDS: list[tuple[str, str, str]] = [
    ("memory_gb", "显存 GB", "Memory GB"),
    ("memory_type", "显存类型", "Memory type"),
    ("mem_bw_gbs", "显存带宽 GB/s", "Memory bandwidth GB/s"),
    ("bf16_dense_tflops", "BF16 稠密 TFLOPS", "BF16 dense TFLOPS"),
    ("fp8_dense_tflops", "FP8 稠密 TFLOPS", "FP8 dense TFLOPS"),
    ("tf32_dense_tflops", "TF32 稠密 TFLOPS", "TF32 dense TFLOPS"),
    ("fp32_tflops", "FP32 TFLOPS", "FP32 TFLOPS"),
    ("int8_dense_tops", "INT8 稠密 TOPS", "INT8 dense TOPS"),
    ("nvlink_gbs_bidir", "NVLink GB/s（双向合计）", "NVLink GB/s (bidirectional)"),
    ("pcie_gen", "PCIe 代", "PCIe gen"),
    ("tdp_w", "功耗 W", "TDP W"),
    ("architecture", "架构", "Architecture"),
    ("form_factor", "形态", "Form factor"),
    ("release_year", "年份", "Year"),
    ("confidence", "数据可信度", "Confidence"),
    ("as_of", "数据日期", "As of"),
]


def gpu_compare_rows(specs: list[dict[str, Any]], lang: str = "zh") -> tuple[list[str], list[list[Any]]]:
    """Side-by-side GPU table: one row per field, one column per card (sources go below the table)."""
    headers = [_t(lang, "指标", "Field")] + [str(s.get("name", "?")).replace("NVIDIA ", "") for s in specs]
    rows = []
    for key, zh, en in GPU_FIELDS:
        if not any(key in s for s in specs):
            continue
        values = []
        for spec in specs:
            value = spec.get(key)
            if key == "nvlink_gbs_bidir" and value == 0:
                value = _t(lang, "无", "none")
            values.append("—" if value is None else value)
        rows.append([_t(lang, zh, en)] + values)
    return headers, rows


def gpu_sources_markdown(specs: list[dict[str, Any]], lang: str = "zh") -> str:
    """Where each card's figures come from, listed under the comparison table."""
    lines = [f"**{_t(lang, '来源', 'Sources')}**"]
    for spec in specs:
        lines.append(
            f"- {str(spec.get('name', '?')).replace('NVIDIA ', '')}: {spec.get('source', '—')}"
            f"（{spec.get('as_of', '')}）"
            if lang == "zh"
            else f"- {str(spec.get('name', '?')).replace('NVIDIA ', '')}: {spec.get('source', '—')} ({spec.get('as_of', '')})"
        )
    return "\n".join(lines)


def tool_step_markdown(args: dict[str, Any], result: dict[str, Any] | None, lang: str) -> str:
    """Body of a collapsible tool step: arguments and (trimmed) result as JSON."""
    body = f"**{_t(lang, '参数', 'Arguments')}**\n```json\n{json.dumps(args, ensure_ascii=False, indent=1)}\n```"
    if result is not None:
        text = json.dumps(result, ensure_ascii=False, indent=1)
        if len(text) > 4000:
            text = text[:4000] + "\n…"
        body += f"\n\n**{_t(lang, '结果', 'Result')}**\n```json\n{text}\n```"
    return body
