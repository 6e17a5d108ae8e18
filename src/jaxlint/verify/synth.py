"""Example inputs for a function that has no `# jaxlint-example:`, guessed from its source.

PARENT SIDE, standard library only. The output is a few Python expressions that the child
evaluates: `__jaxlint_trace__("f", x=__jaxlint_jnp__.ones((4,)), n=3)` traces `f` (through its
jitted wrapper when there is one, so its static arguments stay static; with `jax.make_jaxpr`
otherwise) without compiling. Guesses, in order of trust:

- annotations: `int`/`float`/`bool`/`complex` scalars, `jax.Array`-like arrays, jaxtyping
  `Float[Array, "b n"]` (named dimensions become 4, dtype from the jaxtyping class);
- defaults: a parameter with a default is left out, unless the finding is about it (only a
  passed value is traced), then its default literal is passed;
- use in the body (and in same-file functions it is passed to): `.shape`/`.ndim`/`.T`/
  subscripting/`@`/array methods -> an array; `p["w"]` -> a dict of arrays; the first argument of
  `jax.random.*` -> a PRNG key; `range(n)`, slice bounds, indices and shape arguments -> the
  integer 3; any other scalar -> 1.5;
- then whole-function fallbacks: every unknown parameter as 3, as `ones((4,))`, as
  `ones((4, 4))`, as 1.5.
"""

from __future__ import annotations

import ast
from typing import Optional

JNP = "__jaxlint_jnp__"
JAX = "__jaxlint_jax__"
SCALAR_ANNOTATIONS = {"int": "3", "float": "1.5", "bool": "True", "complex": "1j"}
ARRAY_ANNOTATIONS = {"Array", "ArrayLike", "ndarray", "jax.Array", "jnp.ndarray", "jax.numpy.ndarray",
                     "chex.Array", "np.ndarray", "numpy.ndarray", "jax.typing.ArrayLike"}
JAXTYPING_DTYPES = {
    "Float": "float32", "Inexact": "float32", "Real": "float32", "Num": "float32", "Shaped": "float32",
    "Float32": "float32", "Int": "int32", "Integer": "int32", "Int32": "int32", "UInt": "uint32",
    "Bool": "bool", "Complex": "complex64",
}
ARRAY_METHODS = {"sum", "mean", "reshape", "astype", "max", "min", "std", "var", "transpose", "T",
                 "shape", "ndim", "dtype", "size", "at", "dot", "squeeze", "ravel", "flatten", "cumsum",
                 "argmax", "argmin", "clip", "round", "any", "all", "prod", "swapaxes"}
SHAPE_CALLS = {"zeros", "ones", "full", "empty", "arange", "eye", "reshape", "broadcast_to", "tile",
               "repeat", "linspace", "tri", "iota", "normal", "uniform", "randint"}


def _annotation_text(node) -> str:
    try:
        return ast.unparse(node).strip("'\"")
    except Exception:  # noqa: BLE001
        return ""


def guess_from_annotation(node) -> Optional[str]:
    """An input expression for an annotation, or None when it says nothing usable."""
    if node is None:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            node = ast.parse(node.value, mode="eval").body
        except SyntaxError:
            return None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):       # X | None
        for side in (node.left, node.right):
            if not (isinstance(side, ast.Constant) and side.value is None):
                return guess_from_annotation(side)
    text = _annotation_text(node)
    if text in SCALAR_ANNOTATIONS:
        return SCALAR_ANNOTATIONS[text]
    if text in ARRAY_ANNOTATIONS or text.split(".")[-1] in ("Array", "ArrayLike"):
        return f"{JNP}.ones((4,))"
    if isinstance(node, ast.Subscript):
        head = _annotation_text(node.value)
        short = head.split(".")[-1]
        if short == "Optional":
            return guess_from_annotation(node.slice)
        if short in ("PRNGKeyArray", "Key") or head.endswith("PRNGKey"):
            return f"{JAX}.random.key(0)"
        if short in JAXTYPING_DTYPES:
            dims = "4,"
            parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            if len(parts) == 2 and isinstance(parts[1], ast.Constant) and isinstance(parts[1].value, str):
                dims = _jaxtyping_shape(parts[1].value)
            return f"{JNP}.ones(({dims}), {JNP}.{JAXTYPING_DTYPES[short]})"
    if text.endswith("PRNGKeyArray") or text.endswith("PRNGKey"):
        return f"{JAX}.random.key(0)"
    return None


def _jaxtyping_shape(spec: str) -> str:
    dims = []
    for token in spec.split():
        token = token.lstrip("#")
        if token.startswith("*") or token == "...":
            continue
        dims.append(token if token.isdigit() else "4")
    return "".join(f"{d}," for d in dims)


class _Usage(ast.NodeVisitor):
    """Which parameters the body treats as arrays and which as integers (sizes, bounds)."""

    def __init__(self, params, ctx=None, depth=0):
        self.params = set(params)
        self.array: set = set()
        self.integer: set = set()
        self.keys: dict = {}                 # parameter -> string keys it is subscripted with
        self.rng: set = set()                # parameters used as PRNG keys
        self.batched: set = set()            # parameters mapped over by a transform (vmap, scan)
        self.ctx, self.depth = ctx, depth

    def _names(self, node):
        return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in self.params}

    def visit_Attribute(self, node):
        if isinstance(node.value, ast.Name) and node.value.id in self.params and node.attr in ARRAY_METHODS:
            self.array.add(node.value.id)
        self.generic_visit(node)

    def visit_Subscript(self, node):
        index = node.slice
        if isinstance(node.value, ast.Name) and node.value.id in self.params:
            if isinstance(index, ast.Constant) and isinstance(index.value, str):
                self.keys.setdefault(node.value.id, set()).add(index.value)     # params["w"]
            else:
                self.array.add(node.value.id)
        for part in index.elts if isinstance(index, ast.Tuple) else [index]:
            if isinstance(part, ast.Slice):
                for bound in (part.lower, part.upper, part.step):
                    if bound is not None:
                        self.integer |= self._names(bound)
            elif isinstance(part, ast.Name) and part.id in self.params:
                self.integer.add(part.id)                                       # xs[i]
        self.generic_visit(node)

    def _callee(self, node):
        """A same-file function called here, directly or through jax.grad & co."""
        func = node.func
        if isinstance(func, ast.Call) and func.args and isinstance(func.args[0], ast.Name):
            func = func.args[0]                                # jax.value_and_grad(loss_fn)(...)
        if isinstance(func, ast.Name) and self.ctx is not None and self.depth < 2:
            return self.ctx.function(func.id) if func.id in self.ctx._functions else None
        return None

    def _follow(self, node):
        callee = self._callee(node)
        if callee is None:
            return
        names = [a.arg for a in callee.args.posonlyargs + callee.args.args]
        mapping = {}
        for name, arg in zip(names, node.args):
            if isinstance(arg, ast.Name) and arg.id in self.params:
                mapping[name] = arg.id
        for kw in node.keywords:
            if kw.arg and isinstance(kw.value, ast.Name) and kw.value.id in self.params:
                mapping[kw.arg] = kw.value.id
        if not mapping:
            return
        inner = _Usage(list(mapping), self.ctx, self.depth + 1)
        for stmt in callee.body:
            inner.visit(stmt)
        for theirs, ours in mapping.items():
            if theirs in inner.array:
                self.array.add(ours)
            if theirs in inner.integer:
                self.integer.add(ours)
            if theirs in inner.keys:
                self.keys.setdefault(ours, set()).update(inner.keys[theirs])
            if theirs in inner.rng:
                self.rng.add(ours)

    def visit_BinOp(self, node):
        if isinstance(node.op, ast.MatMult):
            self.array |= self._names(node.left) | self._names(node.right)
        self.generic_visit(node)

    def visit_Call(self, node):
        self._follow(node)
        if isinstance(node.func, ast.Call):                     # jax.vmap(f, ...)(xs, ...)
            for arg in node.args:
                if isinstance(arg, ast.Name) and arg.id in self.params:
                    self.batched.add(arg.id)
                    self.array.add(arg.id)
        func_text = _annotation_text(node.func)
        if ("random." in func_text or func_text.startswith(("jr.", "jrandom."))) and node.args \
                and isinstance(node.args[0], ast.Name) and node.args[0].id in self.params:
            if func_text.split(".")[-1] in ("PRNGKey", "key"):
                self.integer.add(node.args[0].id)                            # random.PRNGKey(seed)
            else:
                self.rng.add(node.args[0].id)                                # jax.random.normal(key, ...)
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        if func_text.split(".")[0] in ("jnp", "np", "numpy", "lax") and name not in SHAPE_CALLS and node.args \
                and isinstance(node.args[0], ast.Name) and node.args[0].id in self.params:
            self.array.add(node.args[0].id)                                  # jnp.convolve(signal, ...)
        if name in ("scan", "map") and len(node.args) >= (3 if name == "scan" else 2):
            xs = node.args[2] if name == "scan" else node.args[1]         # mapped over: a leading axis
            if isinstance(xs, ast.Name) and xs.id in self.params:
                self.batched.add(xs.id)
                self.array.add(xs.id)
        elif name == "fori_loop":
            for bound in node.args[:2]:                                  # trip-count bounds
                self.integer |= self._names(bound)
        if name == "range":
            for arg in node.args:
                self.integer |= self._names(arg)
        elif name in SHAPE_CALLS:
            receiver_form = isinstance(node.func, ast.Attribute) and name == "reshape" and \
                not (isinstance(node.func.value, ast.Name) and node.func.value.id in ("jnp", "np", "numpy"))
            for position, arg in enumerate(node.args):
                if isinstance(arg, (ast.Tuple, ast.List)) or receiver_form or \
                        (position == 0 and name in ("zeros", "ones", "full", "empty", "arange", "eye")):
                    self.integer |= self._names(arg)
        elif name == "len":
            for arg in node.args:
                if isinstance(arg, ast.Name) and arg.id in self.params:
                    self.array.add(arg.id)
        for kw in node.keywords:
            if kw.arg in ("axis", "shape", "length", "num", "size", "k"):
                self.integer |= self._names(kw.value)
        self.generic_visit(node)


def candidates(node, ctx=None, wanted=(), skip_self=False) -> list:
    """Keyword-argument sets (name -> expression) to try for function `node`, best first.

    `wanted` are the parameters the finding is about: always passed, never left to a default.
    `skip_self`: a method called on an instance (its first parameter is not guessed)."""
    args = node.args
    positional = args.posonlyargs + args.args
    if skip_self and positional:
        positional = positional[1:]
    defaults = dict(zip([a.arg for a in positional][len(positional) - len(args.defaults):], args.defaults))
    defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
    params = [a for a in positional + args.kwonlyargs]
    defaults = {k: v for k, v in defaults.items() if k in {a.arg for a in params}}
    usage = _Usage([a.arg for a in params], ctx)
    for stmt in node.body:
        usage.visit(stmt)
    annotated, unknown, fixed = {}, [], {}
    for a in params:
        guess = guess_from_annotation(a.annotation)
        if a.arg in defaults and a.arg not in wanted:
            continue                                   # left to its default
        if guess is not None:
            annotated[a.arg] = guess
        elif a.arg in defaults and isinstance(defaults[a.arg], ast.Constant) and defaults[a.arg].value is not None:
            fixed[a.arg] = ast.unparse(defaults[a.arg])
        else:
            unknown.append(a.arg)
    hinted, containers = {}, {}
    for name in unknown:
        if name in usage.rng or name in ("key", "rng", "prng_key", "rng_key"):
            containers[name] = f"{JAX}.random.PRNGKey(0)"
            hinted[name] = containers[name]
        elif name in usage.keys:
            containers[name] = "{" + ", ".join(f"{k!r}: {JNP}.ones((4,))" for k in sorted(usage.keys[name])) + "}"
            hinted[name] = containers[name]
        elif name in usage.batched:
            hinted[name] = f"{JNP}.ones((4, 4))"                # a leading axis to map over
        elif name in usage.array and name not in usage.integer:
            hinted[name] = f"{JNP}.ones((4,))"
        elif name in usage.integer:
            hinted[name] = "3"
        else:
            hinted[name] = "1.5"          # a scalar nothing says is an integer (grad needs floats)
    plain = [n for n in unknown if n not in containers]
    sets = [hinted,
            {**containers, **{n: "3" for n in plain}},
            {**containers, **{n: f"{JNP}.ones((4,))" for n in plain}},
            {**containers, **{n: f"{JNP}.ones((4, 4))" for n in plain}},
            {**containers, **{n: "1.5" for n in plain}}]
    out, seen = [], set()
    for guess in sets:
        full = {**fixed, **annotated, **guess}
        key = tuple(sorted(full.items()))
        if key in seen:
            continue
        seen.add(key)
        out.append([(a.arg, full[a.arg]) for a in params if a.arg in full])
    return out


def call_expression(qualname: str, node, assignment) -> str:
    """`__jaxlint_trace__("qualname", ...)` with positional-only parameters passed by position."""
    posonly = {a.arg for a in node.args.posonlyargs}
    pieces = [repr(qualname)]
    pieces += [expr for name, expr in assignment if name in posonly]
    pieces += [f"{name}={expr}" for name, expr in assignment if name not in posonly]
    return f"__jaxlint_trace__({', '.join(pieces)})"


def synthesize(ctx, qualname: str, wanted=()) -> tuple:
    """([expressions], reason): calls to try for `qualname`, or why none can be built."""
    node = ctx.function(qualname)
    if node is None:
        return [], f"`{qualname}` is not a function defined at the top of this file"
    parts = qualname.replace(".<locals>", "").split(".")
    if any(".".join(parts[:i]) in ctx._functions for i in range(1, len(parts))):
        return [], f"`{qualname}` is nested in another function, so it cannot be called on its own"
    if ctx.is_method(qualname):
        return [], f"`{qualname}` is a method: inputs need an instance"
    if node.args.vararg is not None and not (node.args.args or node.args.posonlyargs):
        return [], f"`{qualname}` takes *args only"
    return [call_expression(qualname, node, a) for a in candidates(node, ctx, wanted=set(wanted))], ""


def guessed_calls(target_expr: str, node, ctx=None, skip_self=False, limit=2) -> list:
    """[(`__jaxlint_guess__(TARGET, ...)`, [guessed parameter names])]: calls of a function of
    the file with the best `limit` guesses for the parameters that have no default."""
    out = []
    posonly = {a.arg for a in node.args.posonlyargs}
    for assignment in candidates(node, ctx, skip_self=skip_self)[:limit]:
        pieces = [target_expr]
        pieces += [expr for name, expr in assignment if name in posonly]
        pieces += [f"{name}={expr}" for name, expr in assignment if name not in posonly]
        out.append((f"__jaxlint_guess__({', '.join(pieces)})", [name for name, _ in assignment]))
    return out
