"""The verifier's worker: imports JAX once, then forks one disposable child per file.

CHILD SIDE, started by `supervisor.py` as `python -m jaxlint.verify.zygote`. Importing JAX costs
about 1.5 s; forking a process that already has it costs milliseconds, so every file still gets a
fresh process of its own (isolation: one module's imports, globals, JAX config and caches never
leak into another's) without paying for the import again. The zygote itself never runs user code
and never initialises a JAX backend (JAX's fork warning is about initialised backends).

Each forked child gets its own session (so a timeout kills whatever it started too), stdin from
/dev/null, stdout/stderr into a private log whose tail explains a crash, and an address-space
limit (RLIMIT_AS). The zygote enforces the wall-time limit: past it, the child's process group
is killed and the file is reported as timed out.

Protocol: one JSON job per line on stdin; JSON events, one per line, on the original stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import signal
import sys
import tempfile
import time
import traceback

_PROTOCOL_FD = None


def send(event: dict) -> None:
    data = (json.dumps(event, default=str) + "\n").encode()
    view = memoryview(data)
    while view:
        written = os.write(_PROTOCOL_FD, view)
        view = view[written:]


class Running:
    """A forked child working through a batch of jobs (files), one after the other."""

    def __init__(self, batch, pid, fd, log, timeout):
        self.batch, self.pid, self.fd, self.log = batch, pid, fd, log
        self.timeout = timeout
        self.current = None             # the job being worked on
        self.unit = None                # the unit of that job being evaluated, if any
        self.finished: set = set()      # ids of jobs whose "done" was seen
        self.started = time.monotonic()
        self.deadline = self.started + timeout if timeout else None
        self.buffer = b""

    def begin(self, job_id):
        self.current = job_id
        self.unit = None
        self.started = time.monotonic()
        self.deadline = self.started + self.timeout if self.timeout else None

    def remaining(self) -> list:
        """Jobs of the batch never started: they go back to the queue after a failure."""
        return [j for j in self.batch if j["id"] not in self.finished and j["id"] != self.current]


def _log_tail(log, limit=2000) -> str:
    try:
        log.flush()
        size = os.fstat(log.fileno()).st_size
        os.lseek(log.fileno(), max(0, size - limit), os.SEEK_SET)
        return os.read(log.fileno(), limit).decode("utf-8", "replace")
    except OSError:
        return ""


def _child(batch, write_fd, log, memory_mb):
    """In the forked process: isolate, limit, run the jobs, and never return."""
    try:
        os.setsid()
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)
        os.close(_PROTOCOL_FD)
        import resource
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))      # a crash leaves no core file behind
        if memory_mb:
            limit = int(memory_mb) * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        writer = os.fdopen(write_fd, "w", buffering=1)
        from jaxlint.verify import child
        for job in batch:
            def emit(event, job_id=job["id"]):
                event["job"] = job_id
                writer.write(json.dumps(event, default=str) + "\n")
                writer.flush()

            emit({"event": "begin"})
            cpu = time.process_time()
            try:
                child.run_job(job, emit)
                emit({"event": "done", "cpu": round(time.process_time() - cpu, 4)})
            except MemoryError:
                emit({"event": "internal", "memory": True, "error": "MemoryError in the verifier"})
                emit({"event": "done"})
            except BaseException:  # noqa: BLE001 - report, then go on with the next file
                emit({"event": "internal", "error": traceback.format_exc()[-3000:]})
                emit({"event": "done"})
    finally:
        os._exit(0)


def _start(batch, memory_mb, timeout):
    read_fd, write_fd = os.pipe()
    log = tempfile.TemporaryFile()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        _child(batch, write_fd, log, memory_mb)
    os.close(write_fd)
    return Running(batch, pid, read_fd, log, timeout)


def _status(wait_status) -> dict:
    if os.WIFSIGNALED(wait_status):
        number = os.WTERMSIG(wait_status)
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = str(number)
        return {"status": "signal", "signal": name}
    return {"status": "exited", "code": os.WEXITSTATUS(wait_status)}


def _exit_event(run: Running, job_id, status: dict):
    status.update(event="exit", job=job_id, seconds=round(time.monotonic() - run.started, 3))
    send(status)


def _kill(run: Running):
    try:
        os.killpg(run.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        try:
            os.kill(run.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _stop_leftovers(run: Running):
    """Processes the program started and left running (a data-loader worker, a server) are in
    the child's session: stop them with it."""
    try:
        os.killpg(run.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _forward(run: Running, line: bytes):
    """Pass a child's event on; track which job it is working on."""
    try:
        event = json.loads(line)
    except ValueError:
        return
    kind = event.get("event")
    if kind == "begin":
        run.begin(event.get("job"))
        return
    if kind == "unit_start":
        run.unit = event.get("unit")
    elif kind == "unit":
        run.unit = None
    os.write(_PROTOCOL_FD, line + b"\n")
    if kind == "done":
        run.finished.add(event.get("job"))
        _exit_event(run, event.get("job"), {"status": "exited", "code": 0, "cpu": event.get("cpu")})
        run.current = None


def _ended(run: Running, status: dict, pending: list):
    """The child is gone. When it was in the middle of a unit and the job has units after it, the
    unit alone is reported (timed out, or killed) and the job goes on in a fresh child from the
    next unit: one hanging example does not cost the file its other verdicts. Otherwise the job
    it was on gets `status`. The jobs of the batch it never started are queued again, each in a
    child of its own (one of them may be what killed the batch)."""
    resumed = []
    if run.current is not None:
        status["log_tail"] = _log_tail(run.log)
        job = next((j for j in run.batch if j["id"] == run.current), None)
        units = len(job.get("units", [])) if job else 0
        if job is not None and run.unit is not None and run.unit + 1 < units:
            send(dict(status, event="unit_lost", job=run.current, unit=run.unit,
                      seconds=round(time.monotonic() - run.started, 3)))
            resumed = [[dict(job, resume_at=run.unit + 1)]]
        else:
            _exit_event(run, run.current, status)
    run.log.close()
    pending[:0] = resumed + [[job] for job in run.remaining()]


def serve(jobs: int, timeout: float, memory_mb: int) -> int:
    pending, running = [], {}
    stdin_open, stdin_buffer = True, b""

    def shutdown(*_):
        for run in list(running.values()):
            _kill(run)
        os._exit(1)

    signal.signal(signal.SIGTERM, shutdown)
    # Ctrl-C reaches the whole foreground group: the parent handles it and sends SIGTERM
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        _loop(jobs, timeout, memory_mb, pending, running, stdin_open, stdin_buffer)
    except BrokenPipeError:             # the parent went away: leave nothing running behind
        shutdown()
    return 0


def _loop(jobs, timeout, memory_mb, pending, running, stdin_open, stdin_buffer):
    while stdin_open or pending or running:
        while pending and len(running) < jobs:
            run = _start(pending.pop(0), memory_mb, timeout)
            running[run.fd] = run
        now = time.monotonic()
        deadlines = [r.deadline for r in running.values() if r.deadline is not None]
        wait = max(0.0, min(deadlines) - now) if deadlines else None
        watched = list(running) + ([0] if stdin_open else [])
        readable, _, _ = select.select(watched, [], [], wait)
        for fd in readable:
            if fd == 0:
                chunk = os.read(0, 1 << 16)
                if not chunk:
                    stdin_open = False
                stdin_buffer += chunk
                *lines, stdin_buffer = stdin_buffer.split(b"\n")
                # one line = one batch: a JSON list of jobs (or a single job)
                for line in lines:
                    if line.strip():
                        item = json.loads(line)
                        pending.append(item if isinstance(item, list) else [item])
                continue
            run = running[fd]
            chunk = os.read(fd, 1 << 16)
            if chunk:
                run.buffer += chunk
                *lines, run.buffer = run.buffer.split(b"\n")
                for line in lines:
                    if line.strip():
                        _forward(run, line)
                continue
            del running[fd]
            os.close(fd)
            _, wait_status = os.waitpid(run.pid, 0)
            _stop_leftovers(run)
            _ended(run, _status(wait_status), pending)
        now = time.monotonic()
        for fd, run in list(running.items()):
            if run.deadline is not None and now >= run.deadline:
                _kill(run)
                del running[fd]
                os.close(fd)
                os.waitpid(run.pid, 0)
                _ended(run, {"status": "timeout", "limit": timeout}, pending)


def warm_up():
    """Trace (never compile) a small program so that each child starts with JAX's tracing
    machinery warm. No backend starts: forking after one starts is unsafe."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    def program(x, n):
        y = jnp.tanh(x @ x.T).sum(axis=0) * n
        z = jnp.where(y > 0, y, -y)[:2]
        carry = lax.scan(lambda c, v: (c + v, v * 2), 0.0, z)[0]
        return carry + jnp.mean(jax.vmap(jnp.sin)(x)) + lax.cond(n > 0, lambda: 1.0, lambda: 2.0)

    try:
        jax.jit(program, static_argnums=1).trace(jax.ShapeDtypeStruct((3, 3), jnp.float32), 2)
        jax.make_jaxpr(lambda x: jax.grad(lambda v: (v ** 2).sum())(x) + jnp.arange(3.0) + jnp.zeros(3))(
            jax.ShapeDtypeStruct((3,), jnp.float32))
    except Exception:  # noqa: BLE001 - only an optimisation
        pass


def main(argv=None) -> int:
    global _PROTOCOL_FD
    parser = argparse.ArgumentParser(prog="python -m jaxlint.verify.zygote")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--memory-mb", type=int, default=2048)
    args = parser.parse_args(argv)
    # The protocol gets its own descriptor; anything imported modules print goes to stderr.
    _PROTOCOL_FD = os.dup(1)
    os.dup2(2, 1)
    try:
        import jax
        import jax.numpy  # noqa: F401 - preloaded for every child
        import numpy  # noqa: F401
        from jaxlint.verify import child, directives, instrument, marks, recorder  # noqa: F401
        warm_up()
        import gc
        # objects alive now are shared with every child: keep the collector from touching (and
        # so copying) their pages in each one
        gc.collect()
        gc.freeze()
    except Exception as exc:  # noqa: BLE001
        send({"event": "fatal", "error": f"cannot import JAX ({type(exc).__name__}: {exc}); verify needs "
                                         f"it: pip install 'flake8-jaxlint[verify]'"})
        return 3
    send({"event": "ready", "jax": jax.__version__, "python": sys.version.split()[0]})
    try:
        return serve(max(1, args.jobs), args.timeout, args.memory_mb)
    except BrokenPipeError:
        return 1


if __name__ == "__main__":
    sys.exit(main())
