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
    if la.rank_out_of_range:
        _rank_out_of_range(c, la)
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


def _rank_out_of_range(c: Ctx, la: object) -> None:
    """torchrun --nnodes=N --node_rank=R with R ≥ N: ranks run 0..N−1, so the rendezvous waits for nodes that
    never come — the job hangs at start without an error (torchrun docs)."""
    n, r = getattr(la, "nnodes", 1), getattr(la, "node_rank", 0)
    nproc = getattr(la, "nproc", None)
    addr = getattr(la, "master_addr", None)
    per = f"--nproc_per_node={nproc} " if nproc else ""
    single = n == 1
    rng, rng_en = ("0", "0") if single else (f"0 到 {n - 1}", f"0 to {n - 1}")
    fix_zh = (
        f"只有一台机器：`torchrun --standalone {per}train.py …`（不用写 master_addr/master_port），或 "
        f"`--nnodes=1 --node_rank=0 --master_addr=127.0.0.1 --master_port=29500`；"
        + (f"{addr} 只有是本机自己的地址时才对。" if addr else "")
        if single
        else f"每台机器各用一个 0 到 {n - 1} 之间的 --node_rank（主节点是 0），--master_addr 填 node_rank=0 那台的 IP。"
    )
    fix_en = (
        f"One machine: `torchrun --standalone {per}train.py …` (no master_addr/master_port needed), or "
        f"`--nnodes=1 --node_rank=0 --master_addr=127.0.0.1 --master_port=29500`"
        + (f"; {addr} is right only if it is this machine's own address." if addr else ".")
        if single
        else f"Give each machine its own --node_rank from 0 to {n - 1} (0 on the master) and set --master_addr to "
        "the IP of the node_rank=0 machine."
    )
    c.add(
        "launcher_node_rank_out_of_range",
        "warning",
        (
            f"torchrun 参数对不上：--nnodes={n} 时 --node_rank 只能是 {rng}，你写的是 {r}，"
            "rendezvous 会一直等不存在的节点，所以卡住不报错",
            f"torchrun flags cannot work: with --nnodes={n}, --node_rank must be {rng_en}, not {r}; the "
            "rendezvous waits forever for nodes that never join, so it hangs without an error",
        ),
        [getattr(la, "launch_line", "") or ""],
        causes=[
            (
                "多机命令照抄到单机：node_rank 是机器的编号（0 起），不是 GPU 的编号",
                "A multi-node command copied to one machine: node_rank numbers the machines (from 0), not the GPUs",
            )
        ],
        actions=[(fix_zh, fix_en)],
    )
