"""Run the installed `jaxlint` console script (and real flake8) as a user's shell would.

The script is the one installed beside the running Python (a virtualenv's `bin/jaxlint`); it
imports the package the test run imports, since a PYTHONPATH set for the tests reaches the
child too."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass

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
    env.update(extra)
    return env


def jaxlint(*args, cwd=None, env=None, stdin=None, timeout=300) -> Result:
    """`jaxlint ARGS...` in `cwd`: (exit code, stdout, stderr)."""
    assert JAXLINT, "the jaxlint console script is not installed next to this Python"
    proc = subprocess.run([JAXLINT, *map(str, args)], cwd=cwd, env=env or environment(),
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
