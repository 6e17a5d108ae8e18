"""Messages are one short line; the rest of a finding is its detail.

Over every finding of tests/fixtures: the message is a single sentence short enough to read at a
glance, naming the function and the parameter, and the detail carries the fix. Each output shows
the detail where it has room for it (--show-source, JSON, SARIF, GitHub) and keeps the short
line where it has one line (the default text, flake8).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys

import pytest

from fixture_expectations import FIXTURES
from jaxlint.analysis.api_tables import SLICE_SIZE_ERRORS
from jaxlint.cli import main
from jaxlint.engine import lint_file

LONGEST = 120           # characters of a message, at most
TYPICAL = 75            # the median, at most

# a function's body mentions a jitted function and a traced slice bound
BAD = ("import jax\n\n@jax.jit\ndef head(x, n):\n    return x[:n]\n")


@pytest.fixture(scope="module")
def fixture_findings():
    found = [f for path in sorted(FIXTURES.glob("*/*.py")) for f in lint_file(str(path)).findings]
    assert len(found) > 300         # the fixtures of every rule, not a few of them
    return found


def test_every_message_is_one_short_line(fixture_findings):
    too_long = [(f.code, f.message) for f in fixture_findings if len(f.message) > LONGEST]
    assert not too_long, too_long
    assert statistics.median(len(f.message) for f in fixture_findings) <= TYPICAL
    for f in fixture_findings:
        assert "\n" not in f.message and "Fix:" not in f.message, f.message
        assert not f.message.endswith("."), f.message       # a lead, not a paragraph


def test_every_rule_words_a_lead_and_a_detail(fixture_findings):
    codes = {p.name for p in FIXTURES.iterdir() if p.is_dir()}
    assert {f.code for f in fixture_findings if f.detail} == codes


def test_the_message_names_the_function_and_the_parameter(fixture_findings):
    for f in fixture_findings:
        name = f.function.rsplit(".", 1)[-1]
        if name and name != "<lambda>":
            assert f"`{name}" in f.message or f".{name}`" in f.message, (f.function, f.message)
        for param in filter(None, f.param.split(",")):
            assert f"`{param}" in f.message, (f.param, f.message)


def test_the_detail_carries_the_fix(fixture_findings):
    missing = [(f.code, f.detail) for f in fixture_findings if "Fix: " not in f.detail]
    assert not missing, missing


def test_the_detail_of_a_trace_time_finding_names_the_path_and_what_jax_raises(fixture_findings):
    for f in fixture_findings:
        if f.code in ("JAX101", "JAX102", "JAX104") and f.param and len(f.path) > 1:
            assert " -> ".join(f.path) in f.detail, (f.path, f.detail)
        if f.code == "JAX104":       # what JAX raises: IndexError for a slice, per API for a size
            api = next((a for a in SLICE_SIZE_ERRORS if f"size of {a}()" in f.detail), None)
            expected = SLICE_SIZE_ERRORS[api].split(" (")[0] if api else "IndexError"
            assert expected in f.detail and expected not in f.message, f.detail


# -- where each output puts the detail ----------------------------------------------------------

def check(capsys, tmp_path, *args):
    path = tmp_path / "bad.py"
    path.write_text(BAD)
    code = main(["check", "--no-cache", *args, str(path)])
    assert code == 1
    return path, capsys.readouterr().out


def test_text_prints_the_short_line_and_show_source_the_detail(capsys, tmp_path):
    path, out = check(capsys, tmp_path)
    assert out == f"{path}:5:12: JAX104 slice bound `n` is traced in jitted `head`\n"
    _, out = check(capsys, tmp_path, "--show-source")
    lines = out.splitlines()
    assert lines[0] == f"{path}:5:12: JAX104 slice bound `n` is traced in jitted `head`"
    notes = [i for i, line in enumerate(lines) if line.lstrip().startswith("= note: ")]
    carets = [i for i, line in enumerate(lines) if line.rstrip().endswith("^^^^^")]
    assert len(notes) == 1 and carets and carets[0] < notes[0]      # below the source line
    note = " ".join(line.strip() for line in lines[notes[0]:]
                    if not line.strip().startswith("= fix"))
    assert "IndexError" in note and "Fix: use lax.dynamic_slice" in note
    assert all(len(line) <= 100 for line in lines[notes[0]:] if "= fix" not in line)
    _, full = check(capsys, tmp_path, "--output-format", "full")
    assert full == out


def test_json_has_a_detail_key(capsys, tmp_path):
    _, out = check(capsys, tmp_path, "--format", "json")
    finding, = json.loads(out)["findings"]
    assert finding["message"] == "slice bound `n` is traced in jitted `head`"
    assert finding["detail"].startswith("Traced parameter `n` in jitted function `head`.")
    assert "Fix: " in finding["detail"]


def test_sarif_keeps_the_text_short_and_adds_the_detail_as_markdown(capsys, tmp_path):
    _, out = check(capsys, tmp_path, "--format", "sarif")
    message = json.loads(out)["runs"][0]["results"][0]["message"]
    assert message["text"] == "slice bound `n` is traced in jitted `head`"
    head, detail = message["markdown"].split("\n\n")
    assert head == message["text"] and "IndexError" in detail and "Fix: " in detail


def test_github_annotations_carry_the_detail(capsys, tmp_path):
    _, out = check(capsys, tmp_path, "--format", "github")
    line, = out.splitlines()
    title, _, message = line.partition("::")[2].partition("::")
    assert title.endswith("title=JAX104")
    short, detail = message.split("%0A%0A")
    assert short == "slice bound `n` is traced in jitted `head`"
    assert "IndexError" in detail and "Fix: " in detail


def test_flake8_prints_the_short_line(tmp_path):
    path = tmp_path / "bad.py"
    path.write_text(BAD)
    proc = subprocess.run([sys.executable, "-m", "flake8", "--select=JAX", str(path)],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.stdout == f"{path}:5:12: JAX104 slice bound `n` is traced in jitted `head`\n", \
        proc.stdout + proc.stderr


def test_the_hover_shows_the_detail():
    pytest.importorskip("pygls")
    from jaxlint.reporters import Item
    from jaxlint.server import hover_text
    item = Item("m.py", 5, 12, "JAX104", "slice bound `n` is traced in jitted `head`",
                detail="Traced parameter `n` in jitted function `head`. Fix: mark `n` static")
    text = hover_text(item)
    assert text.index(item.message) < text.index(item.detail) < text.index("**Why is this bad**")
