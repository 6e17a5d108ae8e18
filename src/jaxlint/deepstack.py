"""Run the analysis where deeply nested code cannot exhaust the stack.

The analysis recurses a few Python frames per level of the syntax tree, and `ast.parse` accepts
trees about 3,000 levels deep under Python's default recursion limit of 1,000 (a `1 + 1 + ...`
of 2,000 terms, a chain of 1,000 lambdas). Under the default limit such files would be skipped.
`call` runs a function on a thread with a large stack and a raised recursion limit, so they are
analysed like any other file; deeper input still ends in a RecursionError, never in a crash of
the interpreter, because the stack is far larger than the frames the limit allows need.

The thread is kept between calls: starting one per file cost 0.2-0.4 ms, as much as analysing a
small file, and flake8 calls the plugin once per file.
"""

from __future__ import annotations

import os
import queue
import sys
import threading

RECURSION_LIMIT = 20_000          # ~6 frames for each level of the deepest tree ast.parse builds
STACK_BYTES = 256 * 1024 * 1024   # measured: ~0.6 kB of C stack per frame; this allows ~13 kB

_lock = threading.Lock()
_active = 0           # calls currently running under the raised limit
_saved_limit = 0      # the limit to restore when the last one finishes
_parked = None        # a worker waiting for its next job, or None


class _Worker:
    """A deep-stack thread that runs the jobs handed to it, one at a time, until told to stop."""

    def __init__(self):
        self.pid = os.getpid()
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        _start(self._serve)

    def run(self, fn, args, kwargs) -> tuple:
        """(True, result) or (False, exception) of fn(*args, **kwargs), run on this thread."""
        done: queue.SimpleQueue = queue.SimpleQueue()
        self._jobs.put((fn, args, kwargs, done))
        return done.get()

    def stop(self):
        self._jobs.put(None)

    def _serve(self):
        while True:
            job = self._jobs.get()
            if job is None:
                return
            fn, args, kwargs, done = job
            try:
                outcome = (True, fn(*args, **kwargs))
            except BaseException as exc:  # noqa: BLE001 - handed back to the caller unchanged
                outcome = (False, exc)
            del job, fn, args, kwargs      # hold nothing of this job (a syntax tree) until the next
            done.put(outcome)
            del outcome, done


def call(fn, *args, **kwargs):
    """fn(*args, **kwargs) on a thread with a deep stack: its result, or its exception re-raised.

    Falls back to calling fn directly when no such thread can be started (a platform without
    threads, or a memory limit that refuses the stack)."""
    try:
        worker = _take_worker()
    except (RuntimeError, ValueError, MemoryError):
        return fn(*args, **kwargs)
    _raise_limit()
    try:
        ok, value = worker.run(fn, args, kwargs)
    finally:
        _restore_limit()
        _park(worker)
    if not ok:
        try:
            raise value
        finally:
            del value
    return value


def _take_worker() -> _Worker:
    global _parked
    with _lock:
        worker, _parked = _parked, None
    if worker is not None and worker.pid == os.getpid():
        return worker
    return _Worker()      # none parked (another caller has it), or a fork left it behind


def _park(worker: _Worker):
    """Keep the worker for the next call; a second one (concurrent callers) ends."""
    global _parked
    with _lock:
        if _parked is None:
            _parked, worker = worker, None
    if worker is not None:
        worker.stop()


def _start(target) -> threading.Thread:
    """A daemon thread with a deep stack running target."""
    with _lock:
        old_size = threading.stack_size()
        threading.stack_size(STACK_BYTES)
        try:
            thread = threading.Thread(target=target, name="jaxlint-analysis", daemon=True)
            thread.start()
        finally:
            threading.stack_size(old_size)
    return thread


def _raise_limit():
    global _active, _saved_limit
    with _lock:
        if _active == 0:
            _saved_limit = sys.getrecursionlimit()
            sys.setrecursionlimit(max(_saved_limit, RECURSION_LIMIT))
        _active += 1


def _restore_limit():
    """Restore the caller's recursion limit once no call needs the raised one."""
    global _active
    with _lock:
        _active -= 1
        if _active == 0:
            sys.setrecursionlimit(_saved_limit)


def _forget_after_fork():
    """A forked child has none of its parent's threads: start afresh."""
    global _lock, _active, _parked
    if _active:
        sys.setrecursionlimit(_saved_limit)
    _lock, _active, _parked = threading.Lock(), 0, None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_after_fork)
