"""An exception no rule knows: said as an error, not reported as "nothing abnormal".

Why: a vLLM launch that ends in `NotImplementedError: Pipeline parallelism is only supported for …` was read as a
healthy vLLM log because no rule matched it. A Python exception line (`Name(Error|Exception): message`, the last
line of a traceback — Python's traceback module prints the exception's qualified name, a colon and its message)
means the job stopped there, whatever the rest of the paste shows; its own message is the best evidence there is.
"""

from __future__ import annotations

import re

from tools.diagnosis.findings import SEVERITY_RANK
from tools.diagnosis.rules.context import Ctx

# the exception's (qualified) class name, then its message; "Error:" alone (a log level) is not one
# at the line's start, or after a log prefix (「ERROR 05-12 10:00:01 worker.py:20] ValueError: …」, "[rank0]: …")
_EXCEPTION_LINE = re.compile(
    r"(?:^\s*(?:E\s+)?|[\]|]:?\s*)(?:[A-Za-z_]\w*\.)*(?P<name>[A-Z]\w*(?:Error|Exception|Exit|Interrupt))"
    r"(?::\s*(?P<msg>\S.*))?$"
)


def last_exception(lines: list[str]) -> tuple[str, str] | None:
    """(class name, the line) of the last exception line in the paste."""
    for line in reversed(lines):
        m = _EXCEPTION_LINE.search(line.strip())
        if m and m.group("name") not in ("Error", "Exception"):
            return m.group("name"), line.strip()
    return None


def rules_unmatched_exception(c: Ctx) -> None:
    if any(SEVERITY_RANK[f.severity] >= SEVERITY_RANK["warning"] for f in c.findings):
        return  # a rule already explains what stopped the job
    hit = last_exception(c.p.lines)
    if hit is None:
        return
    name, line = hit
    quoted = {e.strip() for f in c.findings for e in f.evidence}
    if line in quoted:
        return
    c.add(
        "unmatched_exception",
        "warning",
        (
            f"程序以异常 {name} 结束，我没有针对它的专门规则：报错信息本身就是原因说明",
            f"The program stopped with {name}, which no rule of mine covers: its message is the explanation",
        ),
        [line],
        causes=[
            (
                "报错信息里写的那个条件不满足（不支持的功能、参数组合或模型结构，文件缺失等）",
                "The condition its message names is not met (an unsupported feature, option combination or model "
                "architecture, a missing file)",
            )
        ],
        actions=[
            (
                "按报错信息的字面处理：它说不支持的功能就换一种做法，说缺什么就补上；把完整的 Traceback 和启动命令一起贴给我，"
                "可以对照框架版本再看。",
                "Act on the message literally: if it says a feature is not supported, use another way; if something is "
                "missing, provide it. Paste the full traceback with the launch command and I can check it against "
                "the framework version.",
            )
        ],
    )
