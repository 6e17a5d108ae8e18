"""Facts about JAX and Python APIs, as data, checked against jax 0.10.2.

The facts about JAX's own functions (which arguments must be concrete, which results are
boolean or Python values, which NumPy functions fail on a tracer...) come from jax_api, which
scripts/generate_api_tables.py generates by asking the installed JAX. The few hand entries
below are facts those probes cannot establish, each with the reason. The rest (transforms,
builtins, loaders) is about how code is written around JAX, not about JAX's functions.

Names are canonical (see names.canonical): `jnp.zeros`, `lax.scan`, `jax.random.normal`.
"""

from __future__ import annotations

from jaxlint.analysis import jax_api as _probed

# --- transforms ------------------------------------------------------------------------------

# Decorators / wrappers whose function is compiled: name -> how its static arguments are spelled.
JIT_WRAPPERS = {
    "jax.jit": ("static_argnums", "static_argnames"),
    "jax.pmap": ("static_broadcasted_argnums", None),
    "jax.checkpoint": ("static_argnums", None),
    "nnx.jit": ("static_argnums", "static_argnames"),
    "eqx.filter_jit": (None, None),
    "eqx.filter_pmap": (None, None),
    "jax.make_jaxpr": ("static_argnums", None),     # traces like jit (never compiles)
}
# In these, a parameter is static unless its value is an array (equinox's filter semantics).
FILTERING_WRAPPERS = {"eqx.filter_jit", "eqx.filter_pmap"}
# Of the wrappers, those that compile (and cache per signature) rather than only trace.
COMPILING_WRAPPERS = {"jax.jit", "jax.pmap", "nnx.jit", "eqx.filter_jit", "eqx.filter_pmap"}

# lax control flow: positions of the function arguments whose parameters are traced.
TRANSFORM_BODY_ARGS = {
    "lax.scan": (0,),
    "lax.fori_loop": (2,),
    "lax.while_loop": (0, 1),
    "lax.cond": (1, 2),
    "lax.map": (0,),
    "lax.associative_scan": (0,),
    "lax.custom_root": (0,),
}
TRANSFORM_BODY_KEYWORDS = {
    "lax.scan": ("f",),
    "lax.fori_loop": ("body_fun",),
    "lax.while_loop": ("cond_fun", "body_fun"),
    "lax.cond": ("true_fun", "false_fun"),
    "lax.map": ("f",),
}
# lax.switch(index, branches, *operands): every function in `branches` is traced.
SWITCH = "lax.switch"

# `T(f, ...)(*args)` calls f on args. Autodiff alone does not trace (Python control flow works
# under grad), but under jit the values are tracers already.
CALL_THROUGH_WRAPPERS = {
    "jax.grad", "jax.value_and_grad", "jax.jacfwd", "jax.jacrev", "jax.hessian", "jax.vmap",
    "jax.checkpoint", "jax.named_call", "jax.jit", "jax.pmap", "eqx.filter_jit", "eqx.filter_vmap",
    "eqx.filter_grad", "eqx.filter_value_and_grad", "nnx.jit", "jax.custom_jvp", "jax.custom_vjp",
    "jax.shard_map", "jax.make_jaxpr", "nnx.grad", "nnx.value_and_grad",
}
# Decorators that may sit over a jit decorator and still hand each call's values to the jitted
# function unchanged. They pass every argument by position (JAX 0.10.2: `norm(x, ord=2)` and
# `norm(x, 2)` share one compile under `@custom_jvp @jit`), so a call's spelling does not reach
# jit, its values do. Under any other decorator the call sites say nothing certain.
VALUE_PRESERVING_OUTER = {"jax.custom_jvp", "jax.custom_vjp"}
# Methods of a custom_jvp/custom_vjp object that register rule functions (`f.defvjp(fwd, bwd)`,
# `@f.defjvp`): JAX runs those rules while it differentiates f, inside the trace of the program.
CUSTOM_RULE_REGISTRARS = {"defvjp", "defjvp", "defjvps"}
# Wrappers that trace their function even outside jit (vmap's parameters become BatchTracers).
TRACING_WRAPPERS = {"jax.vmap", "jax.checkpoint", "eqx.filter_vmap", "jax.shard_map", "jax.make_jaxpr"}
# Of those, the ones that run their function op by op outside jit: only values computed from
# the arguments are tracers there (`jnp.zeros(3).sum()` is a concrete array).
BATCHING_WRAPPERS = {"jax.vmap", "eqx.filter_vmap", "jax.shard_map"}
# Of those, the ones whose every non-static argument becomes a tracer, Python numbers included.
STAGING_WRAPPERS = {"jax.checkpoint", "jax.shard_map", "jax.make_jaxpr"}

# Autodiff alone (no jit): the differentiated arguments become tracers whose primal value is
# concrete. name -> position of `argnums`. (equinox's filter_grad differentiates only the float
# arrays of its argument: what else it holds stays a Python value, so it is not listed.)
# `T(f)(*args)` returns `(f(*args), gradients)`: what f returns is the first element.
VALUE_AND_GRAD_WRAPPERS = {"jax.value_and_grad", "eqx.filter_value_and_grad"}
DIFF_WRAPPERS = {"jax.grad": 1, "jax.value_and_grad": 1, "jax.jacfwd": 1, "jax.jacrev": 1, "jax.hessian": 1,
                 # the frameworks' own: argnums second like JAX's (nnx), or the first argument
                 # always (equinox's filter_ forms take none); flax 0.12.8, equinox 0.13
                 "nnx.grad": 1, "nnx.value_and_grad": 1, "eqx.filter_grad": 1, "eqx.filter_value_and_grad": 1}
# `T(f, *args)`: f is traced at once with the arguments after it. name -> (mode, how the
# arguments are passed): "staged" traces like jit, "diff" like grad; "args" passes args[1:],
# "tuple" passes the elements of args[1] (jax.jvp(f, primals, tangents)).
APPLY_TRANSFORMS = {"jax.eval_shape": ("staged", "args"), "jax.vjp": ("diff", "args"),
                    "jax.linearize": ("diff", "args"), "jax.jvp": ("diff", "tuple")}
# How a tracer of autodiff alone fails (JAX102 wording): the other conversions of the family,
# `int()`, `.item()`, `operator.index()`, indexing, work on its concrete primal. Also failing:
# every `math.*` and NumPy conversion, and numeric format specs.
FAILS_UNDER_AUTODIFF = {"float()", "complex()", ".tolist()", "hash()", "dict key", ".__float__()",
                        ".__array__()", "%-format as a number", "str.format with a number format"}
# Operations whose result still carries a derivative (a tracer of autodiff); everything else on
# such a value (comparisons, floor, sign, argmax, astype...) gives a concrete result under grad.
DIFFERENTIABLE_FUNCTIONS = {
    "sin", "cos", "tan", "tanh", "sinh", "cosh", "arcsin", "arccos", "arctan", "arctan2", "exp",
    "exp2", "expm1", "log", "log1p", "log2", "log10", "sqrt", "cbrt", "square", "power", "abs",
    "absolute", "sum", "mean", "prod", "std", "var", "max", "min", "maximum", "minimum", "dot",
    "matmul", "einsum", "inner", "outer", "where", "clip", "norm", "logaddexp", "logsumexp",
    "sigmoid", "softplus", "relu", "gelu", "silu", "softmax", "log_softmax", "reshape",
    "transpose", "concatenate", "stack", "squeeze", "expand_dims", "ravel", "multiply", "add",
    "subtract", "divide", "true_divide", "negative", "reciprocal", "hypot", "erf", "cumsum",
    "cumprod", "linalg.norm", "diagonal", "trace", "tensordot", "vdot", "atleast_1d",
}
DIFFERENTIABLE_METHODS = {"sum", "mean", "prod", "std", "var", "max", "min", "dot", "reshape",
                          "transpose", "squeeze", "ravel", "flatten", "clip", "cumsum", "cumprod",
                          "conj", "diagonal", "trace", "__getitem__", "copy", "swapaxes"}

# --- values -----------------------------------------------------------------------------------

# Namespaces whose call results are staged arrays under a trace, even from Python inputs.
ARRAY_NAMESPACES = ("jnp.", "lax.", "jax.random.", "jax.nn.", "jax.scipy.", "jax.image.",
                    "jax.ops.", "jax.numpy.")
ARRAY_FUNCTIONS = {"jax.device_put", "jax.lax.stop_gradient"}
# name -> (shape, weak): the float32 type of what a one-array function returns (probed).
FLOAT_RESULT = _probed.FLOAT_RESULT
# name -> "same" or positions: what a one-matrix function returns of its argument's shape (probed).
MATRIX_RESULT = _probed.MATRIX_RESULT
# Functions that return one array: probed with their required arguments, and by hand
# `jnp.where(c, x, y)` (name -> the number of positional arguments of that form), whose probe
# calls the one-argument form (a tuple of index arrays).
ARRAY_RESULT = frozenset(_probed.ARRAY_RESULT)
# One-array functions whose result is strongly typed whatever the argument (the reductions):
# name -> "float" (always a float: `jnp.mean`) or "any" (`jnp.sum`).
STRONG_RESULT = _probed.STRONG_RESULT
# Functions that return a strong float when one of their array arguments is a strong float:
# name -> the positions of those arguments; probed for the two-array functions, and by hand
# `jnp.where(c, x, y)` (its probe calls the one-argument form; checked in test_signatures).
STRONG_FLOAT_ARGS = {**{name: (0, 1) for name in _probed.STRONG_FLOAT_PAIR}, "jnp.where": (1, 2)}
ARRAY_RESULT_WITH_ARGS = {"jnp.where": 3}
# Keywords that can turn one array into a tuple (`jnp.linspace(..., retstep=True)`,
# `jnp.average(..., returned=True)`, `jnp.unique(..., return_counts=True)`): a call passing
# one is not read as returning one array.
TUPLE_KEYWORDS = ("return", "retstep", "full_output", "compute_uv")
# ... except these, which compute on dtypes and shapes and return Python values.
STATIC_RESULT_FUNCTIONS = set(_probed.STATIC_RESULT) | {
    "lax.axis_size",    # needs a named axis, which the probes do not set up; returns a Python int
    # Python ints about the runtime, not the values (JAX 0.10.2: int under jit and shard_map alike)
    "jax.device_count", "jax.local_device_count", "jax.process_count", "jax.process_index",
}
# Collectives that return a Python number when their operand is one: `lax.psum(1, axis)` is the
# axis size as an int (JAX 0.10.2, under shard_map, pmap and vmap alike); `lax.pmax(1, ...)` is not.
CONCRETE_FOR_PYTHON_OPERAND = {"lax.psum", "lax.pmean"}
COLLECTIVES = {"lax.psum", "lax.pmean", "lax.pmax", "lax.pmin", "lax.all_gather", "lax.psum_scatter",
               "lax.all_to_all", "lax.ppermute", "lax.pshuffle", "lax.pswapaxes"}
# NumPy functions that build an ndarray: indexing one with a tracer calls __array__/__index__
# on the tracer (TracerArrayConversionError), where a jnp array would be indexed on device.
NUMPY_ARRAY_RESULTS = {
    "np.array", "np.asarray", "np.asanyarray", "np.ascontiguousarray", "np.arange", "np.zeros",
    "np.ones", "np.full", "np.empty", "np.linspace", "np.logspace", "np.geomspace", "np.eye",
    "np.identity", "np.load", "np.loadtxt", "np.genfromtxt", "np.stack", "np.concatenate",
    "np.vstack", "np.hstack", "np.tile", "np.repeat", "np.zeros_like", "np.ones_like",
    "np.full_like", "np.diag", "np.tri", "np.triu", "np.tril", "np.cumsum", "np.sort",
    "np.argsort", "np.copy", "np.frombuffer", "np.fromfunction", "np.random.permutation",
}
# NumPy functions that read an array's metadata: given a tracer they return a Python value (a
# shape, a dtype, a bool) and never call __array__ (tests/test_jax_api.py checks each under jit).
NUMPY_METADATA = {"np.shape", "np.ndim", "np.size", "np.dtype", "np.result_type", "np.issubdtype",
                  "np.isscalar", "np.iscomplexobj", "np.isrealobj"}
# jit wrappers whose `donate_argnums`/`donate_argnames` hand the argument's buffers to the
# computation: the caller's array is deleted by the call (JAX 0.10.2, CPU included).
DONATING_WRAPPERS = {"jax.jit", "jax.pmap"}
# jax.random functions that do not consume the key they are given (make, inspect or derive one
# without using it up: fold_in's result is a new key, the input stays usable).
KEY_NOT_CONSUMED = {"jax.random.PRNGKey", "jax.random.key", "jax.random.fold_in", "jax.random.key_data",
                    "jax.random.wrap_key_data", "jax.random.key_impl", "jax.random.clone",
                    "jax.random.default_prng_impl"}
# Calls that compare values (the last name of the callee): a function that makes one of these,
# or an `assert`, may draw twice from one key on purpose, to check the draws are equal.
EQUALITY_TESTS = {"allclose", "isclose", "array_equal", "array_equiv", "assert_allclose",
                  "assert_array_equal", "assert_array_almost_equal", "assert_equal",
                  "assert_almost_equal", "assertEqual", "assertAllClose", "assertArraysEqual",
                  "assertArraysAllClose", "assertTrue"}
# 64-bit dtypes: requested from JAX while x64 is off, they are truncated to 32 bits with a warning.
DTYPES_64 = {"jnp.float64", "np.float64", "jnp.int64", "np.int64", "jnp.uint64", "np.uint64",
             "jnp.complex128", "np.complex128", "jnp.double", "np.double", "np.longlong",
             "np.ulonglong", "np.cdouble", "jnp.cdouble"}
DTYPE_STRINGS_64 = {"float64", "int64", "uint64", "complex128", "f8", "i8", "u8", "c16", "double",
                    "<f8", "<i8", "<u8", "<c16"}
# Callables that make a 64-bit scalar or array from their argument: `jnp.float64(x)`.
CONSTRUCTORS_64 = {"jnp.float64", "jnp.int64", "jnp.uint64", "jnp.complex128", "jnp.double"}
# Where the dtype goes when passed by position (tests/test_jax_api.py checks each against the
# installed JAX's signatures).
DTYPE_POSITIONS = {"jnp.zeros": 1, "jnp.ones": 1, "jnp.empty": 1, "jnp.full": 2, "jnp.array": 1,
                   "jnp.asarray": 1, "jnp.arange": 3, "jnp.eye": 3, "jnp.identity": 1,
                   "jnp.zeros_like": 1, "jnp.ones_like": 1, "jnp.empty_like": 1, "jnp.full_like": 2,
                   "jax.random.normal": 2, "jax.random.uniform": 2, "lax.convert_element_type": 1}
# Concrete parameters that also take an array, traced or not: `jnp.histogram(x, bins=edges)`
# with an array of edges works under jit, an int number of bins must be concrete. A traced value
# there is reported only when it is known not to be an array (the probes traced an int; tests/
# test_jax_api.py checks both ways).
ARRAY_ALSO_ACCEPTED = {("jnp.histogram", "bins"), ("jnp.histogram2d", "bins"),
                       ("jnp.histogram_bin_edges", "bins")}
# Attributes of an array that are Python values under trace.
STATIC_ATTRIBUTES = {"shape", "ndim", "dtype", "size", "sharding", "aval", "weak_type", "itemsize",
                     "nbytes", "named_shape"}
# Namespaces of the frameworks' layer classes (`nnx.Linear`, `flax.linen.Dense`, `eqx.nn.MLP`,
# `haiku.Linear`): an object built from one of these classes and called with traced arrays
# computes on them, so what it returns is traced (an array, or a tuple of them for a
# recurrent cell).
LAYER_NAMESPACES = ("nnx.", "flax.linen.", "eqx.nn.", "haiku.")

# Array methods whose result is a traced array (the common ones; others are unknown).
ARRAY_METHODS = {
    "sum", "mean", "max", "min", "prod", "std", "var", "any", "all", "argmax", "argmin",
    "astype", "reshape", "transpose", "squeeze", "ravel", "flatten", "clip", "round", "dot",
    "cumsum", "cumprod", "conj", "swapaxes", "take", "sort", "argsort", "nonzero", "repeat",
    "__getitem__", "block_until_ready", "copy", "view", "diagonal", "trace", "ptp",
    "set", "add", "multiply", "divide", "power", "get", "apply", "min", "max",
}
ELEMENT_METHODS = {"set", "add", "multiply", "divide", "power", "min", "max", "get", "apply"}
# ... those of them that return a new array of the indexed array's shape and dtype (checked with
# JAX 0.10.2, weak type included: `x.at[i].set(v)` casts v to x's dtype); `get` reads elements.
# `divide` of a bool or int array gives float32, `power` of a bool array int32: those two keep
# the dtype of inexact (float, complex) arrays only.
ELEMENT_UPDATES = ELEMENT_METHODS - {"get"}
ELEMENT_UPDATES_PROMOTING = {"divide", "power"}

# Python builtins whose result is a Python value whatever the argument.
STATIC_BUILTINS = {"len", "isinstance", "issubclass", "callable", "type", "id", "hasattr",
                   "str", "repr", "format", "print", "dir", "vars", "getattr", "ascii"}
# Builtins that compute with their arguments (traced in, traced out).
ARITHMETIC_BUILTINS = {"abs", "round", "sum", "pow", "divmod"}
# Builtins that convert to a Python number.
CONVERTING_BUILTINS = {"int": "int()", "float": "float()", "complex": "complex()"}
SCALAR_TYPES = {"int", "float", "bool", "complex", "numbers.Number", "numbers.Integral",
                "numbers.Real", "numbers.Complex"}
# Types that no tracer and no pytree of tracers is an instance of: `isinstance(x, np.ndarray)` on
# a traced value is False under trace, so its branch never runs there.
NEVER_TRACED_TYPES = {"np.ndarray", "np.generic", "np.number", "np.integer", "np.floating",
                      "np.bool_", "np.complexfloating", "str", "bytes"}
CONTAINER_TYPES = {"list", "tuple", "dict", "set", "frozenset"}

# NumPy functions that fail on a tracer, mostly by calling __array__ (np.sum/np.mean/np.max
# dispatch to the tracer's own methods and work, so they are not here).
NUMPY_CONVERTING = set(_probed.NUMPY_FAILS) | {
    "np.argsort",   # traces, but lowering fails in jax 0.10.2 ("get(): incompatible function arguments")
}

# --- JAX APIs whose parameters must be concrete (JAX103 / JAX104 / JAX105) ---------------------


def _concrete(rows):
    """{name: ((position, keyword), ...)} from jax_api's flat (name, position, keyword) rows."""
    out = {}
    for i in range(0, len(rows), 3):
        out.setdefault(rows[i], []).append((rows[i + 1], rows[i + 2]))
    return out


_CONCRETE = _concrete(_probed.CONCRETE)

# name -> tuple of (position or None, keyword or None): arguments that must be concrete. A
# position is None for a keyword-only parameter, a keyword None for a positional-only one.
CONCRETE_ARGS = {name: tuple(fact for fact in facts if fact[0] != "*")
                 for name, facts in _CONCRETE.items() if not name.startswith(".")}

# Array methods: method -> (position, keyword) of arguments that must be concrete.
# `reshape`/`transpose` take the shape as *args: position "*" means every positional, and the
# keyword is what the messages call it (JAX accepts no such keyword).
_VARARGS_NAMES = {"reshape": "shape", "transpose": "axes"}
CONCRETE_METHOD_ARGS = {
    name[1:]: tuple((pos, _VARARGS_NAMES.get(name[1:]) if pos == "*" else kw) for pos, kw in facts)
    for name, facts in _CONCRETE.items() if name.startswith(".")}

# Size-changing slices: these go to JAX104 rather than JAX103.
SLICE_SIZE_APIS = {"lax.dynamic_slice", "lax.dynamic_slice_in_dim", "lax.slice", "lax.slice_in_dim"}
# What each raises when a size (or limit) is a tracer under jit (checked with JAX 0.10.2).
SLICE_SIZE_ERRORS = {
    "lax.dynamic_slice": "TypeError (Shapes must be 1D sequences of concrete values of integer type)",
    "lax.dynamic_slice_in_dim": "TracerIntegerConversionError (its __index__() is called)",
    "lax.slice": "TypeError (parameters to jaxpr equations must have __hash__ and __eq__)",
    "lax.slice_in_dim": "TracerIntegerConversionError (its __index__() is called)",
}

# Output shape depends on values unless `size=` (or `length=`...) is given (JAX105): name -> that
# keyword, or None when no argument makes it static. (The one-argument form of `jnp.where` is
# told apart by the dataflow itself.)
DATA_DEPENDENT_SHAPE = {name: keyword for name, (keyword, _pos) in _probed.DATA_DEPENDENT.items()
                        if not name.startswith(".")}
# jnp.trim_zeros fails on traced input (reference, group 5: ConcretizationTypeError), but its error
# does not say "size", so the probes file it under TRACED_ARRAY_FAILS with printing and bounds checks.
DATA_DEPENDENT_SHAPE["jnp.trim_zeros"] = None
# name -> position of that keyword when it can also be passed positionally.
SIZE_POSITIONS = {name: pos for name, (_kw, pos) in _probed.DATA_DEPENDENT.items()
                  if pos is not None and not name.startswith(".")}
# Arguments that must be concrete unless a keyword is given: `jnp.repeat`'s repeats unless
# total_repeat_length=, `jnp.delete`'s obj unless assume_unique_indices=.
REPEAT_TOTAL_LENGTH = {name: spec for name, spec in _probed.CONCRETE_UNLESS.items() if not name.startswith(".")}

# Functions returning boolean arrays (their result is a mask: JAX105 when used as an index).
BOOLEAN_RESULT = {name for name in _probed.BOOLEAN_RESULT if not name.startswith(".")}

# Loaders that can yield a smaller last batch (JAX303) and the keyword that prevents it.
RAGGED_LOADERS = {
    "torch.utils.data.DataLoader": ("drop_last", True),
    "torch.utils.data.dataloader.DataLoader": ("drop_last", True),
}
TF_BATCH_KEYWORD = ("drop_remainder", True)

# --- where batches come from (JAX303), checked against the libraries' documented signatures --

# Calls that split a sequence into batches whose last one is shorter unless the length divides.
# np.split / jnp.split count only when split every `bs` rows (`range(bs, n, bs)`): with a number
# of pieces they raise unless the pieces are equal.
RAGGED_SPLITTERS = {"np.array_split", "jnp.array_split", "np.split", "jnp.split", "itertools.batched",
                    "more_itertools.chunked", "more_itertools.batched", "toolz.partition_all"}
# tf.data methods that batch, and the position of their `drop_remainder` parameter.
TF_BATCH_METHODS = {"batch": 1, "padded_batch": 3}
TF_DATA_PREFIXES = ("tensorflow",)        # tf.data, tensorflow_datasets
# Hugging Face `datasets`: Dataset.iter(batch_size, drop_last_batch=False).
HF_ITER_KEYWORD = "drop_last_batch"
# Methods after which the batches are no longer the pipeline's (a prefix of them, or re-batched).
BATCH_STOPPERS = {"take", "unbatch", "rebatch"}
# Calls and methods that hand on the batches of their argument or receiver unchanged.
BATCH_PASS_THROUGH = {"tensorflow_datasets.as_numpy", "tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm",
                      "flax.jax_utils.prefetch_to_device", "itertools.cycle", "itertools.chain"}
BATCH_PASS_THROUGH_BUILTINS = {"iter", "enumerate", "zip", "list", "tuple", "map"}
BATCH_PASS_THROUGH_METHODS = {"as_numpy_iterator", "prefetch", "__iter__", "cache", "repeat", "map",
                              "with_format", "shuffle"}

# --- objects that hash by identity (JAX204) --------------------------------------------------

# optax's public factories (optax 0.2.8: the functions its __init__ exports that return a
# GradientTransformation or a Schedule). Each call builds new closures: a transformation is a
# NamedTuple of them, so two `optax.adam(1e-3)` compare unequal and a fresh one passed as a static
# argument compiles again (checked under JAX 0.10.2).
OPTAX_FACTORIES = frozenset("optax." + _name for _name in (
    "adabelief", "adadelta", "adafactor", "adagrad", "adam", "adamax", "adamaxw", "adamw", "adan",
    "adaptive_grad_clip", "add_decayed_weights", "add_noise", "amsgrad", "apply_every",
    "apply_if_finite", "centralize", "chain", "clip", "clip_by_block_rms", "clip_by_global_norm",
    "conditionally_mask", "conditionally_transform", "constant_schedule", "cosine_decay_schedule",
    "cosine_onecycle_schedule", "differentially_private_aggregate", "dpsgd", "ema",
    "exponential_decay", "flatten", "freeze", "fromage", "identity", "inject_hyperparams",
    "inject_stateful_hyperparams", "join_schedules", "keep_params_nonnegative", "lamb", "lars",
    "lbfgs", "linear_onecycle_schedule", "linear_schedule", "lion", "lookahead", "masked",
    "measure_with_ema", "named_chain", "noisy_sgd", "normalize_by_update_norm", "novograd",
    "optimistic_adam", "optimistic_adam_v2", "optimistic_gradient_descent", "partition",
    "piecewise_constant_schedule", "piecewise_interpolate_schedule", "polyak_sgd",
    "polynomial_schedule", "radam", "rmsprop", "rprop", "scale", "scale_by_adadelta",
    "scale_by_adam", "scale_by_adamax", "scale_by_adan", "scale_by_amsgrad",
    "scale_by_backtracking_linesearch", "scale_by_belief", "scale_by_distance_over_gradients",
    "scale_by_lbfgs", "scale_by_learning_rate", "scale_by_lion", "scale_by_novograd",
    "scale_by_optimistic_gradient", "scale_by_param_block_norm", "scale_by_param_block_rms",
    "scale_by_polyak", "scale_by_radam", "scale_by_rms", "scale_by_rprop", "scale_by_rss",
    "scale_by_schedule", "scale_by_sign", "scale_by_sm3", "scale_by_stddev",
    "scale_by_trust_ratio", "scale_by_yogi", "scale_by_zoom_linesearch", "selective_transform",
    "set_to_zero", "sgd", "sgdr_schedule", "sign_sgd", "signum", "sm3", "snapshot", "stateless",
    "stateless_with_tree_map", "trace", "warmup_constant_schedule", "warmup_cosine_decay_schedule",
    "warmup_exponential_decay_schedule", "with_extra_args_support", "yogi", "zero_nans",
))

# Datasets loaded by name: their size is not in the file. A ragged last batch (JAX303) is
# reported for one only when its size is known here and the batch size does not divide it
# (sizes as the libraries document them: tfds catalog, torchvision docs).
NAMED_DATASET_LOADERS = {"tensorflow_datasets.load", "tensorflow_datasets.builder", "datasets.load_dataset"}
NAMED_DATASET_PREFIXES = ("torchvision.datasets.", "tensorflow.keras.datasets.", "keras.datasets.")
WELL_KNOWN_SIZES = {
    ("mnist", "train"): 60000, ("mnist", "test"): 10000,
    ("fashion_mnist", "train"): 60000, ("fashion_mnist", "test"): 10000,
    ("kmnist", "train"): 60000, ("kmnist", "test"): 10000,
    ("cifar10", "train"): 50000, ("cifar10", "test"): 10000,
    ("cifar100", "train"): 50000, ("cifar100", "test"): 10000,
    ("imagenet2012", "train"): 1281167, ("imagenet2012", "validation"): 50000,
    ("glue/sst2", "train"): 67349, ("glue/sst2", "validation"): 872, ("glue/sst2", "test"): 1821,
}
# Objects made empty and given their attributes one by one (`config = SimpleNamespace();
# config.batch_size = 64`): what the making scope assigns, and the keywords it passes, is all
# they hold.
NAMESPACE_TYPES = {"types.SimpleNamespace", "argparse.Namespace", "ml_collections.ConfigDict",
                   "ml_collections.config_dict.ConfigDict", "easydict.EasyDict"}
# torchvision's class names for the datasets above.
TORCHVISION_NAMES = {"MNIST": "mnist", "FashionMNIST": "fashion_mnist", "KMNIST": "kmnist",
                     "CIFAR10": "cifar10", "CIFAR100": "cifar100"}
# tf.data methods that keep the number of elements.
SIZE_KEEPING_METHODS = {"map", "prefetch", "cache", "shuffle", "as_numpy_iterator", "with_options"}

# Dataset loaders that batch when given a batch size, keeping the last partial batch
# (tensorflow_datasets.load: batch_size=-1 means the whole split as one array).
BATCHING_LOADS = {"tensorflow_datasets.load": "batch_size"}

# Classes whose plain Python attributes are static under a trace: an NNX object is split into its
# Variables (the traced state) and everything else, which is graph metadata, concrete inside the
# trace (`self.output_shape = (28, 28)` reshapes fine under nnx.jit). Checked with flax 0.12.
STATIC_ATTRIBUTE_BASES = {"nnx.Module", "nnx.Object", "nnx.Pytree"}
# Annotations of a value that is an array (traced when the object is), not metadata.
ARRAY_ANNOTATIONS = {"jax.Array", "jnp.ndarray", "np.ndarray", "jax.numpy.ndarray", "numpy.ndarray", "Array",
                     "chex.Array", "jaxtyping.Array"}
# Methods that library base classes give their subclasses: `self.model.apply` of a class deriving
# from one is a bound method, a new object at each attribute access, so `jax.jit(self.model.apply)`
# traces and compiles again at every evaluation (JAX 0.10.2: 5 evaluations, 5 traces). Fields that
# hold a function (a TrainState's `apply_fn`, haiku's `Transformed.apply`) are the same object at
# each access: not listed.
LIBRARY_METHODS = {
    "flax.linen.Module": {"apply", "init", "init_with_output", "bind", "tabulate"},
    "flax.linen.module.Module": {"apply", "init", "init_with_output", "bind", "tabulate"},
}
