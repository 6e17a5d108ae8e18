"""deepstack.call: deep recursion works inside it, and nothing about the caller changes."""

import sys
import threading

import pytest

from jaxlint import deepstack


def depth(n):
    return 0 if n == 0 else 1 + depth(n - 1)


def test_recursion_far_past_the_default_limit_works_inside():
    limit = sys.getrecursionlimit()
    with pytest.raises(RecursionError):
        depth(limit + 100)
    assert deepstack.call(depth, 10_000) == 10_000
    assert sys.getrecursionlimit() == limit


def test_exceptions_reach_the_caller_with_their_traceback():
    def boom():
        raise KeyError("inside")

    with pytest.raises(KeyError, match="inside") as info:
        deepstack.call(boom)
    assert info.traceback[-1].name == "boom"


def test_runaway_recursion_is_a_recursion_error_not_a_crash():
    def forever(n):
        return forever(n + 1)

    with pytest.raises(RecursionError):
        deepstack.call(forever, 0)


def test_concurrent_callers_restore_the_limit_once_all_are_done():
    limit = sys.getrecursionlimit()
    results, gate = [], threading.Barrier(4)

    def worker():
        gate.wait()
        results.append(deepstack.call(depth, 5_000))

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [5_000] * 4
    assert sys.getrecursionlimit() == limit


def test_falls_back_to_the_calling_thread_when_no_thread_can_start(monkeypatch):
    def refuse(target):
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(deepstack, "_start", refuse)
    assert deepstack.call(depth, 10) == 10


def test_one_thread_serves_consecutive_calls():
    first = deepstack.call(threading.get_ident)
    second = deepstack.call(threading.get_ident)
    assert first == second != threading.get_ident()


def test_the_worker_holds_nothing_of_a_finished_call():
    import gc
    import weakref

    class Tree:
        pass

    tree = Tree()
    ref = weakref.ref(tree)
    deepstack.call(lambda t: None, tree)
    del tree
    gc.collect()
    assert ref() is None


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs os.fork")
def test_a_forked_child_starts_its_own_thread():
    import os

    deepstack.call(depth, 10)          # the parent's worker exists before the fork
    pid = os.fork()
    if pid == 0:                       # child: the parent's thread is not here
        ok = False
        try:
            import signal
            signal.alarm(20)           # a call handed to the parent's (absent) thread would hang
            ok = deepstack.call(depth, 5_000) == 5_000
        finally:
            os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
