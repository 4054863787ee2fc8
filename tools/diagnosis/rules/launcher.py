"""Launcher failures: a command not found on PATH (sudo, conda env not active) and a rendezvous port in use.

Sources: sudoers(5) `secure_path` / `env_reset` (sudo replaces PATH, so a conda env's bin/ is not
searched) — https://www.sudo.ws/docs/man/sudoers.man/ ; PyTorch torchrun docs (--master-port,
default 29500; --rdzv-endpoint) — https://docs.pytorch.org/docs/stable/elastic/run.html
"""

from __future__ import annotations

from tools.diagnosis.rules.context import Ctx


def rules_launcher(c: Ctx) -> None:
    la = c.p.get("launcher")
    if not la:
        return
    if la.missing:
        cmd = la.missing
        sudo_zh = "用了 sudo：sudo 会把 PATH 换成 secure_path，conda 环境的 bin 目录不在里面；" if la.sudo else ""
        sudo_en = (
            "sudo was used: it replaces PATH with secure_path, which lacks the conda env's bin directory; "
            if la.sudo
            else ""
        )
        c.add(
            "launcher_not_found",
            "warning",
            (f"找不到命令 `{cmd}`：它不在当前 PATH 里", f"`{cmd}` was not found: it is not on the current PATH"),
            [la.missing_line or ""],
            causes=[
                (
                    f"{sudo_zh}没有先 `conda activate <环境>`，或这个环境里没装提供 `{cmd}` 的包（torchrun 随 PyTorch 安装）",
                    f"{sudo_en}the env was not activated (`conda activate <env>`), or the package providing `{cmd}` is not installed in it (torchrun ships with PyTorch)",
                )
            ],
            actions=[
                (
                    f"不要用 sudo，在激活的环境里直接运行；确实要 sudo 就带上当前 PATH：`sudo env PATH=$PATH <命令>`。用 `which {cmd}` 确认，或写全路径（如 `~/anaconda3/envs/<环境>/bin/{cmd}`）。",
                    f"Run it without sudo inside the activated env; if sudo is really needed, pass the PATH: `sudo env PATH=$PATH <command>`. Check with `which {cmd}`, or use the full path (e.g. `~/anaconda3/envs/<env>/bin/{cmd}`).",
                )
            ],
        )
    if la.port_in_use:
        port = f" {la.port}" if la.port else ""
        c.add(
            "launcher_port_in_use",
            "warning",
            (
                f"端口{port}已被占用：分布式启动的 master 端口（MASTER_PORT）上已经有进程在监听",
                f"Port{port} is already in use: something already listens on the distributed master port (MASTER_PORT)",
            ),
            [la.port_in_use],
            causes=[
                (
                    "上一次训练的残留进程还占着端口，或同一台机器上另一个任务用了同一个端口（torchrun 默认 29500）",
                    "A leftover process from the previous run still holds it, or another job on the same machine uses the same port (torchrun's default 29500)",
                )
            ],
            actions=[
                (
                    f"`ss -ltnp | grep {la.port or 29500}` 找到占用的进程并结束它，或换一个空闲端口：`--master_port=29501`（或 `MASTER_PORT=29501`）；多个任务各用不同端口。",
                    f"Find the process with `ss -ltnp | grep {la.port or 29500}` and end it, or pick a free port: `--master_port=29501` (or `MASTER_PORT=29501`); give each job its own port.",
                )
            ],
        )
