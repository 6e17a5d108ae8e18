"""`jaxlint rules`, `jaxlint rule CODE` and docs/rules.md, all read from the rule classes.

The text lives once, beside each rule's check; this module only arranges it. docs/rules.md is
`markdown()` verbatim, and a test fails when the committed file differs.
"""

from __future__ import annotations

from typing import Optional

from jaxlint.rules import BY_CODE, RULES

HEADER = """# Rules

<!-- Generated from the rule classes by `jaxlint rules --markdown > docs/rules.md`.
     Do not edit by hand: tests/test_rule_docs.py fails when this file is stale. -->

Every rule's example below is linted by the test suite: the example must be flagged with the
rule's code and the "use instead" code must not be. Suppress a finding on one line with
`# noqa: CODE`; select and ignore rules with `[tool.jaxlint]` (see the README).
"""


def fixable(rule) -> bool:
    """A rule's `fix` text says whether it is fixable; "No automatic fix: why" means it is not."""
    return bool(rule.fix) and not rule.fix.startswith("No automatic fix")


def table() -> str:
    """The `jaxlint rules` listing: code, name, family, fixable."""
    rows = [("code", "name", "family", "fixable")]
    rows += [(r.code, r.name, r.family, "yes" if fixable(r) else "no") for r in RULES]
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    return "".join(f"{a:<{widths[0]}}  {b:<{widths[1]}}  {c:<{widths[2]}}  {d}\n"
                   for a, b, c, d in rows)


def find(code: str) -> Optional[type]:
    return BY_CODE.get(code.strip().upper())


def markdown() -> str:
    lines = [HEADER, "| code | name | family | fixable | summary |", "|---|---|---|---|---|"]
    for r in RULES:
        summary = r.summary.replace("|", "\\|")
        lines.append(f"| [{r.code}](#{r.code.lower()}-{r.name}) | {r.name} | {r.family} | "
                     f"{'yes' if fixable(r) else 'no'} | {summary} |")
    lines.append("")
    for r in RULES:
        lines.append(r.documentation().rstrip("\n") + "\n")
    return "\n".join(lines)
