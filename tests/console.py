"""The installed `jaxlint` console script, run on this tree's code.

The script is found next to the running Python (else on PATH). Its environment puts this tree's
`src/` first on the module path, so that a script installed from another checkout still runs the
code under test; `script()` checks that it does, once per session."""

import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"


def environment(**extra) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(SRC)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env.update(extra)
    return env


@functools.lru_cache(maxsize=None)
def script() -> str:
    path = shutil.which("jaxlint", path=os.path.dirname(sys.executable)) or shutil.which("jaxlint")
    if path is None:
        pytest.fail("the jaxlint console script is not installed (pip install -e .)")
    with open(path, "rb") as handle:
        first = handle.readline().decode("utf-8", "replace")
    if first.startswith("#!") and "python" in first:
        interpreter = first[2:].strip().split()[0]
        found = subprocess.run([interpreter, "-c", "import jaxlint; print(jaxlint.__file__)"],
                               capture_output=True, text=True, env=environment(), timeout=120)
        assert Path(found.stdout.strip()).resolve().is_relative_to(SRC), (
            f"{path} runs jaxlint from {found.stdout.strip() or found.stderr}, not from {SRC}")
    return path


def run(*args, cwd=None, timeout=600, env=None, **kwargs) -> subprocess.CompletedProcess:
    """`jaxlint ARGS` through the console script; text output captured."""
    return subprocess.run([script(), *map(str, args)], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=environment(**(env or {})), **kwargs)
