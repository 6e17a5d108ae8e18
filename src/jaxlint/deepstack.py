"""Run the analysis where deeply nested code cannot exhaust the stack.

The analysis recurses a few Python frames per level of the syntax tree, and `ast.parse` accepts
trees about 3,000 levels deep under Python's default recursion limit of 1,000 (a `1 + 1 + ...`
of 2,000 terms, a chain of 1,000 lambdas). Under the default limit such files would be skipped.
`call` runs a function on a fresh thread with a large stack and a raised recursion limit, so they
are analysed like any other file; deeper input still ends in a RecursionError, never in a crash
of the interpreter, because the stack is far larger than the frames the limit allows need.
"""

from __future__ import annotations

import sys
import threading

RECURSION_LIMIT = 20_000          # ~6 frames for each level of the deepest tree ast.parse builds
STACK_BYTES = 256 * 1024 * 1024   # measured: ~0.6 kB of C stack per frame; this allows ~13 kB

_lock = threading.Lock()
_active = 0           # threads currently running under the raised limit
_saved_limit = 0      # the limit to restore when the last one finishes


def call(fn, *args, **kwargs):
    """fn(*args, **kwargs) on a thread with a deep stack: its result, or its exception re-raised.

    Falls back to calling fn directly when no such thread can be started (a platform without
    threads, or a memory limit that refuses the stack)."""
    outcome = {}

    def target():
        try:
            outcome["result"] = fn(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001 - handed back to the caller unchanged
            outcome["error"] = exc

    try:
        thread = _start(target)
    except (RuntimeError, ValueError, MemoryError):
        return fn(*args, **kwargs)
    try:
        thread.join()
    finally:
        _release()
    if "error" in outcome:
        raise outcome.pop("error")
    return outcome["result"]


def _start(target) -> threading.Thread:
    global _active, _saved_limit
    with _lock:
        old_size = threading.stack_size()
        threading.stack_size(STACK_BYTES)
        try:
            thread = threading.Thread(target=target, name="jaxlint-analysis", daemon=True)
            if _active == 0:
                _saved_limit = sys.getrecursionlimit()
                sys.setrecursionlimit(max(_saved_limit, RECURSION_LIMIT))
            _active += 1
            try:
                thread.start()
            except BaseException:
                _active -= 1
                if _active == 0:
                    sys.setrecursionlimit(_saved_limit)
                raise
        finally:
            threading.stack_size(old_size)
    return thread


def _release():
    """Restore the caller's recursion limit once no analysis thread needs the raised one."""
    global _active
    with _lock:
        _active -= 1
        if _active == 0:
            sys.setrecursionlimit(_saved_limit)
