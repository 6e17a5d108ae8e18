"""`jaxlint check --watch`: a debounced re-lint on every change, shown with a fake clock (exact
timing, no waiting) and with the real command in a subprocess (the files on disk, Ctrl-C)."""

import io
import os
import queue
import signal
import subprocess
import sys
import threading
import time

import pytest

from jaxlint import watch
from jaxlint.config import ConfigFinder

BAD = "import jax\n\n@jax.jit\ndef f(x, n):\n    return x[:n]\n"
GOOD = "import jax\n\n@jax.jit\ndef f(x):\n    return x[:2]\n"


class FakeTime:
    """A clock that moves only when the watcher sleeps, and writes scheduled at fake times."""

    def __init__(self, writes):
        self.now = 0.0
        self.writes = sorted(writes, key=lambda w: w[0])     # (time, path, text)

    def sleep(self, seconds):
        self.now += seconds
        while self.writes and self.writes[0][0] <= self.now:
            _, path, text = self.writes.pop(0)
            path.write_text(text)

    def clock(self):
        return self.now


def watch_with(tmp_path, writes, runs, run_once=None, settle=False):
    fake = FakeTime(writes)
    seen = []

    def record():
        seen.append((round(fake.now, 3), {p.name: p.read_text() for p in tmp_path.glob("*.py")}))
        if run_once:
            run_once()

    status = io.StringIO()
    code = watch.watch(record, [str(tmp_path)], ConfigFinder, settle=settle, stream=status,
                       sleep=fake.sleep, clock=fake.clock, runs=runs)
    assert code == 0
    return seen, status.getvalue()


def test_a_burst_of_writes_is_linted_once_after_it_ends(tmp_path):
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("x = 1\n")
    b.write_text("y = 1\n")
    burst = [(1.0, a, "x = 22\n"), (1.1, b, "y = 333\n"), (1.15, a, "x = 4444\n")]
    seen, status = watch_with(tmp_path, burst, runs=2)
    (first, before), (second, after) = seen
    assert first == 0.0 and before == {"a.py": "x = 1\n", "b.py": "y = 1\n"}
    assert after == {"a.py": "x = 4444\n", "b.py": "y = 333\n"}     # one run saw the whole burst
    assert 1.15 + watch.DEBOUNCE <= second <= 1.15 + watch.DEBOUNCE + watch.SETTLE_POLL + 1e-6
    assert "changed: " in status and "a.py" in status and "b.py" in status


def test_writes_further_apart_than_the_debounce_are_two_runs(tmp_path):
    a = tmp_path / "a.py"
    a.write_text("x = 1\n")
    gap = watch.DEBOUNCE + 2 * watch.POLL
    seen, _ = watch_with(tmp_path, [(1.0, a, "x = 22\n"), (1.0 + gap + 0.5, a, "x = 333\n")], 3)
    assert [files["a.py"] for _, files in seen] == ["x = 1\n", "x = 22\n", "x = 333\n"]


def test_a_configuration_change_is_a_change(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    seen, _ = watch_with(tmp_path, [(1.0, tmp_path / "pyproject.toml", "[tool.jaxlint]\n")], 2)
    assert len(seen) == 2 and seen[1][0] >= 1.0


def test_files_the_run_itself_writes_do_not_start_another_run(tmp_path):
    """--fix rewrites files: with settle, only a later outside change starts the next run."""
    a = tmp_path / "a.py"
    a.write_text("x = 1\n")
    fixes = iter(["x = 'fixed'\n"])
    seen, _ = watch_with(tmp_path, [(5.0, a, "x = 'edited'\n")], runs=2,
                         run_once=lambda: a.write_text(next(fixes, a.read_text())), settle=True)
    assert seen[1][0] >= 5.0 and seen[1][1]["a.py"] == "x = 'edited'\n"


@pytest.mark.slow
def test_watch_command_relints_on_change_and_stops_on_ctrl_c(tmp_path):
    bad = tmp_path / "model.py"
    bad.write_text(BAD)
    proc = subprocess.Popen([sys.executable, "-m", "jaxlint", "check", "--watch", "--no-cache",
                             str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, env={**os.environ, "NO_COLOR": "1"},
                            # a test runner started in the background ignores SIGINT, and so would
                            # the child: restore the default so that Ctrl-C reaches jaxlint
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout], daemon=True).start()

    def until(marker):
        """The lines printed up to and including the next one containing `marker`."""
        got = []
        deadline = time.monotonic() + 120
        while not got or marker not in got[-1]:
            got.append(lines.get(timeout=max(deadline - time.monotonic(), 0.01)))
        return "".join(got)

    try:
        first = until("watching")
        assert f"{bad}:5:12: JAX104 " in first
        bad.write_text(GOOD)
        changed = until("changed: ")
        again = until("watching")
        assert str(bad) in changed and "JAX104" not in again
        bad.write_text(BAD)
        until("changed: ")
        assert f"{bad}:5:12: JAX104 " in until("watching")
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 0
        assert "stopped watching" in until("stopped watching")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
