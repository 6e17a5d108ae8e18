"""What the child process observes of an exception or a result, shared by the example runner
(`child.py`) and the instrumentation of traced calls (`instrument.py`).

CHILD SIDE: called while user code runs.
"""

from __future__ import annotations

import os
import traceback


def describe_exception(exc: BaseException, filename: str) -> dict:
    """Type, message and the innermost frame in `filename`, following __cause__ (reference §R1)."""
    line, function, lines = None, None, []
    seen, current = set(), exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        hits = [fs for fs in traceback.extract_tb(current.__traceback__)
                if _same_file(fs.filename, filename)]
        if hits:
            line, function = hits[-1].lineno, hits[-1].name
            lines = [fs.lineno for fs in hits]
            break
        current = current.__cause__
    message = str(exc)
    chain_lines, seen2, current = [], set(), exc
    while current is not None and id(current) not in seen2:
        seen2.add(id(current))
        chain_lines += [fs.lineno for fs in traceback.extract_tb(current.__traceback__)
                        if _same_file(fs.filename, filename)]
        current = current.__cause__ or current.__context__
    return {
        "chain_lines": chain_lines,
        "type": type(exc).__name__,
        "module": type(exc).__module__,
        "mro": [cls.__name__ for cls in type(exc).__mro__],
        "message": message[:4000],
        "line": line,
        "function": function,
        "file_lines": lines,
    }


_REAL = {}


def _same_file(a: str, b: str) -> bool:
    if a == b:
        return True
    if a.startswith("<") or b.startswith("<") or os.path.basename(a) != os.path.basename(b):
        return False                # no filesystem look-up for the many frames of other files
    for p in (a, b):
        if p not in _REAL:
            _REAL[p] = os.path.realpath(p)
    return _REAL[a] == _REAL[b]


def compare_results(jitted, eager) -> dict:
    """Whether two results agree leaf by leaf (floats to 1e-5), with a short description."""
    import numpy as np
    from jax.tree_util import tree_flatten

    leaves_a, tree_a = tree_flatten(jitted)
    leaves_b, tree_b = tree_flatten(eager)
    if tree_a != tree_b:
        return {"same": False, "detail": f"result structure {tree_a} under jit, {tree_b} eagerly"}
    for index, (a, b) in enumerate(zip(leaves_a, leaves_b)):
        try:
            xa, xb = np.asarray(a), np.asarray(b)
        except Exception:  # noqa: BLE001 - non-array leaves
            if a != b:
                return {"same": False, "detail": f"leaf {index}: {a!r} under jit, {b!r} eagerly"}
            continue
        if xa.shape != xb.shape:
            return {"same": False, "detail": f"leaf {index}: shape {xa.shape} under jit, {xb.shape} eagerly"}
        if xa.dtype.kind in "fc" or xb.dtype.kind in "fc":
            equal = np.allclose(xa, xb, rtol=1e-5, atol=1e-6, equal_nan=True)
        else:
            equal = np.array_equal(xa, xb)
        if not equal:
            return {"same": False,
                    "detail": f"leaf {index}: {_brief(xa)} under jit, {_brief(xb)} eagerly"}
    return {"same": True, "detail": ""}


def _brief(array) -> str:
    text = repr(array.tolist()) if array.size <= 8 else f"{array.dtype}{list(array.shape)}"
    return text if len(text) <= 80 else text[:79] + "…"
