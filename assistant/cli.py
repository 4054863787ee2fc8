"""`gpu-advisor` — the command line.

Sub-commands live one per module in `assistant/commands/` and are imported only when
invoked, so `gpu-advisor estimate …` never pays for langchain, chromadb or gradio.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys

import click

# command name -> "module:attribute"; a module that does not exist yet is simply not listed.
COMMANDS: dict[str, str] = {
    "estimate": "assistant.commands.estimate:command",
    "models": "assistant.commands.models:command",
    "gpus": "assistant.commands.gpus:command",
    "price": "assistant.commands.price:command",
    "train-time": "assistant.commands.train_time:command",
    "plan": "assistant.commands.plan:command",
    "diagnose": "assistant.commands.diagnose:command",
    "checklist": "assistant.commands.checklist:command",
    "search": "assistant.commands.search:command",
    "index": "assistant.commands.index:command",
    "ask": "assistant.commands.ask:command",
    "chat": "assistant.commands.chat:command",
    "serve": "assistant.commands.serve:command",
    "eval": "assistant.commands.eval:command",
}

_SHORT_HELP: dict[str, str] = {
    "estimate": "显存估算 / GPU memory estimate per GPU",
    "models": "模型目录 / list or look up models",
    "gpus": "GPU 规格 / GPU specs and comparison",
    "price": "租用价格 / rental price ranges (CNY)",
    "train-time": "训练时长与费用 / training time and cost",
    "plan": "配置方案 / ranked rental configurations",
    "diagnose": "日志诊断 / diagnose pasted logs",
    "checklist": "验收脚本 / delivery acceptance script",
    "search": "检索指南 / search the guidance corpus",
    "index": "管理文档 / add or remove your own documents",
    "ask": "提问 / ask one question",
    "chat": "对话 / terminal conversation",
    "serve": "网页 / start the web page",
    "eval": "评测 / run the eval suite",
}


def _module_exists(target: str) -> bool:
    module_name = target.split(":", 1)[0]
    return importlib.util.find_spec(module_name) is not None


class LazyGroup(click.Group):
    """A click group whose sub-commands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [name for name, target in COMMANDS.items() if _module_exists(target)]

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        target = COMMANDS.get(name)
        if target is None or not _module_exists(target):
            return None
        module_name, attr = target.split(":", 1)
        return getattr(importlib.import_module(module_name), attr)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, _SHORT_HELP.get(name, "")) for name in self.list_commands(ctx)]
        if rows:
            with formatter.section("Commands / 命令"):
                formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="gpu-advisor")
def cli() -> None:
    """GPU Advisor · 算力顾问 — 租 GPU 服务器：选卡、算显存、估价格、看日志。

    Which cards, how many, what it costs, and what is wrong — offline by default.
    """


# Commands that answer questions in a process of their own: they get the start-up savings of
# assistant/coldstart.py (a persisted regex cache, langsmith's API models left unloaded).
ONE_SHOT = frozenset({"ask", "chat"})


def main() -> None:
    """Console entry point: bilingual message and exit 2 on bad input, never a traceback."""
    if sys.argv[1:2] and sys.argv[1] in ONE_SHOT:
        from assistant.coldstart import prepare_one_shot

        prepare_one_shot(sys.argv[1:])
    from assistant.commands._common import run_cli

    run_cli(cli, sys.argv[1:])


if __name__ == "__main__":
    main()
