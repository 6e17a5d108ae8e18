"""Parameters that a jitted function tests for truth and that can only hold a bool, number or array.

`@jax.jit def apply(x, use_relu): if use_relu: ...` fails for every caller who passes a Python
bool (or a number, or an array): jit traces it. It works only for a caller who passes a container
or None, whose truth value Python can compute. Without a caller or an annotation the analysis
cannot tell which, so it stays silent by default (see docs/design.md). This module finds the
parameters where the function itself says which: besides the truth test, the parameter is used
as an array or a number (`.shape`, `.astype()`, `-p`, `p / 2`, `p + 1.0`, `jnp.where(p, ...)`),
or its name says it is a flag (`use_relu`, `is_training`, `deterministic`) and every use of it
is a truth test. Such a parameter is treated like one annotated as an array.
"""

from __future__ import annotations

import ast
import re

from jaxlint.analysis.module import positional_params
from jaxlint.analysis.syntax import child_nodes, target_names, walk

# A name that says yes/no: use_bias, is_training, has_aux, with_dropout, training, deterministic.
FLAG_NAME = re.compile(
    r"^(use|is|has|do|enable|disable|with|without|should|apply|add|allow|skip|return|include|"
    r"normalize|need|needs|no|train|training)_[a-z0-9_]+$|"
    r"^(training|train|is_train|deterministic|inference|causal|reverse|bidirectional|verbose|debug|"
    r"eval_mode|train_mode|testing|flag)$")
# Array attributes and methods: a container or None has none of these.
_ARRAY_ATTRS = {"shape", "dtype", "ndim", "astype", "reshape", "T", "at", "sum", "mean", "any", "all",
                "item", "squeeze", "ravel", "block_until_ready", "clip", "transpose"}
# Arithmetic a tuple, list or dict cannot do with anything (`+` and `*` concatenate/repeat
# sequences, `|` merges dicts: those prove nothing).
_NUMERIC_OPS = (ast.Sub, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.MatMult, ast.LShift, ast.RShift,
                ast.BitAnd, ast.BitXor)
# jnp/lax functions whose first argument must be a boolean or array operand.
_PREDICATE_FUNCS = {"jnp.where", "lax.select", "lax.cond", "jnp.logical_not", "jnp.logical_and",
                    "jnp.logical_or", "jnp.logical_xor"}
_ARRAY_NAMESPACES = ("jnp.", "lax.", "jax.nn.", "jax.random.")
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_BINDERS = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith, ast.NamedExpr)


def flag_params(entry, imports, passed_containers, module) -> set:
    """Parameters of a `jax.jit` function that are tested for truth and can only be a bool,
    number or array. `passed_containers`: parameters some call passes a container or None to."""
    if entry.wrapper != "jax.jit" or entry.func is None or entry.filtering:
        return set()
    if not entry.via_decorator and _rebound(entry.func, module):
        return set()             # `f = partial(f, flag=True)` before `jax.jit(f)`: not the def as written
    args = entry.args
    with_default = {a.arg for a in (args.posonlyargs + args.args)[len(args.posonlyargs + args.args)
                                                                  - len(args.defaults):]}
    with_default |= {a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None}
    candidates, traced = [], set()
    positional = positional_params(args)
    for i, a in enumerate(args.posonlyargs + args.args + args.kwonlyargs):
        name = a.arg
        if name in with_default or name in entry.static or name in entry.bound:
            continue
        if i == 0 and entry.func.is_method and name in positional:
            continue
        traced.add(name)         # no default, not static: every call passes it, and jit traces it
        if a.annotation is None and name not in passed_containers:
            candidates.append(name)
    if not candidates:
        return set()
    uses = _uses(entry.node, set(candidates), imports, traced)
    found = set()
    for name in candidates:
        kinds = uses.get(name)
        if not kinds or "truth" not in kinds or "rebound" in kinds:
            continue
        if "array" in kinds or (FLAG_NAME.match(name) and kinds == {"truth"}):
            found.add(name)
    return found


def _uses(func, names: set, imports, traced: set) -> dict:
    """name -> {"truth", "array", "other", "rebound"}: how the function body uses each name.

    One walk; parent links are kept only for the nodes a truth context is read through
    (`and`/`or`, `not`), not for every node of the body."""
    uses: dict = {}
    parents: dict = {}
    loads = []
    todo = list(func.body)
    while todo:
        node = todo.pop()
        if isinstance(node, _SCOPES):
            for inner in walk(node):
                if isinstance(inner, ast.Name) and inner.id in names:
                    uses.setdefault(inner.id, set()).add("other")
            continue
        if isinstance(node, _BINDERS):
            targets = node.targets if isinstance(node, ast.Assign) else \
                [item.optional_vars for item in node.items if item.optional_vars is not None] \
                if isinstance(node, (ast.With, ast.AsyncWith)) else [node.target]
            for target in targets:
                for bound in target_names(target):
                    if bound in names:
                        uses.setdefault(bound, set()).add("rebound")
        for child in child_nodes(node):
            kind = type(child)
            if kind is ast.Name:
                if child.id in names:
                    loads.append((child, node))
                continue
            if kind is ast.BoolOp or kind is ast.UnaryOp:
                parents[id(child)] = node
            todo.append(child)
    for name, parent in loads:
        uses.setdefault(name.id, set()).add(_how(name, parent, parents, imports, traced))
    return uses


def _how(node, parent, parents, imports, traced) -> str:
    """How one load of a parameter is used: "truth", "array" or "other"."""
    if isinstance(node.ctx, (ast.Store, ast.Del)):
        return "rebound"
    if isinstance(parent, (ast.If, ast.While, ast.IfExp, ast.Assert)) and parent.test is node:
        return "truth"
    if isinstance(parent, ast.UnaryOp):
        if isinstance(parent.op, ast.Not):
            return "truth"
        if isinstance(parent.op, (ast.USub, ast.Invert)):
            return "array"
    if isinstance(parent, ast.BoolOp) and (parent.values[-1] is not node or _in_truth_context(parent, parents)):
        return "truth"         # every operand but the last is tested; the last one where the result is
    if isinstance(parent, ast.comprehension) and any(cond is node for cond in parent.ifs):
        return "truth"
    if isinstance(parent, ast.Attribute) and parent.value is node and parent.attr in _ARRAY_ATTRS:
        return "array"
    if isinstance(parent, ast.BinOp):
        other = parent.right if parent.left is node else parent.left
        if isinstance(parent.op, _NUMERIC_OPS):
            return "array"
        if isinstance(parent.op, ast.Add) and _is_number(other):
            return "array"
        if isinstance(parent.op, ast.Mult) and _is_number(other) and not isinstance(_number(other), int):
            return "array"
        if isinstance(other, ast.Call) and (imports.resolve(other.func) or "").startswith(_ARRAY_NAMESPACES):
            return "array"       # a container cannot be added to or multiplied by an array
        if isinstance(parent.op, ast.Mult) and isinstance(other, ast.Name) and other.id in traced \
                and other.id != node.id:
            return "array"       # two traced parameters: repetition needs a Python int, a tracer fails
    if isinstance(parent, ast.Call) and parent.args and parent.args[0] is node \
            and (imports.resolve(parent.func) or "") in _PREDICATE_FUNCS:
        return "array"
    return "other"


def _in_truth_context(boolop, parents) -> bool:
    """An `and`/`or` whose value Python tests for truth (an if/while/assert/ternary test, `not`)."""
    node = boolop
    parent = parents.get(id(node))
    while isinstance(parent, ast.BoolOp) or (isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not)):
        node, parent = parent, parents.get(id(parent))
    return isinstance(parent, (ast.If, ast.While, ast.IfExp, ast.Assert)) and parent.test is node


def _rebound(func, module) -> bool:
    """Is the def's name assigned again in the body that defines it?"""
    body = func.parent.node.body if func.parent is not None else \
        func.cls.node.body if func.cls is not None else module.body
    stack = list(body)
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if any(name == func.name for t in targets for name in target_names(t)):
                return True
        elif not isinstance(stmt, _SCOPES):
            for block in ("body", "orelse", "finalbody"):
                stack.extend(s for s in getattr(stmt, block, None) or () if isinstance(s, ast.stmt))
    return False


def passes_container(arg) -> bool:
    """A call argument that is a container or None: its truth value is a Python question."""
    return isinstance(arg, (ast.Tuple, ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)) \
        or (isinstance(arg, ast.Constant) and arg.value is None)


def _number(node):
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return node.value if isinstance(node, ast.Constant) else None


def _is_number(node) -> bool:
    value = _number(node)
    return isinstance(value, (int, float, complex)) and not isinstance(value, bool)
