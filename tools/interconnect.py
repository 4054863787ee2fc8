"""Links between GPUs: bandwidth table, all-reduce time, expected nccl-tests busbw, and the common rules of thumb.

Formulas (NVIDIA/nccl-tests doc/PERFORMANCE.md):
    algbw = S / t;   busbw = algbw · 2(n−1)/n  for all-reduce on n ranks
    ⇒ one all-reduce of S bytes takes  t = 2(n−1)/n · S / busbw,  busbw ≈ the bottleneck's per-direction rate.
busbw is a unidirectional figure: compare it with a link's per-direction speed, never with NVIDIA's
bidirectional headline ("600 GB/s" NVLink 3 = 300 per direction; "64 GB/s" PCIe 4.0 = ~31.5 per direction).

Other modules call `expected_busbw(gpu, n_gpus, topology)` (diagnosis: is a measured all_reduce_perf
result plausible?), `allreduce_time_s(...)`, `busbw_factor(...)` and `resolve_link(...)`.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, Field, computed_field

from tools.data import load_yaml
from tools.errors import ToolInputError
from tools.gpus import GpuSpec, resolve_gpu
from tools.registry import ToolSpec

SEED = "a common rule of thumb for renting GPU servers in China (PCIe vs NVLink, network), checked against nccl-tests measurements (NVIDIA/nccl-tests doc/PERFORMANCE.md; issues #149, #178, #212)"


class Link(BaseModel):
    id: str
    name: str
    kind: Literal["pcie", "nvlink", "nvlink_bridge", "nvswitch", "network"]
    scope: Literal["intra_node", "inter_node"]
    per_direction_gbs: float | None = Field(None, description="GB/s in one direction")
    bidirectional_gbs: float | None = Field(None, description="GB/s both directions together (NVIDIA's headline)")
    efficiency: list[float] | None = Field(None, description="typical busbw / per-direction line rate, [low, high]")
    rdma: bool | None = None
    gbit: float | None = None
    notes: str | None = None
    source: str
    confidence: str


class LaneRate(BaseModel):
    """One PCIe generation at one lane width: the x16 row's line rate × lanes / 16 (PCIe scales per lane)."""

    gen: int
    lanes: int
    per_direction_gbs: float
    bidirectional_gbs: float
    source: str


def pcie_lane_rates(gens: list[int], lanes: list[int]) -> list[LaneRate]:
    """Per-direction and bidirectional GB/s of each generation × width, from the x16 rows of the link table
    (8 / 16 / 32 GT/s per lane with 128b/130b encoding: x1 is one sixteenth of x16)."""
    table = {lk.id: lk for lk in _links()}
    out: list[LaneRate] = []
    for gen in sorted(set(gens)):
        row = table.get(f"pcie{gen}_x16")
        if row is None or not row.per_direction_gbs:
            continue
        for n in sorted(set(lanes)):
            per = row.per_direction_gbs * n / 16
            out.append(
                LaneRate(
                    gen=gen,
                    lanes=n,
                    per_direction_gbs=round(per, 2 if per < 10 else 1),
                    bidirectional_gbs=round(2 * per, 2 if per < 5 else 1),
                    source=f"{row.name} row × {n}/16 lanes ({row.source})",
                )
            )
    return out


class LinkRatio(BaseModel):
    """Two links set against each other on one basis: per direction with per direction, both ways with both ways.
    `mixed_ratio` is the figure a comparison gets when it sets the first's bidirectional total against the
    second's per-direction rate (900 GB/s NVLink 4 vs 64 GB/s PCIe 5.0 → ~14×, twice the real ratio)."""

    a: str
    b: str
    a_per_direction_gbs: float
    b_per_direction_gbs: float
    a_bidirectional_gbs: float
    b_bidirectional_gbs: float
    ratio: float = Field(description="a ÷ b on one basis (per direction; the same both ways)")
    mixed_ratio: float = Field(description="a bidirectional ÷ b per direction: the mixed-basis figure")


def link_ratios(names: list[str]) -> list[LinkRatio]:
    """Each pair of the named links on one basis, first named first."""
    rows: list[Link] = []
    for n in names:
        lk = resolve_link(n)
        if lk.per_direction_gbs and lk.bidirectional_gbs and lk.id not in {r.id for r in rows}:
            rows.append(lk)
    out: list[LinkRatio] = []
    for i, a in enumerate(rows):
        for b in rows[i + 1 :]:
            ap, bp = float(a.per_direction_gbs or 0), float(b.per_direction_gbs or 0)
            ab, bb = float(a.bidirectional_gbs or 0), float(b.bidirectional_gbs or 0)
            out.append(
                LinkRatio(
                    a=a.name,
                    b=b.name,
                    a_per_direction_gbs=ap,
                    b_per_direction_gbs=bp,
                    a_bidirectional_gbs=ab,
                    b_bidirectional_gbs=bb,
                    ratio=round(ap / bp, 1),
                    mixed_ratio=round(ab / bp, 1),
                )
            )
    return out


@lru_cache(maxsize=1)
def _data() -> dict[str, Any]:
    return load_yaml("interconnect.yaml")


@lru_cache(maxsize=1)
def _links() -> tuple[Link, ...]:
    return tuple(Link.model_validate(r) for r in _data()["links"])


def links() -> list[Link]:
    """The whole link table (copies; safe to modify)."""
    return [lk.model_copy() for lk in _links()]


def _norm(text: str) -> str:
    s = unicodedata.normalize("NFKC", str(text)).lower()
    s = s.replace("万兆", "10g").replace("千兆", "1g").replace("百兆", "0.1g").replace("以太网", "gbe")
    return re.sub(r"[\s_\-./]+", "", s)


def resolve_link(name: str) -> Link:
    """Forgiving link lookup: 'pcie4', 'PCIe 4.0', 'nvlink3', '100G IB', 'IB HDR', 'RoCE 200G', '10G', '万兆', '千兆'."""
    table = {lk.id: lk for lk in _links()}
    s = _norm(name)
    if s in table:
        return table[s]
    m = re.search(r"(?:pcie|pci)(?:gen)?([345])", s)
    if m:
        return table[f"pcie{m.group(1)}_x16"]
    m = re.search(r"nvlink([2345])", s)
    if m:
        v = m.group(1)
        return table[
            "nvlink3"
            if v == "3" and "bridge" not in s
            else (
                "nvlink3_bridge_ga102" if v == "3" else "nvlink4_bridge" if v == "4" and "bridge" in s else f"nvlink{v}"
            )
        ]
    if "nvswitch" in s:
        return table["nvswitch"]
    for rate, ib in (("edr", "ib_edr"), ("hdr", "ib_hdr"), ("ndr", "ib_ndr")):
        if rate in s:
            return table[ib]
    m = re.search(r"(\d+(?:\.\d+)?)\s*g", s)
    gbit = float(m.group(1)) if m else None
    if "roce" in s or "rdma" in s:
        g = gbit or 100
        key = {100: "roce_100g", 200: "roce_200g", 400: "roce_400g"}.get(int(g))
        if key:
            return table[key]
    if "ib" in s or "infiniband" in s:
        g = gbit or 100
        key = {100: "ib_edr", 200: "ib_hdr", 400: "ib_ndr"}.get(int(g))
        if key:
            return table[key]
    if gbit is not None:
        key = {1: "eth_1g", 10: "eth_10g", 25: "eth_25g", 100: "eth_100g"}.get(int(gbit)) if gbit >= 1 else "eth_1g"
        if key:
            return table[key]
    raise ToolInputError(
        f"不认识的互联方式「{name}」",
        f"Unknown link '{name}'",
        field="link",
        suggestions=["PCIe 4.0", "NVLink 3", "NVSwitch", "IB HDR 200G", "RoCE 100G", "10GbE"],
    )


# ---------------------------------------------------------------- collective arithmetic

_FACTORS = {
    "all_reduce": lambda n: 2 * (n - 1) / n,
    "reduce_scatter": lambda n: (n - 1) / n,
    "all_gather": lambda n: (n - 1) / n,
    "alltoall": lambda n: (n - 1) / n,
    "broadcast": lambda n: 1.0,
    "reduce": lambda n: 1.0,
}


def busbw_factor(op: str, n: int) -> float:
    """nccl-tests busbw/algbw factor (PERFORMANCE.md): all_reduce 2(n−1)/n; reduce_scatter, all_gather,
    alltoall (n−1)/n; broadcast, reduce 1."""
    if n < 1:
        raise ToolInputError("GPU 数至少为 1", "n must be at least 1", field="n_gpus")
    try:
        return _FACTORS[op](n)
    except KeyError:
        raise ToolInputError(f"未知集合通信 {op}", f"Unknown collective {op}", suggestions=sorted(_FACTORS)) from None


def algbw_to_busbw(algbw_gbs: float, n: int, op: str = "all_reduce") -> float:
    return algbw_gbs * busbw_factor(op, n)


def allreduce_time_s(n_bytes: float, n_gpus: int, busbw_gbs: float) -> float:
    """Seconds for one ring all-reduce of `n_bytes` on `n_gpus` at bus bandwidth `busbw_gbs` (GB/s, per direction):
    t = 2(n−1)/n · S / busbw (nccl-tests PERFORMANCE.md). Latency terms are ignored (fine for GB-sized gradients)."""
    if n_gpus <= 1:
        return 0.0
    if busbw_gbs <= 0:
        raise ToolInputError("带宽必须为正", "Bandwidth must be positive", field="busbw_gbs")
    return busbw_factor("all_reduce", n_gpus) * n_bytes / (busbw_gbs * 1e9)


# ---------------------------------------------------------------- expected busbw


class BusbwRange(BaseModel):
    """Expected all_reduce_perf busbw (GB/s, per direction, large messages ≥256 MB)."""

    gpu: str
    n_gpus: int
    nodes: int = 1
    topology: str
    low_gbs: float
    high_gbs: float
    mid_gbs: float

    @computed_field  # type: ignore[prop-decorator]
    @property
    def busbw_gbs(self) -> float:
        """One representative expected value (the middle of the range), for callers that want a single number."""
        return self.mid_gbs

    basis: Literal["measured", "derived", "estimate", "none"]
    flag_below_gbs: float = Field(description="a measured plateau busbw below this (50% of low) suggests a problem")
    per_direction_link_gbs: float | None = Field(None, description="line rate of the bottleneck link, one direction")
    note: str
    source: str


_TOPO_ALIASES = {
    "nvswitch": "nvswitch",
    "sxm": "nvswitch",
    "hgx": "nvswitch",
    "nvls": "nvswitch",
    "nvlink": "nvlink",
    "bridge": "nvlink_bridge",
    "nvlinkbridge": "nvlink_bridge",
    "nvlink_bridge": "nvlink_bridge",
    "pcie": "pcie",
    "pci": "pcie",
    "pix": "pcie",
    "pxb": "pcie",
    "phb": "pcie",
    "node": "pcie",
    "sys": "pcie",
    "shm": "pcie",
    "p2p": "pcie",
    "nop2p": "pcie",
    "pcienop2p": "pcie",
    "pcie_no_p2p": "pcie",
}


def normalise_topology(topology: str | None, gpu: GpuSpec, n_gpus: int) -> str:
    """'auto'/None → what the card implies; nvidia-smi topo labels (NV12, NV18, PIX, SYS…) are accepted."""
    t = (topology or "auto").strip().lower().replace("-", "_").replace(" ", "_")
    if t.startswith("nv") and t[2:].isdigit():  # NV12 / NV18 / NV4 from `nvidia-smi topo -m`
        t = "nvswitch" if gpu.is_sxm else "nvlink_bridge"
    t = _TOPO_ALIASES.get(t.replace("_", "") if t.replace("_", "") in _TOPO_ALIASES else t, t)
    if t == "auto":
        if gpu.is_sxm and gpu.has_nvlink:
            t = "nvlink" if gpu.family == "v100" else "nvswitch"
        else:
            t = "pcie"
    if t == "nvlink":
        if gpu.is_sxm:
            t = "nvlink" if gpu.family == "v100" else "nvswitch"
        else:
            t = "nvlink_bridge"
    if t == "nvswitch" and not gpu.is_sxm:
        raise ToolInputError(
            f"{gpu.name} 不是 SXM 板卡，没有 NVSwitch",
            f"{gpu.name} is not an SXM board; it has no NVSwitch",
            field="topology",
            suggestions=["pcie", "nvlink_bridge"],
        )
    if t == "nvlink_bridge":
        if not gpu.has_nvlink:
            raise ToolInputError(
                f"{gpu.name} 不支持 NVLink 桥",
                f"{gpu.name} has no NVLink bridge",
                field="topology",
                suggestions=["pcie"],
            )
        if n_gpus > 2:  # bridges pair cards; a ring over >2 cards still crosses PCIe
            t = "pcie"
    if t not in {"nvswitch", "nvlink", "nvlink_bridge", "pcie"}:
        raise ToolInputError(
            f"不认识的拓扑「{topology}」",
            f"Unknown topology '{topology}'",
            field="topology",
            suggestions=["auto", "nvswitch", "nvlink_bridge", "pcie", "NV12", "PIX", "SYS"],
        )
    return t


def _bridge_link(gpu: GpuSpec) -> Link:
    """Data-center bridges (A100/A800/H100 PCIe, 400–600 GB/s) behave like the measured H100 bridge pair;
    GA102 cards (3090/A6000/A40) have the 112.5 GB/s bridge."""
    return resolve_link("nvlink4 bridge" if (gpu.nvlink_gbs_bidir or 0) >= 400 else "nvlink3 bridge")


def _single_node(gpu: GpuSpec, n: int, topo: str) -> BusbwRange:
    pcie_link = resolve_link(f"pcie{gpu.pcie_gen or 4}")
    for rule in _data()["busbw_single_node"]:
        m = rule["match"]
        if m.get("topology") != topo:
            continue
        if "gpu_ids" in m and gpu.id not in m["gpu_ids"]:
            continue
        if "n_gpus" in m and m["n_gpus"] != n:
            continue
        if "pcie_gen" in m and m["pcie_gen"] != (gpu.pcie_gen or 4):
            continue
        link_bw = None
        if topo == "nvlink_bridge":
            link_bw = min(gpu.nvlink_gbs_per_direction, _bridge_link(gpu).per_direction_gbs or 1e9)
        elif topo in ("nvswitch", "nvlink"):
            link_bw = gpu.nvlink_gbs_per_direction
        else:
            link_bw = pcie_link.per_direction_gbs
        if "low" in rule:
            low, high = float(rule["low"]), float(rule["high"])
        else:
            low, high = rule["low_factor_of_link"] * link_bw, rule["high_factor_of_link"] * link_bw
        return BusbwRange(
            gpu=gpu.id,
            n_gpus=n,
            topology=topo,
            low_gbs=round(low, 1),
            high_gbs=round(high, 1),
            mid_gbs=round((low + high) / 2, 1),
            basis=rule["basis"],
            flag_below_gbs=round(low / 2, 1),
            per_direction_link_gbs=link_bw,
            note=rule["note"],
            source=rule["source"],
        )
    # No table row: estimate from the link's line rate and typical efficiency.
    link = pcie_link if topo == "pcie" else (_bridge_link(gpu) if topo == "nvlink_bridge" else resolve_link("nvlink3"))
    bw: float = float((link.per_direction_gbs if topo == "pcie" else gpu.nvlink_gbs_per_direction) or 0.0)
    if topo == "nvlink_bridge":
        bw = min(float(gpu.nvlink_gbs_per_direction or 0.0), link.per_direction_gbs or bw)
    eff = link.efficiency or [0.5, 0.8]
    low, high = eff[0] * bw, eff[1] * bw
    return BusbwRange(
        gpu=gpu.id,
        n_gpus=n,
        topology=topo,
        low_gbs=round(low, 1),
        high_gbs=round(high, 1),
        mid_gbs=round((low + high) / 2, 1),
        basis="estimate",
        flag_below_gbs=round(low / 2, 1),
        per_direction_link_gbs=bw,
        note=f"No measured figure; {link.name} line rate × typical efficiency.",
        source=link.source,
    )


def expected_busbw(
    gpu: str,
    n_gpus: int,
    topology: str | None = None,
    *,
    nodes: int = 1,
    network: str | None = None,
    nics_per_node: int | None = None,
) -> BusbwRange:
    """Expected nccl-tests `all_reduce_perf` busbw (GB/s, plateau at ≥256 MB messages) for `n_gpus` of `gpu`.

    topology: None/'auto' (what the card implies: SXM → NVSwitch, else PCIe), 'nvswitch', 'nvlink',
    'nvlink_bridge', 'pcie', or an `nvidia-smi topo -m` label ('NV12', 'NV18', 'PIX', 'PHB', 'SYS').
    Multi-node (nodes > 1, `network` like 'IB HDR', 'RoCE 100G', '10G'): hierarchical-ring estimate
    busbw ≈ min(intra-node busbw, nics_per_node × NIC per-direction rate × efficiency); nics_per_node defaults to 1.
    `flag_below_gbs` (half the low end) is the threshold below which a measurement suggests a fault
    (NVLink not used, P2P disabled, NCCL fell back to sockets).
    Raises ToolInputError for non-NVIDIA chips (no reference data) or impossible topologies.
    """
    spec = resolve_gpu(gpu)
    if n_gpus < 1 or nodes < 1:
        raise ToolInputError("GPU 数和节点数至少为 1", "n_gpus and nodes must be at least 1", field="n_gpus")
    if not spec.is_nvidia:
        raise ToolInputError(
            f"{spec.name} 不是 NVIDIA GPU（用 HCCL 而不是 NCCL），没有 busbw 参考值",
            f"{spec.name} is not an NVIDIA GPU (HCCL, not NCCL); no busbw reference",
            field="gpu",
        )
    if n_gpus % nodes:
        raise ToolInputError("GPU 总数应能被节点数整除", "n_gpus must be a multiple of nodes", field="nodes")
    per_node = n_gpus // nodes
    if n_gpus == 1:
        return BusbwRange(
            gpu=spec.id,
            n_gpus=1,
            topology="single_gpu",
            low_gbs=0,
            high_gbs=0,
            mid_gbs=0,
            basis="none",
            flag_below_gbs=0,
            note="单卡没有 all-reduce / a single GPU does no all-reduce",
            source="-",
        )
    topo = normalise_topology(topology, spec, max(per_node, 1))
    if per_node > 1:
        intra = _single_node(spec, per_node, topo)
    else:
        intra = None
    if nodes == 1 and network is None:
        return intra  # type: ignore[return-value]
    if nodes == 1:
        return intra  # type: ignore[return-value]
    if network is None:
        raise ToolInputError(
            "多机需要说明机间网络（如 IB HDR、RoCE 100G、10G）",
            "Multi-node needs the inter-node network (e.g. IB HDR, RoCE 100G, 10G)",
            field="network",
        )
    net = resolve_link(network)
    if net.scope != "inter_node":
        raise ToolInputError(f"{net.name} 不是机间网络", f"{net.name} is not an inter-node network", field="network")
    nics = nics_per_node or 1
    eff = net.efficiency or [0.8, 0.95]
    inter_low, inter_high = nics * (net.per_direction_gbs or 0) * eff[0], nics * (net.per_direction_gbs or 0) * eff[1]
    low = min(intra.low_gbs, inter_low) if intra else inter_low
    high = min(intra.high_gbs, inter_high) if intra else inter_high
    note = (
        f"{nodes} 节点 × {per_node} 卡，机间 {nics} × {net.name}：估算 busbw ≈ min(机内, 网卡数 × 单向速率 × 效率)。"
        f" / {nodes} nodes × {per_node} GPUs over {nics} × {net.name}: busbw ≈ min(intra-node, NICs × per-direction rate × efficiency) (estimate; NCCL's hierarchical algorithms change the constants)."
    )
    if nics_per_node is None:
        note += " 默认每节点 1 块网卡；HGX 机器常配 4–8 块，请填写。 / Assumed 1 NIC per node; HGX nodes often have 4–8 — pass nics_per_node."
    return BusbwRange(
        gpu=spec.id,
        n_gpus=n_gpus,
        nodes=nodes,
        topology=f"{topo}+{net.id}",
        low_gbs=round(low, 1),
        high_gbs=round(high, 1),
        mid_gbs=round((low + high) / 2, 1),
        basis="estimate",
        flag_below_gbs=round(low / 2, 1),
        per_direction_link_gbs=(net.per_direction_gbs or 0) * nics,
        note=note,
        source=f"{net.source}; nccl-tests doc/PERFORMANCE.md (busbw = algbw × 2(n−1)/n)",
    )


# ---------------------------------------------------------------- the common rules of thumb, checkable


class RuleResult(BaseModel):
    id: str
    status: Literal["ok", "warn", "fail", "info"]
    zh: str
    en: str
    source: str


def check_rules(
    *,
    gpu: GpuSpec | None,
    n_gpus: int,
    nodes: int,
    topology: str,
    network: Link | None,
    rdma: bool | None,
    parallelism: str,
) -> list[RuleResult]:
    """The common interconnect rules of thumb applied to one configuration."""
    out: list[RuleResult] = []
    per_node = max(n_gpus // max(nodes, 1), 1)
    on_pcie = topology in ("pcie", "nvlink_bridge") or topology.startswith("pcie")
    if per_node == 2 and on_pcie:
        out.append(
            RuleResult(
                id="two_cards_pcie_ok",
                status="ok",
                zh="两张卡走 PCIe 可以用：通信量只有一对卡之间，够用。",
                en="Two cards over PCIe are workable: only one pair exchanges gradients.",
                source=SEED,
            )
        )
    if per_node >= 4 and on_pcie and parallelism in ("dp", "fsdp", "zero3", "tp"):
        status = "fail" if parallelism == "tp" else "warn"
        out.append(
            RuleResult(
                id="four_plus_want_nvlink",
                status=status,
                zh=(
                    f"单机 {per_node} 卡做{'张量并行' if parallelism == 'tp' else '数据并行/分片'}，最好选 SXM/NVLink 机型；"
                    "走 PCIe 时卡间通信是短板（all-reduce 约 10–25 GB/s，对 NVSwitch 的 200+ GB/s）。"
                ),
                en=(
                    f"{per_node} cards in one node for {'tensor' if parallelism == 'tp' else 'data/sharded'} parallel want "
                    "SXM/NVLink; over PCIe the card-to-card link is the bottleneck (all-reduce ~10–25 GB/s vs 200+ on NVSwitch)."
                ),
                source=SEED + "; nccl-tests #178",
            )
        )
    if gpu is not None and gpu.family in ("4090", "4090d", "5090", "5090d") and n_gpus > 1:
        out.append(
            RuleResult(
                id="geforce_no_p2p",
                status="warn",
                zh="GeForce 卡没有 NVLink，驱动也关闭了 P2P，多卡流量经过主机内存，扩展效率差。",
                en="GeForce cards have no NVLink and P2P is disabled in the driver, so multi-GPU traffic goes through host memory.",
                source="GeForce drivers disable GPU peer-to-peer (tinygrad/open-gpu-kernel-modules #17; NVIDIA forum reports)",
            )
        )
    if nodes > 1:
        if network is None:
            out.append(
                RuleResult(
                    id="multi_node_network_unknown",
                    status="warn",
                    zh="多机训练请确认机间网络：要 ≥100G 的 InfiniBand 或带 RDMA 的 RoCE。",
                    en="Multi-node: confirm the inter-node network — it should be ≥100G InfiniBand or RoCE with RDMA.",
                    source=SEED,
                )
            )
        else:
            gbit = network.gbit or 0
            has_rdma = network.rdma if rdma is None else rdma
            if gbit <= 1:
                out.append(
                    RuleResult(
                        id="one_g_management_only",
                        status="fail",
                        zh="千兆（及以下）网络只适合管理和下载数据，跑多机训练会卡死。",
                        en="1 GbE (or slower) is for management and downloads only; multi-node training over it stalls.",
                        source=SEED,
                    )
                )
            elif gbit < 100:
                out.append(
                    RuleResult(
                        id="ten_g_single_node_only",
                        status="fail",
                        zh=f"{network.name} 只够单机多卡；多机时梯度同步会成为瓶颈。",
                        en=f"{network.name} is single-node only; across nodes gradient sync becomes the bottleneck.",
                        source=SEED,
                    )
                )
            elif not has_rdma:
                out.append(
                    RuleResult(
                        id="multi_node_needs_rdma",
                        status="warn",
                        zh=f"{network.name} 带宽够，但没有 RDMA：NCCL 会走 TCP 套接字，CPU 参与拷贝，要求服务商提供 IB 或 RoCE。",
                        en=f"{network.name} is fast enough but has no RDMA: NCCL falls back to TCP sockets with CPU copies; ask for IB or RoCE.",
                        source=SEED,
                    )
                )
            else:
                out.append(
                    RuleResult(
                        id="multi_node_ok",
                        status="ok",
                        zh=f"{network.name} 满足多机训练的底线（≥100G 且有 RDMA）；让服务商出具 RDMA 网络测试报告。",
                        en=f"{network.name} meets the multi-node floor (≥100G with RDMA); ask the provider for an RDMA test report.",
                        source=SEED,
                    )
                )
    elif network is not None and (network.gbit or 0) <= 1:
        out.append(
            RuleResult(
                id="one_g_management_only",
                status="info",
                zh="千兆网络只用于管理和下载数据。",
                en="1 GbE is for management and data download only.",
                source=SEED,
            )
        )
    elif network is not None and (network.gbit or 0) < 100:
        out.append(
            RuleResult(
                id="ten_g_single_node_only",
                status="info",
                zh=f"{network.name} 单机多卡够用（卡间走机内互联）；以后扩到多机就不够了。",
                en=f"{network.name} is fine for one server (GPUs talk inside the box); it will not do for multi-node.",
                source=SEED,
            )
        )
    return out


# ---------------------------------------------------------------- the tool


class InterconnectInput(BaseModel):
    gpu: str | None = Field(None, description="GPU name ('A100 80G', '4090', 'H800'); needed for expected busbw")
    n_gpus: int = Field(1, ge=1, le=65536, description="total GPUs taking part")
    nodes: int = Field(1, ge=1, le=8192, description="number of servers")
    topology: str | None = Field(
        None, description="intra-node: auto | nvswitch | nvlink | nvlink_bridge | pcie | NV12/NV18/PIX/SYS"
    )
    network: str | None = Field(
        None, description="inter-node link: 'IB HDR', 'IB NDR', '100G IB', 'RoCE 200G', '25G', '10G', '1G'"
    )
    nics_per_node: int | None = Field(None, ge=1, le=32, description="inter-node NICs per server (HGX: often 4–8)")
    rdma: bool | None = Field(None, description="override: is RDMA (GPUDirect over IB/RoCE) available?")
    parallelism: Literal["dp", "fsdp", "zero3", "tp", "pp", "none"] = Field("dp", description="how the job splits work")
    params_b: float | None = Field(
        None, gt=0, description="model size in billions of parameters, for gradient-sync time"
    )
    model: str | None = Field(None, description="model name instead of params_b (looked up in the model catalog)")
    grad_bytes: float = Field(2.0, gt=0, description="bytes per gradient element (bf16 = 2, fp32 = 4)")
    link: str | None = Field(
        None, description="compute all-reduce time over this link's line rate instead ('PCIe 4.0', 'NVLink 3')"
    )
    include_link_table: bool = Field(False, description="return the whole link table")
    pcie_lanes: list[int] | None = Field(
        None, description="PCIe lane widths to compare (1, 4, 8, 16): per-direction GB/s of each in `lane_rates`"
    )
    pcie_gens: list[int] | None = Field(None, description="PCIe generations for pcie_lanes (3, 4, 5); default 3 and 4")
    compare_links: list[str] | None = Field(
        None, description="links to set against each other on one basis ('NVLink 4', 'PCIe 5.0'): `link_ratios`"
    )


class SyncTime(BaseModel):
    bytes: float
    gb: float
    n_gpus: int
    busbw_low_gbs: float
    busbw_high_gbs: float
    seconds_low: float = Field(description="at the high busbw")
    seconds_high: float = Field(description="at the low busbw")
    formula: str
    note: str | None = None


class NodeLayout(BaseModel):
    """How N GPUs are housed: whole servers of `gpus_per_node` (knowledge/interconnect.yaml servers)."""

    n_gpus: int
    gpus_per_node: int
    nodes: int
    intra_link: str | None = Field(None, description="the GPU-to-GPU link inside a server, e.g. 'NVLink 3 (A100)'")
    intra_per_direction_gbs: float | None = None
    inter_link: str | None = Field(None, description="the link between servers the reference server ships")
    inter_per_direction_gbs: float | None = None
    reference_server: str | None = None
    reference_host_ram_gb: float | None = Field(None, description="system memory of the reference server, GB")
    reference_nics: str | None = None
    sources: list[str] = Field(default_factory=list)


class InterconnectOutput(BaseModel):
    gpu: str | None
    topology: str | None
    expected_busbw: BusbwRange | None
    gradient_sync: SyncTime | None
    rules: list[RuleResult]
    links: list[Link]
    notes: list[str]
    layout: NodeLayout | None = Field(None, description="servers needed for n_gpus, with the reference server's links")
    lane_rates: list[LaneRate] = Field(default_factory=list, description="PCIe rates per generation × lane width")
    link_ratios: list[LinkRatio] = Field(default_factory=list, description="named links against each other")


def node_layout(spec: GpuSpec | None, n_gpus: int) -> NodeLayout:
    """ceil(N / 8) servers; the GPU's own NVLink inside one, the reference server's InfiniBand between them."""
    servers = _data().get("servers") or {}
    per = int(servers.get("gpus_per_node") or 8)
    ref = next(
        (r for r in servers.get("reference") or [] if spec is not None and spec.family in (r.get("families") or [])),
        None,
    )
    intra = None
    if spec is not None and spec.nvlink_gbs_bidir:
        intra = (re.split(r"\s*[(,]", spec.nvlink_version or "NVLink")[0], spec.nvlink_gbs_bidir / 2)
    elif spec is not None and spec.pcie_gbs_bidir:
        intra = (f"PCIe {spec.pcie_gen}.0 x16", spec.pcie_gbs_bidir / 2)
    inter = resolve_link("ib_ndr" if ref and "400" in str(ref.get("nics")) else "ib_hdr")
    return NodeLayout(
        n_gpus=n_gpus,
        gpus_per_node=per,
        nodes=-(-n_gpus // per),
        intra_link=intra[0] if intra else None,
        intra_per_direction_gbs=intra[1] if intra else None,
        inter_link=inter.name,
        inter_per_direction_gbs=inter.per_direction_gbs,
        reference_server=ref.get("name") if ref else None,
        reference_host_ram_gb=ref.get("host_ram_gb") if ref else None,
        reference_nics=ref.get("nics") if ref else None,
        sources=[str(servers.get("source") or "")] + ([str(ref.get("source"))] if ref else []) + [inter.source or ""],
    )


def _params_from(inp: InterconnectInput) -> float | None:
    if inp.params_b:
        return inp.params_b * 1e9
    if inp.model:
        from tools.models import resolve_model

        return float(resolve_model(inp.model).params)
    return None


def interconnect_advice(inp: InterconnectInput) -> InterconnectOutput:
    spec = resolve_gpu(inp.gpu) if inp.gpu else None
    network = resolve_link(inp.network) if inp.network else None
    notes: list[str] = []
    topo: str | None = None
    busbw: BusbwRange | None = None
    if spec is not None and inp.n_gpus > 1 and spec.is_nvidia:
        if inp.nodes > 1 and inp.network is None:  # say what one server does; the rules ask for the network
            if inp.n_gpus % inp.nodes:
                raise ToolInputError("GPU 总数应能被节点数整除", "n_gpus must be a multiple of nodes", field="nodes")
            busbw = expected_busbw(spec.id, inp.n_gpus // inp.nodes, inp.topology)
            notes.append(
                "未给出机间网络：busbw 只代表单台服务器内部。 / No inter-node network given: busbw is for one server only."
            )
        else:
            busbw = expected_busbw(
                spec.id, inp.n_gpus, inp.topology, nodes=inp.nodes, network=inp.network, nics_per_node=inp.nics_per_node
            )
        topo = busbw.topology
    elif spec is not None and not spec.is_nvidia:
        topo = "hccs"  # Ascend: HCCS full mesh inside an 8-card node, not PCIe
        notes.append(
            f"{spec.name} 用华为 HCCS/HCCL，不适用 NCCL 参考值。 / {spec.name} uses Huawei HCCS/HCCL; NCCL references do not apply."
        )
    elif inp.topology:
        topo = inp.topology
    rules = check_rules(
        gpu=spec,
        n_gpus=inp.n_gpus,
        nodes=inp.nodes,
        topology=(topo or inp.topology or "pcie").split("+")[0],
        network=network,
        rdma=inp.rdma,
        parallelism=inp.parallelism,
    )

    sync = None
    n_params = _params_from(inp)
    multi_node_unknown = inp.nodes > 1 and inp.network is None and not inp.link
    if multi_node_unknown and n_params:
        notes.append(
            "多机未给出网络，不估算梯度同步时间。 / Multi-node without a network: gradient-sync time not estimated."
        )
    if (
        n_params
        and inp.n_gpus > 1
        and not multi_node_unknown
        and not (spec is not None and not spec.is_nvidia and not inp.link)
    ):
        size = n_params * inp.grad_bytes
        factor = 1.5 if inp.parallelism in ("fsdp", "zero3") else 1.0
        if inp.link:
            link = resolve_link(inp.link)
            eff = link.efficiency or [1.0, 1.0]
            lo_bw, hi_bw = (link.per_direction_gbs or 0) * eff[0], (link.per_direction_gbs or 0) * eff[1]
            src = f"{link.name} per direction × efficiency {eff}"
        elif busbw is not None:
            lo_bw, hi_bw, src = busbw.low_gbs, busbw.high_gbs, "expected busbw"
        else:
            raise ToolInputError(
                "算同步时间需要 GPU 型号或互联方式（link）", "Gradient-sync time needs a GPU or a link", field="gpu"
            )
        t_fast = allreduce_time_s(size, inp.n_gpus, hi_bw) * factor
        t_slow = allreduce_time_s(size, inp.n_gpus, lo_bw) * factor
        sync = SyncTime(
            bytes=size,
            gb=round(size / 1e9, 3),
            n_gpus=inp.n_gpus,
            busbw_low_gbs=lo_bw,
            busbw_high_gbs=hi_bw,
            seconds_low=round(t_fast, 4),
            seconds_high=round(t_slow, 4),
            formula=f"t = 2(n−1)/n × S / busbw{' × 1.5 (ZeRO-3/FSDP: reduce-scatter + 2 all-gathers)' if factor > 1 else ''} ({src})",
            note=(
                "ZeRO-3/FSDP：每个 micro-step 都要收集参数（前向、反向各一次）并 reduce-scatter 梯度，梯度累积摊不薄——"
                "这里是一个 micro-step 的时间，乘以每步 micro-step 数；通信量是数据并行的 1.5 倍（ZeRO 论文）。 / ZeRO-3/FSDP "
                "gathers the parameters (forward and backward) and reduce-scatters the gradients on EVERY micro-step, so "
                "gradient accumulation does not amortise it — this is one micro-step; multiply by micro-steps per step "
                "(1.5× plain DP per micro-step, Rajbhandari et al. 2020). Per-step breakdown: estimate_step_time."
                if factor > 1
                else "每一步同步一次梯度；梯度累积可以摊薄。 / One gradient sync per optimizer step; gradient accumulation amortises it."
            ),
        )
    if n_params and spec is not None and inp.parallelism == "dp" and 16 * n_params > spec.memory_gb * 1e9:
        notes.append(
            f"纯数据并行放不下全量训练：每卡要 16 B/参数 ≈ {16 * n_params / 1e9:.0f} GB > {spec.memory_gb:g} GB（ZeRO 论文），"
            "需要 ZeRO-3/FSDP（parallelism=zero3），通信按每个 micro-step 计。 / Plain data parallelism cannot hold a full "
            f"fine-tune: 16 B/param ≈ {16 * n_params / 1e9:.0f} GB per GPU > {spec.memory_gb:g} GB (ZeRO paper); it needs "
            "ZeRO-3/FSDP (parallelism=zero3), whose traffic repeats every micro-step. (LoRA/QLoRA syncs only the adapters.)"
        )
    notes.append(
        "busbw 是单向口径：与链路单向速率比较，不要和双向宣传值比。 / busbw is per direction: compare it with the "
        "link's per-direction rate, not the bidirectional headline."
    )
    table = (
        links()
        if inp.include_link_table
        else [
            lk
            for lk in links()
            if (network and lk.id == network.id) or (inp.link and lk.id == resolve_link(inp.link).id)
        ]
    )
    return InterconnectOutput(
        gpu=spec.id if spec else None,
        topology=topo,
        expected_busbw=busbw,
        gradient_sync=sync,
        rules=rules,
        links=table,
        notes=notes,
        layout=node_layout(spec, inp.n_gpus) if inp.n_gpus > 1 else None,
        lane_rates=pcie_lane_rates(inp.pcie_gens or [3, 4], inp.pcie_lanes) if inp.pcie_lanes else [],
        link_ratios=link_ratios(inp.compare_links) if inp.compare_links else [],
    )


TOOLS = [
    ToolSpec(
        name="interconnect_advice",
        description=(
            "Interconnect check for a GPU configuration: expected nccl-tests all_reduce busbw (GB/s, per direction) "
            "by topology (NVSwitch / NVLink bridge / PCIe, multi-node IB/RoCE/Ethernet), the time of one gradient "
            "all-reduce in seconds (t = 2(n−1)/n · bytes / busbw), the common rules of thumb (2 cards on PCIe ok; ≥4 want "
            "NVLink; multi-node wants ≥100G IB/RoCE with RDMA; 10G single-node only; 1G management only) as "
            "ok/warn/fail, and the link table with per-direction and bidirectional GB/s."
        ),
        input_model=InterconnectInput,
        func=interconnect_advice,
    ),
]
