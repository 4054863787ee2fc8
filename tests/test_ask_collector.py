"""`gpu-advisor ask` pauses the cyclic garbage collector for its one question (a cold-start cost,
issue 16) and gives it back: in-process callers and `ask -` (a long stdin stream) keep collecting."""

from __future__ import annotations

import gc
import json

from click.testing import CliRunner

import assistant.advisor as advisor
from assistant.cli import cli
from tools.errors import ToolInputError


def test_one_question_runs_with_the_collector_paused_and_it_comes_back(monkeypatch):
    seen: list[bool] = []
    real = advisor.ask

    def spy(*args, **kwargs):
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(advisor, "ask", spy)
    assert gc.isenabled()
    out = CliRunner().invoke(cli, ["ask", "--json", "一张4090能跑7B推理吗"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output.strip().splitlines()[-1])["answer"]
    assert seen == [False] and gc.isenabled()

    seen.clear()
    out = CliRunner().invoke(cli, ["ask", "-"], input="一张4090能跑7B推理吗\n两台8卡机器之间用啥网络\n")
    assert out.exit_code == 0, out.output
    assert seen == [True, True] and gc.isenabled()

    out = CliRunner().invoke(cli, ["ask", ""])  # a refused question restores it too
    assert isinstance(out.exception, ToolInputError) and gc.isenabled()
