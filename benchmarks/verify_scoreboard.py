#!/usr/bin/env python
"""Score `jaxlint verify` on labelled files: per code, findings and verdicts, true and false.

    python benchmarks/verify_scoreboard.py tests/fixtures ../shared/acceptance/cases/dev_like \\
        [--no-directives] [--main] [--json OUT]

A finding is *true* when its line carries `# expect: CODE` (the fixtures' and the acceptance
cases' convention; matched on the code's family, JAX1/JAX2/JAX3, as the acceptance scorer does),
else *false*. Prints, per code: findings, confirmed, confirmed on guessed inputs, not reproduced,
inconclusive; the share of true findings confirmed; every false finding that was confirmed
(the target is none); and the time per finding after the JAX import.
RUNS the files' code, like `jaxlint verify`.
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import statistics
import sys
import time

from jaxlint.verify.api import verify_paths
from jaxlint.verify.verdicts import CONFIRMED, GUESSED, INCONCLUSIVE, NOT_REPRODUCED

EXPECT = re.compile(r"#\s*expect:\s*(?P<codes>JAX\d{3}(?:\s*,\s*JAX\d{3})*)\s*$")
COLUMNS = (CONFIRMED, GUESSED, NOT_REPRODUCED, INCONCLUSIVE)


def labels(path) -> dict:
    out = {}
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            match = EXPECT.search(line.rstrip("\n"))
            if match:
                out[number] = {c.strip()[:4] for c in match.group("codes").split(",")}
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--no-directives", action="store_true")
    parser.add_argument("--main", action="store_true")
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--json", metavar="OUT")
    args = parser.parse_args(argv)
    start = time.monotonic()
    results = verify_paths(args.paths, jobs=args.jobs, directives=not args.no_directives, main=args.main)
    wall = time.monotonic() - start
    table = collections.defaultdict(lambda: collections.Counter())
    truth = collections.Counter()
    false_confirmed, per_finding, cpu_per_finding = [], [], []
    for fv in results:
        marks = labels(fv.path)
        if fv.findings:
            per_finding.extend([fv.seconds / len(fv.findings)] * len(fv.findings))
            cpu_per_finding.extend([fv.cpu_seconds / len(fv.findings)] * len(fv.findings))
        for v in fv.findings:
            true = v.finding.code[:4] in marks.get(v.finding.line, set())
            row = table[v.finding.code]
            row["findings"] += 1
            row[v.verdict] += 1
            row["true"] += true
            truth[(true, v.verdict)] += 1
            if v.verdict == CONFIRMED and not true:
                false_confirmed.append(f"{fv.path}:{v.finding.line}: {v.finding.code} {v.reason[:160]}")
    lines = [f"{'code':8}{'findings':>9}{'true':>6}{'confirmed':>10}{'guessed':>9}{'not repr':>9}{'inconcl':>9}"]
    total = collections.Counter()
    for code in sorted(table):
        row = table[code]
        total.update(row)
        lines.append(f"{code:8}{row['findings']:>9}{row['true']:>6}{row[CONFIRMED]:>10}{row[GUESSED]:>9}"
                     f"{row[NOT_REPRODUCED]:>9}{row[INCONCLUSIVE]:>9}")
    lines.append(f"{'all':8}{total['findings']:>9}{total['true']:>6}{total[CONFIRMED]:>10}{total[GUESSED]:>9}"
                 f"{total[NOT_REPRODUCED]:>9}{total[INCONCLUSIVE]:>9}")
    true_total = sum(n for (true, _), n in truth.items() if true)
    share = truth[(True, CONFIRMED)] / true_total if true_total else 0.0
    lines.append(f"true findings confirmed: {truth[(True, CONFIRMED)]}/{true_total} ({share:.0%}); "
                 f"false findings: {sum(n for (t, _), n in truth.items() if not t)}, confirmed: "
                 f"{len(false_confirmed)}, not reproduced: {truth[(False, NOT_REPRODUCED)]}")
    lines.extend("  FALSE CONFIRMED " + item for item in false_confirmed)
    median = statistics.median(per_finding) if per_finding else 0.0
    cpu = statistics.median(cpu_per_finding) if cpu_per_finding else 0.0
    lines.append(f"{len(results)} files, wall {wall:.1f} s; per finding after the JAX import: median "
                 f"{median * 1000:.0f} ms wall, {cpu * 1000:.0f} ms CPU")
    print("\n".join(lines))
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({"table": {c: dict(r) for c, r in table.items()}, "wall_s": wall,
                       "median_ms_per_finding": median * 1000, "median_cpu_ms_per_finding": cpu * 1000,
                       "false_confirmed": false_confirmed}, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
