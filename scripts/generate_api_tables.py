#!/usr/bin/env python
"""Write src/jaxlint/analysis/jax_api.py and tests/jax_api_details.py: facts about JAX's API, asked
of the installed JAX.

    python scripts/generate_api_tables.py              # rewrite both modules
    python scripts/generate_api_tables.py --stdout     # print them instead
    python scripts/generate_api_tables.py --only jnp.zeros --only jnp.nonzero   # show the probes

The linter never imports JAX, so what it knows about JAX's functions is data. This script makes
that data from JAX itself rather than from memory, so that it is complete and follows JAX:

- signatures (parameter names, positions, kinds, defaults) from `inspect.signature`, which follows
  `__wrapped__` through JAX's jit wrappers, for jax.numpy (+ linalg, fft), jax.lax, jax.random,
  jax.nn (+ initializers), jax.scipy.special, jax.image, jax.ops and the methods of jax.Array;
- the parameters that must be concrete: each function is called under `jax.make_jaxpr` with
  sample arguments (a small table keyed by parameter name) and its arrays traced, then once more
  per parameter with a tracer in that parameter, and the error is classified
  (ConcretizationTypeError and its subclasses, "Shapes must be 1D sequences", "Non-hashable
  static arguments", the __hash__ TypeError...); a parameter may be concrete only unless some
  keyword is given (`jnp.repeat`'s repeats and total_repeat_length=). The `static_argnames` of
  functions that are themselves jitted are read too;
- output shapes that depend on the data: the call fails once its arrays are traced (while it
  works without tracing), and works again with `size=` / `length=` / `num_segments=`...;
- results that hold no array under a trace (shape and dtype helpers), and boolean results;
- the NumPy functions that fail on a tracer, against those that dispatch to its methods.

jax_api.py holds what the linter reads, compactly (every lint process imports it);
jax_api_details.py holds the signatures and the probes' evidence (error kinds, parameters that
accept tracers, what could not be probed and why). Every function has a time limit; functions
that could not be probed (no sample for a required parameter, no sample that works, a timeout)
are listed in NOT_PROBED with the reason. The output depends only on the installed JAX, NumPy
and Python.
"""

from __future__ import annotations

import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import argparse  # noqa: E402
import ast  # noqa: E402
import enum  # noqa: E402
import importlib  # noqa: E402
import inspect  # noqa: E402
import platform  # noqa: E402
import pprint  # noqa: E402
import signal  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import types  # noqa: E402
import warnings  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import errors as jax_errors  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = "scripts/generate_api_tables.py"

# (module, canonical prefix): canonical names are the ones jaxlint.analysis.names produces.
NAMESPACES = (
    ("jax.numpy", "jnp"), ("jax.numpy.linalg", "jnp.linalg"), ("jax.numpy.fft", "jnp.fft"),
    ("jax.lax", "lax"), ("jax.random", "jax.random"), ("jax.nn", "jax.nn"),
    ("jax.nn.initializers", "jax.nn.initializers"), ("jax.scipy.special", "jax.scipy.special"),
    ("jax.scipy.linalg", "jax.scipy.linalg"),
    ("jax.image", "jax.image"), ("jax.ops", "jax.ops"),
)
NUMPY_NAMESPACES = (("numpy", "np"), ("numpy.linalg", "np.linalg"), ("numpy.fft", "np.fft"))

# Array methods that talk to devices or the host rather than compute: not probed.
DEVICE_METHODS = {"addressable_data", "copy_to_host_async", "to_device", "item", "tolist", "block_until_ready",
                  "delete", "devices", "is_deleted", "on_device_size_in_bytes", "unsafe_buffer_pointer",
                  "is_ready", "is_fully_addressable", "is_fully_replicated"}

# Keywords that give a data-dependent result a static size.
SIZE_KEYWORDS = ("size", "length", "total_repeat_length", "num_segments")

TIME_LIMIT = 20.0      # seconds per function, all its probes together

KIND_CODES = {
    inspect.Parameter.POSITIONAL_ONLY: "P", inspect.Parameter.POSITIONAL_OR_KEYWORD: "PK",
    inspect.Parameter.VAR_POSITIONAL: "*", inspect.Parameter.KEYWORD_ONLY: "K",
    inspect.Parameter.VAR_KEYWORD: "**",
}


# --- sample arguments ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Config:
    """The arrays a call is tried with: one dtype and shape for every array parameter."""

    dtype: str
    shape: tuple

    @property
    def ndim(self):
        return len(self.shape)

    def array(self):
        size = int(np.prod(self.shape, dtype=int))
        if self.dtype == "int32":
            return jnp.asarray((np.arange(size) % 3).astype(np.int32).reshape(self.shape))
        # positive, and an invertible matrix for the square shapes (linalg)
        return jnp.asarray((((np.arange(size) * 3) % 5 + 1) / 4).astype(np.float32).reshape(self.shape))

    def mask(self):
        size = int(np.prod(self.shape, dtype=int))
        return jnp.asarray((np.arange(size) % 2 == 0).reshape(self.shape))


# Tried in order; the first whose samples JAX accepts is kept.
CONFIGS = (Config("float32", (2, 3)), Config("float32", (3, 3)), Config("float32", (4,)),
           Config("int32", (4,)), Config("int32", (2, 3)), Config("float32", ()), Config("float32", (1, 3)))


class Opaque:
    """A sample that is passed as it is and never traced (dtypes, strings, functions)."""

    def __init__(self, value):
        self.value = value


def _arr(c):
    return c.array()


def _reverse_axes(c):
    return tuple(reversed(range(c.ndim)))


# Parameter name -> sample: a value, or a function of the Config, or a list of alternatives.
ARRAY_NAMES = ("x", "a", "operand", "y", "x1", "x2", "b", "arr", "lhs", "rhs", "v", "m", "ary", "a1", "a2",
               "data", "z", "values", "array", "val", "ar1", "ar2", "ar", "xp", "fp", "image", "logits",
               "element", "test_elements", "object", "u", "w", "c", "h", "A", "elems", "init_val", "xs",
               "update", "updates", "src", "arg", "input", "query", "filt", "prototype", "on_true", "on_false",
               "like_arr")
SAMPLES = {name: _arr for name in ARRAY_NAMES}
SAMPLES.update({
    "key": lambda c: jax.random.key(0),
    "keys": lambda c: jax.random.split(jax.random.key(0), 2),
    "condition": lambda c: c.mask(), "mask": lambda c: c.mask(), "pred": True,
    "arrays": lambda c: [c.array(), c.array()], "tup": lambda c: [c.array(), c.array()],
    "operands": lambda c: [c.array(), c.array()], "arys": lambda c: [c.array(), c.array()],
    "args": lambda c: [c.array(), c.array()], "xi": lambda c: [c.array(), c.array()],
    "choices": lambda c: [c.array(), c.array(), c.array()],
    "condlist": lambda c: [c.mask()], "choicelist": lambda c: [c.array()],
    "indices": lambda c: jnp.asarray(np.array([0, 1], np.int32)),
    "segment_ids": lambda c: jnp.asarray((np.arange(c.shape[0]) % 2).astype(np.int32)),
    "shape": [lambda c: c.shape, lambda c: (2,) + c.shape, lambda c: c.shape[:-1]],
    "newshape": lambda c: c.shape, "new_shape": lambda c: c.shape, "new_sizes": lambda c: c.shape,
    "sizes": (2,), "dims": (2, 3),
    "shapes": [((2, 3), (1, 3))],
    "axis": [0, 1, -1], "axes": [_reverse_axes, 1], "axis1": 0, "axis2": 1, "source": 0, "destination": 1,
    "perm": _reverse_axes, "permutation": _reverse_axes, "dimension": 0, "dimensions": [(0,), ()],
    "broadcast_dimensions": lambda c: tuple(range(c.ndim)),
    "start_indices": lambda c: (0,) * c.ndim, "limit_indices": lambda c: c.shape,
    "slice_sizes": lambda c: (1,) * c.ndim, "strides": lambda c: (1,) * c.ndim,
    "padding_config": lambda c: ((0, 1, 0),) * c.ndim, "padding_value": 0.0,
    "start_index": 0, "limit_index": 1, "slice_size": 1, "stride": 1, "index": 0,
    "k": 1, "n": 2, "N": 3, "M": 3, "num": 3, "size": 2, "length": 4,
    "total_repeat_length": lambda c: 2 * int(np.prod(c.shape, dtype=int)),
    "num_classes": 4, "num_segments": 3, "repeats": 2, "reps": [2, lambda c: (2,) * c.ndim], "kth": 1,
    "decimals": 1, "bins": [3, _arr], "pad_width": 1, "shift": 1, "start": 0, "stop": 4, "start_or_stop": 4,
    "ddof": 1, "ord": 2, "step": 1, "offset": 1, "deg": 1,
    "indices_or_sections": 2, "obj": 1, "seed": 0, "p": [0.5, _arr], "q": 0.5, "fill_value": 1.0, "value": 1.0,
    "minval": 0, "maxval": 5, "lower": 0, "upper": 2, "scale": 1.0, "loc": 0.0, "beta": 1.5,
    "alpha": [1.5, lambda c: jnp.ones((3,), jnp.float32)], "min": 0.0, "max": 1.0, "d": 2, "lmbda": 0.5,
    "df": 3.0, "lam": 2.0, "concentration": lambda c: jnp.ones((3,), jnp.float32),
    "rank": 3, "start_dimension": 0, "exponent_bits": 5, "mantissa_bits": 10,
    "dimension_numbers": (((1,), (1,)), ((), ())),
    "multi_index": lambda c: (jnp.asarray(np.array([0, 1], np.int32)), jnp.asarray(np.array([1, 2], np.int32))),
    "dtype": Opaque(jnp.float32), "new_dtype": Opaque(jnp.float32), "index_dtype": Opaque(jnp.int32),
    "method": Opaque("linear"),
})

# Functions whose parameters the name table cannot fill: dtype helpers and control flow.
FUNCTION_SAMPLES = {
    "jnp.promote_types": {"a": Opaque(jnp.float32), "b": Opaque(jnp.int32)},
    "jnp.can_cast": {"from_": Opaque(jnp.int32), "to": Opaque(jnp.float32)},
    "jnp.issubdtype": {"arg1": Opaque(jnp.float32), "arg2": Opaque(jnp.floating)},
    "jnp.isdtype": {"dtype": Opaque(jnp.float32), "kind": Opaque("real floating")},
    "jnp.iinfo": {"int_type": Opaque(jnp.int32)},
    "jnp.finfo": {"dtype": Opaque(jnp.float32)},
    "jnp.dtype": {"dtype": Opaque("float32")},
    "lax.scan": {"f": Opaque(lambda carry, x: (carry, x)), "init": 0.0, "xs": _arr, "length": 2},
    "lax.fori_loop": {"lower": 0, "upper": 3, "body_fun": Opaque(lambda i, carry: carry + i), "init_val": 0},
    "lax.while_loop": {"cond_fun": Opaque(lambda carry: carry < 3), "body_fun": Opaque(lambda carry: carry + 1),
                       "init_val": 0},
    "lax.map": {"f": Opaque(lambda x: x + 1), "xs": _arr, "batch_size": 1},
    "lax.cond": {"pred": True, "true_fun": Opaque(lambda v: v), "false_fun": Opaque(lambda v: -v),
                 "operands": lambda c: [c.array()]},
    "lax.switch": {"index": 0, "branches": Opaque((lambda v: v, lambda v: -v)), "operands": lambda c: [c.array()]},
    "lax.associative_scan": {"fn": Opaque(lambda a, b: a + b), "elems": _arr},
    "lax.sort_key_val": {"keys": _arr, "values": _arr},
    "lax.integer_pow": {"y": 2},
    "jnp.clip": {"arr": _arr},
    "jnp.put_along_axis": {"inplace": False, "indices": lambda c: jnp.zeros(c.shape, jnp.int32), "values": 0.0,
                           "axis": 0},
    "np.einsum": {"operands": lambda c: [Opaque("ij,ij->i"), c.array(), c.array()]},
    "jnp.fill_diagonal": {"val": 0.0, "inplace": False},
    "jax.random.triangular": {"left": 0.0, "mode": 0.5, "right": 1.0},
    "jax.random.f": {"dfnum": 2.0, "dfden": 3.0},
    "jax.random.wald": {"mean": 1.0},
    "jax.random.multivariate_normal": {"mean": lambda c: jnp.zeros(2), "cov": lambda c: jnp.eye(2)},
    "jax.nn.initializers.variance_scaling": {"scale": 1.0, "mode": Opaque("fan_in"),
                                             "distribution": Opaque("normal")},
    "jax.nn.dot_product_attention": {name: lambda c: jnp.ones((1, 2, 1, 4)) for name in ("query", "key", "value")},
    # shape helpers of convolutions: Python values about layouts and sizes
    "lax.conv_general_permutations": {"dimension_numbers": Opaque(("NHWC", "HWIO", "NHWC"))},
    "lax.conv_dimension_numbers": {"lhs_shape": Opaque((1, 4, 4, 3)), "rhs_shape": Opaque((2, 2, 3, 8)),
                                   "dimension_numbers": Opaque(("NHWC", "HWIO", "NHWC"))},
    "lax.padtype_to_pads": {"in_shape": Opaque((4, 4)), "window_shape": Opaque((2, 2)),
                            "window_strides": Opaque((1, 1)), "padding": Opaque("SAME")},
}

# Array methods taking their sizes or axes as *args.
METHOD_VARARGS = {"reshape": lambda c: c.shape, "transpose": _reverse_axes}


class NoSample(Exception):
    """A required parameter has no sample value."""


def candidates(function, param, config):
    """The sample values to try for `param`, most likely first (empty: none known)."""
    table = FUNCTION_SAMPLES.get(function, {})
    raw = table[param.name] if param.name in table else SAMPLES.get(param.name)
    if raw is None and param.default is not param.empty and _is_plain(param.default) \
            and _has_number(param.default):
        raw = param.default
    if raw is None:
        return []
    out = []
    for option in raw if isinstance(raw, list) else [raw]:
        if callable(option) and not isinstance(option, Opaque):
            try:
                option = option(config)
            except (IndexError, ValueError):      # no such sample for this config (a scalar)
                continue
        out.append(option)
    return out


def _is_plain(value):
    if isinstance(value, (bool, int, float)):
        return True
    return isinstance(value, (tuple, list)) and all(_is_plain(v) for v in value)


def _has_number(value):
    return bool(jax.tree_util.tree_leaves(value))


def role(value):
    """How a sample takes part: "array" (traced in every traced call), "python" (a Python number
    or a tuple of them: traced only when probed) or "opaque" (never traced)."""
    if isinstance(value, Opaque) or value is None:
        return "opaque"
    leaves = jax.tree_util.tree_leaves(value)
    if leaves and all(isinstance(v, jax.Array) for v in leaves):
        return "array"
    if leaves and _is_plain(value):
        return "python"
    return "opaque"


def plain(value):
    return value.value if isinstance(value, Opaque) else value


# --- calling a function -------------------------------------------------------------------------

def build_call(sig, values):
    """Positional and keyword arguments for `values` (parameter name -> value)."""
    params = list(sig.parameters.values())
    spread = any(p.kind is p.VAR_POSITIONAL and p.name in values for p in params)
    args, kwargs = [], {}
    for p in params:
        if p.kind is p.POSITIONAL_ONLY or (p.kind is p.POSITIONAL_OR_KEYWORD and spread):
            if p.name in values:
                args.append(plain(values[p.name]))
            elif p.default is not p.empty:
                args.append(p.default)
            else:
                raise NoSample(p.name)
        elif p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            if p.name in values:
                kwargs[p.name] = plain(values[p.name])
        elif p.kind is p.VAR_POSITIONAL and p.name in values:
            args.extend(plain(values[p.name]))
    return args, kwargs


def call(fn, sig, values, traced=None):
    """fn(**values) without tracing (traced=None), or under make_jaxpr with the values of the
    parameters in `traced` as tracers. Returns the result (which may hold escaped tracers)."""
    if traced is None:
        args, kwargs = build_call(sig, values)
        return fn(*args, **kwargs)
    fixed = {k: v for k, v in values.items() if k not in traced}
    inputs = {k: values[k] for k in traced}
    results = []

    def body(tracers):
        args, kwargs = build_call(sig, {**fixed, **tracers})
        results.append(fn(*args, **kwargs))
        return ()

    jax.make_jaxpr(body)(inputs)
    return results[0]


class Timeout(Exception):
    pass


def _on_alarm(signum, frame):
    raise Timeout()


def error_kind(exc):
    """The kind of failure a tracer caused, or None when the error says nothing about tracers."""
    if isinstance(exc, jax_errors.TracerBoolConversionError):
        return "bool-conversion"
    if isinstance(exc, jax_errors.TracerIntegerConversionError):
        return "integer-conversion"
    if isinstance(exc, jax_errors.TracerArrayConversionError):
        return "array-conversion"
    if isinstance(exc, jax_errors.ConcretizationTypeError):
        return "concretization"
    if isinstance(exc, jax_errors.NonConcreteBooleanIndexError):
        return "boolean-index"
    text = str(exc)
    if isinstance(exc, TypeError) and "Shapes must be 1D sequences" in text:
        return "shape"
    if isinstance(exc, ValueError) and "Non-hashable static arguments" in text:
        return "non-hashable-static"
    if isinstance(exc, TypeError) and ("__hash__" in text or "unhashable type" in text):
        return "hash"
    if isinstance(exc, IndexError) and "Slice entries must be static integers" in text:
        return "slice"
    return None


def describe(exc):
    head = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {head[:100]}"


def contains_array(result):
    return any(isinstance(leaf, jax.Array) for leaf in jax.tree_util.tree_leaves(result))


def is_bool_array(result):
    try:
        return isinstance(result, jax.Array) and np.dtype(result.dtype) == np.dtype(bool)
    except Exception:          # key arrays and other dtypes NumPy does not know
        return False


# --- probing one function -----------------------------------------------------------------------

@dataclass
class Probe:
    concrete: dict = field(default_factory=dict)      # param -> error kind
    unless: dict = field(default_factory=dict)        # param -> keyword that lifts the need
    traced_ok: list = field(default_factory=list)     # params probed that accept a tracer
    inconclusive: dict = field(default_factory=dict)  # param -> error text
    data_dependent: object = None                     # (keyword or None, error kind)
    traced_fails: object = None                       # (error kind, message): fails on any traced array
    static_result: bool = False
    boolean_result: bool = False
    float_result: object = None                       # (shape, weak): see float_result()
    matrix_result: object = None                      # "same" or indices: see matrix_result()
    array_result: bool = False                        # the traced call returned one array
    strong_result: str = ""                           # see strong_result()
    strong_float_pair: bool = False                   # see strong_float_pair()
    skipped: str = ""                                 # why the function was not probed


def required_values(name, sig, config):
    """{param: [samples]} for the parameters every call passes (required, or chosen for this
    function in FUNCTION_SAMPLES). NoSample when one has no sample."""
    chosen = FUNCTION_SAMPLES.get(name, {})
    out = {}
    for p in sig.parameters.values():
        if p.kind is p.VAR_KEYWORD:
            continue
        options = candidates(name, p, config)
        if p.name in chosen or (p.default is p.empty and p.kind is not p.VAR_POSITIONAL):
            if not options:
                raise NoSample(p.name)
            out[p.name] = options
        elif p.kind is p.VAR_POSITIONAL and options and not any(
                q.default is q.empty and q.kind in (q.POSITIONAL_ONLY, q.POSITIONAL_OR_KEYWORD)
                for q in sig.parameters.values()):
            out[p.name] = options          # *args that are the function's only inputs
    return out


def arrays_traced(values, extra=()):
    return sorted({k for k, v in values.items() if role(v) == "array"} | set(extra))


def first_working_call(name, fn, sig):
    """(config, values, outcome): the first samples for the required parameters that JAX accepts.
    outcome is the traced result, or the exception raised once the arrays are traced when the
    same call works without tracing (the data decides something static)."""
    last, missing = None, None
    for config in CONFIGS:
        try:
            options = required_values(name, sig, config)
        except NoSample as exc:
            missing = missing or exc
            continue
        width = max((len(v) for v in options.values()), default=1)
        for variant in range(width):
            values = {k: v[min(variant, len(v) - 1)] for k, v in options.items()}
            try:
                return config, values, call(fn, sig, values, traced=arrays_traced(values))
            except Timeout:
                raise
            except Exception as exc:
                last = exc
                if error_kind(exc) is None:
                    continue            # a sample JAX rejects: try the next
            try:
                call(fn, sig, values)   # works without tracing?
            except Timeout:
                raise
            except Exception as exc:
                last = exc
                continue
            return config, values, last
    if last is None and missing is not None:
        raise missing
    raise LookupError(describe(last) if last else "no sample works")


def probe(name, fn, sig, static_argnames=()):
    """Everything the probes establish about one function."""
    result = Probe()
    try:
        config, base, out = first_working_call(name, fn, sig)
    except NoSample as exc:
        result.skipped = f"no sample for parameter '{exc.args[0]}'"
        return result
    except LookupError as exc:
        result.skipped = f"no sample works: {exc.args[0]}"
        return result
    params = sig.parameters
    size_options = [k for k in SIZE_KEYWORDS if k in params and k not in base]

    def traced_call(values, extra=()):
        return call(fn, sig, values, traced=arrays_traced(values, extra))

    def works(values, extra=()):
        try:
            traced_call(values, extra)
            return None
        except Timeout:
            raise
        except Exception as exc:
            return exc

    if isinstance(out, Exception):
        kind = error_kind(out)
        for keyword in size_options:
            with_size = {**base, keyword: candidates(name, params[keyword], config)[0]}
            if works(with_size) is None:
                result.data_dependent = (keyword, kind)
                base = with_size
                break
        else:
            if "size" in str(out):
                result.data_dependent = (None, kind)
            else:
                result.traced_fails = (kind, describe(out))
            result.skipped = "fails whenever its arrays are traced"
            return result
    else:
        result.static_result = not contains_array(out)
        result.array_result = isinstance(out, jax.Array) and not follows_structure(name, fn, sig, base)
        inputs_bool = any(getattr(v, "dtype", None) == np.dtype(bool) for v in base.values() if role(v) == "array")
        result.boolean_result = is_bool_array(out) and not inputs_bool

    for p in params.values():
        if p.kind is p.VAR_KEYWORD or (p.name in base and role(base[p.name]) != "python"):
            continue
        outcome = probe_parameter(name, sig, p, base, config, size_options, works)
        if outcome is None:
            continue
        if outcome == "ok":
            result.traced_ok.append(p.name)
        elif outcome[0] == "inconclusive":
            result.inconclusive[p.name] = outcome[1]
        else:
            result.concrete[p.name] = outcome[1]
            if outcome[2]:
                result.unless[p.name] = outcome[2]
    for argname in static_argnames:
        if argname in params and argname not in result.concrete and argname not in result.traced_ok:
            result.concrete[argname] = "static-argname"
    return result


def _required_parameters(sig) -> list:
    """The parameters every call must pass (no default, not *args/**kwargs)."""
    return [p for p in sig.parameters.values()
            if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


def _one_array_parameter(sig, method) -> bool:
    """Does a call pass exactly one required argument, an array (a method's receiver, or a
    parameter named like an array)? The type probes below call such functions with one array."""
    required = _required_parameters(sig)
    if len(required) != 1 or required[0].kind is inspect.Parameter.KEYWORD_ONLY:
        return False
    return method or required[0].name in ARRAY_NAMES


def follows_structure(name, fn, sig, values) -> bool:
    """Does the result take the pytree structure of an argument: given a pair of arrays where
    it was given an array, does it return something other than one array (`lax.fori_loop`'s
    carry, `lax.cond`'s operands)? A NumPy-like function stacks the pair into one array. A
    function given a function returns what that function returns: it follows too."""
    if any(inspect.isfunction(plain(value)) for value in values.values()):     # not a dtype class
        return True
    if name.startswith(("jnp.", ".")):
        return False        # NumPy semantics (a sequence is an array); a pair can crash XLA (jnp.int2)
    for param, value in values.items():
        if not isinstance(value, jax.Array):
            continue
        try:
            out = call(fn, sig, {**values, param: (value, value)})
        except Timeout:
            raise
        except Exception:
            continue
        if not isinstance(out, jax.Array):
            return True
    return False


def float_result(fn, sig, method=False):
    """How a one-array function types a float32 array argument, when its result is a float32
    array: (shape, weak) with shape "same" (the argument's shape) or "scalar", and weak "keeps"
    (strong in, strong out; weak in, weak out) or "strong" (a strong result either way, as the
    reductions give); None otherwise (another dtype, a tuple, a shape of its own, a second
    required argument). The signature reader reads `jnp.mean(loss)` and `x.sum()` with it."""
    if not _one_array_parameter(sig, method):
        return None
    shapes, weak = set(), set()
    for shape in ((2, 3), (4,)):
        size = int(np.prod(shape))
        strong = jnp.asarray(((np.arange(size) % 5 + 1) / 8).astype(np.float32).reshape(shape))
        for value, is_weak in ((strong, False), (jnp.full(shape, 0.5), True)):
            assert bool(value.weak_type) is is_weak
            out = fn(value)
            if not isinstance(out, jax.Array) or out.dtype != np.dtype("float32"):
                return None
            shapes.add("same" if out.shape == shape else "scalar" if out.shape == () else "")
            if not is_weak and out.weak_type:
                return None
            if is_weak:
                weak.add("keeps" if out.weak_type else "strong")
    if len(shapes) != 1 or "" in shapes or len(weak) != 1:
        return None
    return shapes.pop(), weak.pop()


def strong_result(fn, sig, method=False) -> str:
    """Does a one-array function return a strongly typed array whatever its argument: float or
    int, strong or weak, a Python number (`jnp.mean(x)`, `x.sum()`)? Then what it returns is
    strong even where the argument's type is unknown: "float" when it is also always a float
    (`jnp.mean`), "any" when its dtype follows the argument (`jnp.sum`), "" otherwise."""
    if not _one_array_parameter(sig, method):
        return ""
    samples = [jnp.asarray(np.arange(6, dtype=np.float32).reshape(2, 3) / 8), jnp.full((2, 3), 0.5),
               jnp.asarray(np.arange(6, dtype=np.int32).reshape(2, 3)), jnp.full((2, 3), 2),
               jnp.asarray(np.arange(6).reshape(2, 3) % 2 == 0)]
    if not method:
        samples += [0.5, 2]
    floating = True
    for value in samples:
        try:
            out = fn(value)
        except Timeout:
            raise
        except Exception:
            return ""
        if not isinstance(out, jax.Array) or out.weak_type:
            return ""
        floating = floating and jnp.issubdtype(out.dtype, jnp.floating)
    return "float" if floating else "any"


def strong_float_pair(fn, sig) -> bool:
    """Does a function of two arrays return a strongly typed float whenever one of them is a
    strong float32 array, whatever the other (a weak or strong int or float array, a Python
    number)? `jnp.minimum(scale, MAX_SCALE)` with a strong MAX_SCALE is strong."""
    required = _required_parameters(sig)
    binary_ufunc = isinstance(fn, jnp.ufunc) and fn.nin == 2
    if not binary_ufunc and (len(required) != 2 or any(
            p.kind is inspect.Parameter.KEYWORD_ONLY or p.name not in ARRAY_NAMES for p in required)):
        return False
    strong = jnp.asarray(np.array([0.25, 0.5, 0.75], np.float32))
    others = [jnp.full((3,), 0.5), jnp.full((3,), 2), jnp.asarray(np.array([1, 2, 3], np.int32)),
              jnp.asarray(np.array([0.5, 1.0, 2.0], np.float32)), 0.5, 2]
    for other in others:
        for args in ((strong, other), (other, strong)):
            try:
                out = fn(*args)
            except Timeout:
                raise
            except Exception:
                return False
            if not isinstance(out, jax.Array) or out.weak_type or not jnp.issubdtype(out.dtype, jnp.floating):
                return False
    return True


def matrix_result(fn, sig, method=False):
    """Which parts of the result have the shape and dtype of a square float32 matrix argument
    (symmetric positive definite, which every factorisation accepts): "same" when the result is
    one such array, else the positions of such arrays in a tuple result (`cho_factor`'s factor,
    `qr`'s Q); None when no part has them. JAX can hand a donated matrix's buffer to such a part
    (JAX403 reads it)."""
    if not _one_array_parameter(sig, method):
        return None

    def same(part):
        return isinstance(part, jax.Array) and part.shape == (3, 3) and part.dtype == np.dtype("float32")

    def parts(value):
        """"same", the positions of the parts with `value`'s shape and dtype, or None."""
        try:
            out = fn(value)
        except Timeout:
            raise
        except Exception:
            return None
        if isinstance(out, jax.Array):
            return "same" if same(out, value.shape) else ()
        if isinstance(out, tuple):
            return tuple(i for i, part in enumerate(out) if same(part, value.shape))
        return ()

    def same(part, shape):
        return isinstance(part, jax.Array) and part.shape == shape and part.dtype == np.dtype("float32")

    square = parts(jnp.asarray(np.array([[4, 1, 0], [1, 3, 1], [0, 1, 2]], np.float32)))
    if not square:
        return None
    # a function that also takes a rectangular matrix keeps only what keeps that shape too
    # (`svd`'s U and Vh are square: a donated 3x2 matrix's buffer fits neither)
    wide = parts(jnp.asarray(np.arange(6, dtype=np.float32).reshape(3, 2) / 8))
    if wide is None:
        return square
    if square == "same":
        return "same" if wide == "same" else None
    return tuple(i for i in square if isinstance(wide, tuple) and i in wide) or None


def _float_result_or_none(fn, sig, method):
    """float_result(), None when a call raises (a function that rejects floats)."""
    try:
        return float_result(fn, sig, method)
    except Timeout:
        raise
    except Exception:
        return None


def lifting_options(name, sig, config, size_options):
    """(keyword, value) that might let a parameter take a tracer: a static total size, or a flag
    turned from its default (`assume_unique_indices=True` for jnp.delete, say)."""
    out = [(k, candidates(name, sig.parameters[k], config)[0]) for k in size_options]
    out += [(p.name, not p.default) for p in sig.parameters.values()
            if isinstance(p.default, bool) and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    return out


def probe_parameter(name, sig, p, base, config, size_options, works):
    """"ok" (a tracer there works), ("concrete", kind, keyword that lifts it or None),
    ("inconclusive", text), or None when no sample of it is accepted. Tries the function's
    own config first, then the others (an axis of size 1 for squeeze, say)."""
    for other in (config,) + tuple(c for c in CONFIGS if c != config):
        if other == config:
            values = dict(base)
        else:
            try:
                values = {k: v[0] for k, v in required_values(name, sig, other).items()}
            except NoSample:
                continue
            values.update({k: v for k, v in base.items() if k in SIZE_KEYWORDS})
        options = [values[p.name]] if p.name in values else candidates(name, p, other)
        for option in options:
            if role(option) != "python":
                continue
            trial = {**values, p.name: option}
            if works(trial) is not None:
                continue                  # the sample is refused even when concrete
            failure = works(trial, extra=(p.name,))
            if failure is None:
                return "ok"
            kind = error_kind(failure)
            if kind is None:
                return ("inconclusive", describe(failure))
            for keyword, value in lifting_options(name, sig, other, size_options):
                if keyword == p.name or keyword in trial:
                    continue
                if works({**trial, keyword: value}, extra=(p.name,)) is None:
                    return ("concrete", kind, keyword)
            return ("concrete", kind, None)
    return None


def run_limited(function, *args):
    """function(*args) with the per-function time limit; Timeout when it is exceeded."""
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, TIME_LIMIT)
    try:
        return function(*args)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# --- what to probe ------------------------------------------------------------------------------

def public_functions():
    """{canonical name: callable} for every public function (and callable class) of NAMESPACES."""
    found = {}
    for module_name, prefix in NAMESPACES:
        module = importlib.import_module(module_name)
        for attr in sorted(dir(module)):
            if attr.startswith("_"):
                continue
            try:
                obj = getattr(module, attr)
            except Exception:            # deprecated names that raise on access
                continue
            if isinstance(obj, types.ModuleType) or not callable(obj):
                continue
            if isinstance(obj, type) and issubclass(obj, (BaseException, enum.Enum, np.generic)):
                continue                 # errors, enums, NumPy's own scalar types re-exported
            if type(obj).__module__ == "typing":
                continue                 # type aliases
            found[f"{prefix}.{attr}"] = obj
    return found


def array_methods():
    """{method name: function} for the public methods of jax.Array."""
    impl = type(jnp.zeros(1))
    found = {}
    for attr in sorted(dir(jax.Array)):
        if attr.startswith("_") or attr in DEVICE_METHODS:
            continue
        obj = inspect.getattr_static(impl, attr, None)
        if obj is None or isinstance(obj, property) or not callable(getattr(impl, attr, None)):
            continue
        found[attr] = getattr(impl, attr)
    return found


def signature_of(obj, method=False):
    """inspect.signature (following __wrapped__), without `self` for a method; None if unknown."""
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    if method:
        params = list(sig.parameters.values())[1:]
        sig = sig.replace(parameters=params)
    return sig


def parameters(sig):
    """The signature as data: ((name, kind code, default source or None), ...)."""
    return tuple((p.name, KIND_CODES[p.kind], None if p.default is p.empty else default_text(p.default))
                 for p in sig.parameters.values())


def default_text(value):
    """Source text of a default: the literal itself, or <name> of an object (no memory address)."""
    try:
        text = repr(value)
        if ast.literal_eval(text) == value and type(ast.literal_eval(text)) is type(value):
            return text
    except Exception:
        pass
    if isinstance(value, enum.Enum):
        return f"<{type(value).__name__}.{value.name}>"
    if isinstance(value, np.dtype):
        return f"<dtype {value.name}>"
    name = getattr(value, "__qualname__", None) or getattr(value, "__name__", None)
    if name:
        return f"<{name}>"
    return f"<{type(value).__qualname__} instance>"


def jit_static_argnames(obj):
    """static_argnames of the jit wrapper that `obj` is or wraps (following __wrapped__)."""
    seen = set()
    while obj is not None and id(obj) not in seen:
        seen.add(id(obj))
        info = getattr(obj, "_jit_info", None)
        if info is not None:
            return tuple(info.static_argnames)
        obj = getattr(obj, "__wrapped__", None)
    return ()


def positions(sig):
    """{param: (position or "*" or None, keyword or None)}: how a call can pass each parameter."""
    out, index = {}, 0
    for p in sig.parameters.values():
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            out[p.name] = (index, None if p.kind is p.POSITIONAL_ONLY else p.name)
            index += 1
        elif p.kind is p.VAR_POSITIONAL:
            out[p.name] = ("*", None)
        elif p.kind is p.KEYWORD_ONLY:
            out[p.name] = (None, p.name)
    return out


# --- NumPy --------------------------------------------------------------------------------------

def numpy_functions():
    found = {}
    for module_name, prefix in NUMPY_NAMESPACES:
        module = importlib.import_module(module_name)
        for attr in sorted(dir(module)):
            if attr.startswith("_"):
                continue
            try:
                obj = getattr(module, attr)
            except Exception:
                continue
            if isinstance(obj, types.ModuleType) or not callable(obj):
                continue
            if isinstance(obj, type) and not issubclass(obj, (np.number, np.bool_)):
                continue
            found[f"{prefix}.{attr}"] = obj
    return found


def numpy_arguments(name, fn, config):
    """Positional arguments for a NumPy function: its required parameters from the sample
    table (ufuncs: nin arrays). NoSample when one has no sample."""
    if isinstance(fn, np.ufunc):
        return [config.array() for _ in range(fn.nin)]
    if isinstance(fn, type):
        return [jnp.asarray(np.float32(0.5))]
    sig = signature_of(fn)
    if sig is None:
        raise NoSample("(no signature)")
    values = []
    for p in sig.parameters.values():
        if p.kind is p.VAR_KEYWORD or (p.default is not p.empty and p.kind is not p.VAR_POSITIONAL):
            continue
        options = candidates(name, p, config)
        if p.kind is p.KEYWORD_ONLY or (not options and p.kind is not p.VAR_POSITIONAL):
            raise NoSample(p.name)
        if options:
            value = plain(options[0])
            values.extend([plain(v) for v in value] if p.kind is p.VAR_POSITIONAL else [value])
    return values


def numpy_probe(name, fn):
    """("fails", kind) or ("works", None) for fn with a tracer as its first argument that can hold
    one, or ("skipped", reason). The first config with which the call works untraced is used."""
    last = None
    for config in CONFIGS:
        try:
            values = numpy_arguments(name, fn, config)
        except NoSample as exc:
            last = last or f"no sample for parameter '{exc.args[0]}'"
            continue
        first = next((i for i, v in enumerate(values) if role(v) in ("array", "python")), None)
        if first is None:
            return ("skipped", "no argument that can be traced")
        try:
            fn(*values)
        except Timeout:
            raise
        except Exception as exc:
            last = f"fails without tracing: {describe(exc)}"
            continue

        def body(tracer):
            fn(*values[:first], tracer, *values[first + 1:])
            return ()

        try:
            jax.make_jaxpr(body)(values[first])
        except Timeout:
            raise
        except Exception as exc:
            kind = error_kind(exc)
            if kind is None and isinstance(exc, (TypeError, ValueError)) and "Tracer" in str(exc):
                kind = "type-error"
            if kind is None:
                return ("skipped", f"inconclusive: {describe(exc)}")
            return ("fails", kind)
        return ("works", None)
    return ("skipped", last or "no sample works")


# --- the generated module -----------------------------------------------------------------------

LINTER_MODULE = ROOT / "src" / "jaxlint" / "analysis" / "jax_api.py"
DETAILS_MODULE = ROOT / "tests" / "jax_api_details.py"

HEADER = '''"""{title} GENERATED FILE: DO NOT EDIT BY HAND.

Generated by {script} from jax {jax} (jaxlib {jaxlib}), numpy {numpy}, Python {python}.
To change anything here, change the script and re-run it (`python {script}`) with the JAX
version the linter targets; tests/test_jax_api.py fails when this file and the installed JAX
disagree.

{about}
Names are canonical (jaxlint.analysis.names): `jnp.zeros`, `lax.scan`, `jax.random.normal`;
names starting with "." are methods of jax.Array. A position is an index among the
positional parameters (after self for a method); None means the parameter can only be passed
by keyword, "*" that it is passed as *args. A keyword is None for a positional-only parameter.
"""

# flake8: noqa
'''

LINTER_ABOUT = """The facts the linter reads (through jaxlint.analysis.api_tables), kept small because every
lint process imports them. The probes' evidence (error kinds, signatures, what was not probed)
is in jax_api_details.
"""

DETAILS_ABOUT = """Signatures and the evidence behind jax_api: what each probe raised, what was not probed and
why. The linter does not import this module (it is large); tests and people read it.

Parameter kinds: "P" positional-only, "PK" positional or keyword, "*" *args, "K"
keyword-only, "**" **kwargs. Error kinds (what a tracer in that place raised):
  concretization       jax.errors.ConcretizationTypeError
  bool-conversion      jax.errors.TracerBoolConversionError
  integer-conversion   jax.errors.TracerIntegerConversionError
  array-conversion     jax.errors.TracerArrayConversionError
  boolean-index        jax.errors.NonConcreteBooleanIndexError
  shape                TypeError: Shapes must be 1D sequences of concrete values of integer type
  non-hashable-static  ValueError: Non-hashable static arguments are not supported
  hash                 TypeError about __hash__ (parameters of jaxpr equations, unhashable type)
  slice                IndexError: Slice entries must be static integers
  static-argname       not probed (no sample value): a static_argnames entry of the jit wrapper
  type-error           (NumPy only) another TypeError/ValueError naming the tracer
"""


def jaxlib_version():
    import jaxlib
    return jaxlib.__version__


def render(name, value):
    return f"{name} = {pprint.pformat(value, width=110, sort_dicts=True)}\n"


def render_rows(name, mapping):
    """A {name: (row, ...)} table as one flat tuple, a row per line."""
    lines = [f"{name} = ("]
    for key in sorted(mapping):
        lines += ["    " + ", ".join(repr(v) for v in (key,) + row) + "," for row in mapping[key]]
    return "\n".join(lines) + "\n)\n"


# (module, table, comment, kind): the tables of each generated module, in order. kind "names" is a
# sorted tuple of the names having the fact, "map" a dict name -> entry.
TABLES = (
    ("jax_api", "CONCRETE", "Rows of (name, position, keyword), flattened (a flat tuple costs a fraction of a dict\n"
     "of tuples to compile, and every lint process without .pyc files compiles it): a tracer passed\n"
     "there fails.", "rows"),
    ("jax_api", "CONCRETE_UNLESS", "name -> ((position, keyword), lifting keyword): a tracer there fails unless\n"
     "the lifting keyword is given (a static total size, or a flag turned from its default).", "map"),
    ("jax_api", "DATA_DEPENDENT", "name -> (size keyword or None, its position): called with its required\n"
     "arguments traced, it fails because its output shape depends on the data; the keyword (when\n"
     "there is one) makes the shape static.", "map"),
    ("jax_api", "STATIC_RESULT", "Called with traced arrays, these return no array (Python values, dtypes,\n"
     "functions).", "names"),
    ("jax_api", "BOOLEAN_RESULT", "Called with non-boolean traced arrays, these return a boolean array.", "names"),
    ("jax_api", "STRONG_RESULT", "name -> \"float\" / \"any\": called with one array of any dtype, weakly typed or\n"
     "not, or a Python number, these return a strongly typed array (the reductions), always a\n"
     "float (\"float\": `jnp.mean`) or of a dtype that follows the argument (\"any\": `jnp.sum`).", "map"),
    ("jax_api", "STRONG_FLOAT_PAIR", "Functions of two arrays that return a strongly typed float whenever one is a\n"
     "strong float32 array, whatever the other (`jnp.minimum`, `jnp.add`).", "names"),
    ("jax_api", "ARRAY_RESULT", "Called with traced arrays, these return one array (not a tuple, a list or a\n"
     "Python value).", "names"),
    ("jax_api", "FLOAT_RESULT", "name -> (shape, weak): called with one float32 array, these return a float32 array\n"
     "of its shape (\"same\") or a scalar (\"scalar\"), strongly typed for a strong argument and, for a\n"
     "weak one, weak (\"keeps\") or strong (\"strong\").", "map"),
    ("jax_api", "MATRIX_RESULT", "name -> \"same\" or (position, ...): called with one square float32 matrix, these\n"
     "return an array of its shape and dtype (\"same\"; functions FLOAT_RESULT lists as \"same\" are left\n"
     "out), or a tuple holding such arrays at those positions (`cho_factor`, `qr`).", "map"),
    ("jax_api", "NUMPY_FAILS", "NumPy functions that fail with a tracer as their first argument that can hold\n"
     "one (the error kind is in jax_api_details.NUMPY_ERROR_KINDS).", "names"),
    ("jax_api_details", "SIGNATURES", "name -> ((parameter, kind, default source or None), ...), from\n"
     "inspect.signature.", "map"),
    ("jax_api_details", "ERROR_KINDS", "name -> {parameter: error kind}: what a tracer there raised (the\n"
     "parameters of jax_api.CONCRETE and CONCRETE_UNLESS; \"(arrays)\" for DATA_DEPENDENT).", "map"),
    ("jax_api_details", "ACCEPTS_TRACER", "name -> (parameter, ...): the probed parameters that accept a tracer.",
     "map"),
    ("jax_api_details", "TRACED_ARRAY_FAILS", "name -> (error kind, message): fails whenever its arrays are\n"
     "traced, for another reason than the output shape (printing, bounds checks on the values).", "map"),
    ("jax_api_details", "NOT_PROBED", "name -> why it was not probed (its concrete parameters are unknown).",
     "map"),
    ("jax_api_details", "INCONCLUSIVE", "name -> {parameter: error}: a tracer there raised an error that says\n"
     "nothing about tracers (not used by the linter).", "map"),
    ("jax_api_details", "NUMPY_ERROR_KINDS", "NumPy function -> what a tracer as its first argument raised.", "map"),
    ("jax_api_details", "NUMPY_WORKS", "NumPy functions that accept a tracer there (they dispatch to its\n"
     "methods).", "names"),
    ("jax_api_details", "NUMPY_NOT_PROBED", "NumPy functions not probed -> why.", "map"),
)


def facts(name, sig, result):
    """{table: entry} for one function (or method, named ".name") from its probe."""
    where = positions(sig)
    order = list(sig.parameters)
    out = {"SIGNATURES": parameters(sig)}
    concrete, kinds = [], {}
    for param, kind in sorted(result.concrete.items(), key=lambda kv: order.index(kv[0])):
        kinds[param] = kind
        if param in result.unless:
            out["CONCRETE_UNLESS"] = (where[param], result.unless[param])
        else:
            concrete.append(where[param])
    if concrete:
        out["CONCRETE"] = tuple(concrete)
    if result.data_dependent is not None:
        keyword, kind = result.data_dependent
        out["DATA_DEPENDENT"] = (keyword, where[keyword][0] if keyword else None)
        kinds["(arrays)"] = kind
    elif result.traced_fails is not None:
        out["TRACED_ARRAY_FAILS"] = result.traced_fails
    elif result.skipped:
        out["NOT_PROBED"] = result.skipped
    if kinds:
        out["ERROR_KINDS"] = kinds
    if result.traced_ok:
        out["ACCEPTS_TRACER"] = tuple(sorted(result.traced_ok, key=order.index))
    if result.static_result:
        out["STATIC_RESULT"] = True
    if result.boolean_result:
        out["BOOLEAN_RESULT"] = True
    if result.array_result:
        out["ARRAY_RESULT"] = True
    if result.strong_result:
        out["STRONG_RESULT"] = result.strong_result
    if result.strong_float_pair:
        out["STRONG_FLOAT_PAIR"] = True
    if result.float_result is not None:
        out["FLOAT_RESULT"] = result.float_result
    if result.matrix_result is not None and (result.float_result or ("",))[0] != "same":
        out["MATRIX_RESULT"] = result.matrix_result
    if result.inconclusive:
        out["INCONCLUSIVE"] = dict(sorted(result.inconclusive.items()))
    return out


def function_facts(name, fn):
    """facts() of a public function, probing it under the time limit; None without a signature."""
    if isinstance(fn, jnp.ufunc) and name not in FUNCTION_SAMPLES:
        FUNCTION_SAMPLES[name] = {"args": lambda c, count=fn.nin: [c.array()] * count}
    sig = signature_of(fn)
    if sig is None:
        return None
    try:
        result = run_limited(probe, name, fn, sig, jit_static_argnames(fn))
        if not result.skipped:
            result.float_result = run_limited(_float_result_or_none, fn, sig, False)
            result.matrix_result = run_limited(matrix_result, fn, sig, False)
            result.strong_result = run_limited(strong_result, fn, sig, False)
            result.strong_float_pair = run_limited(strong_float_pair, fn, sig)
    except Timeout:
        result = Probe(skipped=f"timed out after {TIME_LIMIT:g} s")
    except Exception as exc:        # a probe that breaks must not stop the others
        result = Probe(skipped=f"probe failed: {describe(exc)}")
    return facts(name, sig, result)


def method_facts(method, fn):
    """facts() of a jax.Array method, named ".method"; positions count after self."""
    sig = signature_of(fn, method=True)
    if sig is None:
        return None
    label = "." + method
    samples = {"self": _arr}
    for p in sig.parameters.values():
        if p.kind is p.VAR_POSITIONAL and method in METHOD_VARARGS:
            samples[p.name] = METHOD_VARARGS[method]
    FUNCTION_SAMPLES[label] = samples
    receiver = inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)
    full = sig.replace(parameters=[receiver] + list(sig.parameters.values()))

    def bound(self, *args, **kwargs):
        return getattr(self, method)(*args, **kwargs)

    try:
        result = run_limited(probe, label, bound, full)
        if not result.skipped:
            result.float_result = run_limited(_float_result_or_none, bound, full, True)
            result.matrix_result = run_limited(matrix_result, bound, full, True)
            result.strong_result = run_limited(strong_result, bound, full, True)
    except Timeout:
        result = Probe(skipped=f"timed out after {TIME_LIMIT:g} s")
    except Exception as exc:
        result = Probe(skipped=f"probe failed: {describe(exc)}")
    result.concrete.pop("self", None)
    return facts(label, sig, result)


def numpy_facts(name, fn):
    """{table: entry} for one NumPy function."""
    try:
        outcome, detail = run_limited(numpy_probe, name, fn)
    except Timeout:
        outcome, detail = "skipped", f"timed out after {TIME_LIMIT:g} s"
    except Exception as exc:
        outcome, detail = "skipped", f"probe failed: {describe(exc)}"
    if outcome == "fails":
        return {"NUMPY_FAILS": True, "NUMPY_ERROR_KINDS": detail}
    if outcome == "works":
        return {"NUMPY_WORKS": True}
    return {"NUMPY_NOT_PROBED": detail}


def facts_of(name, functions=None, methods=None, numpy=None):
    """facts for one name (a function, ".method" or NumPy function), probed now; None when the
    name is unknown or has no signature."""
    functions = public_functions() if functions is None else functions
    methods = array_methods() if methods is None else methods
    numpy = numpy_functions() if numpy is None else numpy
    warnings.simplefilter("ignore")
    if name in functions:
        return function_facts(name, functions[name])
    if name.startswith(".") and name[1:] in methods:
        return method_facts(name[1:], methods[name[1:]])
    if name in numpy:
        return numpy_facts(name, numpy[name])
    return None


def all_facts(log=None):
    """{name: {table: entry}} for every function, method and NumPy function, and the names
    without a signature."""
    warnings.simplefilter("ignore")
    found, no_signature = {}, []
    started = time.perf_counter()
    jobs = [(name, function_facts, fn) for name, fn in public_functions().items()]
    jobs += [("." + method, lambda _n, f, m=method: method_facts(m, f), fn)
             for method, fn in array_methods().items()]
    jobs += [(name, numpy_facts, fn) for name, fn in numpy_functions().items()]
    for index, (name, make, fn) in enumerate(jobs):
        entry = make(name, fn)
        if entry is None:
            no_signature.append(name)
        else:
            found[name] = entry
        if log is not None and index % 200 == 0:
            print(f"{index}/{len(jobs)}, {time.perf_counter() - started:.0f} s", file=log)
    return found, sorted(no_signature)


def tables_of(found):
    """{(module, table): value} as the generated modules hold them."""
    out = {}
    for module, table, _comment, kind in TABLES:
        entries = {name: f[table] for name, f in found.items() if table in f}
        out[module, table] = tuple(sorted(entries)) if kind == "names" else entries
    return out


def rows_to_map(rows, width=3):
    """{name: ((position, keyword), ...)} from the flat rows of a "rows" table."""
    out = {}
    for i in range(0, len(rows), width):
        out.setdefault(rows[i], ())
        out[rows[i]] += (tuple(rows[i + 1:i + width]),)
    return out


def entries_of(tables, name):
    """{(module, table): entry} for one name: what the tables say about it."""
    out = {}
    for key, value in tables.items():
        if isinstance(value, dict):
            if name in value:
                out[key] = value[name]
        elif name in value:
            out[key] = True
    return out


def committed_tables():
    """The tables of the committed modules, in the shape tables_of() gives."""
    import importlib.util
    modules = {}
    for path in (LINTER_MODULE, DETAILS_MODULE):
        spec = importlib.util.spec_from_file_location(path.stem, path)
        modules[path.stem] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(modules[path.stem])
    return {(module, table): rows_to_map(getattr(modules[module], table)) if kind == "rows"
            else getattr(modules[module], table) for module, table, _c, kind in TABLES}, modules


def render_modules(found, no_signature):
    """{path: text} of the two generated modules."""
    versions = {"script": SCRIPT, "jax": jax.__version__, "jaxlib": jaxlib_version(),
                "numpy": np.__version__, "python": platform.python_version()}
    tables = tables_of(found)
    texts = {}
    for path, title, about in ((LINTER_MODULE, "Facts about JAX's API that the linter reads, asked of JAX itself.",
                                LINTER_ABOUT),
                               (DETAILS_MODULE, "Signatures of JAX's API and the evidence of the probes.",
                                DETAILS_ABOUT)):
        parts = [HEADER.format(title=title, about=about, **versions),
                 f"JAX_VERSION = {jax.__version__!r}\nJAXLIB_VERSION = {jaxlib_version()!r}\n"
                 f"NUMPY_VERSION = {np.__version__!r}\n"]
        for module, table, comment, kind in TABLES:
            if module == path.stem:
                parts.append("\n" + "".join(f"# {line}\n" for line in comment.splitlines()))
                value = tables[module, table]
                parts.append(render_rows(table, value) if kind == "rows" else render(table, value))
        if path == DETAILS_MODULE:
            parts.append("\n# Public callables whose signature inspect cannot read.\n"
                         f"NO_SIGNATURE = {tuple(no_signature)!r}\n")
        texts[path] = "".join(parts)
    return texts


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stdout", action="store_true", help="print the modules instead of writing them")
    parser.add_argument("--only", action="append", default=[], help="probe only these names and report")
    options = parser.parse_args(argv)
    if options.only:
        functions, methods, numpy = public_functions(), array_methods(), numpy_functions()
        for name in options.only:
            print(name, facts_of(name, functions, methods, numpy) or "is not a public function here")
        return 0
    started = time.perf_counter()
    found, no_signature = all_facts(log=sys.stderr)
    print(f"probed {len(found)} callables in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    for path, text in render_modules(found, no_signature).items():
        if options.stdout:
            sys.stdout.write(text)
        else:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
