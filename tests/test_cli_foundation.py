"""The CLI's contract that every sub-command relies on: bilingual errors, exit code 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tools.errors import ToolInputError
from tools.lang import detect_language
from tools.units import GB, GiB, gb_to_gib

CLI = [sys.executable, "-m", "assistant.cli"]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=60)


def test_help_is_bilingual() -> None:
    out = run("--help")
    assert out.returncode == 0
    text = " ".join(out.stdout.split())
    assert "算力顾问" in text and "offline by default" in text


def test_unknown_command_exits_2_with_both_languages_and_no_traceback() -> None:
    out = run("no-such-command")
    assert out.returncode == 2
    assert "错误 / Error" in out.stderr
    assert "Traceback" not in out.stderr


def test_units_are_decimal_and_binary() -> None:
    # 80 GB (datasheet, decimal) is 74.5 GiB (what nvidia-smi's MiB figures add up to).
    assert GB == 1_000_000_000 and GiB == 1_073_741_824
    assert gb_to_gib(80) == pytest.approx(74.506, abs=1e-3)


def test_language_detection() -> None:
    assert detect_language("能用4090全量训练7B吗") == "zh"
    assert detect_language("how many A100s for a 70B full fine-tune?") == "en"
    assert detect_language("") == "en"


def test_tool_input_error_carries_both_languages() -> None:
    err = ToolInputError("未知模型", "unknown model", suggestions=["Qwen2.5-7B"])
    assert "未知模型" in err.bilingual() and "unknown model" in err.bilingual()
    assert err.to_dict()["error"]["suggestions"] == ["Qwen2.5-7B"]


def test_ci_script_calls_the_readme_test_command() -> None:
    root = Path(__file__).resolve().parent.parent
    readme_head = (root / "README.md").read_text(encoding="utf-8").split("\n\n", 3)[:3]
    assert any("make test" in block for block in readme_head)
    assert "make test" in (root / ".ci" / "run").read_text(encoding="utf-8")


def test_pasted_bytes_decode_utf8_bom_and_gbk() -> None:
    from tools.textcodec import decode_text

    assert decode_text("显存".encode("utf-8")) == "显存"
    assert decode_text("\ufeff显存".encode("utf-8")) == "显存"  # BOM dropped
    assert decode_text("掉卡了".encode("gbk")) == "掉卡了"  # Chinese Windows terminals
    assert decode_text(b"\xff\xfe\xfa") != ""  # never raises


# ---------------------------------------------------------------- the answer in a terminal (issue 16)

# Hand-written answers in the agreed shape: verdict with the deciding number, key lines, a details
# block, a not-used line, sources once. 7e9 × 16 B = 112 GB of model states (ZeRO paper, §3.1).
SHAPED = """不能。7B 全量训练每卡约需 **117.1 GB**，RTX 4090 只有 24 GB。

- 模型状态 112 GB（16 B/参数）
- LoRA 每卡约 19.4 GB，放得下

<details><summary>细节 / Details</summary>

**每卡构成**
- 权重 14 GB、梯度 14 GB、优化器状态 84 GB

```bash
echo "<details> stays inside code"
```
</details>

未采用：无

来源：常见问题速答；怎么选租用配置"""

UNSHAPED = """No. A 7B full fine-tune needs about 117.1 GB per GPU; an RTX 4090 has 24 GB.

**Numbers**
- weights 14 GB, gradients 14 GB, optimizer 84 GB"""


def test_details_block_becomes_a_heading_for_the_terminal() -> None:
    from assistant.answer_shape import for_terminal

    text = for_terminal(SHAPED)
    assert "<summary>" not in text and "</details>" not in text
    assert "### 细节 / Details" in text
    assert text.splitlines()[0].startswith("不能。") and "117.1 GB" in text.splitlines()[0]
    assert 'echo "<details> stays inside code"' in text  # code is shown as written
    assert text.rstrip().endswith("来源：常见问题速答；怎么选租用配置")
    assert for_terminal(UNSHAPED) == UNSHAPED  # an answer without the block passes through


def test_details_block_gets_blank_lines_for_the_page() -> None:
    from assistant.answer_shape import for_page

    text = for_page(SHAPED.replace("</summary>\n\n", "</summary>\n"))
    assert "<details><summary>细节 / Details</summary>\n\n**每卡构成**" in text
    assert "```\n\n</details>" in text
    assert for_page(UNSHAPED) == UNSHAPED


class _Result:
    def __init__(self, answer: str, citations: list | None = None) -> None:
        from assistant.advisor import Citation, ToolCallRecord

        self.answer = answer
        self.tool_calls = [ToolCallRecord(name="estimate_memory", args={"params": "7B"}, result={"total_gb": 117.1})]
        self.citations = citations if citations is not None else [Citation(doc_id="faq", title="常见问题速答")]
        self.backend, self.latency_ms, self.grounded, self.language = "offline", 12.0, True, "zh"

    def model_dump(self, mode: str = "json") -> dict:
        return {"answer": self.answer, "backend": self.backend}


def _ask(capsys, monkeypatch, answer: str, *flags: str) -> str:  # type: ignore[no-untyped-def]
    import assistant.advisor as advisor
    from tests.cli_inprocess import run_cli_inprocess

    monkeypatch.setattr(advisor, "ask", lambda q, **kw: _Result(answer))
    code, out, err = run_cli_inprocess(capsys, "ask", *flags, "能用4090全量训练7B吗")
    assert code == 0, err
    return out


def test_ask_renders_markdown_for_the_terminal(capsys, monkeypatch) -> None:
    out = _ask(capsys, monkeypatch, SHAPED)
    assert "**" not in out and "<summary" not in out and "</details>" not in out
    assert "细节 / Details" in out and "117.1 GB" in out
    assert out.count("常见问题速答") == 1  # the answer lists its sources; the footer does not repeat them
    assert "estimate_memory(params=7B)" in out and "backend: offline" in out
    assert not [line for line in out.splitlines() if line != line.rstrip()]  # no padding to the width


def test_ask_plain_keeps_markdown_source_without_html(capsys, monkeypatch) -> None:
    out = _ask(capsys, monkeypatch, SHAPED, "--plain")
    assert "**117.1 GB**" in out and "### 细节 / Details" in out and "</details>" not in out


def test_footer_lists_sources_when_the_answer_has_none(capsys, monkeypatch) -> None:
    out = _ask(capsys, monkeypatch, UNSHAPED, "--plain")
    assert "来源 / Sources:" in out and "常见问题速答" in out
    assert out.startswith("No. A 7B full fine-tune")


def test_ask_json_is_untouched_by_rendering(capsys, monkeypatch) -> None:
    import json

    out = _ask(capsys, monkeypatch, SHAPED, "--json")
    assert json.loads(out)["answer"] == SHAPED


def test_busy_port_is_one_bilingual_line_with_the_way_out(capsys) -> None:
    import socket

    from tests.cli_inprocess import run_cli_inprocess

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        code, out, err = run_cli_inprocess(capsys, "serve", "--port", str(port))
    assert code == 2 and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert "已被占用" in err and "already in use" in err and f"make run PORT={port + 1}" in err


def test_llm_prompt_asks_for_the_shape_the_page_and_terminal_render() -> None:
    from assistant.answer_shape import for_terminal, has_details
    from assistant.prompts import DETAILS_OPEN, system_prompt

    for lang in ("zh", "en"):
        prompt = system_prompt(lang)
        assert DETAILS_OPEN in prompt and "</details>" in prompt
        assert "Line 1: the verdict" in prompt and "at most 5" in prompt and "Sources once" in prompt
    example = f"No: about 117 GB per GPU.\n\n{DETAILS_OPEN}\n\n- weights 14 GB\n\n</details>\n\nSources: FAQ"
    assert has_details(example) and "### 细节 / Details" in for_terminal(example)
