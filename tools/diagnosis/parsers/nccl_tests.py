"""nccl-tests output (all_reduce_perf and friends).

Columns come from the header line (`size count type redop root time algbw busbw #wrong`,
out-of-place then in-place); old versions have no `root` and say `error` instead of
`#wrong`; `-c 0` prints `N/A` there, and some wrappers drop the column (then the rows are
parsed but marked unchecked). mpirun may prefix lines with `[1,0]<stdout>:`. Per NVIDIA/nccl-tests
doc/PERFORMANCE.md, busbw = algbw × 2(n−1)/n for AllReduce and reflects the hardware
bottleneck; "Avg bus bandwidth" averages tiny messages too, so we report the large-message
plateau instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tools.diagnosis.text import strip_mpi_prefix

_HEAD = re.compile(r"#\s*nThread\s+(\d+)\s+nGpus\s+(\d+)\s+minBytes\s+(\d+)\s+maxBytes\s+(\d+)")
_RANK = re.compile(
    r"#\s+Rank\s+(\d+)\s+(?:Group\s+\d+\s+)?Pid\s+\d+\s+on\s+(\S+)\s+device\s+(\d+)\s+\[([^\]]*)\]\s+(.*)$"
)
_AVG = re.compile(r"#\s*Avg bus bandwidth\s*:\s*([0-9.]+)")
_OOB = re.compile(r"#\s*Out of bounds values\s*:\s*(\d+)\s+(\w+)")
_OP = re.compile(
    r"\b(all_reduce|all_gather|reduce_scatter|alltoall|broadcast|reduce|sendrecv|scatter|gather|hypercube)_perf\b"
)
PLATEAU_MIN_BYTES = 256 * 2**20
# column sets used when a paste starts below the header (current and pre-2.x nccl-tests)
DEFAULT_COLUMNS = {
    13: [
        "size",
        "count",
        "type",
        "redop",
        "root",
        "time",
        "algbw",
        "busbw",
        "#wrong",
        "time",
        "algbw",
        "busbw",
        "#wrong",
    ],
    12: ["size", "count", "type", "redop", "time", "algbw", "busbw", "error", "time", "algbw", "busbw", "error"],
    11: [
        "size",
        "count",
        "type",
        "time",
        "algbw",
        "busbw",
        "error",
        "time",
        "algbw",
        "busbw",
        "error",
    ],  # 2018-era, no redop
}
# layouts without a correctness column (a fork or wrapper that drops `#wrong`, or a paste cut at
# the right edge), recognised by the reduction op in column 4
NO_CHECK_COLUMNS = {
    11: ["size", "count", "type", "redop", "root", "time", "algbw", "busbw", "time", "algbw", "busbw"],
    10: ["size", "count", "type", "redop", "time", "algbw", "busbw", "time", "algbw", "busbw"],
}
_TYPES = {
    "int8",
    "uint8",
    "int32",
    "uint32",
    "int64",
    "uint64",
    "half",
    "float",
    "double",
    "bfloat16",
    "fp8_e4m3",
    "fp8_e5m2",
}
_REDOPS = {"sum", "prod", "max", "min", "avg", "none", "all", "mulsum"}


@dataclass
class Row:
    size: int
    busbw_oop: float | None
    busbw_ip: float | None
    wrong: int
    line: str
    checked: bool = True  # False when the row has no numeric #wrong/error value (column absent, or N/A with -c 0)
    algbw_oop: float | None = None

    @property
    def busbw(self) -> float | None:
        vals = [v for v in (self.busbw_oop, self.busbw_ip) if v is not None]
        return max(vals) if vals else None


@dataclass
class NcclTestRun:
    op: str | None = None
    n_gpus_per_proc: int | None = None
    ranks: list[tuple[int, str, int, str, str]] = field(default_factory=list)  # rank, host, dev, bus, name
    rows: list[Row] = field(default_factory=list)
    avg_busbw: float | None = None
    avg_line: str | None = None
    oob: int | None = None
    oob_line: str | None = None
    columns: list[str] = field(default_factory=list)

    @property
    def n_ranks(self) -> int:
        return len(self.ranks) or (self.n_gpus_per_proc or 0)

    @property
    def hosts(self) -> set[str]:
        return {r[1] for r in self.ranks}

    @property
    def gpu_names(self) -> list[str]:
        return [r[4] for r in self.ranks]

    def ranks_from_bandwidth(self) -> int | None:
        """For all_reduce, n from busbw = algbw × 2(n−1)/n (PERFORMANCE.md) ⇒ n = 2 / (2 − busbw/algbw),
        on the largest message; None unless the ratio lands within 2% of a whole number of ranks."""
        if (self.op or "all_reduce") != "all_reduce" or not self.rows:
            return None
        row = max(self.rows, key=lambda r: r.size)
        if not row.algbw_oop or not row.busbw_oop or row.busbw_oop >= 2 * row.algbw_oop:
            return None
        n = 2 / (2 - row.busbw_oop / row.algbw_oop)
        whole = round(n)
        return whole if whole >= 2 and abs(n - whole) <= 0.02 * whole else None

    @property
    def separate_jobs(self) -> int:
        """How many independent jobs printed their ranks here: every node listing "Rank 0" (or the same rank
        twice on different hosts) means mpirun started single-node copies of a binary built without MPI=1."""
        zeros = {r[1] for r in self.ranks if r[0] == 0}
        return len(zeros) if len(zeros) >= 2 else 0

    @property
    def validated(self) -> bool:
        """Whether nccl-tests checked the results (`-c 1`, the default): a numeric #wrong on the rows."""
        return any(r.checked for r in self.rows)

    @property
    def wrong_total(self) -> int:
        return sum(r.wrong for r in self.rows)

    @property
    def max_size(self) -> int:
        return max((r.size for r in self.rows), default=0)

    def plateau(self) -> tuple[float | None, list[Row]]:
        """Largest busbw among messages ≥ 256 MiB; if the run stopped earlier, among the sizes
        within 4× of the largest tested (the top of the curve)."""
        if not self.rows:
            return None, []
        cut = min(PLATEAU_MIN_BYTES, self.max_size // 4)
        big = [r for r in self.rows if r.size >= cut and r.busbw is not None]
        if not big:
            return None, []
        best = max(big, key=lambda r: r.busbw or 0.0)
        return best.busbw, big


def _to_float(tok: str) -> float | None:
    try:
        return float(tok)
    except ValueError:
        return None


def _to_wrong(tok: str) -> int:
    v = _to_float(tok)
    if v is None:
        return 0
    return 1 if (v > 0 and v < 1) else int(v)


def parse(lines: list[str]) -> list[NcclTestRun] | None:
    runs: list[NcclTestRun] = []
    cur: NcclTestRun | None = None
    op_hint: str | None = None
    for raw in lines:
        line = strip_mpi_prefix(raw.strip())
        if "_perf" in line:
            m = _OP.search(line)
            if m:
                op_hint = m.group(1)
        if line.startswith("#"):
            m = _HEAD.search(line)
            if m:
                cur = NcclTestRun(op=op_hint, n_gpus_per_proc=int(m.group(2)))
                runs.append(cur)
                continue
            if cur is None and ("Rank" in line or "size" in line or "Out of bounds" in line):
                cur = NcclTestRun(op=op_hint)
                runs.append(cur)
            if cur is None:
                continue
            m = _RANK.match(line)
            if m:
                cur.ranks.append((int(m.group(1)), m.group(2), int(m.group(3)), m.group(4), m.group(5).strip()))
                continue
            toks = line.lstrip("#").split()
            if "size" in toks and "busbw" in toks:
                cur.columns = toks
                continue
            m = _AVG.search(line)
            if m:
                cur.avg_busbw, cur.avg_line = float(m.group(1)), line
                continue
            m = _OOB.search(line)
            if m:
                cur.oob, cur.oob_line = int(m.group(1)), line
            continue
        toks = line.split()
        if len(toks) < 6 or not toks[0].isdigit():
            continue
        if (cur is None or not cur.columns) and len(toks) >= 10 and toks[2] in _TYPES:
            if toks[3] in _REDOPS and len(toks) in NO_CHECK_COLUMNS and len(toks) not in (12, 13):
                layout = NO_CHECK_COLUMNS[len(toks)]
            elif len(toks) in DEFAULT_COLUMNS and (len(toks) == 11 or toks[3] in _REDOPS):
                layout = DEFAULT_COLUMNS[len(toks)]
            else:
                layout = None
            if layout:
                if cur is None:
                    cur = NcclTestRun(op=op_hint)
                    runs.append(cur)
                cur.columns = layout
        if cur is None or not cur.columns:
            continue
        cols = cur.columns
        if len(toks) != len(cols):
            continue
        busbw = [i for i, c in enumerate(cols) if c == "busbw"]
        wrong = [i for i, c in enumerate(cols) if c in ("#wrong", "error", "wrong")]
        oop = _to_float(toks[busbw[0]]) if busbw else None
        ip = _to_float(toks[busbw[1]]) if len(busbw) > 1 else None
        w = sum(_to_wrong(toks[i]) for i in wrong)
        checked = any(_to_float(toks[i]) is not None for i in wrong)
        algbw = [i for i, c in enumerate(cols) if c == "algbw"]
        alg = _to_float(toks[algbw[0]]) if algbw else None
        cur.rows.append(Row(int(toks[0]), oop, ip, w, line, checked, alg))
    multi = separate_jobs(runs)
    runs = [r for r in runs if r.rows or r.avg_busbw is not None or r.oob or (multi and r.ranks)]
    return runs or None


def separate_jobs(runs: list[NcclTestRun]) -> int:
    """Jobs that ran side by side instead of as one: a Rank 0 on each of several hosts, within one run's rank list
    or across runs (each copy prints its own `# nThread` header)."""
    zeros = {r[1] for run in runs for r in run.ranks if r[0] == 0}
    return len(zeros) if len(zeros) >= 2 else 0
