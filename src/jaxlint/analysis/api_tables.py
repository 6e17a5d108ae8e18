"""Facts about JAX and Python APIs, as data. Each entry was checked against jax 0.10.2.

Names are canonical (see names.canonical): `jnp.zeros`, `lax.scan`, `jax.random.normal`.
"""

from __future__ import annotations

# --- transforms ------------------------------------------------------------------------------

# Decorators / wrappers whose function is compiled: name -> how its static arguments are spelled.
JIT_WRAPPERS = {
    "jax.jit": ("static_argnums", "static_argnames"),
    "jax.pmap": ("static_broadcasted_argnums", None),
    "jax.checkpoint": ("static_argnums", None),
    "nnx.jit": ("static_argnums", "static_argnames"),
    "eqx.filter_jit": (None, None),
    "eqx.filter_pmap": (None, None),
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
}
# Wrappers that trace their function even outside jit (vmap's parameters become BatchTracers).
TRACING_WRAPPERS = {"jax.vmap", "jax.checkpoint", "eqx.filter_vmap"}

# --- values -----------------------------------------------------------------------------------

# Namespaces whose call results are staged arrays under a trace, even from Python inputs.
ARRAY_NAMESPACES = ("jnp.", "lax.", "jax.random.", "jax.nn.", "jax.scipy.", "jax.image.",
                    "jax.ops.", "jax.numpy.")
ARRAY_FUNCTIONS = {"jax.device_put", "jax.lax.stop_gradient"}
# ... except these, which compute on dtypes and shapes and return Python values.
STATIC_RESULT_FUNCTIONS = {
    "jnp.shape", "jnp.ndim", "jnp.size", "jnp.result_type", "jnp.promote_types", "jnp.dtype",
    "jnp.issubdtype", "jnp.iinfo", "jnp.finfo", "jnp.isdtype", "jnp.can_cast", "jnp.isscalar",
    "jnp.iscomplexobj", "jnp.isrealobj", "jnp.broadcast_shapes", "jnp.issubsctype",
    "lax.broadcast_shapes", "lax.axis_size", "jax.random.key_data", "jax.random.PRNGKeyArray",
    "jax.nn.initializers.normal", "jax.nn.initializers.zeros", "jax.nn.initializers.ones",
    "jax.nn.initializers.glorot_uniform", "jax.nn.initializers.lecun_normal",
    "jax.nn.initializers.he_normal", "jax.nn.initializers.uniform", "jax.nn.initializers.variance_scaling",
}
# Attributes of an array that are Python values under trace.
STATIC_ATTRIBUTES = {"shape", "ndim", "dtype", "size", "sharding", "aval", "weak_type", "itemsize",
                     "nbytes", "named_shape"}
# Array methods whose result is a traced array (the common ones; others are unknown).
ARRAY_METHODS = {
    "sum", "mean", "max", "min", "prod", "std", "var", "any", "all", "argmax", "argmin",
    "astype", "reshape", "transpose", "squeeze", "ravel", "flatten", "clip", "round", "dot",
    "cumsum", "cumprod", "conj", "swapaxes", "take", "sort", "argsort", "nonzero", "repeat",
    "__getitem__", "block_until_ready", "copy", "view", "diagonal", "trace", "ptp",
    "set", "add", "multiply", "divide", "power", "get", "apply", "min", "max",
}
ELEMENT_METHODS = {"set", "add", "multiply", "divide", "power", "min", "max", "get", "apply"}

# Python builtins whose result is a Python value whatever the argument.
STATIC_BUILTINS = {"len", "isinstance", "issubclass", "callable", "type", "id", "hasattr",
                   "str", "repr", "format", "print", "dir", "vars", "getattr", "ascii"}
# Builtins that compute with their arguments (traced in, traced out).
ARITHMETIC_BUILTINS = {"abs", "round", "sum", "pow", "divmod"}
# Builtins that convert to a Python number.
CONVERTING_BUILTINS = {"int": "int()", "float": "float()", "complex": "complex()"}
SCALAR_TYPES = {"int", "float", "bool", "complex", "numbers.Number", "numbers.Integral",
                "numbers.Real", "numbers.Complex"}

# NumPy functions that call __array__ on a tracer (np.sum/np.mean/np.max dispatch to the
# tracer's own methods and work, so they are not here).
NUMPY_CONVERTING = {
    "np.asarray", "np.array", "np.asanyarray", "np.ascontiguousarray", "np.concatenate",
    "np.stack", "np.vstack", "np.hstack", "np.where", "np.clip", "np.dot", "np.matmul",
    "np.einsum", "np.exp", "np.log", "np.log1p", "np.expm1", "np.log2", "np.log10", "np.sqrt",
    "np.abs", "np.absolute", "np.sin", "np.cos", "np.tan", "np.tanh", "np.sinh", "np.cosh",
    "np.arcsin", "np.arccos", "np.arctan", "np.arctan2", "np.maximum", "np.minimum", "np.isnan",
    "np.isinf", "np.isfinite", "np.sign", "np.floor", "np.ceil", "np.power", "np.square",
    "np.linalg.norm", "np.linalg.inv", "np.linalg.solve", "np.linalg.det", "np.allclose",
    "np.isclose", "np.array_equal", "np.unique", "np.outer", "np.tile", "np.zeros", "np.ones",
    "np.empty", "np.full", "np.arange", "np.linspace", "np.eye", "np.float32", "np.float64",
    "np.int32", "np.int64", "np.asfarray", "np.copy", "np.sort", "np.argsort", "np.histogram",
}

# --- JAX APIs whose parameters must be concrete (JAX103 / JAX104 / JAX105) ---------------------

# name -> tuple of (position or None, keyword or None): arguments that must be concrete.
_AXIS = (None, "axis")
CONCRETE_ARGS = {
    # shapes
    "jnp.zeros": ((0, "shape"),), "jnp.ones": ((0, "shape"),), "jnp.empty": ((0, "shape"),),
    "jnp.full": ((0, "shape"),),
    "jnp.zeros_like": ((None, "shape"),), "jnp.ones_like": ((None, "shape"),),
    "jnp.empty_like": ((None, "shape"),), "jnp.full_like": ((None, "shape"),),
    "jnp.eye": ((0, "N"), (1, "M"), (2, "k")), "jnp.identity": ((0, "n"),),
    "jnp.tri": ((0, "N"), (1, "M"), (2, "k")),
    "jnp.triu": ((1, "k"),), "jnp.tril": ((1, "k"),),
    "jnp.arange": ((0, "start"), (1, "stop"), (2, "step")),
    "jnp.linspace": ((2, "num"),), "jnp.logspace": ((2, "num"),), "jnp.geomspace": ((2, "num"),),
    "jnp.reshape": ((1, "shape"), (None, "newshape")),
    "jnp.broadcast_to": ((1, "shape"),),
    "jnp.tile": ((1, "reps"),),
    "jnp.split": ((1, "indices_or_sections"), (2, "axis")),
    "jnp.array_split": ((1, "indices_or_sections"), (2, "axis")),
    "jnp.pad": ((1, "pad_width"),),
    "jnp.resize": ((1, "new_shape"),),
    "jnp.vander": ((1, "N"),),
    "jnp.diag": ((1, "k"),), "jnp.diagonal": ((1, "offset"), (2, "axis1"), (3, "axis2")),
    "jnp.partition": ((1, "kth"), (2, "axis")), "jnp.argpartition": ((1, "kth"), (2, "axis")),
    "jnp.round": ((1, "decimals"),), "jnp.around": ((1, "decimals"),),
    "jnp.histogram": ((1, "bins"),),
    "jnp.expand_dims": ((1, "axis"),),
    "jnp.squeeze": ((1, "axis"),),
    "jnp.swapaxes": ((1, "axis1"), (2, "axis2")),
    "jnp.moveaxis": ((1, "source"), (2, "destination")),
    "jnp.transpose": ((1, "axes"),),
    "jnp.roll": ((2, "axis"),),
    "jnp.flip": ((1, "axis"),),
    "jnp.concatenate": ((1, "axis"),), "jnp.stack": ((1, "axis"),),
    "jnp.take": ((2, "axis"),), "jnp.take_along_axis": ((2, "axis"),),
    "jnp.fft.fft": ((1, "n"), (2, "axis")), "jnp.fft.ifft": ((1, "n"), (2, "axis")),
    "jnp.fft.rfft": ((1, "n"), (2, "axis")), "jnp.fft.irfft": ((1, "n"), (2, "axis")),
    "jax.nn.one_hot": ((1, "num_classes"),),
    "jax.ops.segment_sum": ((2, "num_segments"),), "jax.ops.segment_max": ((2, "num_segments"),),
    "jax.ops.segment_min": ((2, "num_segments"),), "jax.ops.segment_prod": ((2, "num_segments"),),
    "jax.random.normal": ((1, "shape"),), "jax.random.uniform": ((1, "shape"),),
    "jax.random.randint": ((1, "shape"),), "jax.random.bernoulli": ((2, "shape"),),
    "jax.random.truncated_normal": ((3, "shape"),), "jax.random.gumbel": ((1, "shape"),),
    "jax.random.exponential": ((1, "shape"),), "jax.random.laplace": ((1, "shape"),),
    "jax.random.logistic": ((1, "shape"),), "jax.random.cauchy": ((1, "shape"),),
    "jax.random.rademacher": ((1, "shape"),), "jax.random.gamma": ((2, "shape"),),
    "jax.random.beta": ((3, "shape"),), "jax.random.dirichlet": ((2, "shape"),),
    "jax.random.poisson": ((2, "shape"),), "jax.random.categorical": ((2, "axis"), (3, "shape")),
    "jax.random.choice": ((2, "shape"),), "jax.random.split": ((1, "num"),),
    "jax.random.orthogonal": ((1, "n"),),
    "jax.image.resize": ((1, "shape"),),
    "lax.iota": ((1, "size"),), "lax.broadcast": ((1, "sizes"),),
    "lax.full": ((0, "shape"),), "lax.reshape": ((1, "new_sizes"),),
    "lax.top_k": ((1, "k"),),
    "lax.scan": ((None, "length"),),
    "lax.broadcast_in_dim": ((1, "shape"),),
    "lax.dynamic_slice": ((2, "slice_sizes"),),
    "lax.dynamic_slice_in_dim": ((2, "slice_size"), (3, "axis")),
    "lax.slice": ((1, "start_indices"), (2, "limit_indices"), (3, "strides")),
    "lax.slice_in_dim": ((1, "start_index"), (2, "limit_index"), (3, "stride"), (4, "axis")),
}
# Reductions taking `axis` as first positional of the method or second of the function.
for _name in ("sum", "mean", "max", "min", "prod", "std", "var", "any", "all", "argmax", "argmin",
              "cumsum", "cumprod", "median", "nanmean", "nansum", "nanmax", "nanmin", "sort",
              "argsort", "amax", "amin", "average", "count_nonzero", "logsumexp", "ptp"):
    CONCRETE_ARGS.setdefault("jnp." + _name, ((1, "axis"),))
for _name in ("softmax", "log_softmax", "logsumexp", "standardize"):
    CONCRETE_ARGS["jax.nn." + _name] = ((1, "axis"),)
CONCRETE_ARGS["jax.scipy.special.logsumexp"] = ((1, "axis"),)

# Array methods: method -> (position, keyword) of arguments that must be concrete.
# `reshape`/`transpose` take the shape as *args: position "*" means every positional.
CONCRETE_METHOD_ARGS = {
    "reshape": (("*", "shape"),), "transpose": (("*", "axes"),),
    "sum": ((0, "axis"),), "mean": ((0, "axis"),), "max": ((0, "axis"),), "min": ((0, "axis"),),
    "prod": ((0, "axis"),), "std": ((0, "axis"),), "var": ((0, "axis"),), "any": ((0, "axis"),),
    "all": ((0, "axis"),), "argmax": ((0, "axis"),), "argmin": ((0, "axis"),),
    "cumsum": ((0, "axis"),), "squeeze": ((0, "axis"),), "swapaxes": ((0, None), (1, None)),
    "repeat": ((None, "axis"),), "round": ((0, "decimals"),),
}

# Size-changing slices: these go to JAX104 rather than JAX103.
SLICE_SIZE_APIS = {"lax.dynamic_slice", "lax.dynamic_slice_in_dim", "lax.slice", "lax.slice_in_dim"}

# Output shape depends on values unless `size=` (or `length=`) is given (JAX105).
DATA_DEPENDENT_SHAPE = {
    "jnp.nonzero": "size", "jnp.argwhere": "size", "jnp.flatnonzero": "size",
    "jnp.unique": "size", "jnp.union1d": "size", "jnp.intersect1d": "size",
    "jnp.setdiff1d": "size", "jnp.compress": "size", "jnp.extract": "size",
    "jnp.bincount": "length", "jnp.trim_zeros": None, "jnp.unique_values": "size",
    "jnp.unique_counts": "size", "jnp.unique_inverse": "size", "jnp.unique_all": "size",
    "jnp.setxor1d": "size",
}
# Functions with `repeats`-like arguments that are fine when a total length is given.
REPEAT_TOTAL_LENGTH = {"jnp.repeat": ((1, "repeats"), "total_repeat_length")}

# Functions returning boolean arrays (their result is a mask: JAX105 when used as an index).
BOOLEAN_RESULT = {
    "jnp.isnan", "jnp.isinf", "jnp.isfinite", "jnp.logical_and", "jnp.logical_or",
    "jnp.logical_not", "jnp.logical_xor", "jnp.isin", "jnp.greater", "jnp.less", "jnp.equal",
    "jnp.not_equal", "jnp.greater_equal", "jnp.less_equal", "jnp.isclose", "jnp.signbit",
    "jnp.isneginf", "jnp.isposinf", "jnp.isreal", "jnp.iscomplex",
}

# Loaders that can yield a smaller last batch (JAX303) and the keyword that prevents it.
RAGGED_LOADERS = {
    "torch.utils.data.DataLoader": ("drop_last", True),
    "torch.utils.data.dataloader.DataLoader": ("drop_last", True),
}
TF_BATCH_KEYWORD = ("drop_remainder", True)
