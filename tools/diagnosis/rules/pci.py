"""Rules on `lspci` (rev ff, downgraded links, GPUs missing from nvidia-smi), the GPU count
(odd counts, `nvidia-smi -L` vs the table) and `nvidia-smi topo` (NVLink, P2P)."""

from __future__ import annotations

import re

from tools.diagnosis.rules.context import Ctx

# --------------------------------------------------------------------------- lspci / topo


def rules_lspci(c: Ctx) -> None:
    lp = c.p.get("lspci")
    if not lp:
        return
    for d in lp.devices:
        if d.rev == "ff":
            index = c.bus_to_index.get(d.bus_id or "")
            c.add(
                "pci_rev_ff",
                "critical",
                (
                    f"lspci 显示 {d.bus_id} 为 rev ff：设备不再响应",
                    f"lspci shows {d.bus_id} as rev ff: the device no longer responds",
                ),
                [d.line],
                causes=[("GPU 掉卡，配置空间读回全 1", "The GPU fell off the bus; config space reads return all ones")],
                actions=[
                    c.exclude(index, d.bus_id),
                    c.ticket(index, d.bus_id, "lspci 显示 rev ff（掉卡）", "lspci shows rev ff (GPU fell off the bus)"),
                ],
                gpu_index=index,
                bus_id=d.bus_id,
            )
    narrow = [lk for lk in lp.links if lk.width_degraded]
    slow = [lk for lk in lp.links if lk.speed_degraded and not lk.width_degraded]
    if narrow:
        lk = narrow[0]
        cap = f"x{lk.cap_width}" if lk.cap_width else "x16"
        index = c.bus_to_index.get(lk.bus_id or "")
        c.add(
            "pcie_width_degraded",
            "warning",
            (
                f"PCIe 链路宽度降级：训练到 x{lk.sta_width}（能力 {cap}），主机↔GPU 带宽按比例下降",
                f"PCIe link width degraded: trained at x{lk.sta_width} (capable of {cap}); host↔GPU bandwidth drops in proportion",
            ),
            [x for lk2 in narrow[:3] for x in (lk2.cap_line, lk2.line) if x],
            causes=[
                (
                    "GPU/转接卡（riser）没插好、金手指或插槽接触不良，或主板/BIOS 把插槽拆成了 x8",
                    "The GPU or riser is not seated, a bad contact, or the board/BIOS bifurcated the slot to x8",
                )
            ],
            actions=[
                (
                    "链路宽度不会因为空闲而降低（那是速率）：请服务商重新插拔该卡/转接卡或换槽位，修好后用 `lspci -vv` 复查 LnkSta 为 x16。",
                    "Width does not drop at idle (speed does): ask the provider to reseat the GPU/riser or move it to another slot, then recheck that LnkSta shows x16 with `lspci -vv`.",
                )
            ],
            gpu_index=index,
            bus_id=lk.bus_id,
        )
    elif slow:
        lk = slow[0]
        c.add(
            "pcie_speed_idle_downshift",
            "info",
            (
                f"PCIe 链路当前速率 {lk.sta_speed:g} GT/s 低于能力值"
                + (f" {lk.cap_speed:g} GT/s" if lk.cap_speed else "")
                + "，宽度正常：多半是空闲省电降速",
                f"PCIe link at {lk.sta_speed:g} GT/s, below its capability"
                + (f" of {lk.cap_speed:g} GT/s" if lk.cap_speed else "")
                + ", width intact: most likely idle power saving",
            ),
            [x for x in (lk.cap_line, lk.line) if x],
            causes=[
                (
                    "空闲时 GPU 会把 PCIe 速率降到 2.5 GT/s 省电（ASPM/链路电源管理），有负载时自动升回",
                    "Idle GPUs drop the PCIe speed to 2.5 GT/s to save power (ASPM/link power management) and retrain under load",
                )
            ],
            actions=[
                (
                    "在 GPU 有负载时（跑训练或 `nvidia-smi -q -d PCI` 同时跑任务）再看一次；负载下仍降速才需要找服务商。",
                    "Look again while the GPU is under load (during a job, or `nvidia-smi -q -d PCI` while one runs); only a downshift under load needs the provider.",
                )
            ],
        )
    table = c.p.get("nvidia_smi_table")
    counts = _smi_counts(c)
    if counts:
        n_pci, n_smi = len(lp.gpus), max(counts.values())
        if n_pci > n_smi:
            seen = {g.bus_id for g in table.gpus} if table and table.gpus else set()
            missing = sorted({d.bus_id for d in lp.gpus} - seen - {None}) if seen else []
            c.add(
                "gpu_count_mismatch",
                "critical",
                (
                    f"PCIe 上有 {n_pci} 块 NVIDIA GPU，但 nvidia-smi 只看到 {n_smi} 块",
                    f"{n_pci} NVIDIA GPUs on PCIe but nvidia-smi sees {n_smi}",
                ),
                [d.line for d in lp.gpus if d.bus_id in missing] or [d.line for d in lp.gpus],
                causes=[
                    ("有卡初始化失败或掉卡", "A GPU failed to initialise or fell off the bus"),
                    (
                        "容器只分配了部分 GPU（这种情况可以忽略）",
                        "The container was given only some GPUs (fine if intended)",
                    ),
                ],
                actions=[
                    c.ticket(
                        None,
                        missing[0] if missing else None,
                        "部分 GPU 对驱动不可见",
                        "some GPUs are invisible to the driver",
                    )
                ],
            )


# GPU servers are built with 1, 2, 4 or 8 GPUs per node (HGX/DGX baseboards carry 4 or 8 SXM
# modules; PCIe servers 1/2/4/8, some 4U PCIe chassis 10); 16 is the DGX-2/HGX-2 class.
SHIPPED_GPU_COUNTS = (1, 2, 4, 8, 10, 16)


def _smi_counts(c: Ctx) -> dict[str, int]:
    """How many GPUs each nvidia-smi view in the paste lists."""
    counts = {}
    for kind, label in (
        ("nvidia_smi_table", "nvidia-smi"),
        ("nvidia_smi_list", "nvidia-smi -L"),
        ("nvidia_smi_query", "nvidia-smi -q"),
    ):
        parsed = c.p.get(kind)
        if parsed is not None and getattr(parsed, "gpus", None):
            counts[label] = len(parsed.gpus)
    return counts


def rules_gpu_count(c: Ctx) -> None:
    """A card missing from what the driver lists: views that disagree, or a count no server ships with."""
    if c.has("gpu_count_mismatch") or c.has("gpu_lost"):
        return  # already explained by a more specific finding
    counts = _smi_counts(c)
    if not counts:
        return
    check = (
        "在宿主机上对照 `nvidia-smi -L`、`lspci | grep -i nvidia` 和 `dmesg -T | grep -iE 'xid|fallen off'`："
        "lspci 比 nvidia-smi 多说明有卡掉了或初始化失败；lspci 也少就是没装上或没分配给你。"
        "如果合同是整机（例如 8 卡），请服务商补齐或换机，并按实际卡数计费。",
        "On the host compare `nvidia-smi -L`, `lspci | grep -i nvidia` and `dmesg -T | grep -iE 'xid|fallen off'`: "
        "more GPUs in lspci than in nvidia-smi means a card dropped or failed to initialise; fewer in lspci too means "
        "it is not installed or not passed to you. If you rented a whole server (e.g. 8 GPUs), ask the provider to "
        "restore the missing card or move you, and to bill for the cards actually delivered.",
    )
    subset = (
        "容器或虚拟机只分配了部分 GPU（`--gpus`、`CUDA_VISIBLE_DEVICES`），这种情况如果是你要的就可以忽略",
        "The container or VM was given only some GPUs (`--gpus`, `CUDA_VISIBLE_DEVICES`); fine if that is what you asked for",
    )
    if len(set(counts.values())) > 1:
        desc = "，".join(f"{k} {v} 块" for k, v in counts.items())
        desc_en = ", ".join(f"{k} {v}" for k, v in counts.items())
        c.add(
            "gpu_count_inconsistent",
            "warning",
            (f"同一次输出里 GPU 数量对不上：{desc}", f"GPU counts disagree within one paste: {desc_en}"),
            [f"{k}: {v} GPUs" for k, v in counts.items()],
            causes=[
                (
                    "两条命令之间有卡掉了（查 dmesg 的 Xid 79）",
                    "A card dropped between the two commands (look for Xid 79 in dmesg)",
                ),
                ("输出来自不同的机器或不同的容器", "The outputs come from different machines or containers"),
            ],
            actions=[check],
        )
        return
    n = next(iter(counts.values()))
    lp = c.p.get("lspci")
    n_pci = len(lp.gpus) if lp and lp.gpus else None
    if n in SHIPPED_GPU_COUNTS or n_pci is not None and n_pci < n:
        return
    c.add(
        "gpu_count_unusual",
        "warning",
        (
            f"GPU 数量为 {n}：服务器出厂一般是 1/2/4/8 卡，可能少了一块或掉了一块",
            f"GPU count {n} — servers ship with 1/2/4/8; a card may be missing or dropped",
        ),
        [f"{k}: {v} GPUs" for k, v in counts.items()] + ([f"lspci: {n_pci} NVIDIA GPUs"] if n_pci is not None else []),
        causes=[
            ("有一块卡掉卡或没被驱动识别", "One GPU fell off the bus or was not initialised by the driver"),
            ("交付的机器本来就少装了一块（以次充好）", "The server was delivered one card short"),
            subset,
        ],
        actions=[check],
    )


def rules_topo(c: Ctx) -> None:
    topos = c.p.get("topo")
    if not topos:
        return
    for t in topos:
        if t.is_p2p:
            ns = [(a, b, v) for (a, b), v in t.matrix.items() if a != b and v != "OK"]
            if ns:
                c.add(
                    "p2p_not_supported",
                    "warning",
                    ("部分 GPU 之间不支持 P2P", "P2P is not supported between some GPUs"),
                    t.lines,
                    causes=[
                        (
                            "PCIe ACS/IOMMU 或芯片组限制；消费级卡（如 4090）驱动层面不开放 P2P",
                            "PCIe ACS/IOMMU or chipset limits; consumer cards (e.g. 4090) have P2P disabled in the driver",
                        )
                    ],
                    actions=[
                        (
                            "NCCL 会退回 SHM（经主机内存），多卡通信变慢；可以接受就不用管，否则换 NVLink 机型。",
                            "NCCL falls back to SHM (through host memory), so multi-GPU comms are slower; accept it or rent an NVLink machine.",
                        )
                    ],
                )
            continue
        gpus = t.gpus
        if len(gpus) < 2:
            continue
        links = t.gpu_links()
        nv = t.nvlink_counts()
        if not nv:
            worst_link = "SYS" if "SYS" in links else ("NODE" if "NODE" in links else "PHB/PXB/PIX")
            c.add(
                "no_nvlink",
                "info",
                (
                    f"{len(gpus)} 块 GPU 之间没有 NVLink，只走 PCIe（最差 {worst_link}）",
                    f"No NVLink between the {len(gpus)} GPUs; PCIe only (worst path {worst_link})",
                ),
                t.lines[:3],
                causes=[
                    (
                        "PCIe 版/消费级 GPU 本身没有 NVLink，或 NVLink 未生效",
                        "PCIe/consumer GPUs have no NVLink, or NVLink is not active",
                    )
                ],
                actions=[
                    (
                        "如果租的是 SXM（NVLink）机型，这就是交付不符，开工单；PCIe 机型多卡训练请预期更低的通信带宽（all-reduce busbw 约几到 20 GB/s）。",
                        "If you rented an SXM (NVLink) machine this is a wrong delivery: open a ticket. On PCIe machines expect much lower comms bandwidth (all-reduce busbw from a few to ~20 GB/s).",
                    )
                ],
            )
        elif len(set(nv)) > 1 or len(nv) < len(links):
            c.add(
                "nvlink_degraded",
                "warning",
                (
                    "GPU 之间的 NVLink 数量不一致，可能有链路掉了",
                    "Uneven NVLink counts between GPUs; some links may be down",
                ),
                t.lines,
                causes=[("NVLink 链路故障或未训练成功", "An NVLink link failed or did not train")],
                actions=[
                    (
                        "用 `nvidia-smi nvlink -s` 查看每条链路；开工单请服务商检查。",
                        "Check each link with `nvidia-smi nvlink -s`; ask the provider to inspect.",
                    )
                ],
            )
        else:
            _nvlink_per_pair(c, t, nv[0])


_ASKS_LINKS = re.compile(
    r"bandwidth|GB/s|\bpairs?\b|unique|topolog|拓扑|nvlink -[Rs]|how (?:many|fast)|带宽|每对|两两|之间|速度|多快|多少|几条",
    re.I,
)


def _nvlink_row(c: Ctx) -> dict | None:
    """The NVLink generation of the card the paste or the user's words name (knowledge/interconnect.yaml `gpus`)."""
    from tools.data import load_yaml
    from tools.diagnosis.rules.context import context_gpu

    names = [str(g.name) for g in c.inventory.gpus if getattr(g, "name", None)] if c.inventory else []
    named = " ".join([*names, context_gpu(c) or ""])
    for row in load_yaml("interconnect.yaml").get("links") or []:
        for g in row.get("gpus") or []:
            if re.search(rf"(?<![A-Za-z0-9]){re.escape(str(g))}(?![0-9])", named, re.I):
                return dict(row)
    return None


def _nvlink_per_pair(c: Ctx, t: object, n: int) -> None:
    """topo -m `NV#` = # bonded NVLinks (nvidia-smi legend). Each link carries per_direction ÷ links of its generation
    (NVLink 2-4: 25 GB/s each way, NVLink 5: 50 — knowledge/interconnect.yaml); # × (GPUs − 1) within the GPU's own
    link count means every pair has its own links (4 × H100 NV6: 6 × 3 = 18), more means the links go to NVSwitches
    and NV# is the GPU's total, shared by all its peers."""

    # said only when the user asks about the links (a healthy matrix alone stays "ok")
    if not any(_ASKS_LINKS.search(ln) for ln in c.p.lines[:200] if len(ln) < 2000):
        return
    gpus = len(getattr(t, "gpus", []))
    row = _nvlink_row(c)
    per_link = float(row["per_direction_gbs"]) / int(row["links"]) if row and row.get("links") else 25.0
    total = int(row["links"]) if row and row.get("links") else None
    gen = str(row["name"]) if row else "NVLink 2-4"
    each = n * per_link
    f = lambda x: f"{x:,.2f}".rstrip("0").rstrip(".")  # noqa: E731 - 14.0625 → 14.06, 150.0 → 150
    lines = list(getattr(t, "lines", []))[:5]
    if total is not None and n * (gpus - 1) > total:
        c.add(
            "nvlink_per_pair",
            "info",
            (
                f"NV{n} 在 {gpus} 卡上是经 NVSwitch 的全互联：每张卡共 {n} 条 NVLink 连到交换芯片，单向约 {f(each)} GB/s"
                f"（双向 {f(2 * each)} GB/s），由它和所有其他卡共享，不是每对卡各有 {n} 条",
                f"NV{n} on {gpus} GPUs is the NVSwitch all-to-all fabric: each GPU has {n} NVLinks to the switches, "
                f"about {f(each)} GB/s each way ({f(2 * each)} GB/s bidirectional), shared by all its peers — not {n} links per pair",
            ),
            lines,
            causes=[
                (f"{gen}：每条链路单向 {f(per_link)} GB/s", f"{gen}: {f(per_link)} GB/s per link in each direction")
            ],
            actions=[_nvlink_r_action()],
        )
        return
    c.add(
        "nvlink_per_pair",
        "info",
        (
            f"NV{n} = 每对 GPU 之间直连 {n} 条 NVLink：{n} × {f(per_link)} GB/s = 每个方向 {f(each)} GB/s"
            f"（双向 {f(2 * each)} GB/s），这是点对点带宽，每一对卡各有一份",
            f"NV{n} = {n} NVLinks directly between each GPU pair: {n} × {f(per_link)} GB/s = {f(each)} GB/s each way "
            f"({f(2 * each)} GB/s bidirectional) per pair — point-to-point, every pair has its own",
        ),
        lines,
        causes=[
            (
                f"{gen}：每条链路单向 {f(per_link)} GB/s；{gpus} 卡 × NV{n} 用掉每张卡 {n * (gpus - 1)} 条链路"
                + (f"（共 {total} 条）" if total else ""),
                f"{gen}: {f(per_link)} GB/s per link in each direction; {gpus} GPUs × NV{n} use {n * (gpus - 1)} links per GPU"
                + (f" (of {total})" if total else ""),
            )
        ],
        actions=[_nvlink_r_action()],
    )


def _nvlink_r_action() -> tuple[str, str]:
    return (
        "`nvidia-smi nvlink -R` 每行是一条链路和它对端设备的 PCI 地址（Remote Device）：按对端地址数一数，每个对端出现几次就是这对卡之间有几条链路；"
        "对端是 NVSwitch 时地址属于交换芯片。`nvidia-smi nvlink -s` 看每条链路的速率，全部一致才说明没有掉链路。",
        "`nvidia-smi nvlink -R` prints each link with the PCI address of its remote device: count the links per remote "
        "address — that count is the number of links between that pair; with NVSwitch the remote is a switch chip. "
        "`nvidia-smi nvlink -s` shows each link's speed; all equal means no link is down.",
    )
