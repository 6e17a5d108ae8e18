"""Parent side of the process boundary: starts the zygote, feeds it jobs, collects events.

PARENT SIDE: never imports JAX or user code. One zygote serves all files of a run; it forks a
fresh child per file (see `zygote.py`) and runs up to `jobs` of them at once.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
import warnings
from dataclasses import dataclass, field


class VerifierUnavailable(RuntimeError):
    """The worker could not start (JAX missing, no fork on this platform, ...)."""


@dataclass
class JobOutcome:
    """Everything one file's child reported, in order, plus how it ended."""

    job: dict
    events: list = field(default_factory=list)
    exit: dict = field(default_factory=dict)

    def of(self, kind: str) -> list:
        return [e for e in self.events if e.get("event") == kind]


@contextlib.contextmanager
def quiet_fork_warning():
    """JAX warns on any fork once its threads run, but subprocess.Popen without preexec_fn execs
    at once in the child (no Python runs there): a caller that imported JAX (a notebook, a test)
    need not see the warning for it."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"os\.fork\(\) was called", category=RuntimeWarning)
        yield


def worker_env() -> dict:
    env = dict(os.environ)
    # Trace-level checks need no accelerator, and a CPU-only child keeps memory predictable.
    env["JAX_PLATFORMS"] = "cpu"
    # glibc reserves 64 MB of address space per thread arena; XLA starts many threads. Two arenas
    # keep a JAX process near 0.6 GB of address space so a 2 GB RLIMIT_AS is a real limit.
    env.setdefault("MALLOC_ARENA_MAX", "2")
    package_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = package_root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.setdefault("PYTHONHASHSEED", "0")
    return env


def run_jobs(jobs: list, workers: int = 1, timeout: float = 60.0, memory_mb: int = 2048,
             on_exit=None, per_process: int = 1) -> dict:
    """Run every job in the zygote; {job id: JobOutcome}. `on_exit(outcome)` is called as each
    file finishes (progress display). With per_process > 1, one child works through that many
    files in turn (faster: JAX's in-memory kernel caches are shared; less isolated: a file that
    changes global state affects the next ones). The time limit still applies per file, and after
    a timeout or crash the batch's remaining files each get a fresh child."""
    if not hasattr(os, "fork"):
        raise VerifierUnavailable("jaxlint verify needs os.fork (Linux or macOS)")
    outcomes = {job["id"]: JobOutcome(job) for job in jobs}
    if not jobs:
        return outcomes
    command = [sys.executable, "-m", "jaxlint.verify.zygote", "--jobs", str(workers),
               "--timeout", str(timeout), "--memory-mb", str(memory_mb)]
    with quiet_fork_warning():
        proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=worker_env())
    stderr_tail = []

    def drain_stderr():
        for line in proc.stderr:
            stderr_tail.append(line.decode("utf-8", "replace"))
            del stderr_tail[:-40]

    def feed():
        try:
            size = max(1, per_process)
            for start in range(0, len(jobs), size):
                proc.stdin.write((json.dumps(jobs[start:start + size]) + "\n").encode())
            proc.stdin.close()
        except (BrokenPipeError, OSError):
            pass

    threads = [threading.Thread(target=drain_stderr, daemon=True),
               threading.Thread(target=feed, daemon=True)]
    for thread in threads:
        thread.start()
    ready = None
    try:
        for raw in proc.stdout:
            try:
                event = json.loads(raw)
            except ValueError:
                continue
            kind = event.get("event")
            if kind == "ready":
                ready = event
                continue
            if kind == "fatal":
                raise VerifierUnavailable(event.get("error", "the verifier worker failed"))
            outcome = outcomes.get(event.get("job"))
            if outcome is None:
                continue
            if kind == "exit":
                outcome.exit = event
                if on_exit is not None:
                    on_exit(outcome)
            else:
                outcome.events.append(event)
    except BaseException:
        # SIGTERM lets the zygote kill the children it forked (each in its own session)
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
        raise
    finally:
        proc.wait()
        threads[0].join(timeout=1)
    if ready is None:
        tail = "".join(stderr_tail).strip().splitlines()[-5:]
        raise VerifierUnavailable("the verifier worker did not start: " + (" | ".join(tail) or
                                                                           f"exit code {proc.returncode}"))
    for outcome in outcomes.values():
        if not outcome.exit:
            outcome.exit = {"status": "lost", "detail": "the verifier worker stopped before this file ended"}
            if on_exit is not None:
                on_exit(outcome)
    return outcomes
