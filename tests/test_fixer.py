"""`jaxlint check --fix`: before/after fixture pairs, safe and unsafe gating, idempotence, the
code around each edit left byte for byte, the command-line flags, and the fixed JAX101-JAX104,
JAX401 and JAX403 fixtures running under JAX."""

import collections
import difflib
import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

from fixture_expectations import EXAMPLE, fixture_files
from jaxlint import fixer, ruledocs
from jaxlint.cli import main
from jaxlint.engine import lint_source
from jaxlint.rules import BY_CODE, RULES

FIX_FIXTURES = pathlib.Path(__file__).parent / "fix_fixtures"
MARK = "# <- fix"
INPUTS = sorted(p for p in FIX_FIXTURES.glob("JAX*/*.py")
                if not p.name.endswith((".safe.py", ".unsafe.py")))
IMPORT_OR_BLANK = re.compile(r"^(?:import [\w.]+(?: as \w+)?)?\s*$")


def ids(path):
    return f"{path.parent.name}/{path.stem}"


def expected(path: pathlib.Path, unsafe: bool) -> str:
    safe_file = path.with_suffix(".safe.py")
    unsafe_file = path.with_suffix(".unsafe.py")
    if unsafe and unsafe_file.exists():
        return unsafe_file.read_text()
    return safe_file.read_text() if safe_file.exists() else path.read_text()


def codes(text: str, path) -> collections.Counter:
    result = lint_source(text, str(path))
    assert result.error is None and result.internal_error is None
    return collections.Counter(f.code for f in result.findings)


# -- the fixture pairs ---------------------------------------------------------------------------

@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
@pytest.mark.parametrize("path", INPUTS, ids=ids)
def test_fix_gives_the_expected_code(path, unsafe):
    outcome = fixer.fix_source(path.read_text(), str(path), unsafe=unsafe)
    assert outcome.after == expected(path, unsafe)


@pytest.mark.parametrize("path", INPUTS, ids=ids)
def test_fixed_code_has_no_finding_of_the_code_and_no_new_finding(path):
    code = path.parent.name
    before = codes(path.read_text(), path)
    assert before[code] >= 1, "a fix fixture must have a finding of its folder's code"
    for unsafe in (False, True):
        after = codes(expected(path, unsafe), path)
        assert all(after[c] <= before[c] for c in after), (unsafe, before, after)
        if path.name.startswith("nofix_"):
            assert expected(path, unsafe) == path.read_text()
    if not path.name.startswith("nofix_"):
        assert codes(expected(path, True), path)[code] == 0


@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
@pytest.mark.parametrize("path", INPUTS, ids=ids)
def test_fixing_twice_changes_nothing_the_second_time(path, unsafe):
    fixed = expected(path, unsafe)
    again = fixer.fix_source(fixed, str(path), unsafe=unsafe)
    assert again.after == fixed and not again.applied


@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
@pytest.mark.parametrize("path", INPUTS, ids=ids)
def test_lines_outside_the_edits_are_byte_identical(path, unsafe):
    """Only the lines of a statement that ends on a line marked `# <- fix` may change; other
    lines may only be added as imports (with a blank line after a new import section)."""
    before = path.read_text().splitlines(keepends=True)
    after = expected(path, unsafe).splitlines(keepends=True)
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        old, new = before[i1:i2], after[j1:j2]
        marked_next = i2 < len(before) and MARK in before[i2]
        if old:
            assert MARK in old[-1] or marked_next, f"unmarked lines changed: {old}"
        if new and not (MARK in new[-1] or marked_next):
            assert all(IMPORT_OR_BLANK.match(line) for line in new), f"unexpected lines: {new}"


def test_every_fixable_rule_has_a_fixture_pair_that_changes_code():
    fixable = {r.code for r in RULES if ruledocs.fixable(r)}
    assert fixable == set(fixer.FIXABLE_CODES)
    changed = {p.parent.name for p in INPUTS if expected(p, True) != p.read_text()}
    assert fixable <= changed
    for rule in RULES:
        assert rule.fix, f"{rule.code} does not say whether it is fixable"
        assert rule.fix.startswith(("Safe", "Unsafe", "Sometimes", "No automatic fix")), rule.code


def test_safe_mode_applies_only_safe_fixes_and_unsafe_mode_applies_more():
    unsafe_seen = 0
    for path in INPUTS:
        for finding, fix in fixer.fix_source(path.read_text(), str(path)).applied:
            assert fix.safe and not fix.why_unsafe, (path, fix)
        for finding, fix in fixer.fix_source(path.read_text(), str(path), unsafe=True).applied:
            unsafe_seen += not fix.safe
            if not fix.safe:
                assert fix.why_unsafe and fix.why_unsafe in fix.description
    assert unsafe_seen >= 10


def test_unsafe_static_fix_says_it_could_recompile():
    path = FIX_FIXTURES / "JAX104" / "unsafe_callers_unknown.py"
    outcome = fixer.fix_source(path.read_text(), str(path))
    fixes = [f.fix for f in outcome.remaining if f.fix is not None]
    assert len(fixes) == 2 and not any(fix.safe for fix in fixes)
    assert all("JAX201" in fix.why_unsafe for fix in fixes)
    assert outcome.hidden_unsafe == 2 and not outcome.changed


def test_a_fix_that_would_leave_its_finding_is_not_applied():
    """The static fix is computed for `limit`, but `jnp.abs(limit)` stays traced: the re-lint
    still finds the JAX101, so the fix is dropped."""
    path = FIX_FIXTURES / "JAX101" / "nofix_traced_through_jnp.py"
    text = path.read_text()
    ctx = fixer.Context(text, str(path))
    finding = lint_source(text, str(path)).findings[0]
    assert fixer.compute_fix(ctx, finding) is not None
    assert fixer.checked_fix(ctx, lint_source(text, str(path)).findings, finding) is None


def test_edit_helpers():
    assert fixer.apply_edits("abcdef", [(4, 5, "X"), (0, 1, "")]) == "bcdXf"
    with pytest.raises(ValueError):
        fixer.apply_edits("abcdef", [(0, 3, ""), (2, 4, "")])
    edits = [(2, 4, "XYZ")]          # "abcdef" -> "abXYZef"
    assert fixer.map_offset(1, edits) == 1
    assert fixer.map_offset(3, edits) == 2
    assert fixer.map_offset(5, edits) == 6
    assert fixer.map_offset(3, edits, after=True) == 2
    assert fixer.map_offset(6, edits, after=True) == 6


def test_every_fixable_rule_declares_its_fix_beside_it():
    for rule in RULES:
        assert (rule.fix_finding is not None) == ruledocs.fixable(rule), rule.code
        if rule.fix_finding is not None:
            assert rule.fix_finding.__module__.startswith("jaxlint.rules."), rule.code


def test_linting_loads_neither_libcst_nor_the_fixer():
    """Fixes sit in the rule modules but import libcst and the fixer where they use them, so
    running every rule over every fix fixture must not import them."""
    script = ("import sys\n"
              "from jaxlint.engine import lint_file\n"
              "findings = sum(len(lint_file(path).findings) for path in sys.argv[1:])\n"
              "assert findings, 'nothing was linted'\n"
              "loaded = sorted(m for m in sys.modules if m.split('.')[0] == 'libcst' "
              "or m.startswith('jaxlint.fixer'))\n"
              "assert not loaded, loaded\n")
    run = subprocess.run([sys.executable, "-c", script, *map(str, INPUTS)], capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]


# -- JAX401 and JAX403: every positive rule fixture is fixed or says why not --------------------

BROKEN_STATE_FIXES = ("JAX401", "JAX403")
# The positive rule fixtures these fixes leave alone, and (part of) the reason each gives.
NO_FIX_REASONS = {
    "JAX403/pos_sampler_loop_keeps_old_state.py": "used inside a larger expression",
    "JAX403/pos_attribute_state_read_after_step.py": "is an attribute",
    "JAX401/pos_same_key_in_comprehension.py": "inside a comprehension",
}
# The no-fix fix fixtures: the reason of each finding, in source order.
NO_FIX_FIXTURE_REASONS = {
    "JAX401/nofix_not_mechanical.py": ["`KEY` is not a local variable", "inside a comprehension",
                                       "shares its line with another", "in an `elif` test"],
    "JAX403/nofix_result_in_expression.py": ["used inside a larger expression"],
}


def positives(code):
    return [p for p in fixture_files(code) if p.parent.name == code and p.name.startswith("pos_")]


def no_fix_reasons(text, path, code) -> list:
    """The NoFix message of each finding of `code` in `text` (a finding with a fix fails)."""
    ctx = fixer.Context(text, str(path))
    reasons = []
    for finding in lint_source(text, str(path)).findings:
        if finding.code != code:
            continue
        with pytest.raises(fixer.NoFix) as raised:
            BY_CODE[code].fix_finding(ctx, finding)
        reasons.append(str(raised.value))
    return reasons


@pytest.mark.parametrize("code", BROKEN_STATE_FIXES)
def test_positive_rule_fixtures_are_fixed_or_say_why_not(code):
    fixed = 0
    for path in positives(code):
        text = path.read_text()
        assert fixer.fix_source(text, str(path)).after == text, "the fix is unsafe: --fix alone keeps the file"
        outcome = fixer.fix_source(text, str(path), unsafe=True)
        name = f"{code}/{path.name}"
        left = [f for f in outcome.remaining if f.code == code]
        if name in NO_FIX_REASONS:
            assert left and outcome.after == text, name
            reasons = no_fix_reasons(text, path, code)
            assert reasons and all(NO_FIX_REASONS[name] in r for r in reasons), (name, reasons)
            continue
        assert not left, name
        assert outcome.applied and all(f.code == code and not fix.safe for f, fix in outcome.applied), name
        assert all(fix.why_unsafe in fix.description for _, fix in outcome.applied)
        again = fixer.fix_source(outcome.after, str(path), unsafe=True)
        assert again.after == outcome.after and not again.applied, name
        fixed += 1
    assert fixed + sum(k.startswith(code) for k in NO_FIX_REASONS) == len(positives(code)) >= 10


@pytest.mark.parametrize("name", sorted(NO_FIX_FIXTURE_REASONS))
def test_no_fix_fixtures_say_why(name):
    path = FIX_FIXTURES / name
    reasons = no_fix_reasons(path.read_text(), path, path.parent.name)
    wanted = NO_FIX_FIXTURE_REASONS[name]
    assert len(reasons) == len(wanted), reasons
    for reason, part in zip(reasons, wanted):
        assert part in reason, (reason, part)


def test_key_split_uses_fresh_names_and_the_module_spelling():
    source = ("import jax.random as jr\n\n\n"
              "def f(key, subkey):\n"
              "    a = jr.normal(key, ())\n"
              "    b = jr.uniform(key, ())\n"
              "    return a, b, subkey\n")
    after = fixer.fix_source(source, "k.py", unsafe=True).after
    assert "    key, subkey_2 = jr.split(key)\n    a = jr.normal(subkey_2, ())\n" in after
    assert after.count("split") == 1 and "b = jr.uniform(key, ())" in after


def test_donated_copy_depends_on_what_the_value_is_known_to_be():
    source = ("from functools import partial\n\nimport jax\nimport jax.numpy as jnp\n\n\n"
              "@partial(jax.jit, donate_argnums=(0,))\n"
              "def step(p, g):\n"
              "    return p - g\n\n\n"
              "def f(g, q):\n"
              "    p = jnp.ones(3) * 2\n"
              "    new = step(p, g)\n"
              "    other = step(q, g)\n"
              "    return new - p, other - q\n")
    outcome = fixer.fix_source(source, "d.py", unsafe=True)
    assert "new = step(jnp.copy(p), g)" in outcome.after
    assert "other = step(jax.tree.map(jnp.copy, q), g)" in outcome.after
    assert len(outcome.applied) == 2 and not outcome.remaining


def test_donated_copy_goes_to_the_donated_position_only():
    source = ("from functools import partial\n\nimport jax\nimport jax.numpy as jnp\n\n\n"
              "@partial(jax.jit, donate_argnums=(1,))\n"
              "def step(g, p):\n"
              "    return p - g\n\n\n"
              "def f():\n"
              "    p = jnp.ones(3)\n"
              "    new = step(p, p)\n"
              "    return new - p\n")
    after = fixer.fix_source(source, "d.py", unsafe=True).after
    assert "new = step(p, jnp.copy(p))" in after


# -- files on disk and the command line ----------------------------------------------------------

def copy(tmp_path, name):
    src = FIX_FIXTURES / name
    dest = tmp_path / src.name
    dest.write_bytes(src.read_bytes())
    return src, dest


def test_diff_prints_the_fix_and_changes_nothing_on_disk(tmp_path, capsys):
    src, dest = copy(tmp_path, "JAX104/decorator_without_functools.py")
    stat = dest.stat()
    code = main(["check", "--no-cache", "--diff", str(dest)])
    out, err = capsys.readouterr()
    assert code == 1
    assert dest.read_bytes() == src.read_bytes() and dest.stat().st_mtime_ns == stat.st_mtime_ns
    want = "".join(difflib.unified_diff(src.read_text().splitlines(True),
                                        expected(src, False).splitlines(True), str(dest), str(dest)))
    assert out == want
    assert "Would fix 1 finding in 1 file" in err


def test_fix_applies_safe_fixes_in_place_and_again_changes_nothing(tmp_path, capsys):
    src, dest = copy(tmp_path, "JAX104/extend_static_spellings.py")
    assert main(["check", "--no-cache", "--fix", str(dest)]) == 0
    assert dest.read_text() == expected(src, False)
    assert "Found 4 findings (4 fixed, 0 remaining)." in capsys.readouterr().err
    before = dest.read_bytes()
    assert main(["check", "--no-cache", "--fix", str(dest)]) == 0
    assert dest.read_bytes() == before


def test_unsafe_fixes_need_the_flag(tmp_path, capsys):
    src, dest = copy(tmp_path, "JAX107/print_spellings.py")
    assert main(["check", "--no-cache", "--fix", str(dest)]) == 1
    out, err = capsys.readouterr()
    assert dest.read_text() == src.read_text()
    assert out.count("JAX107") == 5
    assert "(0 fixed, 5 remaining)" in err and "5 more fixes available with --unsafe-fixes" in err
    assert main(["check", "--no-cache", "--fix", "--unsafe-fixes", str(dest)]) == 0
    out, err = capsys.readouterr()
    assert dest.read_text() == expected(src, True)
    assert "(5 fixed, 0 remaining)" in err and out == ""


def test_fix_only_reports_no_findings(tmp_path, capsys):
    _, dest = copy(tmp_path, "JAX104/unsafe_callers_unknown.py")
    assert main(["check", "--no-cache", "--fix-only", str(dest)]) == 0
    out, err = capsys.readouterr()
    assert out == "" and "(0 fixed, 2 remaining)" in err
    assert main(["check", "--no-cache", "--fix", str(dest)]) == 1
    assert capsys.readouterr().out.count("JAX104") == 2


def test_json_carries_the_fix_of_remaining_findings(tmp_path, capsys):
    _, dest = copy(tmp_path, "JAX104/unsafe_callers_unknown.py")
    assert main(["check", "--no-cache", "--fix", "--format", "json", str(dest)]) == 1
    report = json.loads(capsys.readouterr().out)
    fixes = [f["fix"] for f in report["findings"]]
    assert len(fixes) == 2 and all(f and f["safe"] is False and "unsafe" in f["description"]
                                   for f in fixes)


def test_fix_honours_selection_and_noqa(tmp_path, capsys):
    src, dest = copy(tmp_path, "JAX104/decorator_without_functools.py")
    assert main(["check", "--no-cache", "--fix", "--ignore", "JAX104", str(dest)]) == 0
    assert dest.read_text() == src.read_text()
    dest.write_text(src.read_text().replace("x[-keep:]", "x[-keep:]  # noqa: JAX104"))
    before = dest.read_text()
    assert main(["check", "--no-cache", "--fix", str(dest)]) == 0
    assert dest.read_text() == before
    capsys.readouterr()


def test_encoding_bom_and_line_endings_are_kept(tmp_path, capsys):
    source = ('# -*- coding: utf-8 -*-\r\n"""Café — CRLF."""\r\nimport jax\r\n\r\n\r\n'
              '@jax.jit\r\ndef f(x, n):  # é\r\n    return x[:n]\r\n\r\n\r\ndef g(x):\r\n'
              '    return f(x, 2)\r\n')
    path = tmp_path / "crlf.py"
    path.write_bytes(b"\xef\xbb\xbf" + source.encode("utf-8"))
    assert main(["check", "--no-cache", "--fix", str(path)]) == 0
    capsys.readouterr()
    want = source.replace("import jax\r\n", "import functools\r\n\r\nimport jax\r\n").replace(
        "@jax.jit\r\n", '@functools.partial(jax.jit, static_argnames=("n",))\r\n')
    assert path.read_bytes() == b"\xef\xbb\xbf" + want.encode("utf-8")


def test_latin1_file_is_written_back_in_its_encoding(tmp_path, capsys):
    source = ('# -*- coding: latin-1 -*-\n"""Café."""\nimport jax\n\n\n@jax.jit\n'
              'def f(x, n):\n    return x[:n]\n\n\nf(1, 2)\n')
    path = tmp_path / "latin.py"
    path.write_bytes(source.encode("latin-1"))
    assert main(["check", "--no-cache", "--fix", str(path)]) == 0
    capsys.readouterr()
    data = path.read_bytes()
    assert "Café".encode("latin-1") in data and b"static_argnames" in data


def test_notebooks_are_not_rewritten(tmp_path, capsys):
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
            "source": ["import jax\n", "@jax.jit\n", "def f(x, n):\n", "    return x[:n]\n",
                       "f(1, 2)\n"]}
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    before = path.read_bytes()
    assert main(["check", "--no-cache", "--fix", str(path)]) == 1
    assert path.read_bytes() == before
    capsys.readouterr()


# -- the fixed JAX101-JAX104 fixtures under JAX --------------------------------------------------

# Imports JAX once, then runs each module in a forked child process of its own (one process per
# file, two at a time, without paying JAX's import for each): prints {path: [exit code, error]}.
RUNNER = r"""
import importlib.util, json, os, sys
import jax, jax.numpy

def child(path, exprs, write):
    status, message = 0, ""
    try:
        spec = importlib.util.spec_from_file_location("fixed_module", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        for expr in exprs:
            jax.block_until_ready(eval(expr, vars(module)))
    except BaseException as exc:
        status, message = 1, f"{type(exc).__name__}: {exc}"[:400]
    os.write(write, message.encode())
    os._exit(status)

jobs, running, results = json.load(sys.stdin), {}, {}
while jobs or running:
    while jobs and len(running) < 2:
        path, exprs = jobs.pop()
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            child(path, exprs, write)
        os.close(write)
        running[pid] = (path, read)
    pid, status = os.wait()
    path, read = running.pop(pid)
    message = os.read(read, 65536).decode(errors="replace")
    os.close(read)
    results[path] = [os.waitstatus_to_exitcode(status), message]
json.dump(results, sys.stdout)
"""


@pytest.mark.slow
def test_fixed_trace_time_fixtures_run_under_jax(tmp_path):
    pytest.importorskip("jax")
    jobs, control = [], None
    for path in fixture_files("JAX10"):
        if path.parent.name not in fixer.STATIC_CODES:
            continue
        text = path.read_text()
        outcome = fixer.fix_source(text, str(path), unsafe=True, describe_remaining=False)
        if not any(f.code in fixer.STATIC_CODES for f, _ in outcome.applied):
            continue
        examples = [m.group("expr") for m in map(EXAMPLE.match, text.splitlines()) if m]
        assert examples, path
        dest = tmp_path / path.parent.name / path.name
        dest.parent.mkdir(exist_ok=True)
        dest.write_text(outcome.after)
        jobs.append([str(dest), examples])
        if control is None:     # the unfixed module must fail: the runner can tell
            control = tmp_path / f"control_{path.name}"
            control.write_text(text)
            jobs.append([str(control), examples])
    assert len(jobs) >= 40
    run = subprocess.run([sys.executable, "-c", RUNNER], input=json.dumps(jobs),
                         capture_output=True, text=True, timeout=300,
                         env={**os.environ, "JAX_PLATFORMS": "cpu"})
    assert run.returncode == 0, run.stderr[-2000:]
    results = json.loads(run.stdout)
    assert results.pop(str(control))[0] == 1
    failed = {path: message for path, (status, message) in results.items() if status != 0}
    assert not failed


# -- the fixed JAX401 and JAX403 fixtures under JAX ----------------------------------------------

# The same runner with JAX's key-reuse checker on: a typed key consumed twice raises KeyReuseError.
KEY_REUSE_RUNNER = RUNNER.replace("import jax, jax.numpy\n",
                                  "import jax, jax.numpy\njax.config.update(\"jax_debug_key_reuse\", True)\n")
# What each unfixed program raises when it runs (its fixed version must not).
BROKEN_STATE_ERRORS = {"JAX401": ("KeyReuseError",),
                       "JAX403": ("Array has been deleted", "deleted or donated")}


@pytest.mark.slow
def test_fixed_broken_state_fixtures_run_under_jax(tmp_path):
    """Each fixed JAX401/JAX403 rule fixture runs its examples without the error the unfixed one
    raises. Raw keys (`PRNGKey`) become typed keys in both, so JAX checks every key's reuse."""
    assert "jax_debug_key_reuse" in KEY_REUSE_RUNNER
    pytest.importorskip("jax")
    jobs, controls = [], {}
    for code in BROKEN_STATE_FIXES:
        for path in positives(code):
            text = path.read_text()
            outcome = fixer.fix_source(text, str(path), unsafe=True, describe_remaining=False)
            if not outcome.applied:
                continue
            examples = [m.group("expr") for m in map(EXAMPLE.match, text.splitlines()) if m]
            assert examples, path
            for kind, program in (("fixed", outcome.after), ("control", text)):
                dest = tmp_path / kind / code / path.name
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_text(program.replace("random.PRNGKey(", "random.key("))
                jobs.append([str(dest), examples])
                if kind == "control":
                    controls[str(dest)] = code
    assert len(controls) >= 20
    run = subprocess.run([sys.executable, "-c", KEY_REUSE_RUNNER], input=json.dumps(jobs),
                         capture_output=True, text=True, timeout=600,
                         env={**os.environ, "JAX_PLATFORMS": "cpu"})
    assert run.returncode == 0, run.stderr[-2000:]
    results = json.loads(run.stdout.splitlines()[-1])     # after what the programs print
    assert len(results) == len(jobs)
    for path, code in controls.items():
        status, message = results.pop(path)
        assert status == 1 and any(e in message for e in BROKEN_STATE_ERRORS[code]), (path, message)
    failed = {path: message for path, (status, message) in results.items() if status != 0}
    assert not failed


def test_a_derivative_is_never_made_static():
    """The branch reads a gradient: making the differentiated parameter (and then the data) static
    would hash arrays and compile per step; no fix is offered, not even an unsafe one."""
    text = ("import jax\nimport jax.numpy as jnp\n\n\ndef loss(w, x):\n    return jnp.sum((x @ w) ** 2)\n\n\n"
            "@jax.jit\ndef step(w, x):\n    g = jax.grad(loss)(w, x)\n    if jnp.linalg.norm(g) > 1.0:\n"
            "        g = g / jnp.linalg.norm(g)\n    return w - 0.1 * g\n")
    findings = lint_source(text, "step.py").findings
    assert [f.code for f in findings] == ["JAX101"] and "jax.grad()" in findings[0].path
    outcome = fixer.fix_source(text, "step.py", unsafe=True)
    assert not outcome.changed and all(f.fix is None for f in outcome.remaining)
