"""The page's pure renderers: chart geometry, severity ordering and colours, sortable rows."""

from __future__ import annotations

import re

from assistant.web.chat import chat_events_to_messages, flatten_history
from assistant.web.render import findings_html, gpu_compare_rows, memory_chart_html, plan_rows


def _widths(html: str) -> list[float]:
    return [float(w) for w in re.findall(r'class="ga-seg"[^>]*width:([\d.]+)%', html)]


def test_chart_scales_to_the_larger_of_total_and_capacity() -> None:
    # Hand-worked: 7e9 params, mixed-precision AdamW → 14 + 14 + 84 GB = 112 GB; capacity 24 GB.
    est = {
        "weights_gb": 14.0,
        "gradients_gb": 14.0,
        "optimizer_gb": 84.0,
        "activations_gb": 0.0,
        "kv_cache_gb": 0.0,
        "overhead_gb": 0.0,
        "total_gb": 112.0,
        "gpu_memory_gb": 24.0,
        "fits": False,
        "headroom_gb": -88.0,
    }
    html = memory_chart_html(est, "zh")
    assert _widths(html) == [12.5, 12.5, 75.0]  # 14/112, 14/112, 84/112
    assert "left:21.429%" in html  # the 24 GB marker at 24/112
    assert "放不下" in html and "88.00 GB" in html


def test_chart_when_it_fits_shows_headroom_against_capacity() -> None:
    est = {
        "weights_gb": 10.0,
        "overhead_gb": 2.0,
        "total_gb": 12.0,
        "gpu_memory_gb": 24.0,
        "fits": True,
        "headroom_gb": 12.0,
    }
    html = memory_chart_html(est, "en")
    assert _widths(html) == [41.667, 8.333]  # 10/24, 2/24 of the card
    assert "Fits" in html and "headroom 12.00 GB" in html


def test_findings_are_ordered_worst_first_with_colours() -> None:
    report = {
        "severity": "critical",
        "kinds": ["kernel_log"],
        "next_action": {"zh": "开工单", "en": "open a ticket"},
        "findings": [
            {"id": "a", "severity": "info", "title": {"zh": "提示", "en": "note"}},
            {
                "id": "b",
                "severity": "critical",
                "title": {"zh": "掉卡", "en": "fell off the bus"},
                "evidence": ["NVRM: Xid 79 <script>"],
            },
        ],
    }
    html = findings_html(report, "en")
    order = re.findall(r'class="ga-finding" data-severity="(\w+)"', html)
    assert order == ["critical", "info"]
    assert "open a ticket" in html
    assert "<script>" not in html and "&lt;script&gt;" in html  # pasted text is escaped


def test_plan_rows_keep_numbers_numeric_for_sorting() -> None:
    plan = {
        "options": [
            {
                "gpu": "H100",
                "count": 8,
                "nodes": 1,
                "interconnect": "NVLink",
                "fits": True,
                "per_gpu_gb": 61.234,
                "days": {"low": 1.0, "mid": 1.5, "high": 2.0},
                "cost_cny": {"low": 1000.4, "mid": 1500.6, "high": 2000.0},
                "notes": ["a", "b"],
            }
        ]
    }
    row = plan_rows(plan, "en")[0]
    assert row[:7] == ["H100", 8, 1, "NVLink", 61.2, 1.5, 1501.0]
    assert row[7:] == ["1.00–2.00", "1,000–2,000", "a. b."]  # notes read as sentences


def test_gpu_compare_is_one_column_per_card() -> None:
    headers, rows = gpu_compare_rows(
        [
            {"name": "NVIDIA A", "memory_gb": 80, "nvlink_gbs_bidir": 600},
            {"name": "B", "memory_gb": 24, "nvlink_gbs_bidir": 0},
        ],
        "zh",
    )
    assert headers == ["指标", "A", "B"]
    assert rows[0] == ["显存 GB", 80, 24]
    assert rows[1] == ["NVLink GB/s（双向合计）", 600, "无"]  # 0 GB/s means no NVLink, said in words


def test_history_flattening_drops_tool_steps_and_reads_content_blocks() -> None:
    history = [
        {"role": "user", "content": [{"type": "text", "text": "能用4090全量训练7B吗"}], "metadata": None},
        {"role": "assistant", "content": "args", "metadata": {"title": "工具 Tool · estimate_memory"}},
        {"role": "assistant", "content": "不能。", "metadata": None},
    ]
    assert flatten_history(history) == [
        {"role": "user", "content": "能用4090全量训练7B吗"},
        {"role": "assistant", "content": "不能。"},
    ]


def test_stream_events_become_steps_answer_and_citations() -> None:
    events = [
        {"type": "tool_call", "id": "1", "name": "search_guide", "args": {"query": "q"}},
        {
            "type": "tool_result",
            "id": "1",
            "name": "search_guide",
            "result": {"hits": [{"doc_id": "faq", "section": "S", "text": "passage text"}]},
        },
        {"type": "token", "text": "Hello "},
        {"type": "token", "text": "world"},
        {
            "type": "final",
            "result": {
                "answer": "Hello world",
                "language": "en",
                "tool_calls": [
                    {
                        "name": "search_guide",
                        "args": {},
                        "result": {"hits": [{"doc_id": "faq", "section": "S", "text": "passage text"}]},
                    }
                ],
                "citations": [{"doc_id": "faq", "title": "FAQ", "section": "S"}],
            },
        },
    ]
    final = list(chat_events_to_messages(iter(events), "en"))[-1]
    group, step, answer = final  # one collapsed line for the steps, the step inside it, the answer
    assert group["metadata"]["title"] == "工具 Tools · 1 step: search_guide" and group["metadata"]["status"] == "done"
    assert step["metadata"]["parent_id"] == group["metadata"]["id"] and "passage text" in step["content"]
    # the answer named no sources itself, so they are added once, titles only
    assert answer == {"role": "assistant", "content": "Hello world\n\nSources: FAQ"}


def test_a_shaped_answer_keeps_its_own_sources_and_folds_its_details() -> None:
    text = (
        "不能。每卡约需 117.1 GB，RTX 4090 只有 24 GB。\n\n<details><summary>细节 / Details</summary>\n"
        "- 权重 14 GB\n</details>\n\n来源：常见问题速答"
    )
    events = [
        {"type": "token", "text": text},
        {
            "type": "final",
            "result": {"answer": text, "language": "zh", "citations": [{"doc_id": "faq", "title": "常见问题速答"}]},
        },
    ]
    (answer,) = list(chat_events_to_messages(iter(events), "zh"))[-1]
    assert answer["content"].count("常见问题速答") == 1
    assert "<details><summary>细节 / Details</summary>\n\n- 权重 14 GB\n\n</details>" in answer["content"]


def test_bilingual_strings_are_split_by_language() -> None:
    from assistant.web.render import _text

    assert _text("按小时计费更省 / Hourly billing is cheaper", "en") == "Hourly billing is cheaper"
    assert _text("按小时计费更省 / Hourly billing is cheaper", "zh") == "按小时计费更省"
    assert _text("NVLink / NVSwitch", "zh") == "NVLink / NVSwitch"  # no Chinese: left whole


def test_pasted_log_is_shown_in_a_code_block_and_given_back_unchanged() -> None:
    from assistant.web.chat import display_user_text

    log = "帮我看看\n| 0 NVIDIA A100-SXM4-80GB  On |\n|  N/A   34C    P0  61W / 400W |"
    shown = display_user_text(log)
    assert shown.startswith("```text\n") and shown.endswith("\n```")
    assert flatten_history([{"role": "user", "content": shown}]) == [{"role": "user", "content": log}]
    assert display_user_text("能用4090全量训练7B吗") == "能用4090全量训练7B吗"  # a question stays as typed


def test_chart_states_the_seed_rule_beside_the_precise_figure() -> None:
    # 7e9 params: seed rule 8 B/param → 56 GB; mixed-precision AdamW 16 B/param → 112 GB (ZeRO paper).
    est = {
        "weights_gb": 14.0,
        "total_gb": 112.0,
        "gpu_memory_gb": 24.0,
        "fits": False,
        "headroom_gb": -88.0,
        "seed_rule": {
            "bytes_per_param": 8.0,
            "model_states_gb": 56.0,
            "precise_bytes_per_param": 16.0,
            "precise_model_states_gb": 112.0,
            "reason": {"zh": "没有 fp32 主权重", "en": "no fp32 master"},
        },
    }
    html = memory_chart_html(est, "en")
    assert "8 B/param → 56.0 GB" in html and "16 B/param → 112.0 GB" in html and "no fp32 master" in html


# ---------------------------------------------------------------- serving columns, cards, notes (issue 16)

SERVING_PLAN = {
    "mode": "inference",
    "options": [
        {
            "gpu": "RTX 4090",
            "gpu_name": "NVIDIA GeForce RTX 4090 24GB",
            "count": 1,
            "nodes": 1,
            "interconnect": "单卡 / single GPU",
            "per_gpu_gb": 19.04,
            "days": None,
            "cost_cny": {"low": 1200.0, "mid": 1350.0, "high": 1500.0},
            "decode_tokens_per_s": {"low": 300.0, "mid": 339.4, "high": 380.0},
            "tokens_per_s": {"low": 38.0, "mid": 42.44, "high": 47.0},
            "ttft_s": {"low": 0.1, "mid": 0.183, "high": 0.3},
            "cost_per_mtok_cny": {"low": 1.2, "mid": 1.538, "high": 2.0},
            "why": "最便宜。",
            "notes": ["长期服务建议包月"],
        }
    ],
}


def test_inference_plan_has_serving_columns_and_no_training_columns() -> None:
    from assistant.web.render import column_widths, plan_table

    headers, rows = plan_table(SERVING_PLAN, "en")
    assert "Days (mid)" not in headers and "Days range" not in headers and "Cost range (CNY)" not in headers
    row = dict(zip(headers, rows[0], strict=True))
    assert row["Tokens/s per user"] == 42.4 and row["Total tokens/s"] == 339
    assert row["TTFT s"] == 0.18 and row["CNY per M output tokens"] == 1.54
    assert row["Cost CNY / month (mid)"] == 1350 and row["Interconnect"] == "single GPU"
    assert "CNY per M input tokens" not in headers  # absent from every option: no empty column
    widths = column_widths(headers)
    assert len(widths) == len(headers) and sum(int(str(w).rstrip("%")) for w in widths) == 100


def test_serving_columns_appear_only_when_the_planner_gives_them() -> None:
    from assistant.web.render import plan_table

    older = {"mode": "inference", "options": [{**SERVING_PLAN["options"][0]}]}
    for key in ("tokens_per_s", "ttft_s", "cost_per_mtok_cny"):
        older["options"][0].pop(key)
    headers, _ = plan_table(older, "zh")
    assert "总吞吐 tokens/s" in headers and "首 token 延迟 s" not in headers


def test_notes_read_as_sentences_without_doubled_punctuation() -> None:
    from assistant.web.render import join_notes

    assert join_notes(["最便宜。", "长期服务建议包月；"], "zh") == "最便宜。长期服务建议包月。"
    assert join_notes(["Cheapest option.", "rent monthly"], "en") == "Cheapest option. rent monthly."


def test_cards_show_every_value_with_its_label() -> None:
    from assistant.web.render import cards_html, compare_cards_html

    html = cards_html(["GPU", "Count", "Notes"], [["H100 <b>", 8, ""]], "x")
    assert html.count('class="ga-card"') == 1 and "H100 &lt;b&gt;" in html  # escaped
    assert 'Count</span><span class="ga-card-v">8<' in html and "Notes" not in html  # empty value left out
    cards = compare_cards_html(
        ["Field", "A100", "H100", "4090"], [["Memory GB", 80, 80, 24], ["BW GB/s", 2039, 3350, 1008]]
    )
    assert cards.count('class="ga-card"') == 3  # one card per GPU
    assert "4090</div>" in cards and ">1008<" in cards


def test_memory_form_sends_inference_fields_only_for_inference(monkeypatch) -> None:
    from assistant.web import forms

    sent: list[dict] = []
    monkeypatch.setattr(forms, "run_tool", lambda name, args: sent.append(args) or {})
    forms.run_estimate(
        "7B", "inference", "4090", 1, 2048, 1, precision="int4", kv_dtype="fp8", context=32768, concurrency=0
    )
    forms.run_estimate("7B", "full", "4090", 1, 2048, 1, precision="bf16", kv_dtype="fp8", context=32768, concurrency=8)
    assert sent[0]["precision"] == "int4" and sent[0]["kv_dtype"] == "fp8" and sent[0]["context"] == 32768
    assert "concurrency" not in sent[0]  # 0 = the tool's default
    assert "kv_dtype" not in sent[1] and "context" not in sent[1] and "concurrency" not in sent[1]
    # the engine choice is sent only if the tool has that input
    forms.run_estimate("7B", "inference", "4090", 1, 2048, 1, engine="vllm")
    assert ("engine" in sent[-1]) == forms.estimate_accepts("engine")


def test_diagnose_tab_leads_with_who_acts_and_shows_the_ticket() -> None:
    """Xid 79 (NVIDIA Xid catalog: GPU has fallen off the bus → the card is unusable; provider's problem)."""
    from assistant.web.forms import run_diagnosis
    from assistant.web.render import findings_html

    paste = "[Tue Mar  3 11:02:15 2026] NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n"
    html_zh = findings_html(run_diagnosis(paste, None), "zh")
    assert "换机器" in html_zh and "工单内容" in html_zh and "0000:3b:00" in html_zh
    html_unknown = findings_html(run_diagnosis("hello world", None), "en")
    assert 'data-severity="unknown"' in html_unknown and "Not recognised" in html_unknown
