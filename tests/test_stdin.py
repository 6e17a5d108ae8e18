"""`jaxlint check -`: the installed console script reading an editor's buffer through a pipe, with
--stdin-filename driving messages, configuration, per-file-ignores, excludes and notebooks, and
--fix/--diff writing the fixed source or the diff to standard output."""

import difflib
import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow     # each test runs the console script

FIX_FIXTURES = pathlib.Path(__file__).parent / "fix_fixtures"
JAXLINT = (shutil.which("jaxlint", path=os.path.dirname(sys.executable))
           or shutil.which("jaxlint"))
BAD = "import jax\n\n@jax.jit\ndef f(x, n):\n    if n > 0:\n        x = x + 1\n    return x[:n]\n"
SAFE_FIX = FIX_FIXTURES / "JAX104" / "decorator_without_functools.py"
UNSAFE_ONLY = FIX_FIXTURES / "JAX107" / "print_spellings.py"


def pipe(args, data, cwd):
    """Run the real `jaxlint` with `data` piped to its standard input: (code, stdout bytes, stderr)."""
    assert JAXLINT, "the jaxlint console script is not installed next to this Python"
    if isinstance(data, str):
        data = data.encode("utf-8")
    proc = subprocess.run([JAXLINT, "check", "--no-cache", *args], input=data, cwd=cwd,
                          capture_output=True, timeout=120,
                          env={**os.environ, "NO_COLOR": "1"})
    return proc.returncode, proc.stdout, proc.stderr.decode("utf-8", "replace")


def codes(out: bytes) -> list:
    return [line.split(": ")[1].split(" ")[0] for line in out.decode().splitlines()]


def test_dash_reads_standard_input(tmp_path):
    code, out, err = pipe(["-"], BAD, tmp_path)
    assert code == 1
    lines = out.decode().splitlines()
    assert lines[0].startswith("-:5:8: JAX101 ") and lines[1].startswith("-:7:12: JAX104 ")
    assert "E902" not in err and "Found 2 findings in 1 file (1 file checked)." in err


def test_clean_input_exits_zero_and_says_so(tmp_path):
    code, out, err = pipe(["-"], "import jax\n\nx = jax.numpy.ones(3)\n", tmp_path)
    assert (code, out, err) == (0, b"All checks passed!\n", "")


def test_stdin_filename_names_the_text_and_implies_dash(tmp_path):
    code, out, _ = pipe(["--stdin-filename", "src/model.py"], BAD, tmp_path)
    assert code == 1
    assert out.decode().startswith("src/model.py:5:8: JAX101 ")


def test_configuration_is_the_one_above_the_stdin_filename(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.jaxlint]\nignore = ["JAX101"]\nper-file-ignores = { "tests/*" = ["JAX1"] }\n'
        'extend-exclude = ["generated/*"]\n')
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "pyproject.toml").write_text("[tool.jaxlint]\n")
    code, out, _ = pipe(["--stdin-filename", "src/model.py"], BAD, tmp_path)
    assert code == 1 and codes(out) == ["JAX104"]           # ignore from ./pyproject.toml
    code, out, _ = pipe(["--stdin-filename", "other/model.py"], BAD, tmp_path)
    assert codes(out) == ["JAX101", "JAX104"]                # other/ has its own table
    code, out, err = pipe(["--stdin-filename", "tests/test_model.py"], BAD, tmp_path)
    assert (code, out) == (0, b"All checks passed!\n")      # per-file-ignores
    code, out, err = pipe(["--stdin-filename", "generated/model.py"], BAD, tmp_path)
    assert (code, out, err) == (0, b"", "")                  # excluded: not linted at all


def test_bad_configuration_is_a_usage_error_naming_the_file(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nselct = ["JAX1"]\n')
    code, out, err = pipe(["--stdin-filename", "m.py"], BAD, tmp_path)
    assert code == 2 and out == b""
    assert "pyproject.toml: [tool.jaxlint] selct: unknown key (did you mean 'select'?)" in err


def test_ipynb_stdin_filename_reads_a_notebook(tmp_path):
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
            "source": ["import jax\n", "@jax.jit\n", "def f(x, n):\n", "    return x[:n]\n"]}
    nb = json.dumps({"cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# hi"]},
                               cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    code, out, _ = pipe(["-", "--stdin-filename", "nb.ipynb"], nb, tmp_path)
    assert code == 1 and out.decode().startswith("nb.ipynb:cell_2:4:12: JAX104 ")
    code, out, _ = pipe(["-", "--stdin-filename", "nb.ipynb", "--fix"], nb, tmp_path)
    assert out == nb.encode()                 # notebooks are never rewritten: echoed as read


def test_fix_prints_the_fixed_source_and_reports_on_stderr(tmp_path):
    source = SAFE_FIX.read_bytes()
    code, out, err = pipe(["--fix", "--stdin-filename", "model.py"], source, tmp_path)
    assert code == 0
    assert out.decode() == SAFE_FIX.with_suffix(".safe.py").read_text()
    assert "Found 1 finding (1 fixed, 0 remaining)." in err
    assert not (tmp_path / "model.py").exists()              # nothing written to disk


def test_fix_with_only_unsafe_fixes_echoes_the_input_and_lists_what_remains(tmp_path):
    source = UNSAFE_ONLY.read_bytes()
    code, out, err = pipe(["-", "--fix"], source, tmp_path)
    assert code == 1 and out == source
    assert err.count("-:") == 5 and "JAX107" in err          # the remaining findings, on stderr
    assert "5 more fixes available with --unsafe-fixes" in err
    code, out, err = pipe(["-", "--fix", "--unsafe-fixes"], source, tmp_path)
    assert code == 0
    assert out.decode() == UNSAFE_ONLY.with_suffix(".unsafe.py").read_text()


def test_fix_only_and_show_fixes(tmp_path):
    code, out, err = pipe(["-", "--fix-only", "--show-fixes"], SAFE_FIX.read_bytes(), tmp_path)
    assert code == 0 and out.decode() == SAFE_FIX.with_suffix(".safe.py").read_text()
    assert "Fixed 1 finding:\n  -:11:12: JAX104 Make `keep` static" in err


def test_diff_prints_the_diff_named_after_the_stdin_filename(tmp_path):
    source = SAFE_FIX.read_text()
    code, out, err = pipe(["--diff", "--stdin-filename", "src/m.py"], source, tmp_path)
    want = "".join(difflib.unified_diff(
        source.splitlines(True), SAFE_FIX.with_suffix(".safe.py").read_text().splitlines(True),
        "src/m.py", "src/m.py"))
    assert code == 1 and out.decode() == want
    assert "Would fix 1 finding in 1 file" in err
    code, out, _ = pipe(["--diff", "-"], "import jax\n", tmp_path)
    assert (code, out) == (0, b"")


def test_fix_of_unparsable_input_echoes_it_and_reports_the_error(tmp_path):
    broken = b"import jax\ndef f(:\n"
    code, out, err = pipe(["-", "--fix"], broken, tmp_path)
    assert code == 1 and out == broken
    assert "-:2:7: E999 syntax error" in err


def test_fix_keeps_the_encoding_bom_and_line_endings(tmp_path):
    source = ('# -*- coding: latin-1 -*-\r\n"""Café."""\r\nimport jax\r\n\r\n\r\n@jax.jit\r\n'
              'def f(x, n):\r\n    return x[:n]\r\n\r\n\r\nf(1, 2)\r\n')
    code, out, _ = pipe(["-", "--fix"], source.encode("latin-1"), tmp_path)
    assert code == 0
    assert "Café".encode("latin-1") in out and b"\r\n" in out and b"\n\n" not in out
    assert b'static_argnames=("n",))\r\n' in out
    bom = b"\xef\xbb\xbf" + source.replace("latin-1", "utf-8").encode("utf-8")
    code, out, _ = pipe(["-", "--fix"], bom, tmp_path)
    assert code == 0 and out.startswith(b"\xef\xbb\xbf# -*- coding: utf-8") and b"static" in out


def test_undecodable_input_is_an_error_line_naming_the_stdin_filename(tmp_path):
    code, out, err = pipe(["--stdin-filename", "x.py"], b"import jax\nx = '\xff'\n", tmp_path)
    assert code == 1 and out.decode().startswith("x.py:2:6: E999 cannot decode as utf-8: byte 0xff")
    assert "E902" not in err


@pytest.mark.parametrize("args, message", [
    (["-", "src"], "- (standard input) cannot be combined with other paths"),
    (["--stdin-filename", "x.py", "src"], "--stdin-filename names standard input"),
    (["-", "--watch"], "--watch watches files"),
])
def test_usage_errors(tmp_path, args, message):
    code, out, err = pipe(args, BAD, tmp_path)
    assert code == 2 and out == b"" and message in err


def test_stdin_results_come_from_the_cache_the_second_time(tmp_path):
    cache = tmp_path / "cache"
    args = ["--cache-dir", str(cache), "--stdin-filename", "m.py", "--quiet"]
    proc = subprocess.run([JAXLINT, "check", *args], input=BAD.encode(), cwd=tmp_path,
                          capture_output=True, timeout=120)
    entries = list(cache.rglob("*.json"))
    assert proc.returncode == 1 and len(entries) == 1
    entry = json.loads(entries[0].read_text())
    entry["payload"]["findings"][0]["message"] = "served from the cache"
    entries[0].write_text(json.dumps(entry))
    again = subprocess.run([JAXLINT, "check", *args], input=BAD.encode(), cwd=tmp_path,
                           capture_output=True, timeout=120)
    assert again.stdout.decode().splitlines()[0] == "m.py:5:8: JAX101 served from the cache"
