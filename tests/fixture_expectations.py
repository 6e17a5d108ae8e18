"""Reads the expectations written inline in fixtures: `# expect: JAX101[, JAX107]` on a line."""

from __future__ import annotations

import pathlib
import re

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
EXPECT = re.compile(r"#\s*expect:\s*(?P<codes>JAX\d{3}(?:\s*,\s*JAX\d{3})*)\s*$")
EXAMPLE = re.compile(r"^\s*#\s*jaxlint-example:\s*(?P<expr>.+?)\s*$")


def expected_findings(path) -> set:
    """{(line, code)} the fixture says must be reported, and nothing else."""
    found = set()
    for number, line in enumerate(pathlib.Path(path).read_text().splitlines(), 1):
        match = EXPECT.search(line)
        if match:
            for code in re.split(r"\s*,\s*", match.group("codes")):
                found.add((number, code))
    return found


def fixture_files(code_prefix: str = "JAX"):
    return sorted(p for p in FIXTURES.glob(f"{code_prefix}*/*.py"))
