"""Score `diagnose_logs` on the real public pastes in tests/diagnosis_samples/real/{dev,blind}.

Why: the diagnosis is only as good as its hit rate on what renters actually paste. Each sample
has expectations derived from NVIDIA/PyTorch/NCCL documentation and the thread's resolution
(never from this code): kinds, severity, root cause, next action. The blind slice was fixed by
`int(sha1(name), 16) % 4 == 0` before the parsers were written; report both rates.

Run: `python -m evals.diagnosis_eval [--slice dev|blind|all] [--json] [--failures]`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent / "tests" / "diagnosis_samples" / "real"
SLICES = ("dev", "blind")
CHECKS = ("kinds", "severity", "root_cause", "next_action")


@dataclass
class SampleScore:
    name: str
    slice: str
    family: str
    lang: str
    checks: dict[str, bool] = field(default_factory=dict)
    why: dict[str, str] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return all(self.checks.values())


def load(slice_: str) -> list[tuple[str, str, dict[str, Any]]]:
    """(name, text, expectations) for one slice, sorted by name."""
    d = ROOT / slice_
    exp = yaml.safe_load((d / "expectations.yaml").read_text(encoding="utf-8")) or {}
    return [(n, (d / f"{n}.txt").read_text(encoding="utf-8"), e) for n, e in sorted(exp.items())]


def _mentions(text: str, term: str) -> bool:
    return term.lower() in text.lower()


def score(name: str, slice_: str, text: str, exp: dict[str, Any]) -> SampleScore:
    """All four checks for one sample against the public `diagnose_logs` output."""
    from tools.diagnosis.tool import diagnose_text

    rep = diagnose_text(text, exp.get("expect"))
    s = SampleScore(name=name, slice=slice_, family=exp["family"], lang=exp["lang"])
    missing = [k for k in exp["kinds"] if k not in rep.kinds]
    s.checks["kinds"] = not missing
    s.why["kinds"] = f"missing {missing}, got {rep.kinds}" if missing else ""
    s.checks["severity"] = rep.severity == exp["severity"]
    s.why["severity"] = f"expected {exp['severity']}, got {rep.severity}"
    top = rep.findings[0].id if rep.findings else "ok"
    roots = exp["root_cause"]
    s.checks["root_cause"] = top in roots if exp["severity"] != "ok" else not rep.findings
    s.why["root_cause"] = f"expected {roots}, got {[f.id for f in rep.findings][:4]}"
    said = rep.next_action.zh + "\n" + rep.next_action.en
    groups_ok = all(any(_mentions(said, t) for t in group) for group in exp.get("next_action") or [])
    banned = [t for t in exp.get("next_action_not") or [] if _mentions(said, t)]
    verdict_ok = getattr(rep, "verdict", None) == exp["verdict"]
    s.checks["next_action"] = groups_ok and verdict_ok and not banned
    s.why["next_action"] = (
        f"verdict {getattr(rep, 'verdict', None)} (want {exp['verdict']}); terms {exp.get('next_action')}; "
        f"banned {banned}; said: {rep.next_action.en[:160]}"
    )
    return s


def run(slices: tuple[str, ...]) -> list[SampleScore]:
    return [score(n, sl, t, e) for sl in slices for n, t, e in load(sl)]


def summarise(scores: list[SampleScore]) -> dict[str, Any]:
    """Per slice: overall and per-family rates for each check and for all four together."""
    out: dict[str, Any] = {}
    for sl in sorted({s.slice for s in scores}):
        rows = [s for s in scores if s.slice == sl]
        fam: dict[str, list[SampleScore]] = defaultdict(list)
        for s in rows:
            fam[s.family].append(s)

        def rates(group: list[SampleScore]) -> dict[str, Any]:
            r: dict[str, Any] = {c: sum(s.checks[c] for s in group) / len(group) for c in CHECKS}
            r["all"] = sum(s.passed for s in group) / len(group)
            r["n"] = len(group)
            return r

        out[sl] = {"overall": rates(rows), "families": {f: rates(g) for f, g in sorted(fam.items())}}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Diagnosis eval on real public pastes (dev + blind).")
    ap.add_argument("--slice", choices=("dev", "blind", "all"), default="all")
    ap.add_argument("--json", action="store_true", help="machine-readable summary")
    ap.add_argument("--failures", action="store_true", help="list failed checks (dev slice only unless --slice blind)")
    args = ap.parse_args(argv)
    slices = SLICES if args.slice == "all" else (args.slice,)
    scores = run(slices)
    summary = summarise(scores)
    if args.json:
        print(json.dumps(summary, indent=2, ensure_ascii=False))
    else:
        for sl, block in summary.items():
            o = block["overall"]
            print(
                f"[{sl}] n={o['n']}  all-four {o['all']:.0%}  kinds {o['kinds']:.0%}  severity {o['severity']:.0%}  "
                f"root cause {o['root_cause']:.0%}  next action {o['next_action']:.0%}"
            )
            for f, r in block["families"].items():
                print(
                    f"    {f:<15} n={r['n']:<3} all {r['all']:.0%}  kinds {r['kinds']:.0%}  sev {r['severity']:.0%}  "
                    f"root {r['root_cause']:.0%}  next {r['next_action']:.0%}"
                )
    if args.failures:
        show = {"blind"} if args.slice == "blind" else {"dev"}
        for s in scores:
            if s.slice in show and not s.passed:
                bad = [c for c in CHECKS if not s.checks[c]]
                print(f"FAIL {s.name}: " + " | ".join(f"{c}: {s.why[c]}" for c in bad))
    return 0


if __name__ == "__main__":
    sys.exit(main())
