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
import warnings

from jaxlint.verify import marks
from jaxlint.verify.observe import _same_file, describe_exception
from jaxlint.verify.directives import compile_example

MAX_WRITES = 200
MAX_TEXT = 300
MAX_EQNS = 20000
SYNTH_FILENAME = "<jaxlint-synthesized>"


class Unreachable(Exception):
    """The function a synthesized call targets cannot be reached from the module namespace."""


# -- observation helpers --------------------------------------------------------------------------

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


def equation_lines(jaxpr, filename: str, nested_only: bool = False) -> list:
    """[[line, primitive], ...] for every equation (sub-jaxprs included, in order) whose
    source_info points into `filename`; equations from other files are skipped. `nested_only`
    skips the top level: for a jaxpr the verifier staged around a whole run, whose top level is
    the program's eager code (only what jit, scan & co. staged inside is the program's)."""
    out: list = []

    def walk(jx, top=False):
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
            if line is not None and not (top and nested_only):
                out.append([line, str(eqn.primitive)])
            for value in eqn.params.values():
                for sub in value if isinstance(value, (tuple, list)) else (value,):
                    inner = getattr(sub, "jaxpr", sub)
                    if hasattr(inner, "eqns"):
                        walk(inner)

    walk(getattr(jaxpr, "jaxpr", jaxpr), top=True)
    return out


# -- guessed inputs --------------------------------------------------------------------------------

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


def synth_helpers(module, session_of) -> dict:
    """Names available to guessed calls: `__jaxlint_trace__` (trace a function without compiling),
    `__jaxlint_guess__` (call a function of the file with guessed arguments, remembering which
    objects were guessed) and the array modules."""
    import jax
    import jax.numpy as jnp

    def trace(qualname, /, *args, **kwargs):
        session = session_of()
        _remember(session, args, kwargs)
        try:
            return _trace(qualname, args, kwargs)
        except Exception as exc:
            # .trace() sees only abstract values: its errors are the same staged or not
            if session is not None:
                session.trusted_errors.append(str(exc)[:4000])
            raise

    def _trace(qualname, args, kwargs):
        obj = _resolve(module, qualname)
        if obj is None:
            raise Unreachable(f"`{qualname}` is not reachable from the module namespace")
        session = session_of()
        if _is_jitted(obj):
            return obj.trace(*args, **kwargs)
        for value in vars(module).values():
            if _is_jitted(value) and getattr(value, "__wrapped__", None) is obj:
                return value.trace(*args, **kwargs)
        if session is not None:
            # not jitted by the program: tracing it at all is the verifier's choice
            session.traced_by_guess = True
        return jax.make_jaxpr(obj)(*args, **kwargs)

    def guess(function, /, *args, **kwargs):
        _remember(session_of(), args, kwargs)
        return function(*args, **kwargs)

    return {"__jaxlint_trace__": trace, "__jaxlint_guess__": guess, "__jaxlint_jnp__": jnp,
            "__jaxlint_jax__": jax}


def _remember(session, args, kwargs):
    if session is None:
        return
    import jax
    for value in list(args) + list(kwargs.values()):
        session.guessed.add(id(value))
        try:
            session.guessed.update(id(leaf) for leaf in jax.tree_util.tree_leaves(value))
        except Exception:  # noqa: BLE001
            pass


# -- the job ---------------------------------------------------------------------------------------

PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg")


def import_roots(path: str) -> tuple:
    """([folders the file's own imports need on sys.path], its package or ""), as an installed
    project would have them: for a file under `<project>/src/` (the project found by its
    pyproject.toml, setup.py or setup.cfg), the `src/` folder, so that `import mypkg` works without
    PYTHONPATH; for a file inside a package (folders with `__init__.py`) of a flat layout, the
    project folder. The package is the dotted folder path from that root, for relative imports."""
    directory = os.path.dirname(os.path.abspath(path))
    project = directory
    while not any(os.path.isfile(os.path.join(project, m)) for m in PROJECT_MARKERS):
        parent = os.path.dirname(project)
        if parent == project:
            return [], ""
        project = parent
    src = os.path.join(project, "src")
    if directory == src or directory.startswith(src + os.sep):
        root = src
    elif os.path.isfile(os.path.join(directory, "__init__.py")) and directory != project:
        root = project
    else:
        return [], ""
    parts = os.path.relpath(directory, root).split(os.sep) if directory != root else []
    package = ".".join(parts) if parts and all(p.isidentifier() for p in parts) else ""
    return [root], package


def import_module(path: str, name: str, lines=()):
    """Import `path` as module `name` (never "__main__", so its main block does not run), with a
    marker before the statements starting on `lines` (see `marks.py`)."""
    import ast

    directory = os.path.dirname(path)
    roots, package = import_roots(path)
    for folder in reversed([directory] + roots):
        if folder not in sys.path:
            sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    if package:                         # `from .util import f` resolves in the real package
        module.__package__ = package
    sys.modules[name] = module
    marks.SPANS.clear()                 # the previous file's, when a child verifies several
    if not lines:
        spec.loader.exec_module(module)
        return module
    with open(path, "rb") as handle:
        tree = ast.parse(handle.read(), path)
    code = compile(marks.insert(tree, lines), path, "exec", dont_inherit=True)
    module.__dict__[marks.NAME] = marks.mark
    exec(code, module.__dict__)  # noqa: S102 - importing the file is what verify does
    return module


def run_job(job: dict, emit) -> None:
    """Import the job's file and evaluate each unit; every step is emitted as soon as it ends, so
    a later hang or crash leaves the earlier observations intact. A job resumed after a unit hung
    (`resume_at`) imports the module again and goes on from the next unit."""
    from jaxlint.verify import instrument
    from jaxlint.verify.recorder import Recorder

    path = os.path.realpath(job["path"])
    probes = job.get("probes", {})
    # the program sees its own name as argv, never the verifier's command line
    sys.argv = [path] + list(job.get("argv", []))
    if job.get("cache_dir"):
        # A compile cache shared by the run's children: the small kernels every module's eager
        # code needs (broadcast_in_dim for jnp.ones, ...) are compiled once per run, not per file.
        # Tracing is unaffected, and trace counts are what the verdicts use.
        import jax
        jax.config.update("jax_compilation_cache_dir", job["cache_dir"])
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    start = time.perf_counter()
    import jax
    # JAX's traceback filtering costs more than the trace of a small function, on every error;
    # the verdicts find the file's innermost frame in the full traceback just as well (§R1)
    jax.config.update("jax_traceback_filtering", "off")
    if probes.get("key_reuse"):
        # typed keys raise KeyReuseError where a key is consumed twice; a raw key reused draws
        # the same numbers silently, so the program's raw keys are made typed keys here
        jax.config.update("jax_debug_key_reuse", True)
        _typed_keys(jax)
    recorder = Recorder(keep_samples=bool(probes.get("jaxpr"))).install()
    instrument.install(path)
    # the backend starts when something first needs it: staged runs never do
    emit({"event": "init", "seconds": round(time.perf_counter() - start, 4)})

    start = time.perf_counter()
    lines = job.get("marks", [])
    session = instrument.Session(path, recorder, marks.Marks() if lines else None,
                                 stoppable=False, eager=probes.get("eager_functions", ()),
                                 repeat=probes.get("repeat_functions", ()))
    out = session.writes = LineAttributedOutput(path)
    saved = sys.stdout
    sys.stdout = out
    instrument.SESSION = session
    try:
        if session.coverage is not None:
            with session.coverage:
                module = import_module(path, job["module"], lines)
        else:
            module = import_module(path, job["module"], lines)
        error = None
    except BaseException as exc:  # noqa: BLE001 - anything the module raises is an observation
        module, error = None, describe_exception(exc, path)
    finally:
        sys.stdout = saved
        instrument.SESSION = None
    coverage = session.coverage
    emit({"event": "import", "ok": module is not None, "error": error,
          "seconds": round(time.perf_counter() - start, 4), "traces": recorder.records[:],
          "lines": sorted(coverage.lines) if coverage else [],
          "traced_lines": coverage.traced_lines() if coverage else None,
          "writes": out.writes, "calls": session.calls, "resumed": bool(job.get("resume_at"))})
    if module is None:
        recorder.uninstall()
        return
    try:
        _run_units(job, module, path, probes, recorder, emit)
    finally:
        recorder.uninstall()        # the next file of a batch installs its own
        instrument.uninstall()


def _run_units(job, module, path, probes, recorder, emit):
    helpers = None
    current = [None]
    for index, unit in enumerate(job.get("units", [])):
        if index < job.get("resume_at", 0):
            continue
        emit({"event": "unit_start", "unit": index})
        if unit["kind"] in ("synth", "guessed"):
            if helpers is None:
                helpers = synth_helpers(module, lambda: current[0])
            namespace = dict(vars(module))
            namespace.update(helpers)
        else:
            namespace = vars(module)
        obs = evaluate(unit, namespace, path, probes, recorder, current, job.get("budget"), job.get("marks", []))
        obs.update(event="unit", unit=index)
        emit(obs)


UNIT_FILENAMES = {"synth": SYNTH_FILENAME, "guessed": SYNTH_FILENAME, "call": "<jaxlint-driver>"}


def _code(unit: dict, path: str, lines=()):
    """Code object for a unit: an expression (examples, calls of the file's functions, guesses),
    or the statements of the file's `if __name__ == "__main__":` block at its own lines."""
    if unit["kind"] == "main":
        import ast
        with open(path, "rb") as handle:
            tree = ast.parse(handle.read(), path)
        for node in tree.body:
            if isinstance(node, ast.If) and node.lineno == unit["line"]:
                body = marks.insert(ast.Module(body=node.body, type_ignores=[]), lines)
                return compile(body, path, "exec", dont_inherit=True), "exec"
        raise SyntaxError(f"no `if __name__ == \"__main__\":` block at line {unit['line']}")
    filename = UNIT_FILENAMES.get(unit["kind"], path)
    line = unit.get("line", 1) if filename == path else 1
    return compile_example(unit["expr"], filename, line), "eval"


def evaluate(unit: dict, namespace: dict, path: str, probes: dict, recorder, current=None,
             budget=None, lines=()) -> dict:
    """Run one unit, staged first when the parent allows it (no XLA compile), else for real."""
    try:
        code, mode = _code(unit, path, lines)
    except SyntaxError as exc:
        return {"ok": False, "error": {"type": "SyntaxError", "module": "builtins",
                                       "mro": ["SyntaxError"], "message": str(exc), "line": None,
                                       "function": None, "file_lines": []},
                "seconds": 0.0, "lines": [], "writes": [], "traces": [], "calls": []}
    current = current if current is not None else [None]
    why_real = ""
    if unit.get("stage"):
        staged = _attempt(unit, code, mode, namespace, path, probes, recorder, current, budget, staged=True)
        if isinstance(staged, dict):
            return staged
        why_real = staged
    obs = _attempt(unit, code, mode, namespace, path, probes, recorder, current, budget, staged=False)
    if why_real:
        obs["why_real"] = why_real          # why staging could not stand for this run
    if obs["ok"] and probes.get("second_run") and not obs.get("stopped") and (
            unit["kind"] == "synth" or (unit["kind"] in ("example", "call") and not obs.get("staged"))):
        # the whole unit again: a print that ran while tracing prints nothing the second time
        # (.trace() of a guess sees only abstract values: staged or not, it is the same)
        mark2 = recorder.mark()
        out2 = LineAttributedOutput(path)
        saved = sys.stdout
        sys.stdout = out2
        try:
            if obs.get("staged"):
                import jax
                jax.make_jaxpr(lambda: (_run(code, mode, namespace), None)[1])()
            else:
                _run(code, mode, namespace)
            ok2, error2 = True, None
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001
            ok2, error2 = False, describe_exception(exc, path)
        finally:
            sys.stdout = saved
        obs["second"] = {"ok": ok2, "error": error2, "writes": out2.writes, "traces": recorder.records[mark2:]}
    return obs


def _run(code, mode, namespace):
    if mode == "exec":
        exec(code, namespace)  # noqa: S102 - the verifier's purpose is to run the program
        return None
    return eval(code, namespace)  # noqa: S307


def _attempt(unit, code, mode, namespace, path, probes, recorder, current, budget, staged):
    from jaxlint.verify import instrument
    import jax

    mark = recorder.mark()
    coverage = marks.Marks() if probes.get("coverage", True) else None
    session = instrument.Session(path, recorder, coverage, watch=unit.get("watch"),
                                 budget=budget if unit["kind"] != "example" else None,
                                 eager=probes.get("eager_functions", ()),
                                 repeat=probes.get("repeat_functions", ()), staging=staged)
    session.recorder_mark = mark
    out = session.writes = LineAttributedOutput(path)
    current[0] = session
    instrument.SESSION = session
    saved = sys.stdout
    sys.stdout = out
    start = time.perf_counter()
    result, error, exc_seen, stopped, staged_jaxpr = None, None, None, "", None

    def staged_body():
        # everything below this trace is the verifier's staging, not a trace of the program's
        session.staging_trace = marks.current_trace()
        if coverage is not None:
            coverage.staging = session.staging_trace
        return (_run(code, mode, namespace), None)[1]

    caught = warnings.catch_warnings()
    caught.__enter__()
    warnings.simplefilter("always")
    seen_warnings = []

    def remember(message, category, filename, lineno, file=None, line=None):
        # JAX warns with a fixed stacklevel that often lands in its own code: the line of the
        # program is the innermost frame of this file on the stack when the warning is shown
        if len(seen_warnings) < MAX_WRITES:
            frame, here = sys._getframe(1), None
            while frame is not None and here is None:
                if _same_file(frame.f_code.co_filename, path):
                    here = frame.f_lineno
                frame = frame.f_back
            if here is None and _same_file(filename, path):
                here = lineno
            if here is not None:
                seen_warnings.append([category.__name__, str(message)[:MAX_TEXT], here])

    warnings.showwarning = remember
    try:
        if coverage is not None:
            coverage.__enter__()
        try:
            if staged:
                staged_jaxpr = jax.make_jaxpr(staged_body)()
            else:
                result = _run(code, mode, namespace)
        finally:
            if coverage is not None:
                coverage.__exit__(None, None, None)
            caught.__exit__(None, None, None)
    except instrument.Enough as stop:
        stopped = str(stop)
    except KeyboardInterrupt:
        raise
    except SystemExit as exc:
        if exc.code not in (0, None):         # a main block ending with sys.exit(0) ended normally
            exc_seen, error = exc, describe_exception(exc, path)
    except BaseException as exc:  # noqa: BLE001 - anything the program raises is an observation
        exc_seen = exc
        error = describe_exception(exc, path)
    finally:
        sys.stdout = saved
        instrument.SESSION = None
        current[0] = None
    seconds = round(time.perf_counter() - start, 4)
    if staged and exc_seen is not None and not _trusted(error, session) and not (
            coverage is not None and coverage.ran_traced(error.get("line"))
            and not _staging_leak(exc_seen, path, session.staging_trace)):
        # a staged run's error stands for the real run's only when it crossed a jitted call of
        # the file cleanly, or was raised at a flagged statement running under a trace of the
        # program (not the staging one) whose frame holds no value only staging made abstract
        session.untrusted = session.untrusted or f"staging raised {error['type']} at line {error.get('line')}"
    if staged and not session.untrusted and exc_seen is None and coverage is not None:
        session.untrusted = _staged_blind_spot(unit, coverage, session, out.writes)
    if staged and session.untrusted:
        # The staged run cannot stand for the real one: forget it, and empty JAX's caches so
        # that the real run traces (and is counted) from scratch.
        recorder.rollback(mark)
        jax.clear_caches()
        recorder.new_epoch()
        return session.untrusted
    traced = coverage.traced_lines() if coverage is not None else None
    obs = {"ok": error is None, "error": error, "seconds": seconds, "staged": staged,
           "lines": sorted(coverage.lines) if coverage else [], "traced_lines": traced,
           "writes": out.writes, "traces": recorder.records[mark:], "trace_offset": mark,
           "calls": session.calls, "call_count": session.count,
           "warnings": seen_warnings,
           "mark_counts": {str(k): v for k, v in coverage.counts.items()} if coverage is not None else {}}
    if stopped:
        obs["stopped"] = stopped
    if session.traced_by_guess:
        obs["traced_by_guess"] = True
    if error is None and unit["kind"] == "synth" and probes.get("jaxpr") and result is not None:
        # a .trace() / make_jaxpr result: its jaxpr shows any unrolling
        jaxpr = getattr(result, "jaxpr", result)
        obs["eqns"] = [{"function": unit.get("target"), "seq": equation_lines(jaxpr, path)}] \
            if hasattr(getattr(jaxpr, "jaxpr", jaxpr), "eqns") else []
    elif probes.get("jaxpr"):
        obs["eqns"], obs["eqn_errors"] = _staged_equations(recorder, path, mark)
        if staged_jaxpr is not None:
            obs["eqns"].append({"function": "<unit>", "seq": equation_lines(staged_jaxpr, path, nested_only=True)})
        elif not obs["eqns"] and error is None:
            # no jitted function traced (a transform applied directly): stage the whole unit
            try:
                with recorder.paused():
                    jaxpr = jax.make_jaxpr(lambda: (_run(code, mode, namespace), None)[1])()
                obs["eqns"].append({"function": "<unit>", "seq": equation_lines(jaxpr, path, nested_only=True)})
            except Exception as exc:  # noqa: BLE001 - units that need concrete values
                obs["eqn_errors"].append(f"<unit>: {type(exc).__name__}: {str(exc)[:200]}")
    return obs


def _trusted(error, session) -> bool:
    """Whether an exception of a staged run crossed a jitted call of the file that saw no staged
    value other than through its arguments (then it is what the real run raises), or came from
    `jax.jit(...)` itself or from `.trace()`, which see no concrete value either way."""
    message = error.get("message")
    for call in reversed(session.calls):
        err = call.get("error")
        if err and err.get("type") == error.get("type") and err.get("message") == message:
            return not call.get("leak")
    return message in session.trusted_errors


def _staging_leak(exc, path, staging) -> bool:
    """Whether the frame of the file where `exc` was raised holds a value of the staging trace
    itself (a value the program has concrete, which staging made abstract): in its locals,
    closure, the attributes of those, or the module's globals."""
    if staging is None:
        return True
    from jax import core

    def of_staging(value, depth=0):
        if isinstance(value, core.Tracer):
            return getattr(value, "_trace", None) is staging
        if depth >= 1:
            return False
        if isinstance(value, (tuple, list)):
            return any(of_staging(v, depth + 1) for v in value[:64])
        if isinstance(value, dict):
            return any(of_staging(v, depth + 1) for v in list(value.values())[:64])
        attrs = getattr(value, "__dict__", None)
        if isinstance(attrs, dict) and not isinstance(value, type):
            return any(of_staging(v, depth + 1) for v in list(attrs.values())[:64])
        return False

    frame, tb = None, exc.__traceback__
    while tb is not None:
        if _same_file(tb.tb_frame.f_code.co_filename, path):
            frame = tb.tb_frame
        tb = tb.tb_next
    if frame is None:
        return True
    if any(of_staging(v) for v in list(frame.f_locals.values())):
        return True
    return any(isinstance(v, core.Tracer) and getattr(v, "_trace", None) is staging
               for v in list(frame.f_globals.values()))


def _staged_blind_spot(unit, coverage, session, writes) -> str:
    """Why a staged run that raised nothing cannot decide the findings it serves, or "": a
    flagged line ran only at the staging level (the program may run it eagerly), or a flagged
    print wrote outside the jitted calls (it may have printed a value only staging made
    abstract)."""
    for start_line, end_line in unit.get("interest", []):
        ran = [line for line in coverage.lines if start_line <= line <= end_line]
        if ran and not any(start_line <= line <= end_line for line in coverage.traced):
            return f"line {start_line} ran outside any trace of the program"
    inside = set()
    for call in session.calls:
        if call.get("writes"):
            inside.update(range(*call["writes"]))
    for start_line, end_line in unit.get("prints", []):
        for position, (line, _text) in enumerate(writes):
            if line and start_line <= line <= end_line and position not in inside:
                return f"line {start_line} printed outside the jitted calls"
    return ""


def _staged_equations(recorder, path, mark):
    """Source lines of the equations staged by this unit: each traced function re-staged from
    its recorded abstract arguments."""
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
    return sequences, errors


def _typed_keys(jax) -> None:
    """`jax.random.PRNGKey(seed)` returns a typed key (`jax.random.key(seed)`) for the run: the
    same key bits, so the program draws the same numbers, and KeyReuseError where one key is
    consumed twice. A program that works on a raw key's data (`key[0]`) may fail under it: that
    run is then inconclusive, not wrong."""
    raw = jax.random.PRNGKey

    def typed(seed, impl=None):
        try:
            return jax.random.key(seed, impl=impl)
        except Exception:       # noqa: BLE001 - a seed only a raw key accepts: keep the program's
            return raw(seed, impl=impl)
    typed.__wrapped__ = raw
    jax.random.PRNGKey = typed
