"""Jitted functions of the user's file, instrumented so that the verifier sees the program's calls.

CHILD SIDE: imports JAX. `install(path, ...)` replaces `jax.jit` before the user's module is
imported; every function of that file it wraps comes back as an `Instrumented` proxy that calls
the real jitted function and records, per call: the line of the file that made it, a short
description of each argument (so the parent can tell which values, shapes and spellings the
program really passed), whether it traced, the lines run while it traced, and the exception that
crossed it. Functions of other files get the real `jax.jit` untouched.

The proxy is also where the harness acts without editing the file:
- JAX106: after a call that traced, the same arguments run again under `jax.disable_jit()`, and
  the lines run (the branch taken) and the results are compared;
- JAX107: after the first call that traced, the same call is made once more (a cached call
  prints nothing);
- shortening a long run: once a unit has what its findings need (enough traces at the lines
  they name), or its time budget is spent, the next call raises `Enough`, which ends the unit
  as a normal stop, never as the program's error.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import keyword
import os
import sys
import time

MAX_CALLS = 2000            # call records kept per unit (later calls are only counted)
MAX_ARG_TEXT = 60


class Enough(BaseException):
    """Raised from a jitted call to end a unit early: what it had to show has been seen, or its
    budget is spent. A BaseException, so that a program's `except Exception` does not swallow it."""


_REAL_JIT = None
_PATH = None
SESSION = None              # the Session of the unit being evaluated (or of the import)


def _same_file(a, b) -> bool:
    return a == b or (not a.startswith("<") and os.path.realpath(a) == b)


def _user_line(path, depth=2):
    """Line of the innermost frame in the user's file, starting `depth` frames up."""
    frame = sys._getframe(depth)
    while frame is not None:
        name = frame.f_code.co_filename
        if name == path or (not name.startswith("<") and name.endswith(os.path.basename(path))
                            and os.path.realpath(name) == path):
            return frame.f_lineno
        frame = frame.f_back
    return None


def _target(fun):
    """The plain function behind partials and wrappers (for its file and code)."""
    seen = 0
    while seen < 10:
        seen += 1
        if isinstance(fun, functools.partial):
            fun = fun.func
            continue
        if isinstance(fun, Instrumented):
            fun = fun.__wrapped__
            continue
        inner = getattr(fun, "__wrapped__", None)         # functools.wraps: vmap, grad, checkpoint...
        if inner is not None and inner is not fun:
            fun = inner
            continue
        break
    return fun


def _in_user_file(fun) -> bool:
    code = getattr(_target(fun), "__code__", None)
    return code is not None and _same_file(code.co_filename, _PATH)


def _applied_in_user_file() -> bool:
    """Is jit applied by a line of the user's file (`jax.jit(partial(jax.tree.map, f))`), not by a
    library the file calls? The frame above `jit`."""
    frame = sys._getframe(2)
    name = frame.f_code.co_filename
    return _same_file(name, _PATH)


_STAND_INS: dict = {}       # id(function) -> (function, its stand-in)


def _stand_in(fun, line):
    """A function of the user's file (at the line that jits it) that calls `fun`, a library's
    function (`jax.jit(partial(jax.tree.map, f))`): JAX explains the cache misses of user code
    only, so its traces are seen through the stand-in. One stand-in per function object, so that
    JAX caches as it would for `fun` itself: a new object traces again, the same one does not."""
    held = _STAND_INS.get(id(fun))
    if held is not None and held[0] is fun:
        return held[1]
    name = getattr(_target(fun), "__name__", "")
    name = name if isinstance(name, str) and name.isidentifier() and not keyword.iskeyword(name) else "function"
    source = "\n" * max(0, (line or 1) - 1) + f"def {name}(*args, **kwargs):\n    return _jaxlint_fun(*args, **kwargs)\n"
    namespace = {"_jaxlint_fun": fun}
    exec(compile(source, _PATH, "exec"), namespace)      # noqa: S102 - verify runs the user's program anyway
    stand_in = namespace[name]
    with contextlib.suppress(TypeError, ValueError):
        stand_in.__signature__ = inspect.signature(fun)   # static_argnames and argument names
    _STAND_INS[id(fun)] = (fun, stand_in)
    return stand_in


def install(path: str):
    """Replace `jax.jit` so that functions defined in `path` come back instrumented."""
    global _REAL_JIT, _PATH
    import jax
    from jax._src import source_info_util

    _PATH = os.path.realpath(path)
    if _REAL_JIT is None:
        _REAL_JIT = jax.jit
        # the proxy's frames are not the program's: JAX names the user's line as the call site
        source_info_util.register_exclusion(os.path.dirname(os.path.abspath(__file__)) + os.sep)
    real = _REAL_JIT

    @functools.wraps(real)
    def jit(fun=None, *args, **kwargs):
        if fun is None:
            return lambda f: jit(f, *args, **kwargs)
        try:
            jitted = real(fun, *args, **kwargs)
        except Exception as exc:
            if SESSION is not None:
                SESSION.trusted_errors.append(str(exc)[:4000])
            raise
        if _in_user_file(fun):
            return Instrumented(jitted, fun, _user_line(_PATH))
        if not _applied_in_user_file():
            return jitted
        line = _user_line(_PATH)
        stand_in = _stand_in(fun, line)
        try:
            jitted = real(stand_in, *args, **kwargs)
        except Exception as exc:
            if SESSION is not None:
                SESSION.trusted_errors.append(str(exc)[:4000])
            raise
        return Instrumented(jitted, stand_in, line)

    jax.jit = jit
    return jit


def uninstall():
    import jax
    if _REAL_JIT is not None:
        jax.jit = _REAL_JIT


class Instrumented:
    """A jitted function of the user's file: behaves like it, and records every call."""

    def __init__(self, jitted, fun, created_line):
        self._jaxlint_real = jitted
        self._jaxlint_created = created_line
        target = _target(fun)
        self._jaxlint_name = getattr(target, "__qualname__", getattr(target, "__name__", "?"))
        code = getattr(target, "__code__", None)
        self._jaxlint_def_line = code.co_firstlineno if code is not None else None
        self._jaxlint_signature = None
        self._jaxlint_globals = None        # global names the function reads (computed once)
        functools.update_wrapper(self, fun)
        self.__wrapped__ = fun

    def __call__(self, *args, **kwargs):
        return _call(self, args, kwargs)

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        return _Bound(self, obj)

    def __getattr__(self, name):
        # lower, trace, eval_shape, clear_cache, ...: the real jitted function's
        if name.startswith("_jaxlint_"):
            raise AttributeError(name)
        return getattr(self._jaxlint_real, name)

    def __repr__(self):
        return repr(self._jaxlint_real)


class _Bound:
    """An instrumented jitted method bound to an instance (`obj.step(...)`)."""

    def __init__(self, proxy, obj):
        self._proxy, self._obj = proxy, obj
        self.__self__ = obj
        self.__func__ = proxy

    def __call__(self, *args, **kwargs):
        return _call(self._proxy, (self._obj,) + args, kwargs)

    def __getattr__(self, name):
        attr = getattr(self._proxy._jaxlint_real, name)
        if name in ("trace", "lower", "eval_shape"):
            return functools.partial(attr, self._obj)
        return attr


# -- describing arguments ----------------------------------------------------------------------

def _short(value) -> str:
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a user __repr__ may fail
        text = f"<{type(value).__name__}>"
    return text if len(text) <= MAX_ARG_TEXT else text[:MAX_ARG_TEXT - 1] + "…"


def describe_value(value) -> list:
    """[kind, text]: kind is array / python / none / tree / object; the text is what decides a
    cache key (abstract value; a Python value's repr; a container's structure and leaves)."""
    import jax
    import numpy as np

    if value is None:
        return ["none", "None"]
    if isinstance(value, (bool, int, float, complex, str, bytes)):
        return ["python", f"{type(value).__name__} {_short(value)}"]
    if isinstance(value, (jax.Array, np.ndarray, np.generic)):
        try:
            return ["array", jax.typeof(value).str_short(short_dtypes=True)]
        except Exception:  # noqa: BLE001
            return ["array", type(value).__name__]
    if isinstance(value, (tuple, list, dict)):
        try:
            leaves, tree = jax.tree_util.tree_flatten(value)
        except Exception:  # noqa: BLE001
            return ["object", f"{type(value).__name__} {_short(value)}"]
        inner = ", ".join(describe_value(leaf)[1] for leaf in leaves[:8])
        return ["tree", f"{tree} [{inner}{', …' if len(leaves) > 8 else ''}]"]
    if callable(value) or type(value).__hash__ is object.__hash__:
        return ["object", f"{type(value).__name__} at 0x{id(value):x}"]
    return ["object", f"{type(value).__name__} {_short(value)}"]


def _bind(proxy, args, kwargs):
    """[(parameter name, value)] for one call, in signature order."""
    if proxy._jaxlint_signature is None:
        try:
            proxy._jaxlint_signature = inspect.signature(_target(proxy.__wrapped__))
        except (TypeError, ValueError):
            proxy._jaxlint_signature = False
    signature = proxy._jaxlint_signature
    if signature:
        try:
            bound = signature.bind(*args, **kwargs)
            out = []
            for name, value in bound.arguments.items():
                kind = signature.parameters[name].kind
                if kind is inspect.Parameter.VAR_POSITIONAL:
                    out.extend((f"{name}[{i}]", v) for i, v in enumerate(value))
                elif kind is inspect.Parameter.VAR_KEYWORD:
                    out.extend((f"{name}[{k!r}]", v) for k, v in value.items())
                else:
                    out.append((name, value))
            return out
        except TypeError:
            pass
    return [(f"args[{i}]", v) for i, v in enumerate(args)] + list(kwargs.items())


def _leaks(proxy, bound) -> bool:
    """Whether a tracer from an enclosing trace (the staged unit) reaches the function other than
    through its arguments: through its closure, defaults, partial arguments, module globals or the
    attributes of a static or non-array argument. Such a function does not trace as it would in
    the program, where those values are concrete."""
    import jax
    from jax import core

    def has_tracer(value, depth=0):
        if isinstance(value, core.Tracer):
            return True
        if depth > 1:
            return False
        if isinstance(value, (tuple, list)):
            return any(has_tracer(v, depth + 1) for v in value[:64])
        if isinstance(value, dict):
            return any(has_tracer(v, depth + 1) for v in list(value.values())[:64])
        return False

    fun = proxy.__wrapped__
    seen = 0
    while isinstance(fun, functools.partial) and seen < 10:
        seen += 1
        if has_tracer(fun.args) or has_tracer(fun.keywords):
            return True
        fun = fun.func
    target = _target(fun)
    for cell in getattr(target, "__closure__", None) or ():
        try:
            if has_tracer(cell.cell_contents):
                return True
        except ValueError:          # an empty cell
            continue
    if has_tracer(getattr(target, "__defaults__", None) or ()):
        return True
    if has_tracer(list((getattr(target, "__kwdefaults__", None) or {}).values())):
        return True
    module_globals = getattr(target, "__globals__", {})
    if proxy._jaxlint_globals is None:
        proxy._jaxlint_globals = sorted(_global_names(getattr(target, "__code__", None), module_globals))
    for name in proxy._jaxlint_globals:
        if has_tracer(module_globals.get(name)):
            return True
    for _, value in bound:
        if isinstance(value, (jax.Array, core.Tracer)) or not hasattr(value, "__dict__"):
            continue
        try:
            leaves = jax.tree_util.tree_leaves(value)
        except Exception:  # noqa: BLE001
            leaves = [value]
        if len(leaves) != 1 or leaves[0] is not value:
            continue                # a pytree: jit abstracts its leaves like any argument
        try:
            if has_tracer(list(vars(value).values())):
                return True         # a static (or rejected) object carrying a staged value
        except TypeError:
            continue
    return False


def _global_names(code, module_globals, depth=0, seen=None) -> set:
    """Global names a function reads: its own code, the code nested in it, and the functions of
    the same module it calls by name (a few levels)."""
    seen = set() if seen is None else seen
    if code is None or id(code) in seen or depth > 3:
        return set()
    seen.add(id(code))
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _global_names(const, module_globals, depth, seen)
    for name in list(names):
        value = module_globals.get(name)
        inner = getattr(value, "__code__", None)
        if inner is not None and getattr(value, "__globals__", None) is module_globals:
            names |= _global_names(inner, module_globals, depth + 1, seen)
    return names


def _guessed_params(session, bound) -> list:
    """Parameters whose value is (or holds) an object the harness guessed."""
    if not session.guessed:
        return []
    import jax

    out = []
    for name, value in bound:
        if id(value) in session.guessed:
            out.append(name)
            continue
        try:
            leaves = jax.tree_util.tree_leaves(value)
        except Exception:  # noqa: BLE001
            continue
        if any(id(leaf) in session.guessed for leaf in leaves[:256]):
            out.append(name)
    return out


# -- the call ----------------------------------------------------------------------------------

class Session:
    """What one unit (or the module's import) records through the proxies."""

    def __init__(self, path, recorder, coverage=None, watch=None, budget=None, stoppable=True,
                 eager=(), repeat=(), staging=False):
        self.path = path
        self.recorder = recorder
        self.coverage = coverage
        self.watch = list(watch or [])      # [{"name", "span": [a, b], "need": k}]
        self.budget = budget
        self.stoppable = stoppable
        self.eager = set(eager)             # function names to re-run under disable_jit (JAX106)
        self.repeat = set(repeat)           # function names whose first traced call is repeated (JAX107)
        self.staging = staging
        self.staging_trace = None           # set by the child inside its staging trace
        self.guessed: set = set()           # ids of guessed objects
        self.trusted_errors: list = []      # errors that do not depend on staging (jax.jit(...), .trace())
        self.traced_by_guess = False        # a guessed call traced a function the program does not jit
        self.calls: list = []
        self.count = 0
        self.depth = 0
        self.started = time.perf_counter()
        self.stopped = ""
        self.untrusted = ""                 # why a staged run cannot stand for the real one
        self.repeated: set = set()
        self.eager_done: dict = {}
        self.writes = None                  # the unit's LineAttributedOutput

    def watch_met(self) -> bool:
        if not self.watch:
            return False
        for item in self.watch:
            start, end = item["span"]
            have = sum(1 for rec in self.recorder.records[self.recorder_mark:]
                       if rec.get("parent") is None and item["name"] in (
                           (rec.get("name") or "").split(".")[-1], (rec.get("qualname") or "").split(".")[-1])
                       and rec.get("call_line") is not None and start <= rec["call_line"] <= end)
            if have < item["need"]:
                return False
        return True

    recorder_mark = 0


def _call(proxy, args, kwargs):
    session = SESSION
    real = proxy._jaxlint_real
    if session is None:
        return real(*args, **kwargs)
    if session.stopped and session.stoppable:
        raise Enough(session.stopped)
    if session.depth:
        # a jitted function called while another one traces: part of that trace
        return real(*args, **kwargs)
    session.count += 1
    if len(session.calls) >= MAX_CALLS:
        return _plain_call(session, real, args, kwargs)
    name = proxy._jaxlint_name
    bound = _bind(proxy, args, kwargs)
    record = {"function": name, "def_line": proxy._jaxlint_def_line, "line": _user_line(session.path, 3),
              "created": proxy._jaxlint_created, "proxy": id(proxy) & 0xFFFFFFFF,
              "args": {n: describe_value(v) for n, v in bound},
              "spelling": [len(args), sorted(kwargs)]}
    guessed = _guessed_params(session, bound)
    if guessed:
        record["guessed"] = guessed
    if session.staging and _leaks(proxy, bound):
        record["leak"] = True
        session.untrusted = session.untrusted or f"`{name}` sees a staged value other than through its arguments"
    session.calls.append(record)
    recorder = session.recorder
    mark = recorder.mark()
    writes = session.writes
    write_mark = len(writes.writes) if writes is not None else 0
    segment = session.coverage.push() if session.coverage is not None else None
    session.depth += 1
    try:
        out = real(*args, **kwargs)
    except Enough:
        raise
    except BaseException as exc:  # noqa: BLE001 - recorded, then passed on unchanged
        from jaxlint.verify.observe import describe_exception
        record["error"] = describe_exception(exc, session.path)
        raise
    finally:
        session.depth -= 1
        lines = session.coverage.pop(segment) if segment is not None else set()
        traced = [i for i in range(mark, recorder.mark()) if recorder.records[i].get("parent") is None]
        for i in traced:
            # the proxy knows the program's line even when JAX's own guess is another frame
            if record["line"] is not None:
                recorder.records[i]["call_line"] = record["line"]
                recorder.records[i]["call_file"] = session.path
        record["traced"] = bool(traced)
        if traced:
            record["lines"] = sorted(lines)
        if writes is not None and len(writes.writes) > write_mark:
            record["writes"] = [write_mark, len(writes.writes)]
    short = name.replace(".<locals>", "")
    if traced and (short in session.eager or "*" in session.eager) and session.eager_done.get(name, 0) < 2:
        session.eager_done[name] = session.eager_done.get(name, 0) + 1
        record["eager"] = _eager(session, real, args, kwargs, out)
    if traced and short in session.repeat and name not in session.repeated:
        session.repeated.add(name)
        record["repeat"] = _repeat(session, real, args, kwargs)
    _maybe_stop(session)
    return out


def _plain_call(session, real, args, kwargs):
    session.depth += 1
    try:
        out = real(*args, **kwargs)
    finally:
        session.depth -= 1
    _maybe_stop(session)
    return out


def _maybe_stop(session):
    if not session.stoppable or session.stopped:
        return
    if session.watch and session.watch_met():
        session.stopped = "what the findings need was seen"
    elif session.budget is not None and time.perf_counter() - session.started > session.budget:
        session.stopped = f"the unit's {session.budget:g} s budget was spent"
    if session.stopped:
        raise Enough(session.stopped)


def _eager(session, real, args, kwargs, jitted_out) -> dict:
    """The same call under jax.disable_jit(): the lines it runs and, in a real run, whether the
    result agrees with the jitted one."""
    import jax
    from jaxlint.verify.observe import compare_results, describe_exception

    segment = session.coverage.push() if session.coverage is not None else None
    session.depth += 1
    try:
        with session.recorder.paused(), jax.disable_jit():
            out = real(*args, **kwargs)
        error = None
    except Enough:
        raise
    except Exception as exc:  # noqa: BLE001
        out, error = None, describe_exception(exc, session.path)
    finally:
        session.depth -= 1
        lines = session.coverage.pop(segment) if segment is not None else set()
    result = {"lines": sorted(lines)}
    if error is not None:
        result["error"] = error
        return result
    if session.staging:
        result["same"] = None
        result["detail"] = "staged: results not compared"
        return result
    try:
        result.update(compare_results(jitted_out, out))
    except Exception as exc:  # noqa: BLE001
        result.update(same=None, detail=f"could not compare: {type(exc).__name__}: {exc}")
    return result


def _repeat(session, real, args, kwargs) -> dict:
    """The same call made again: a trace-time print shows nothing on a cached call."""
    writes = session.writes
    start = len(writes.writes) if writes is not None else 0
    mark = session.recorder.mark()
    session.depth += 1
    try:
        real(*args, **kwargs)
        error = None
    except Enough:
        raise
    except Exception as exc:  # noqa: BLE001
        error = f"{type(exc).__name__}: {str(exc)[:200]}"
    finally:
        session.depth -= 1
    out = {"writes": [start, len(writes.writes) if writes is not None else start],
           "traced": session.recorder.mark() > mark}
    if error:
        out["error"] = error
    return out
