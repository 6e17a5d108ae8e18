"""Run the installed `jaxlint` console script (and real flake8) as a user's shell would, on this
tree's code.

The script is the one installed beside the running Python (a virtualenv's `bin/jaxlint`), else
on PATH. Its environment puts this tree's `src/` first on the module path, so that a script
installed from another checkout still runs the code under test (`script()` checks that it does,
once per session), and drops NO_COLOR/FORCE_COLOR so that tests choose colour themselves."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
JAXLINT = (shutil.which("jaxlint", path=os.path.dirname(sys.executable))
           or shutil.which("jaxlint"))
BAD = "import jax\n\n@jax.jit\ndef f(x, n):\n    return x[:n]\n"     # JAX104 at 5:12


@dataclass
class Result:
    code: int
    out: str
    err: str

    def lines(self) -> list:
        return self.out.splitlines()


def environment(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env["PYTHONPATH"] = os.pathsep.join([str(SRC)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env.update(extra)
    return env


@functools.lru_cache(maxsize=None)
def script() -> str:
    if JAXLINT is None:
        pytest.fail("the jaxlint console script is not installed (pip install -e .)")
    with open(JAXLINT, "rb") as handle:
        first = handle.readline().decode("utf-8", "replace")
    if first.startswith("#!") and "python" in first:
        interpreter = first[2:].strip().split()[0]
        found = subprocess.run([interpreter, "-c", "import jaxlint; print(jaxlint.__file__)"],
                               capture_output=True, text=True, env=environment(), timeout=120)
        assert Path(found.stdout.strip()).resolve().is_relative_to(SRC), (
            f"{JAXLINT} runs jaxlint from {found.stdout.strip() or found.stderr}, not from {SRC}")
    return JAXLINT


def run(*args, cwd=None, timeout=600, env=None, **kwargs) -> subprocess.CompletedProcess:
    """`jaxlint ARGS` through the console script; text output captured."""
    return subprocess.run([script(), *map(str, args)], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=environment(**(env or {})), **kwargs)


def jaxlint(*args, cwd=None, env=None, stdin=None, timeout=300) -> Result:
    """`jaxlint ARGS...` in `cwd`: (exit code, stdout, stderr)."""
    proc = subprocess.run([script(), *map(str, args)], cwd=cwd, env=env or environment(),
                          input=stdin, capture_output=True, text=True, timeout=timeout)
    return Result(proc.returncode, proc.stdout, proc.stderr)


def check(*args, cwd=None, env=None, stdin=None) -> Result:
    return jaxlint("check", "--no-cache", *args, cwd=cwd, env=env, stdin=stdin)


def flake8(*args, cwd=None) -> Result:
    proc = subprocess.run([sys.executable, "-m", "flake8", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=300, env=environment())
    return Result(proc.returncode, proc.stdout, proc.stderr)


def write(folder, files: dict) -> None:
    """{relative path: text} under `folder`, creating parent folders."""
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
