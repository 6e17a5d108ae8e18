"""Evaluates one file's examples inside a disposable child process and reports what happened.

CHILD SIDE: runs user code. Only the zygote (`zygote.py`) calls `run_job`, in a forked process
with a memory limit, whose lifetime the zygote bounds. Nothing here decides a verdict: it records
observations (exceptions and the line they point at, the lines executed, what was printed and
from which line, every trace and compile, jit-versus-eager results, the source lines of staged
equations) and `verdicts.py` judges them in the parent.
"""

from __future__ import annotations

import importlib
import importlib.util
import io
import os
import sys
import time
import traceback

from jaxlint.verify.directives import compile_example

MAX_WRITES = 200
MAX_TEXT = 300
MAX_EQNS = 20000
SYNTH_FILENAME = "<jaxlint-synthesized>"


class Unreachable(Exception):
    """The function a synthesized call targets cannot be reached from the module namespace."""


# -- observation helpers --------------------------------------------------------------------------

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
    return {
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
    if a.startswith("<") or b.startswith("<"):
        return False
    for p in (a, b):
        if p not in _REAL:
            _REAL[p] = os.path.realpath(p)
    return _REAL[a] == _REAL[b]


class LineAttributedOutput(io.TextIOBase):
    """A stdout replacement that remembers which line of the file wrote each piece of text."""

    def __init__(self, filename: str):
        super().__init__()
        self.filename = filename
        self.writes: list = []
        self.size = 0

    def writable(self):
        return True

    def write(self, text):
        if not text:
            return 0
        text = str(text)
        line = None
        frame = sys._getframe(1)
        while frame is not None:
            if _same_file(frame.f_code.co_filename, self.filename):
                line = frame.f_lineno
                break
            frame = frame.f_back
        if len(self.writes) < MAX_WRITES:
            self.writes.append([line, text[:MAX_TEXT]])
        self.size += len(text)
        return len(text)

    def flush(self):
        pass


def _trace_probe():
    """A function telling whether JAX is tracing right now (not evaluating eagerly), or None
    when this JAX version's internals are not the ones known here."""
    try:
        from jax._src import core
        context, eager = core.trace_ctx, core.EvalTrace
        type(context.trace)
    except Exception:  # noqa: BLE001
        return None
    return lambda: type(context.trace) is not eager


class LineCoverage:
    """The lines of one file executed while active (sys.settrace, this thread only), and those
    executed while JAX was tracing (under jit, a transform or a lax body)."""

    def __init__(self, filename: str):
        self.filename = filename
        self.lines: set = set()
        self.traced: set = set()
        self._previous = None
        self._matches: dict = {}
        self._tracing = _trace_probe()

    def _local(self, frame, event, arg):
        if event == "line":
            line = frame.f_lineno
            self.lines.add(line)
            if self._tracing is not None and line not in self.traced and self._tracing():
                self.traced.add(line)
        return self._local

    def traced_lines(self):
        return sorted(self.traced) if self._tracing is not None else None

    def _global(self, frame, event, arg):
        # called on every Python call while active: one dict lookup on the fast path
        name = frame.f_code.co_filename
        match = self._matches.get(name)
        if match is None:
            match = self._matches[name] = _same_file(name, self.filename)
        return self._local if match else None

    def __enter__(self):
        self._previous = sys.gettrace()
        sys.settrace(self._global)
        return self

    def __exit__(self, *exc):
        sys.settrace(self._previous)
        return False


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


def equation_lines(jaxpr, filename: str) -> list:
    """[[line, primitive], ...] for every equation (sub-jaxprs included, in order) whose
    source_info points into `filename`; equations from other files are skipped."""
    out: list = []

    def walk(jx):
        for eqn in jx.eqns:
            if len(out) >= MAX_EQNS:
                return
            line = None
            traceback_ = getattr(eqn.source_info, "traceback", None)
            if traceback_ is not None:
                for frame in traceback_.frames:          # innermost first
                    if _same_file(frame.file_name, filename):
                        line = frame.line_num
                        break
            if line is not None:
                out.append([line, str(eqn.primitive)])
            for value in eqn.params.values():
                for sub in value if isinstance(value, (tuple, list)) else (value,):
                    inner = getattr(sub, "jaxpr", sub)
                    if hasattr(inner, "eqns"):
                        walk(inner)

    walk(getattr(jaxpr, "jaxpr", jaxpr))
    return out


# -- synthesized calls ---------------------------------------------------------------------------

def _resolve(module, qualname):
    obj = module
    for part in qualname.split("."):
        if part == "<locals>":
            return None
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _is_jitted(obj) -> bool:
    return callable(obj) and hasattr(obj, "trace") and hasattr(obj, "lower")


def synth_helpers(module) -> dict:
    """Names available to synthesized calls: `__jaxlint_trace__` and the array module."""
    import jax
    import jax.numpy as jnp

    def trace(qualname, *args, **kwargs):
        obj = _resolve(module, qualname)
        if obj is None:
            raise Unreachable(f"`{qualname}` is not reachable from the module namespace")
        if _is_jitted(obj):
            return obj.trace(*args, **kwargs)
        for value in vars(module).values():
            if _is_jitted(value) and getattr(value, "__wrapped__", None) is obj:
                return value.trace(*args, **kwargs)
        return jax.make_jaxpr(obj)(*args, **kwargs)

    return {"__jaxlint_trace__": trace, "__jaxlint_jnp__": jnp, "__jaxlint_jax__": jax}


# -- the job ---------------------------------------------------------------------------------------

def import_module(path: str, name: str):
    """Import `path` as module `name` (never "__main__", so its main block does not run)."""
    directory = os.path.dirname(path)
    if directory not in sys.path:
        sys.path.insert(0, directory)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def run_job(job: dict, emit) -> None:
    """Import the job's file and evaluate each unit; every step is emitted as soon as it ends, so
    a later hang or crash leaves the earlier observations intact."""
    from jaxlint.verify.recorder import Recorder

    path = os.path.realpath(job["path"])
    probes = job.get("probes", {})
    if job.get("cache_dir"):
        # A compile cache shared by the run's children: the small kernels every module's eager
        # code needs (broadcast_in_dim for jnp.ones, ...) are compiled once per run, not per file.
        # Tracing is unaffected, and trace counts are what the verdicts use.
        import jax
        jax.config.update("jax_compilation_cache_dir", job["cache_dir"])
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    recorder = Recorder(keep_samples=bool(probes.get("jaxpr"))).install()
    start = time.perf_counter()
    import jax
    jax.devices()                       # backend start-up, timed apart from the module's work
    emit({"event": "init", "seconds": round(time.perf_counter() - start, 4)})

    start = time.perf_counter()
    out = LineAttributedOutput(path)
    saved = sys.stdout
    sys.stdout = out
    try:
        module = import_module(path, job["module"])
        error = None
    except BaseException as exc:  # noqa: BLE001 - anything the module raises is an observation
        module, error = None, describe_exception(exc, path)
    finally:
        sys.stdout = saved
    emit({"event": "import", "ok": module is not None, "error": error,
          "seconds": round(time.perf_counter() - start, 4), "traces": recorder.records[:]})
    if module is None:
        recorder.uninstall()
        return

    try:
        _run_units(job, module, path, probes, recorder, emit)
    finally:
        recorder.uninstall()        # the next file of a batch installs its own


def _run_units(job, module, path, probes, recorder, emit):
    helpers = None
    for index, unit in enumerate(job.get("units", [])):
        emit({"event": "unit_start", "unit": index})
        if unit["kind"] == "synth":
            if helpers is None:
                helpers = synth_helpers(module)
            namespace = dict(vars(module))
            namespace.update(helpers)
            filename = SYNTH_FILENAME
        else:
            namespace = vars(module)
            filename = path
        obs = evaluate(unit, namespace, path, filename, probes, recorder)
        obs.update(event="unit", unit=index)
        emit(obs)


def _eval(code, namespace, path):
    out = LineAttributedOutput(path)
    saved = sys.stdout
    sys.stdout = out
    try:
        result = eval(code, namespace)  # noqa: S307 - the verifier's purpose is to run examples
        return True, result, None, out
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - SystemExit from user code is an observation too
        return False, None, describe_exception(exc, path), out
    finally:
        sys.stdout = saved


def evaluate(unit: dict, namespace: dict, path: str, filename: str, probes: dict, recorder) -> dict:
    try:
        code = compile_example(unit["expr"], filename, unit.get("line", 1))
    except SyntaxError as exc:
        return {"ok": False, "error": {"type": "SyntaxError", "module": "builtins",
                                       "mro": ["SyntaxError"], "message": str(exc), "line": None,
                                       "function": None, "file_lines": []},
                "seconds": 0.0, "lines": [], "writes": [], "traces": []}
    if probes.get("stage_first") and unit["kind"] == "example":
        staged = _stage(code, namespace, path, probes, recorder)
        if staged is not None:
            return staged
    mark = recorder.mark()
    start = time.perf_counter()
    coverage = LineCoverage(path)
    if probes.get("coverage", True):
        with coverage:
            ok, result, error, out = _eval(code, namespace, path)
    else:
        ok, result, error, out = _eval(code, namespace, path)
    obs = {"ok": ok, "error": error, "seconds": round(time.perf_counter() - start, 4),
           "lines": sorted(coverage.lines), "traced_lines": coverage.traced_lines(), "writes": out.writes,
           "traces": recorder.records[mark:], "trace_offset": mark}
    if not ok:
        return obs
    if probes.get("second_run"):
        mark2 = recorder.mark()
        ok2, _, error2, out2 = _eval(code, namespace, path)
        obs["second"] = {"ok": ok2, "error": error2, "writes": out2.writes,
                         "traces": recorder.records[mark2:]}
    if unit["kind"] == "synth":
        # a .trace() / make_jaxpr result: no value to compare, but its jaxpr shows any unrolling
        if probes.get("jaxpr"):
            jaxpr = getattr(result, "jaxpr", result)
            obs["eqns"] = [{"function": unit.get("target"), "seq": equation_lines(jaxpr, path)}] \
                if hasattr(getattr(jaxpr, "jaxpr", jaxpr), "eqns") else []
        return obs
    if probes.get("eager"):
        import jax
        with recorder.paused(), jax.disable_jit():
            ok3, eager, error3, _ = _eval(code, namespace, path)
        if ok3:
            try:
                obs["eager"] = compare_results(result, eager)
            except Exception as exc:  # noqa: BLE001
                obs["eager"] = {"same": None, "detail": f"could not compare: {type(exc).__name__}: {exc}"}
        else:
            obs["eager"] = {"same": None, "detail": f"eager run raised {error3['type']}: "
                                                    f"{error3['message'].splitlines()[0] if error3['message'] else ''}"}
    if probes.get("jaxpr"):
        obs["eqns"], obs["eqn_errors"] = _staged_equations(code, namespace, path, recorder, mark)
    return obs


def _stage(code, namespace, path, probes, recorder):
    """Evaluate an example under jax.make_jaxpr only: the traces and the staged equations without
    any XLA compile (an unrolled loop is exactly what compiles slowly). None when the example
    cannot be staged (it does Python work on concrete results): then it runs for real."""
    import jax

    mark = recorder.mark()
    start = time.perf_counter()
    coverage = LineCoverage(path)
    out = LineAttributedOutput(path)
    saved = sys.stdout
    sys.stdout = out
    try:
        with coverage:
            jaxpr = jax.make_jaxpr(lambda: eval(code, namespace))()  # noqa: S307
    except Exception:  # noqa: BLE001
        # The attempt traced some functions before failing: forget them, and empty JAX's caches
        # so that the real run traces (and is counted) from scratch.
        recorder.rollback(mark)
        jax.clear_caches()
        return None
    finally:
        sys.stdout = saved
    return {"ok": True, "error": None, "staged": True, "seconds": round(time.perf_counter() - start, 4),
            "lines": sorted(coverage.lines), "traced_lines": coverage.traced_lines(), "writes": out.writes,
            "traces": recorder.records[mark:], "trace_offset": mark,
            "eqns": [{"function": "<example>", "seq": equation_lines(jaxpr, path)}], "eqn_errors": []}


def _staged_equations(code, namespace, path, recorder, mark):
    """Source lines of the equations staged by this unit: each traced function re-staged from
    its recorded abstract arguments, and the whole example under make_jaxpr as a fallback."""
    import jax

    sequences, errors, seen = [], [], set()
    for index in range(mark, len(recorder.records)):
        rec = recorder.records[index]
        key = (rec.get("def_file"), rec.get("def_line"), rec.get("name"))
        if index not in recorder.samples or key in seen:
            continue
        seen.add(key)
        try:
            jaxpr = recorder.retrace(index)
            sequences.append({"function": rec.get("qualname"), "seq": equation_lines(jaxpr, path)})
        except Exception as exc:  # noqa: BLE001
            errors.append(f"{rec.get('qualname')}: {type(exc).__name__}: {str(exc)[:200]}")
    try:
        with recorder.paused():
            jaxpr = jax.make_jaxpr(lambda: eval(code, namespace))()  # noqa: S307
        sequences.append({"function": "<example>", "seq": equation_lines(jaxpr, path)})
    except Exception as exc:  # noqa: BLE001 - examples that do Python work on results cannot be staged
        errors.append(f"<example>: {type(exc).__name__}: {str(exc)[:200]}")
    return sequences, errors
