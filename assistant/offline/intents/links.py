"""Two link questions the interconnect table answers by arithmetic.

Lane widths (x1 risers, x8/x8 bifurcation, an x16 slot): PCIe scales per lane, so x1 is a sixteenth of x16, and
what that costs depends on how much the cards talk (tensor parallel all-reduces every layer; independent cards
barely use the link). Two link generations set against each other (「NVLink 4.0 与 PCIe 5.0 对比，约 14 倍？」): the
ratio on one basis, per direction with per direction, since headline figures mix bidirectional totals with
per-direction rates."""

from __future__ import annotations

import re

from assistant.offline.intents import args as A
from assistant.offline.intents.args import INTERCONNECT
from assistant.offline.reading.frame import Frame
from assistant.offline.types import ToolCall

# "PCI x1", "x16 插槽", "PCIE*8", "拆分成 x8/x8", "x4 riser": a lane width written as x<N> (or PCIe*N)
_WIDTH_RE = re.compile(r"(?<![a-z0-9])x\s?(16|8|4|2|1)(?![0-9.])|pci-?e?\s*[*×]\s*(16|8|4|1)(?![0-9])", re.I)
_CONTEXT_RE = re.compile(r"pci|插槽|槽位|slot|lanes?\b|通道|riser|转接|拆分|bifurcat", re.I)
_GEN_RE = re.compile(r"pci-?e?\s*(?:gen\s*)?([345])(?:\.0)?(?![0-9])|\bgen\s*([345])\b", re.I)


def lane_widths(text: str) -> list[int]:
    """The lane widths the user wrote, narrowest first."""
    return sorted({int(a or b) for a, b in _WIDTH_RE.findall(text or "")})


def applies(f: Frame) -> bool:
    """Lane widths named in a PCIe / slot context, with no log pasted."""
    return bool(lane_widths(f.text)) and bool(_CONTEXT_RE.search(f.text or "")) and not f.is_log


def _gens(f: Frame) -> list[int]:
    said = {int(a or b) for a, b in _GEN_RE.findall(f.text or "")}
    if said:
        return sorted(said)
    if f.gpu:  # the named card's own PCIe generation (a 2080 Ti is gen 3)
        from tools.errors import ToolInputError
        from tools.gpus import resolve_gpu

        try:
            gen = resolve_gpu(A.gpu_arg(f) or f.gpu).pcie_gen
        except ToolInputError:
            gen = None
        if gen:
            return [gen]
    return [3, 4]


def calls(f: Frame) -> list[ToolCall]:
    widths = sorted({*lane_widths(f.text), 16})  # x16 is the yardstick the narrower widths are read against
    return [
        A.call(
            INTERCONNECT,
            "interconnect_advice",
            gpu=A.gpu_arg(f),
            n_gpus=f.gpu_count or 1,
            pcie_lanes=widths,
            pcie_gens=_gens(f),
        ),
        A.call(INTERCONNECT, "search_guide", query=A.guide_query(f, INTERCONNECT), k=2),
    ]


LINK_RATIO = "link_ratio"
_LINK_NAME_RE = re.compile(
    r"nvlink\s*-?\s*([2345])(?:\.0)?(?![0-9])|pci-?e\s*(?:gen\s*)?([345])(?:\.0)?(?![0-9])", re.I
)
_COMPARE_RE = re.compile(r"对比|相比|比较|倍|\bvs\.?\b|versus|times|ratio|compared?|faster than|差多少", re.I)


def link_names(text: str) -> list[str]:
    """The link generations named, in order: 'NVLink 4', 'PCIe 5.0'."""
    out: list[str] = []
    for nv, pc in _LINK_NAME_RE.findall(text or ""):
        name = f"NVLink {nv}" if nv else f"PCIe {pc}.0"
        if name not in out:
            out.append(name)
    return out


def applies_ratio(f: Frame) -> bool:
    """Two link generations named and compared, with no card to size and no log."""
    return len(link_names(f.text)) >= 2 and bool(_COMPARE_RE.search(f.text or "")) and not f.is_log


def ratio_calls(f: Frame) -> list[ToolCall]:
    return [
        A.call(INTERCONNECT, "interconnect_advice", compare_links=link_names(f.text)[:3]),
        A.call(INTERCONNECT, "search_guide", query=A.guide_query(f, INTERCONNECT), k=2),
    ]
