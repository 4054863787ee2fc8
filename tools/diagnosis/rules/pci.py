"""Rules on `lspci` (rev ff, downgraded links, GPUs missing from nvidia-smi) and `nvidia-smi topo` (NVLink, P2P)."""
from __future__ import annotations

from tools.diagnosis.rules.context import Ctx


# --------------------------------------------------------------------------- lspci / topo

def rules_lspci(c: Ctx) -> None:
    lp = c.p.get("lspci")
    if not lp:
        return
    for d in lp.devices:
        if d.rev == "ff":
            index = c.bus_to_index.get(d.bus_id or "")
            c.add("pci_rev_ff", "critical", (f"lspci 显示 {d.bus_id} 为 rev ff：设备不再响应", f"lspci shows {d.bus_id} as rev ff: the device no longer responds"), [d.line],
                  causes=[("GPU 掉卡，配置空间读回全 1", "The GPU fell off the bus; config space reads return all ones")],
                  actions=[c.exclude(index, d.bus_id), c.ticket(index, d.bus_id, "lspci 显示 rev ff（掉卡）", "lspci shows rev ff (GPU fell off the bus)")],
                  gpu_index=index, bus_id=d.bus_id)
    down = [d for d in lp.devices if d.link_downgraded and d.link_line]
    if down:
        c.add("pcie_link_downgraded", "info", ("lspci 显示 PCIe 链路降速/降宽（downgraded）", "lspci shows a downgraded PCIe link"),
              [f"{d.bus_id}: {d.link_line}" for d in down],
              causes=[("空闲时 GPU 会主动降低 PCIe 速率省电；满载时仍降级才是问题", "Idle GPUs lower the PCIe speed to save power; it matters only if it stays downgraded under load")],
              actions=[("在跑任务时用 `nvidia-smi -q -d PCI` 复查 Link Width/Generation。", "Recheck Link Width/Generation with `nvidia-smi -q -d PCI` while a job runs.")])
    table = c.p.get("nvidia_smi_table")
    if table and table.gpus:
        n_pci = len(lp.gpus)
        if n_pci > len(table.gpus):
            missing = sorted({d.bus_id for d in lp.gpus} - {g.bus_id for g in table.gpus} - {None})
            c.add("gpu_count_mismatch", "critical",
                  (f"PCIe 上有 {n_pci} 块 NVIDIA GPU，但 nvidia-smi 只看到 {len(table.gpus)} 块", f"{n_pci} NVIDIA GPUs on PCIe but nvidia-smi sees {len(table.gpus)}"),
                  [d.line for d in lp.gpus if d.bus_id in missing] or [d.line for d in lp.gpus],
                  causes=[("有卡初始化失败或掉卡", "A GPU failed to initialise or fell off the bus"),
                          ("容器只分配了部分 GPU（这种情况可以忽略）", "The container was given only some GPUs (fine if intended)")],
                  actions=[c.ticket(None, missing[0] if missing else None, "部分 GPU 对驱动不可见", "some GPUs are invisible to the driver")])


def rules_topo(c: Ctx) -> None:
    topos = c.p.get("topo")
    if not topos:
        return
    for t in topos:
        if t.is_p2p:
            ns = [(a, b, v) for (a, b), v in t.matrix.items() if a != b and v != "OK"]
            if ns:
                c.add("p2p_not_supported", "warning", ("部分 GPU 之间不支持 P2P", "P2P is not supported between some GPUs"),
                      t.lines, causes=[("PCIe ACS/IOMMU 或芯片组限制；消费级卡（如 4090）驱动层面不开放 P2P", "PCIe ACS/IOMMU or chipset limits; consumer cards (e.g. 4090) have P2P disabled in the driver")],
                      actions=[("NCCL 会退回 SHM（经主机内存），多卡通信变慢；可以接受就不用管，否则换 NVLink 机型。", "NCCL falls back to SHM (through host memory), so multi-GPU comms are slower; accept it or rent an NVLink machine.")])
            continue
        gpus = t.gpus
        if len(gpus) < 2:
            continue
        links = t.gpu_links()
        nv = t.nvlink_counts()
        if not nv:
            worst_link = "SYS" if "SYS" in links else ("NODE" if "NODE" in links else "PHB/PXB/PIX")
            c.add("no_nvlink", "info", (f"{len(gpus)} 块 GPU 之间没有 NVLink，只走 PCIe（最差 {worst_link}）", f"No NVLink between the {len(gpus)} GPUs; PCIe only (worst path {worst_link})"),
                  t.lines[:3],
                  causes=[("PCIe 版/消费级 GPU 本身没有 NVLink，或 NVLink 未生效", "PCIe/consumer GPUs have no NVLink, or NVLink is not active")],
                  actions=[("如果租的是 SXM（NVLink）机型，这就是交付不符，开工单；PCIe 机型多卡训练请预期更低的通信带宽（all-reduce busbw 约几到 20 GB/s）。", "If you rented an SXM (NVLink) machine this is a wrong delivery: open a ticket. On PCIe machines expect much lower comms bandwidth (all-reduce busbw from a few to ~20 GB/s).")])
        elif len(set(nv)) > 1 or len(nv) < len(links):
            c.add("nvlink_degraded", "warning", ("GPU 之间的 NVLink 数量不一致，可能有链路掉了", "Uneven NVLink counts between GPUs; some links may be down"),
                  t.lines, causes=[("NVLink 链路故障或未训练成功", "An NVLink link failed or did not train")],
                  actions=[("用 `nvidia-smi nvlink -s` 查看每条链路；开工单请服务商检查。", "Check each link with `nvidia-smi nvlink -s`; ask the provider to inspect.")])
