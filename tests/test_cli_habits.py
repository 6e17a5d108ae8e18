"""The ruff-style habits of `jaxlint check`: --output-format, --show-source (and --format
full/concise), --show-fixes, and the summary line that counts the fixable findings."""

import json
import pathlib

import pytest

from jaxlint.cli import main

pytestmark = pytest.mark.portable    # needs no JAX: .ci/other-pythons runs it

FIX_FIXTURES = pathlib.Path(__file__).parent / "fix_fixtures"
BAD = "import jax\n\n@jax.jit\ndef f(x, n):\n    if n > 0:\n        x = x + 1\n    return x[:n]\n"
SAFE = FIX_FIXTURES / "JAX104" / "decorator_without_functools.py"     # one safe fix
UNSAFE = FIX_FIXTURES / "JAX104" / "unsafe_callers_unknown.py"        # two unsafe fixes


def run(capsys, *argv):
    code = main(["check", *map(str, argv)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def copy(tmp_path, src, name=None):
    dest = tmp_path / (name or src.name)
    dest.write_bytes(src.read_bytes())
    return dest


def test_output_format_is_an_alias_of_format(tmp_path, capsys):
    bad = tmp_path / "bad.py"
    bad.write_text(BAD)
    _, by_format, _ = run(capsys, "--no-cache", "--format", "json", bad)
    code, by_alias, _ = run(capsys, "--no-cache", "--output-format", "json", bad)
    assert code == 1 and json.loads(by_alias) == json.loads(by_format)
    assert [f["code"] for f in json.loads(by_alias)["findings"]] == ["JAX101", "JAX104"]


def test_show_source_puts_the_line_and_a_caret_under_each_finding(tmp_path, capsys):
    bad = tmp_path / "bad.py"
    bad.write_text(BAD)
    code, out, _ = run(capsys, "--no-cache", "--show-source", bad)
    assert code == 1
    lines = out.splitlines()
    first = lines.index(next(x for x in lines if ":7:12: JAX104 " in x))
    assert lines[first + 1:first + 4] == ["   |", " 7 |     return x[:n]", "   |            ^^^^^"]
    second = lines.index(next(x for x in lines if ":5:8: JAX101 " in x))
    assert lines[second + 2:second + 4] == [" 5 |     if n > 0:", "   |        ^^^^^"]
    _, full, _ = run(capsys, "--no-cache", "--format", "full", bad)
    assert full == out
    _, concise, _ = run(capsys, "--no-cache", "--output-format", "concise", bad)
    assert concise.splitlines() == [x for x in lines if ": JAX1" in x]


def test_show_source_aligns_the_caret_under_tabs_and_wide_characters(tmp_path, capsys):
    bad = tmp_path / "tabs.py"
    bad.write_text("import jax\n\n@jax.jit\ndef f(x, n):\n\ty = 'é' ; return x[:n]\n")
    run(capsys, "--no-cache", "--show-source", bad)
    _, out, _ = run(capsys, "--no-cache", "--show-source", bad)
    lines = out.splitlines()
    assert lines[2] == " 5 | \ty = 'é' ; return x[:n]"
    assert lines[3] == "   | \t                 ^^^^^"


def test_show_source_in_a_notebook_shows_the_cell_line(tmp_path, capsys):
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
            "source": ["import jax\n", "@jax.jit\n", "def f(x, n):\n", "    return x[:n]\n"]}
    nb = tmp_path / "nb.ipynb"
    nb.write_text(json.dumps({"cells": [{"cell_type": "markdown", "metadata": {}, "source": []},
                                        cell, cell], "metadata": {}, "nbformat": 4,
                              "nbformat_minor": 5}))
    code, out, _ = run(capsys, "--no-cache", "--show-source", nb)
    lines = out.splitlines()
    assert code == 1 and lines[0].startswith(f"{nb}:cell_2:4:12: JAX104 ")
    assert lines[2:4] == [" 4 |     return x[:n]", "   |            ^^^^^"]
    assert any(x.startswith(f"{nb}:cell_3:4:12: JAX104 ") for x in lines)


def test_show_source_needs_the_text_format(tmp_path, capsys):
    code, _, err = run(capsys, "--show-source", "--format", "json", tmp_path)
    assert code == 2 and "--show-source works with --format text" in err


def test_summary_counts_the_fixable_findings(tmp_path, capsys):
    safe = copy(tmp_path, SAFE)
    code, out, err = run(capsys, "--no-cache", safe)
    assert code == 1 and err.splitlines() == ["Found 1 finding in 1 file (1 file checked).",
                                              "[*] 1 fixable with --fix."]
    unsafe = copy(tmp_path, UNSAFE)
    code, out, err = run(capsys, "--no-cache", safe, unsafe)
    assert err.splitlines()[1] == "[*] 1 fixable with --fix (2 more with --fix --unsafe-fixes)."
    code, out, err = run(capsys, "--no-cache", unsafe)
    assert err.splitlines()[1] == "2 fixable with --fix --unsafe-fixes (unsafe fixes: review them)."
    plain = tmp_path / "plain.py"                           # JAX101 here has no fix
    plain.write_text("import jax\n\n@jax.jit\ndef f(x):\n    if x.sum() > 0:\n        return x\n"
                     "    return -x\n")
    code, out, err = run(capsys, "--no-cache", plain)
    assert code == 1 and err.splitlines() == ["Found 1 finding in 1 file (1 file checked)."]
    assert run(capsys, "--no-cache", "--quiet", safe)[2] == ""


def test_show_source_shows_each_findings_fix_and_its_safety(tmp_path, capsys):
    unsafe = copy(tmp_path, UNSAFE)
    _, out, _ = run(capsys, "--no-cache", "--show-source", copy(tmp_path, SAFE), unsafe)
    fixes = [x.strip() for x in out.splitlines() if x.strip().startswith("= fix")]
    assert fixes[0] == ("= fix (safe): Make `keep` static: add it to the static arguments of "
                        "the jit of `last_tokens`")
    assert len(fixes) == 3 and all(f.startswith("= fix (unsafe, --unsafe-fixes): ")
                                   for f in fixes[1:])


def test_show_fixes_lists_applied_would_be_and_available_fixes(tmp_path, capsys):
    safe = copy(tmp_path, SAFE)
    code, _, err = run(capsys, "--no-cache", "--show-fixes", safe)
    assert code == 1
    assert f"1 fix available:\n  {safe}:11:12: JAX104 (safe) Make `keep` static" in err
    code, out, err = run(capsys, "--no-cache", "--diff", "--show-fixes", safe)
    assert code == 1 and f"Would fix 1 finding:\n  {safe}:11:12: JAX104 Make `keep` static" in err
    code, out, err = run(capsys, "--no-cache", "--fix", "--show-fixes", safe)
    assert code == 0 and f"Fixed 1 finding:\n  {safe}:11:12: JAX104 Make `keep` static" in err
    assert safe.read_text() == SAFE.with_suffix(".safe.py").read_text()
    code, out, err = run(capsys, "--no-cache", "--fix", "--show-fixes", safe)
    assert code == 0 and "Fixed 0 findings." in err


def test_fixes_are_cached_beside_the_findings(tmp_path, capsys):
    safe = copy(tmp_path, SAFE)
    cache = tmp_path / "cache"
    run(capsys, "--cache-dir", cache, safe)
    entries = sorted(cache.rglob("*.json"))
    assert len(entries) == 2                  # the analysis, and the checked fixes
    fixes = next(e for e in entries if '"fix":{' in e.read_text())
    entry = json.loads(fixes.read_text())
    entry["payload"]["findings"][0]["fix"]["description"] = "from the cache"
    fixes.write_text(json.dumps(entry))
    _, _, err = run(capsys, "--cache-dir", cache, "--show-fixes", safe)
    assert "JAX104 (safe) from the cache" in err


def test_a_file_with_too_many_fixable_findings_is_counted_unchecked(tmp_path, capsys):
    """Checking a fix lints the file again: past runner.CHECK_LIMIT candidates in one file the
    summary says it did not check them rather than analyse the file once per finding."""
    from jaxlint.runner import CHECK_LIMIT
    many = tmp_path / "many.py"
    functions = "".join(f"\n\n@jax.jit\ndef f{i}(x, n):\n    return x[:n]\n"
                        for i in range(CHECK_LIMIT + 1))
    many.write_text("import jax\n" + functions)
    copy(tmp_path, SAFE)
    code, out, err = run(capsys, "--no-cache", tmp_path)
    assert code == 1 and out.count(" JAX104 ") == CHECK_LIMIT + 2
    assert err.splitlines()[1] == (f"[*] 1 fixable with --fix. {CHECK_LIMIT + 1} findings in "
                                   "files with many findings not checked for a fix (--diff shows "
                                   "what --fix would do).")


def test_a_run_without_fixable_findings_does_not_load_the_fixer(tmp_path):
    """The fixable count must not cost a clean run (or one whose findings have no fix) the
    import of the fixer and libcst."""
    import subprocess
    import sys
    clean = tmp_path / "clean.py"
    clean.write_text("import jax\n\nx = jax.numpy.ones(3)\n")
    unfixable = tmp_path / "unfixable.py"
    unfixable.write_text("import jax\n\n@jax.jit\ndef f(x):\n    return x[x > 0]\n")  # JAX105
    script = ("import sys\nfrom jaxlint.cli import main\n"
              "code = main(['check', '--no-cache', *sys.argv[1:]])\n"
              "loaded = sorted(m for m in sys.modules if m.split('.')[0] == 'libcst' "
              "or m.startswith('jaxlint.fixer'))\n"
              "print(code, loaded)\n")
    for path, code in ((clean, 0), (unfixable, 1)):
        run = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True,
                             text=True, timeout=120)
        assert run.stdout.splitlines()[-1] == f"{code} []", run.stdout + run.stderr
