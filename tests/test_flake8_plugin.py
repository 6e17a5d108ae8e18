"""The real flake8 binary loads the plugin, reports findings, and honours noqa/select."""

import subprocess
import sys

import pytest

pytestmark = pytest.mark.portable    # needs no JAX: .ci/other-pythons runs it

BAD = '''import jax
import jax.numpy as jnp


@jax.jit
def scale(x, n):
    if n > 0:
        return x * n
    return jnp.zeros(n)
'''


def run_flake8(tmp_path, source, *args):
    path = tmp_path / "bad.py"
    path.write_text(source)
    proc = subprocess.run([sys.executable, "-m", "flake8", "--select=JAX", *args, str(path)],
                          capture_output=True, text=True, cwd=tmp_path)
    return proc, path


def test_flake8_lists_the_plugin():
    proc = subprocess.run([sys.executable, "-m", "flake8", "--version"], capture_output=True, text=True)
    assert "flake8-jaxlint" in proc.stdout


def test_flake8_reports_findings_with_codes_and_positions(tmp_path):
    proc, path = run_flake8(tmp_path, BAD)
    lines = proc.stdout.strip().splitlines()
    assert [line.split(" ")[0] + " " + line.split(" ")[1] for line in lines] == [
        f"{path}:7:8: JAX101", f"{path}:9:12: JAX103"]
    assert proc.returncode == 1


def test_flake8_honours_noqa(tmp_path):
    proc, _ = run_flake8(tmp_path, BAD.replace("if n > 0:", "if n > 0:  # noqa: JAX101"))
    assert "JAX101" not in proc.stdout
    assert "JAX103" in proc.stdout


def test_flake8_extend_ignore(tmp_path):
    proc, _ = run_flake8(tmp_path, BAD, "--extend-ignore=JAX103")
    assert "JAX103" not in proc.stdout and "JAX101" in proc.stdout


def test_file_without_jax_is_clean(tmp_path):
    proc, _ = run_flake8(tmp_path, "def f(n):\n    if n > 0:\n        return 1\n")
    assert proc.stdout == "" and proc.returncode == 0
