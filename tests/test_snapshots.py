"""The wording and column of every fixture finding, pinned in one reviewed file per rule.

`tests/snapshots/JAXnnn.txt` holds `file:line:col: CODE message` for each finding of the rule's
fixtures (the column as flake8 prints it), and its detail on the next line, after `    = `. A change of wording or position fails here with the
diff; when it is meant, regenerate the files and review them in the commit:

    JAXLINT_UPDATE_SNAPSHOTS=1 python -m pytest tests/test_snapshots.py
"""

from __future__ import annotations

import difflib
import os
import pathlib

import pytest

from fixture_expectations import FIXTURES
from jaxlint.engine import lint_file

SNAPSHOTS = pathlib.Path(__file__).parent / "snapshots"
CODES = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir())


def _render(code: str) -> str:
    lines = []
    for path in sorted((FIXTURES / code).glob("*.py")):
        for f in lint_file(str(path)).findings:
            lines.append(f"{code}/{path.name}:{f.line}:{f.col + 1}: {f.code} {f.message}")
            if f.detail:
                lines.append(f"    = {f.detail}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("code", CODES)
def test_fixture_messages_match_the_snapshot(code):
    snapshot = SNAPSHOTS / f"{code}.txt"
    now = _render(code)
    if os.environ.get("JAXLINT_UPDATE_SNAPSHOTS"):
        snapshot.write_text(now, encoding="utf-8")
    before = snapshot.read_text(encoding="utf-8") if snapshot.exists() else ""
    diff = "".join(difflib.unified_diff(before.splitlines(True), now.splitlines(True),
                                        f"snapshots/{code}.txt", "now"))
    assert not diff, ("fixture messages changed; if meant, regenerate with "
                      "JAXLINT_UPDATE_SNAPSHOTS=1 and review:\n" + diff)
