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
