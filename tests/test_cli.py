"""The `jaxlint check` command: output format, exit codes, noqa, folders."""

import pathlib
import subprocess
import sys

import pytest

from jaxlint.cli import main

pytestmark = pytest.mark.portable    # needs no JAX: .ci/other-pythons runs it

SRC = pathlib.Path(__file__).parent.parent / "src"
EXAMPLE = pathlib.Path(__file__).parent.parent / "examples" / "train.py"


def test_exit_code_one_with_findings(tmp_path, capsys):
    bad = tmp_path / "bad.py"
    bad.write_text("import jax\n\n@jax.jit\ndef f(x, n):\n    return x[:n]\n")
    assert main(["check", str(bad)]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"{bad}:5:12: JAX104 ")


def test_exit_code_zero_when_clean(tmp_path, capsys):
    good = tmp_path / "good.py"
    good.write_text("import jax\n\n@jax.jit\ndef f(x):\n    return x[: x.shape[0] // 2]\n")
    assert main(["check", str(good)]) == 0
    assert capsys.readouterr().out == "All checks passed!\n"


def test_usage_error_exit_code_two(capsys):
    assert main(["check", "--no-such-flag"]) == 2


def test_noqa_in_cli(tmp_path, capsys):
    bad = tmp_path / "bad.py"
    bad.write_text("import jax\n\n@jax.jit\ndef f(x, n):\n    return x[:n]  # noqa: JAX104\n")
    assert main(["check", str(bad)]) == 0


def test_folder_recursion_skips_excluded_dirs(tmp_path, capsys):
    (tmp_path / "pkg").mkdir()
    (tmp_path / ".venv").mkdir()
    src = "import jax\n\n@jax.jit\ndef f(x, n):\n    return x[:n]\n"
    (tmp_path / "pkg" / "a.py").write_text(src)
    (tmp_path / ".venv" / "b.py").write_text(src)
    assert main(["check", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "a.py" in out and "b.py" not in out


def test_lints_its_own_source_without_crashing(capsys):
    code = main(["check", str(SRC)])
    captured = capsys.readouterr()
    assert "JAX000" not in captured.out + captured.err
    assert "E999" not in captured.out
    assert code in (0, 1)


@pytest.mark.slow
def test_shipped_example_has_findings():
    proc = subprocess.run([sys.executable, "-m", "jaxlint", "check", str(EXAMPLE)],
                          capture_output=True, text=True)
    assert proc.returncode == 1
    codes = {line.split(": ")[1].split(" ")[0] for line in proc.stdout.splitlines()}
    assert {"JAX101", "JAX103", "JAX104"} <= codes
