"""Records what JAX traces and compiles, per user function, inside the process that runs user code.

CHILD SIDE: imported only in the verifier's child processes and in `runharness`, never by
`jaxlint check`. It imports JAX.

Two public JAX channels are combined (reference §R2, §R3):
- `jax_explain_cache_misses` logs one "TRACING CACHE MISS" record per trace of a user function,
  with the call site and the function's definition site. The logging handler runs inside JAX's
  `explain` call, so it also reads the exact abstract signature JAX is keying on (the argument
  avals and static values) from that frame when it can; the log text is the fallback. JAX's own
  explanation compares against the "closest" previous key, which can name the wrong cause (a
  static value instead of a shape), so the verifier diffs the exact signatures itself
  (`recompiles.py`).
- `jax.monitoring` duration events give trace, lowering and XLA compile times; they carry only
  `fun_name`, so they are attributed to the latest traced record of that name.
"""

from __future__ import annotations

import contextlib
import inspect
import logging
import os
import re
import sys
import threading
import weakref

TRACE_EVENT = "/jax/core/compile/jaxpr_trace_duration"
LOWER_EVENT = "/jax/core/compile/jaxpr_to_mlir_module_duration"
COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"
MISS_LOGGER = "jax._src.interpreters.partial_eval"

_HEAD = re.compile(r"^TRACING CACHE MISS at (?P<loc>.*?)(?: \((?P<fn>[^()]*)\))?:\s*$")
_DEFINED = re.compile(r"(?:never seen function:\s*\n\s*(?P<name1>\S+) id=\d+|for (?P<name2>\S+))"
                      r"(?: defined at (?P<file>.+?):(?P<line>\d+))?\s*$", re.MULTILINE)
_WRAPPED = re.compile(r"^[\w.]+\((?P<name>.*)\)$")
_HERE = os.path.dirname(os.path.abspath(__file__))


def split_location(loc: str):
    """'file:12:4' or 'file:12' -> (file, 12, 4|None); anything else -> (loc, None, None)."""
    parts = loc.rsplit(":", 2)
    if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit():
        return parts[0], int(parts[1]), int(parts[2])
    parts = loc.rsplit(":", 1)
    if len(parts) == 2 and parts[1].isdigit():
        return parts[0], int(parts[1]), None
    return loc, None, None


def parse_miss_text(text: str) -> dict:
    """The fields of one cache-miss log message (works without frame introspection)."""
    lines = text.splitlines()
    out = {"call_file": None, "call_line": None, "call_col": None, "call_function": None,
           "name": None, "def_file": None, "def_line": None,
           "first": "never seen function" in text,
           "redefined_hint": "re-defined repeatedly" in text,
           "explanation": "\n".join(line.rstrip() for line in lines[1:])}
    head = _HEAD.match(lines[0]) if lines else None
    if head:
        out["call_file"], out["call_line"], out["call_col"] = split_location(head.group("loc"))
        out["call_function"] = head.group("fn")
    match = _DEFINED.search(text)
    if match:
        out["name"] = match.group("name1") or match.group("name2")
        if match.group("file"):
            out["def_file"], out["def_line"] = match.group("file"), int(match.group("line"))
    return out


def _short(value, limit=80) -> str:
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a user __repr__ may fail
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _aval_text(aval):
    try:
        text = aval.str_short(short_dtypes=True)
    except Exception:  # noqa: BLE001 - non-ShapedArray avals
        text = str(aval)
    return text, bool(getattr(aval, "weak_type", False))


def describe_signature(fun, tree, vals) -> dict:
    """{"positional": n, "keywords": [...], "args": {name: [kind, text, weak]}} for one trace.

    kind is "static" (a static argument: its repr), "array" (an abstract value), "none" or
    "tree" (the structure of a container argument, recorded besides its leaves)."""
    from jax.tree_util import keystr, tree_flatten_with_path, tree_structure, tree_unflatten

    def is_static(v):
        return type(v).__name__ == "Static" and hasattr(v, "val")

    def static_entry(value):
        try:
            token = str(hash(value))
        except Exception:  # noqa: BLE001 - unhashable: JAX itself raises on it
            token = "unhashable"
        identity = type(value).__hash__ is object.__hash__ or callable(value)
        return ["static", _short(value), False, token, identity]

    args, kwargs = tree_unflatten(tree, list(vals))
    named = []
    try:
        bound = inspect.signature(fun).bind(*args, **kwargs)
        params = inspect.signature(fun).parameters
        for name, value in bound.arguments.items():
            kind = params[name].kind
            if kind is inspect.Parameter.VAR_POSITIONAL:
                named.extend((f"{name}[{i}]", v) for i, v in enumerate(value))
            elif kind is inspect.Parameter.VAR_KEYWORD:
                named.extend((f"{name}[{k!r}]", v) for k, v in value.items())
            else:
                named.append((name, value))
    except (TypeError, ValueError):
        named = [(f"args[{i}]", v) for i, v in enumerate(args)] + list(kwargs.items())
    described = {}
    for name, value in named:
        if is_static(value):
            described[name] = static_entry(value.val)
            continue
        if value is None:
            described[name] = ["none", "None", False]
            continue
        leaves, _ = tree_flatten_with_path(value, is_leaf=is_static)
        if len(leaves) != 1 or leaves[0][0]:
            described[name] = ["tree", str(tree_structure(value, is_leaf=is_static)), False]
        for path, leaf in leaves:
            key = name + keystr(path)
            if is_static(leaf):
                described[key] = static_entry(leaf.val)
            elif hasattr(leaf, "str_short") and hasattr(leaf, "shape"):
                text, weak = _aval_text(leaf)
                described[key] = ["array", text, weak]
            else:
                described[key] = static_entry(leaf)
    return {"positional": len(args), "keywords": sorted(kwargs), "args": described}


class Recorder:
    """Collects trace records (one per tracing cache miss) and compile timings.

    keep_samples=True also keeps, for the first trace of each function, the function object and
    its abstract arguments, so that `retrace()` can stage it again (JAX302 equation counting).
    Never used by `--run`, where holding user closures alive would leak their memory."""

    def __init__(self, keep_samples: bool = False):
        self.records: list = []
        self.unmatched: dict = {}          # compile events of functions with no trace record
        self.keep_samples = keep_samples
        self.samples: dict = {}            # record index -> (fun, tree, vals)
        self._objects: dict = {}           # def key -> list of (weakref|None, id)
        self._codes: dict = {}             # code object of a traced function -> its latest record
        self._paused = 0
        self.epoch = 0                     # bumped when JAX's caches are cleared
        self._lock = threading.RLock()
        self._handler = None
        self._listener = None

    # -- installation --------------------------------------------------------------------------
    def install(self):
        import jax
        from jax import monitoring

        recorder = self

        class _Handler(logging.Handler):
            def emit(self, record):
                recorder._on_miss(record)

        self._handler = _Handler(level=logging.WARNING)
        miss_logger = logging.getLogger(MISS_LOGGER)
        miss_logger.addHandler(self._handler)
        miss_logger.propagate = False        # keep the user's stderr free of our diagnostics
        self._listener = self._on_duration
        monitoring.register_event_duration_secs_listener(self._listener)
        jax.config.update("jax_explain_cache_misses", True)
        return self

    def uninstall(self):
        import jax
        from jax import monitoring

        jax.config.update("jax_explain_cache_misses", False)
        if self._handler is not None:
            logging.getLogger(MISS_LOGGER).removeHandler(self._handler)
        if self._listener is not None:
            with contextlib.suppress(Exception):
                monitoring.unregister_event_duration_listener(self._listener)

    @contextlib.contextmanager
    def paused(self):
        with self._lock:
            self._paused += 1
        try:
            yield
        finally:
            with self._lock:
                self._paused -= 1

    def mark(self) -> int:
        return len(self.records)

    def rollback(self, mark: int):
        """Forget every record made since `mark` (an attempt that is being redone)."""
        with self._lock:
            del self.records[mark:]
            self._codes = {c: i for c, i in self._codes.items() if i < mark}
            self.samples = {i: v for i, v in self.samples.items() if i < mark}

    def new_epoch(self):
        """JAX's caches were emptied: a trace identical to an earlier one is a replay of it, not
        a recompilation the program would have made (recompiles.group drops it)."""
        self.epoch += 1

    # -- events --------------------------------------------------------------------------------
    def _on_miss(self, log_record):
        if self._paused:
            return
        try:
            text = log_record.getMessage()
        except Exception:  # noqa: BLE001
            return
        if "TRACING CACHE MISS" not in text:
            return
        rec = parse_miss_text(text)
        if rec["def_file"] and os.path.dirname(os.path.abspath(rec["def_file"])) == _HERE:
            return                      # the verifier's own wrappers (make_jaxpr of an example)
        rec.update(trace_s=0.0, lower_s=0.0, compile_s=0.0, compiles=0, sig=None, obj=0,
                   qualname=rec.get("name"), epoch=self.epoch)
        fun, tree, vals = self._explain_locals()
        rec["parent"] = self._enclosing_trace()
        code = None
        if fun is not None:
            target = getattr(fun, "func", fun)         # functools.partial -> the function
            try:
                target = inspect.unwrap(target)         # jax.grad(f) & co. -> f
            except ValueError:
                pass
            code = getattr(target, "__code__", None)
            # JAX wraps some user functions (fori_loop bodies...) in its own: keep the user's
            # name then, and never key nesting on JAX's code objects
            if code is not None and rec["def_file"] and code.co_filename == rec["def_file"]:
                rec["qualname"] = getattr(target, "__qualname__", rec["name"])
            else:
                code = None
            rec["obj"] = self._object_index((rec["def_file"], rec["def_line"], rec["name"]), fun)
            if tree is not None:
                try:
                    rec["sig"] = describe_signature(fun, tree, vals)
                except Exception as exc:  # noqa: BLE001 - fall back to the log text
                    rec["sig_error"] = f"{type(exc).__name__}: {exc}"
        with self._lock:
            index = len(self.records)
            self.records.append(rec)
            if code is not None:
                self._codes[code] = index
            if self.keep_samples and fun is not None and tree is not None:
                self.samples[index] = (fun, tree, vals)

    def _enclosing_trace(self):
        """The record of the user function whose body is running (being traced) around this
        trace, if any: a trace nested in another one is part of that trace, not a call of its own."""
        frame = sys._getframe(2)
        while frame is not None:
            index = self._codes.get(frame.f_code)
            if index is not None:
                return index
            frame = frame.f_back
        return None

    @staticmethod
    def _explain_locals():
        """(fun, tree, vals) from JAX's `explain` frame, or Nones when it cannot be found."""
        frame = sys._getframe(1)
        while frame is not None:
            code = frame.f_code
            if code.co_name == "explain" and code.co_filename.endswith("partial_eval.py"):
                local = frame.f_locals
                avals = local.get("in_avals")
                fun = local.get("fun")
                tree = getattr(avals, "tree", None)
                vals = getattr(avals, "vals", None)
                return fun, tree, (tuple(vals) if vals is not None else None)
            frame = frame.f_back
        return None, None, None

    def _object_index(self, key, fun) -> int:
        """0 for the first function object seen at a definition site, 1 for the next one, ..."""
        seen = self._objects.setdefault(key, [])
        for index, (ref, ident) in enumerate(seen):
            if ref is not None:
                if ref() is fun:
                    return index
            elif ident == id(fun):
                return index
        try:
            ref = weakref.ref(fun)
        except TypeError:
            ref = None
        seen.append((ref, id(fun)))
        return len(seen) - 1

    def _on_duration(self, event, duration, **kwargs):
        if self._paused or event not in (TRACE_EVENT, LOWER_EVENT, COMPILE_EVENT):
            return
        name = kwargs.get("fun_name") or ""
        if event != TRACE_EVENT:
            match = _WRAPPED.match(name)
            name = match.group("name") if match else name
        with self._lock:
            rec = None
            for candidate in reversed(self.records):
                if candidate["name"] == name:
                    rec = candidate
                    break
            if rec is None:
                if event == COMPILE_EVENT:
                    self.unmatched[name] = self.unmatched.get(name, 0) + 1
                return
            if event == TRACE_EVENT:
                rec["trace_s"] += float(duration)
            elif event == LOWER_EVENT:
                rec["lower_s"] += float(duration)
            else:
                rec["compiles"] += 1
                rec["compile_s"] += float(duration)

    # -- re-staging (JAX302) -------------------------------------------------------------------
    def retrace(self, index):
        """The jaxpr of recorded trace `index`, staged again from its abstract arguments."""
        import jax
        from jax.tree_util import tree_unflatten

        fun, tree, vals = self.samples[index]

        def is_static(v):
            return type(v).__name__ == "Static" and hasattr(v, "val")

        def restaged(*leaves):
            args, kwargs = tree_unflatten(tree, list(leaves))
            args = [a.val if is_static(a) else a for a in args]
            kwargs = {k: (v.val if is_static(v) else v) for k, v in kwargs.items()}
            return fun(*args, **kwargs)

        structs = [jax.ShapeDtypeStruct(v.shape, v.dtype, weak_type=getattr(v, "weak_type", False))
                   for v in vals]
        with self.paused():
            return jax.make_jaxpr(restaged)(*structs)
