"""What the JAX2xx rules share: classifying the value a call passes to a static parameter."""

from __future__ import annotations

import ast
from typing import Optional

from jaxlint.analysis import api_tables as api
from jaxlint.analysis.module import evaluate_literal, positional_params

_ARRAY_CONSTRUCTORS = ("np.", "jnp.")
_ARRAY_FUNCS = {"array", "asarray", "zeros", "ones", "full", "empty", "arange", "linspace", "eye",
                "zeros_like", "ones_like", "full_like", "stack", "concatenate"}


def unhashable_kind(analysis, site, node) -> Optional[str]:
    """'a list', 'a NumPy array', ... when the value cannot be hashed as a static argument: on
    every path to the call (a list on one branch and a tuple on another is not reported)."""
    values = analysis.expressions_of(node, site.node, site.scope)
    if not values:
        return None
    kinds = [_unhashable(analysis, site, value) for value in values]
    return kinds[0] if all(kinds) else None


def _unhashable(analysis, site, value) -> Optional[str]:
    if isinstance(value, (ast.List, ast.ListComp)):
        return "a list"
    if isinstance(value, (ast.Dict, ast.DictComp)):
        return "a dict"
    if isinstance(value, (ast.Set, ast.SetComp)):
        return "a set"
    if isinstance(value, ast.Tuple):
        for elt in value.elts:
            inner = unhashable_kind(analysis, site, elt)
            if inner:
                return f"a tuple containing {inner}"
        return None
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) \
            and value.func.id in ("list", "dict", "set", "bytearray") \
            and value.func.id not in analysis.index.module_names:
        return f"a {value.func.id}"
    if isinstance(value, ast.Call):
        name = analysis.imports.resolve(value.func) or ""
        prefix, _, func = name.partition(".")
        if prefix + "." in _ARRAY_CONSTRUCTORS and func in _ARRAY_FUNCS:
            return "a NumPy array" if prefix == "np" else "a JAX array"
        cls = class_called(analysis, value)
        if cls is not None and cls.dataclass and cls.dataclass["eq"] and not cls.dataclass["frozen"] \
                and not cls.defines_hash:
            return f"an instance of `{cls.name}`, a non-frozen dataclass (eq=True sets __hash__ to None)"
    return None


def class_called(analysis, call: ast.Call):
    """The class a call instantiates: one of this module, or one another module of the project
    defines (`from .config import Spec` ... `Spec(...)`); None when not known."""
    if isinstance(call.func, ast.Name) and call.func.id in analysis.index.classes \
            and call.func.id not in analysis.imports.aliases:
        return analysis.index.classes[call.func.id]
    return analysis.imported_class(call.func)


def identity_hashed_kind(analysis, site, node) -> Optional[tuple]:
    """(description, creation node) for a value hashed by identity: lambda, partial, plain object."""
    value = analysis.expression_of(node, site.node, site.scope)
    if isinstance(value, ast.IfExp):
        # `GreedySampler() if greedy else TopKSampler(5)`: new whichever branch runs
        branches = [_identity_hashed(analysis, branch) for branch in (value.body, value.orelse)]
        if all(branches):
            kinds = [kind for kind, _ in branches]
            return (kinds[0] if kinds[0] == kinds[1] else f"{kinds[0]} or {kinds[1]}"), value
        return None
    return _identity_hashed(analysis, value)


def _identity_hashed(analysis, value) -> Optional[tuple]:
    if value is None:
        return None
    if isinstance(value, ast.Lambda):
        return "a lambda", value
    if isinstance(value, ast.Call):
        name = analysis.imports.resolve(value.func) or ""
        if name == "functools.partial":
            return "a functools.partial", value
        if name in api.OPTAX_FACTORIES:
            return (f"a new `{name}(...)` (a NamedTuple of closures made by each call, equal only "
                    f"to itself)"), value
        cls = class_called(analysis, value)
        if cls is not None and hashed_by_identity(analysis, cls):
            return f"a new `{cls.name}` instance (hashed by identity)", value
    return None


def static_receiver(site) -> Optional[tuple]:
    """(self parameter, receiver expression) when a jitted method with a static `self`
    (`static_argnums=0`) is called on an object: `Integrator(dt).step(q, p)`."""
    entry = site.entry
    func = site.node.func
    if entry.func is None or not entry.func.is_method or entry.bound or not isinstance(func, ast.Attribute):
        return None
    params = positional_params(entry.args)
    if not params or params[0] not in entry.static:
        return None
    return params[0], func.value


def hashed_by_identity(analysis, cls, seen=None) -> bool:
    """Instances compare and hash by id: no __eq__/__hash__ (own or inherited here), no eq dataclass."""
    seen = seen or set()
    if cls.name in seen:
        return False
    seen.add(cls.name)
    if cls.defines_eq or cls.defines_hash or cls.is_pytree:
        return False
    if cls.dataclass is not None and cls.dataclass["eq"]:
        return False
    for base in cls.bases:
        if base in ("object", "builtins.object"):
            continue
        if getattr(cls, "home", ""):
            return False      # a class of another module: its bases are not this module's names
        other = analysis.index.classes.get(base)
        if other is None or not hashed_by_identity(analysis, other, seen):
            return False
    return not any(kw.arg == "metaclass" for kw in cls.node.keywords)


def literal_value(analysis, node):
    """The Python value of a literal or module constant, else a sentinel."""
    if isinstance(node, ast.Name) and node.id in analysis.index.constants:
        return analysis.index.constants[node.id]
    try:
        return evaluate_literal(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return NOT_LITERAL


NOT_LITERAL = object()
