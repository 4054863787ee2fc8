"""The GPU Advisor page (Gradio 6): chat, log diagnosis, memory chart, plan table, GPU comparison.

Thin by design: the chat streams `assistant.advisor.stream`; the other tabs call tools through
the registry and render with `assistant.web.render`. Analytics are switched off before gradio is
imported, the theme uses locally served fonts, and `share` is never used — so nothing leaves the
machine. The API key typed on the page lives only in this session's memory.
"""

from __future__ import annotations

import os

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")

from typing import Any, Iterator  # noqa: E402

import gradio as gr  # noqa: E402

from assistant.advisor import MAX_QUESTION_CHARS  # noqa: E402  (one limit for every surface)
from assistant.web import forms  # noqa: E402
from assistant.web.chat import (  # noqa: E402
    LANG_CHOICES,
    chat_events_to_messages,
    display_user_text,
    flatten_history,
)
from assistant.web.render import (  # noqa: E402
    PLAN_COLUMN_WIDTHS,
    PLAN_COLUMNS,
    cards_html,
    column_widths,
    compare_cards_html,
    findings_html,
    gpu_compare_rows,
    gpu_sources_markdown,
    memory_chart_html,
    plan_table,
)

EXAMPLES = [
    "能用4090全量训练7B吗？",
    "How many A100 80GB do I need for a 70B full fine-tune?",
    "A100 一个月多少钱？",
    "两台8卡服务器做分布式训练，用什么网络？",
    "GPU utilisation is below 50% — why?",
    forms.SAMPLE_NVIDIA_SMI,
]

CSS = """
.ga-mem{font-size:14px;margin:6px 0}
.ga-bar{position:relative;display:flex;height:34px;border:1px solid #999;border-radius:4px;overflow:visible;background:#f6f6f6}
.ga-seg{height:100%}
.ga-cap{position:absolute;top:-6px;bottom:-6px;width:3px;background:#111}
.ga-legend{margin-top:6px;display:flex;flex-wrap:wrap;gap:10px}
.ga-legend-item i{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:middle}
.ga-verdict{margin-top:6px;font-weight:bold}.ga-ok{color:#1a7f37}.ga-bad{color:#b42318}
.ga-summary{border:2px solid;border-radius:6px;padding:8px;margin-bottom:8px}
.ga-finding{border-radius:4px;padding:8px;margin:6px 0}
.ga-badge{color:#fff;border-radius:3px;padding:1px 6px;font-size:12px}
.ga-evidence code{font-size:12px;white-space:pre-wrap}
.ga-note{margin-top:6px;color:#333}
.ga-error{color:#b42318;border:1px solid #b42318;border-radius:4px;padding:8px}
#log textarea,#chatbot pre,#chatbot code{font-family:ui-monospace,"IBM Plex Mono","DejaVu Sans Mono",Menlo,Consolas,monospace}
#log textarea{font-size:13px;white-space:pre;overflow-x:auto}
#chatbot details{border:1px solid var(--border-color-primary,#ddd);border-radius:6px;padding:4px 10px;margin:8px 0}
#chatbot details>summary{cursor:pointer;font-weight:600}
.ga-cards{display:none}
.ga-card{border:1px solid var(--border-color-primary,#ddd);border-radius:8px;padding:8px 10px;margin:8px 0}
.ga-card-title{font-weight:700;margin-bottom:4px}
.ga-card-line{display:flex;justify-content:space-between;gap:12px;padding:2px 0;border-top:1px dashed #eee}
.ga-card-k{color:#555;flex:0 0 45%}.ga-card-v{text-align:right;flex:1 1 auto;overflow-wrap:anywhere}
#plan-table th,#plan-table td,#compare-table th,#compare-table td{word-break:normal;overflow-wrap:normal}
@media (max-width:480px){
  #chatbot .message-row.bubble{margin-left:2px !important;margin-right:2px !important;max-width:calc(100% - 4px) !important}
  #chatbot .message{padding:6px !important}
  .ga-cards{display:block}
  #plan-table,#compare-table{display:none !important}
  .tab-container button{padding:6px 8px !important;font-size:13px}
  #chatbot{height:50vh !important;min-height:300px}
  .ga-legend{font-size:12px}
  .ga-card-k{flex:0 0 38%}.ga-card-v{text-align:left}
}
"""

# Gradio scopes `css` to its content box; the page's own 32 px side padding sits outside it, so the
# phone rule for it goes into <head> unscoped.
HEAD = (
    "<style>@media (max-width:480px){.main.fillable{padding-left:8px !important;padding-right:8px !important}}</style>"
)

# Gradio's Chatbot scrolls to the bottom after each update, which puts the sources, not the verdict,
# in view. Autoscroll is off and this moves the newest reply's first line to the top of the chat
# (and into the window), once when the reply starts and again when it is complete.
SCROLL_JS = """
(phase) => {
  const root = document.querySelector('#chatbot');
  if (!root) return;
  const users = root.querySelectorAll('.message-row.user-row');
  const last = users[users.length - 1];
  if (!last) return;
  let target = last.nextElementSibling;
  while (target && !(target.classList && target.classList.contains('message-row'))) target = target.nextElementSibling;
  target = target || last;
  let box = target.parentElement;
  while (box && box !== document.body) {
    const style = getComputedStyle(box).overflowY;
    if (box.scrollHeight > box.clientHeight + 1 && (style === 'auto' || style === 'scroll')) break;
    box = box.parentElement;
  }
  if (box && box !== document.body) {
    box.scrollTop += target.getBoundingClientRect().top - box.getBoundingClientRect().top - 30;
  }
  const top = target.getBoundingClientRect().top;
  if (top < 0 || top > window.innerHeight - 80) window.scrollBy(0, top - 60);
  if (phase !== 'start') root.dataset.replied = String(users.length);  // the reply is complete
}
"""

# Runs once on page load: when a new reply appears, bring its first line into view (see SCROLL_JS).
WATCH_JS = (
    """
() => {
  const scroll = """
    + SCROLL_JS.strip()
    + """;
  let seen = 0;
  const check = () => {
    const root = document.querySelector('#chatbot');
    if (!root) return;
    const rows = root.querySelectorAll('.message-row');
    const last = rows[rows.length - 1];
    const users = root.querySelectorAll('.message-row.user-row').length;
    if (last && last.classList.contains('bot-row') && users > seen) { seen = users; scroll('start'); }
    if (users < seen) seen = users;
  };
  new MutationObserver(check).observe(document.body, {childList: true, subtree: true});
}
"""
)

# Inference precision and KV-cache dtype as the memory tool spells them.
PRECISIONS = ["bf16", "fp16", "fp8", "int8", "int4", "fp32"]
KV_DTYPES = ["auto", "bf16", "fp16", "fp8", "int8"]
ENGINES = ["auto", "vllm", "sglang", "hf"]


def _lang(label: str | None, text: str = "", request: gr.Request | None = None) -> str:
    """Explicit choice wins; otherwise the text's language if it has Chinese, else the browser's."""
    choice = LANG_CHOICES.get(label or "", "auto")
    if choice != "auto":
        return choice
    from tools.lang import detect_language

    if detect_language(text) == "zh":
        return "zh"
    accept = ""
    if request is not None:
        accept = (request.headers.get("accept-language") or "").lower()
    return "zh" if accept.startswith("zh") or (not accept and not text) else "en"


def respond(
    message: str,
    history: list[Any],
    lang_label: str,
    backend: str,
    base_url: str,
    model: str,
    api_key: str,
    request: gr.Request | None = None,
) -> Iterator[tuple[list[Any], str]]:
    """Stream one reply. Yields (chat history, textbox value)."""
    from assistant.advisor import stream

    history = list(history or [])
    question = (message or "").strip()
    if not question:
        yield history, ""
        return
    if len(question) > MAX_QUESTION_CHARS:
        history.append(
            {
                "role": "assistant",
                "content": f"内容太长（超过 {MAX_QUESTION_CHARS:,} 个字符），请只粘贴相关部分。/ "
                f"Input too long (over {MAX_QUESTION_CHARS:,} characters); paste only the relevant part.",
            }
        )
        yield history, ""
        return
    language = LANG_CHOICES.get(lang_label, "auto")
    turns = flatten_history(history)
    history.append({"role": "user", "content": display_user_text(question)})
    yield history, ""
    settings = forms.backend_settings(backend, base_url, model, api_key)
    events = stream(
        question, history=turns, language=language, backend=settings.backend if settings else None, settings=settings
    )
    for messages in chat_events_to_messages(events, _lang(lang_label, question, request)):
        yield history + messages, ""


def diagnose(text: str, upload: Any, expect: str, lang_label: str, request: gr.Request | None = None) -> str:
    from assistant.uploads import read_uploads  # size/count/type limits, cache copy deleted after reading

    uploaded = read_uploads(upload)
    content = uploaded.text
    combined = "\n".join(part for part in (text or "", content) if part.strip())
    lang = _lang(lang_label, "", request)
    html = findings_html(forms.run_diagnosis(combined, expect), lang)
    html = uploaded.errors_html(lang) + html
    if upload and uploaded.truncated:
        from assistant.uploads import MAX_UPLOAD_BYTES

        limit_mb = MAX_UPLOAD_BYTES / 1e6
        html = (
            f'<div class="ga-error">{"文件超过" if lang == "zh" else "The file is over"} {limit_mb:g} MB'
            f"{'，只诊断了前面部分；请只上传出错前后的日志。' if lang == 'zh' else '; only its beginning was diagnosed — upload the part around the error.'}"
            "</div>" + html
        )
    return html


def estimate(
    model: str,
    mode: str,
    gpu: str,
    gpus: float,
    seq_len: float,
    batch: float,
    lang_label: str,
    precision: str = "bf16",
    kv_dtype: str = "auto",
    context: float | None = None,
    concurrency: float | None = None,
    engine: str = "auto",
    request: gr.Request | None = None,
) -> tuple[str, dict[str, Any]]:
    result = forms.run_estimate(
        model,
        mode,
        gpu,
        gpus,
        seq_len,
        batch,
        precision=precision,
        kv_dtype=kv_dtype,
        context=context,
        concurrency=concurrency,
        engine=engine,
    )
    return memory_chart_html(result, _lang(lang_label, model or "", request)), result


def plan(
    model: str,
    mode: str,
    tokens: str,
    deadline: str,
    budget: str,
    lang_label: str,
    concurrency: float | None = None,
    context: float | None = None,
    request: gr.Request | None = None,
) -> tuple[Any, str]:
    """The ranked options as a table (wide screens) and as cards (phones); serving columns in
    inference mode, training columns otherwise."""
    lang = _lang(lang_label, model or "", request)
    result = forms.run_plan(model, mode, tokens, deadline, budget, concurrency=concurrency, context=context)
    if "error" in result:
        message = result["error"].get(lang) or result["error"].get("en")
        return gr.update(value=[[message] + [""] * 9], headers=PLAN_COLUMNS[lang]), cards_html(
            ["!"], [[message]], "plan-cards-list"
        )
    headers, rows = plan_table(result, lang)
    return gr.update(value=rows, headers=headers, column_widths=column_widths(headers)), cards_html(
        headers, rows, "plan-cards-list"
    )


def compare(names: list[str], lang_label: str, request: gr.Request | None = None) -> tuple[Any, str, str]:
    lang = _lang(lang_label, "", request)
    specs = forms.run_gpu_specs(names or [])
    headers, rows = gpu_compare_rows(specs, lang)
    return (
        gr.update(value=rows, headers=headers),
        compare_cards_html(headers, rows) if specs else "",
        gpu_sources_markdown(specs, lang) if specs else "",
    )


def api_ask(question: str, language: str = "auto") -> dict[str, Any]:
    """JSON API for scripts (`gradio_client`): the offline advisor's AskResult."""
    from assistant.advisor import ask
    from tools.errors import ToolInputError

    try:
        return ask(question, language=language).model_dump(mode="json")
    except ToolInputError as exc:
        return exc.to_dict()


def _memory_inputs(mode: str) -> list[Any]:
    infer = mode == "inference"
    return [
        gr.update(visible=infer),
        gr.update(visible=infer and forms.estimate_accepts("engine")),
        gr.update(visible=infer),
        gr.update(visible=not infer),
        gr.update(visible=not infer),
    ]


def _plan_inputs(mode: str) -> list[Any]:
    infer = mode == "inference"
    return [gr.update(visible=not infer), gr.update(visible=not infer), gr.update(visible=infer)]


def build_app() -> gr.Blocks:
    with gr.Blocks(
        title="GPU Advisor · 算力顾问", analytics_enabled=False, delete_cache=(600, 3600)
    ) as demo:  # uploads expire from Gradio's cache after an hour (assistant/uploads.py deletes ours at once)
        gr.Markdown(
            "## GPU Advisor · 算力顾问\n租 GPU 服务器：选什么卡、要几张、多少钱、出了什么问题。"
            " · Which cards, how many, what it costs, and what is wrong — offline by default."
        )
        with gr.Row():
            lang = gr.Radio(list(LANG_CHOICES), value="自动 / Auto", label="语言 / Language", elem_id="lang")
        # "wrap": on a phone every tab stays on screen (two rows) instead of hiding behind "…"
        with gr.Tabs(overflow_behavior="wrap", elem_id="tabs"):
            with gr.Tab("对话 Chat", id="chat"):
                chatbot = gr.Chatbot(
                    label="对话 / Conversation",
                    height=520,
                    elem_id="chatbot",
                    feedback_options=None,
                    buttons=["copy"],
                    autoscroll=False,  # SCROLL_JS shows the reply's first line instead of the bottom
                    sanitize_html=True,
                )
                with gr.Row():
                    box = gr.Textbox(
                        placeholder="问点什么，或粘贴 nvidia-smi / dmesg 输出… / Ask, or paste a log…",
                        show_label=False,
                        lines=1,
                        max_lines=12,
                        scale=8,
                        elem_id="question",
                    )
                    send = gr.Button("发送 Send", variant="primary", scale=1, elem_id="send", min_width=80)
                gr.Examples(EXAMPLES, inputs=box, label="示例 / Examples")
                clear = gr.Button("清空 Clear", size="sm")
            with gr.Tab("日志诊断 Diagnose", id="diagnose"):
                log_box = gr.Textbox(
                    label="粘贴日志 / Paste a log (nvidia-smi, dmesg, NCCL, all_reduce_perf, iostat …)",
                    lines=12,
                    max_lines=30,
                    elem_id="log",
                )
                with gr.Row():
                    upload = gr.File(label="或上传文件 / or upload a file", file_types=[".txt", ".log", ".out"])
                    expect = gr.Textbox(
                        label="租的是什么（可选）/ What you rented (optional)", placeholder="8x A100-SXM4-80GB"
                    )
                diag_btn = gr.Button("诊断 Diagnose", variant="primary", elem_id="diagnose-btn")
                findings = gr.HTML(elem_id="findings")
            with gr.Tab("显存 Memory", id="memory"):
                with gr.Row():
                    m_model = gr.Textbox(value="Qwen2.5-7B", label="模型 / Model (name or size, e.g. 7B)")
                    m_mode = gr.Dropdown(
                        ["full", "lora", "qlora", "inference"], value="full", label="方式 / Mode", elem_id="m-mode"
                    )
                    m_gpu = gr.Textbox(value="4090", label="显卡 / GPU (name or 24GB)")
                with gr.Row():
                    m_gpus = gr.Number(value=1, precision=0, minimum=1, label="卡数 / GPUs")
                    m_seq = gr.Number(value=2048, precision=0, minimum=1, label="序列长度 / Sequence length")
                    m_batch = gr.Number(value=1, precision=0, minimum=1, label="微批 / Micro-batch")
                with gr.Row():
                    m_precision = gr.Dropdown(
                        PRECISIONS,
                        value="bf16",
                        label="精度 / Precision (inference: weights; int8/int4 = quantised)",
                        elem_id="m-precision",
                    )
                    m_kv = gr.Dropdown(
                        KV_DTYPES,
                        value="auto",
                        label="KV 缓存类型 / KV-cache dtype (inference)",
                        elem_id="m-kv",
                        visible=False,
                    )
                    m_engine = gr.Dropdown(
                        ENGINES,
                        value="auto",
                        label="推理引擎 / Engine (inference)",
                        elem_id="m-engine",
                        visible=False,  # ENGINE HOOK: shown in inference mode once estimate_memory takes `engine`
                    )
                with gr.Row(visible=False) as m_serving:
                    m_context = gr.Number(
                        value=None,
                        precision=0,
                        minimum=0,  # the browser sends 0 for an empty box: 0 = the tool's default
                        label="上下文长度 / Context tokens (inference; 0 = 默认 default)",
                        elem_id="m-context",
                    )
                    m_conc = gr.Number(
                        value=None,
                        precision=0,
                        minimum=0,
                        label="并发数 / Concurrent requests (0 = 默认 default)",
                        elem_id="m-conc",
                    )
                m_btn = gr.Button("估算 Estimate", variant="primary", elem_id="estimate-btn")
                m_chart = gr.HTML(elem_id="memory-chart")
                with gr.Accordion("明细 JSON / Details", open=False):
                    m_json = gr.JSON()
            with gr.Tab("方案 Plan", id="plan"):
                with gr.Row():
                    p_model = gr.Textbox(value="Llama-3.1-8B", label="模型 / Model")
                    p_mode = gr.Dropdown(
                        ["full", "lora", "qlora", "inference"], value="full", label="方式 / Mode", elem_id="p-mode"
                    )
                    p_tokens = gr.Textbox(value="1B", label="训练 token 数 / Training tokens")
                    p_deadline = gr.Textbox(value="7d", label="期限 / Deadline")
                    p_budget = gr.Textbox(value="50000", label="预算（元）/ Budget (CNY)")
                with gr.Row(visible=False) as p_serving:
                    p_conc = gr.Number(
                        value=8, precision=0, minimum=1, label="并发数 / Concurrent requests (inference)"
                    )
                    p_context = gr.Number(
                        value=4096, precision=0, minimum=1, label="上下文长度 / Context tokens (inference)"
                    )
                p_btn = gr.Button("出方案 Plan", variant="primary", elem_id="plan-btn")
                p_table = gr.Dataframe(
                    headers=PLAN_COLUMNS["zh"],
                    interactive=False,
                    wrap=True,
                    column_widths=PLAN_COLUMN_WIDTHS,
                    elem_id="plan-table",
                    label="按推荐顺序排列 / Ranked, best first",
                )
                p_cards = gr.HTML(elem_id="plan-cards")
            with gr.Tab("GPU 对比 Compare", id="compare"):
                names = forms.gpu_names()
                c_names = gr.Dropdown(
                    names,
                    value=forms.default_comparison(names),
                    multiselect=True,
                    max_choices=4,
                    label="选 2–4 张卡 / Pick 2–4 cards",
                    elem_id="compare-names",
                )
                c_btn = gr.Button("对比 Compare", variant="primary", elem_id="compare-btn")
                c_table = gr.Dataframe(interactive=False, wrap=True, elem_id="compare-table")
                c_cards = gr.HTML(elem_id="compare-cards")
                c_sources = gr.Markdown(elem_id="compare-sources")
            with gr.Tab("设置 Settings", id="settings"):
                gr.Markdown(
                    "默认离线运行，不需要密钥。/ Offline by default; no key needed. "
                    "接入任何 OpenAI 兼容接口（DeepSeek、通义千问、vLLM、Ollama…）/ "
                    "Any OpenAI-compatible endpoint works. 密钥只保存在本次会话内存中，不会显示或记录。"
                    " / The key stays in this session's memory only; it is never shown or logged."
                )
                backend = gr.Radio(["offline", "openai"], value="offline", label="后端 / Back-end", elem_id="backend")
                base_url = gr.Textbox(label="Base URL", placeholder="http://127.0.0.1:8000/v1")
                model_name = gr.Textbox(label="模型 / Model", placeholder="deepseek-chat")
                api_key = gr.Textbox(label="API Key", type="password", elem_id="api-key")

        chat_inputs = [box, chatbot, lang, backend, base_url, model_name, api_key]
        box.submit(respond, chat_inputs, [chatbot, box], api_name="chat").then(None, js=SCROLL_JS)
        send.click(respond, chat_inputs, [chatbot, box], api_visibility="private").then(None, js=SCROLL_JS)
        clear.click(lambda: [], None, chatbot, api_visibility="private")
        diag_btn.click(diagnose, [log_box, upload, expect, lang], findings, api_name="diagnose")
        m_btn.click(
            estimate,
            [m_model, m_mode, m_gpu, m_gpus, m_seq, m_batch, lang, m_precision, m_kv, m_context, m_conc, m_engine],
            [m_chart, m_json],
            api_name="estimate",
        )
        p_btn.click(
            plan,
            [p_model, p_mode, p_tokens, p_deadline, p_budget, lang, p_conc, p_context],
            [p_table, p_cards],
            api_name="plan",
        )
        c_btn.click(compare, [c_names, lang], [c_table, c_cards, c_sources], api_name="compare")
        # Inputs that only mean something in one mode are shown only in that mode.
        m_mode.change(_memory_inputs, m_mode, [m_kv, m_engine, m_serving, m_seq, m_batch], api_visibility="private")
        p_mode.change(_plan_inputs, p_mode, [p_tokens, p_deadline, p_serving], api_visibility="private")
        gr.api(api_ask, api_name="ask")
    return demo


def _warm_up() -> None:
    """Open the retrieval index and run one offline answer, so the first visitor does not pay
    for jieba's dictionary, Chroma and the agent graph being built."""
    import logging

    try:
        from assistant.advisor import ask

        ask("能用4090全量训练7B吗")
    except Exception:  # warm-up is best effort; a real request reports its own error
        logging.getLogger(__name__).debug("warm-up answer failed", exc_info=True)


# Replies are short CPU work (~50 ms offline), so sessions need not wait in one line: the
# queue runs up to this many events at once (Gradio's default is 1 per event listener).
CONCURRENCY = 32


def launch(
    host: str = "127.0.0.1", port: int = 7860, auth: tuple[str, str] | None = None, prevent_thread_lock: bool = False
) -> Any:
    import threading

    from assistant.commands.serve import check_port

    check_port(host, port)
    threading.Thread(target=_warm_up, name="warm-up", daemon=True).start()
    demo = build_app()
    demo.queue(default_concurrency_limit=CONCURRENCY, max_size=None)
    try:
        return demo.launch(
            server_name=host,
            server_port=port,
            auth=auth,
            share=False,
            css=CSS,
            js=WATCH_JS,
            head=HEAD,
            footer_links=["api"],
            prevent_thread_lock=prevent_thread_lock,
            quiet=True,
            ssr_mode=False,
            show_error=False,
            max_threads=max(40, CONCURRENCY + 8),
            max_file_size=20_000_000,  # assistant.uploads.MAX_UPLOAD_HARD_BYTES
        )
    except OSError as exc:  # taken between the check and gradio's bind
        if "port" not in str(exc).lower():
            raise
        check_port(host, port)  # raises the bilingual busy-port error
        raise
