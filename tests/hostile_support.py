"""Run `jaxlint check` and real flake8 as a user would, and measure what the run cost.

Each run records the CPU seconds of the child process (and its workers) for
benchmarks/hostile_inputs.py, which reports them; a test asserts only behaviour, since the
machines that run the suite are shared and often loaded several times over. Every run has a
generous wall-clock timeout, so a hang still fails the test.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from dataclasses import dataclass

GOOD = "import jax\n\n@jax.jit\ndef f(x, n):\n    return x[:n]\n"
GOOD_FINDING = ":5:12: JAX104 "          # what GOOD yields, after its name, in both tools

# Root reads any file whatever its mode: drop the two capabilities that allow it.
_AS_ORDINARY_READER = ("setpriv", "--inh-caps=-dac_override,-dac_read_search",
                       "--bounding-set=-dac_override,-dac_read_search")


@dataclass
class Run:
    out: str
    err: str
    rc: int
    cpu: float          # user + system seconds of the child and everything it waited for
    wall: float

    @property
    def text(self) -> str:
        return self.out + self.err

    def lines_for(self, name: str) -> list:
        return [line for line in self.text.splitlines() if line.startswith(name + ":")]


def run(cmd, cwd, timeout=300, prefix=()) -> Run:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    proc = subprocess.run([*prefix, *cmd], cwd=cwd, capture_output=True, text=True,
                          errors="replace", timeout=timeout)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Run(proc.stdout, proc.stderr, proc.returncode, cpu, wall)


def jaxlint(cwd, *paths, timeout=300, prefix=()) -> Run:
    return run([sys.executable, "-m", "jaxlint", "check", "--no-cache", *paths], cwd, timeout, prefix)


def flake8(cwd, *paths, timeout=300, prefix=(), recursion_limit=None) -> Run:
    """Real flake8 with its default plugins (pyflakes, pycodestyle) and ours; E9 is flake8's
    own code for files it cannot read (E902) or parse (E999)."""
    args = ["--select=JAX,E9", *paths]
    if recursion_limit is None:
        return run([sys.executable, "-m", "flake8", *args], cwd, timeout, prefix)
    # pyflakes recurses once per tree level and fails on 1,000-deep expressions under the
    # default limit (flake8 then aborts the run). Raise it to see what *our* plugin does there.
    boot = (f"import sys; sys.setrecursionlimit({recursion_limit}); "
            "from flake8.main.cli import main; raise SystemExit(main(sys.argv[1:]))")
    return run([sys.executable, "-c", boot, "-j1", *args], cwd, timeout, prefix)


def as_ordinary_reader() -> tuple:
    """A command prefix under which file permissions are enforced, even for root."""
    return _AS_ORDINARY_READER if os.geteuid() == 0 else ()


def assert_sound(result: Run):
    """No traceback, no internal error, and our plugin never reported failing."""
    assert "Traceback" not in result.text, result.text[-3000:]
    assert "JAX000" not in result.text, result.text[-3000:]
    assert "flake8-jaxlint" not in result.text, result.text[-3000:]


def assert_good_file_linted(result: Run, name: str = "good.py"):
    assert any(line.startswith(name + GOOD_FINDING) for line in result.out.splitlines()), \
        result.text[-3000:]
