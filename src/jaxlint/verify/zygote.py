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
    def __init__(self, job, pid, fd, log, deadline):
        self.job, self.pid, self.fd, self.log = job, pid, fd, log
        self.deadline = deadline
        self.started = time.monotonic()
        self.buffer = b""


def _log_tail(log, limit=2000) -> str:
    try:
        log.flush()
        size = os.fstat(log.fileno()).st_size
        os.lseek(log.fileno(), max(0, size - limit), os.SEEK_SET)
        return os.read(log.fileno(), limit).decode("utf-8", "replace")
    except OSError:
        return ""


def _child(job, write_fd, log, memory_mb):
    """In the forked process: isolate, limit, run the job, and never return."""
    try:
        os.setsid()
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)
        os.close(_PROTOCOL_FD)
        if memory_mb:
            import resource
            limit = int(memory_mb) * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        writer = os.fdopen(write_fd, "w", buffering=1)

        def emit(event):
            event["job"] = job["id"]
            writer.write(json.dumps(event, default=str) + "\n")
            writer.flush()

        from jaxlint.verify import child
        try:
            child.run_job(job, emit)
            emit({"event": "done"})
        except MemoryError:
            emit({"event": "internal", "memory": True, "error": "MemoryError in the verifier"})
        except BaseException:  # noqa: BLE001 - report, then exit
            emit({"event": "internal", "error": traceback.format_exc()[-3000:]})
    finally:
        os._exit(0)


def _start(job, memory_mb, timeout):
    read_fd, write_fd = os.pipe()
    log = tempfile.TemporaryFile()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        _child(job, write_fd, log, memory_mb)
    os.close(write_fd)
    deadline = time.monotonic() + timeout if timeout else None
    return Running(job, pid, read_fd, log, deadline)


def _status(wait_status) -> dict:
    if os.WIFSIGNALED(wait_status):
        number = os.WTERMSIG(wait_status)
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = str(number)
        return {"status": "signal", "signal": name}
    return {"status": "exited", "code": os.WEXITSTATUS(wait_status)}


def _finish(run: Running, status: dict):
    status.update(event="exit", job=run.job["id"], seconds=round(time.monotonic() - run.started, 3),
                  log_tail=_log_tail(run.log))
    run.log.close()
    send(status)


def _kill(run: Running):
    try:
        os.killpg(run.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        try:
            os.kill(run.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def serve(jobs: int, timeout: float, memory_mb: int) -> int:
    pending, running = [], {}
    stdin_open, stdin_buffer = True, b""

    def shutdown(*_):
        for run in list(running.values()):
            _kill(run)
        os._exit(1)

    signal.signal(signal.SIGTERM, shutdown)
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
                pending.extend(json.loads(line) for line in lines if line.strip())
                continue
            run = running[fd]
            chunk = os.read(fd, 1 << 16)
            if chunk:
                run.buffer += chunk
                *lines, run.buffer = run.buffer.split(b"\n")
                for line in lines:
                    if line.strip():
                        os.write(_PROTOCOL_FD, line + b"\n")
                continue
            del running[fd]
            os.close(fd)
            _, wait_status = os.waitpid(run.pid, 0)
            _finish(run, _status(wait_status))
        now = time.monotonic()
        for fd, run in list(running.items()):
            if run.deadline is not None and now >= run.deadline:
                _kill(run)
                del running[fd]
                os.close(fd)
                os.waitpid(run.pid, 0)
                _finish(run, {"status": "timeout", "limit": timeout})
    return 0


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
        from jaxlint.verify import child, directives, recorder  # noqa: F401
    except Exception as exc:  # noqa: BLE001
        send({"event": "fatal", "error": f"cannot import JAX: {type(exc).__name__}: {exc}"})
        return 3
    send({"event": "ready", "jax": jax.__version__, "python": sys.version.split()[0]})
    try:
        return serve(max(1, args.jobs), args.timeout, args.memory_mb)
    except BrokenPipeError:
        return 1


if __name__ == "__main__":
    sys.exit(main())
