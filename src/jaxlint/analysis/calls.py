"""Call sites of jitted functions, and what the caller passes: the input of the JAX2xx/JAX3xx rules.

For each call of a jitted function defined in the module we map every argument to its parameter
exactly as JAX does (positional, keyword, defaults, `*args`/`**kwargs`), and we look at the code
around the call: which loop it sits in, which names change from one iteration to the next, what
a name was bound to. Everything here is syntactic and local to the calling function.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Optional

from jaxlint.analysis.module import defaults, evaluate_literal, params_with_defaults, positional_params
from jaxlint.analysis.syntax import target_names as _names



@dataclass
class Arg:
    node: ast.AST
    how: str           # "positional" | "keyword"


@dataclass
class CallSite:
    """One call of a jitted function, its arguments mapped to parameters."""

    node: ast.Call
    entry: object                     # TracedEntry
    scope: Optional[ast.AST]          # enclosing def (None: module level)
    args: dict = field(default_factory=dict)     # param -> Arg
    starred: bool = False             # *args / **kwargs at the call: mapping unknown
    loops: list = field(default_factory=list)    # enclosing loops, innermost last


def map_call(call: ast.Call, entry, skips_self: bool) -> CallSite:
    site = CallSite(node=call, entry=entry, scope=None)
    args = entry.args
    positional = [p for p in positional_params(args) if p not in entry.bound]
    if skips_self:
        positional = positional[1:]
    for i, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            site.starred = True
            break
        if i < len(positional):
            site.args[positional[i]] = Arg(arg, "positional")
        elif args.vararg is not None:
            site.args.setdefault(f"*{args.vararg.arg}[{i - len(positional)}]", Arg(arg, "positional"))
    for kw in call.keywords:
        if kw.arg is None:
            site.starred = True
            continue
        site.args[kw.arg] = Arg(kw.value, "keyword")
    return site


def defaults_of(entry) -> dict:
    """param -> default expression node, for a traced entry's function."""
    return defaults(entry.args)


def varying_names(loop, resolve=None) -> dict:
    """Names that change from one iteration of `loop` to the next -> why (for messages).

    `resolve(name, node)` gives the expressions a name may hold where `node` reads it, to see through
    `configs = itertools.product(...)`; loops over bounded literal sets do not vary."""
    why: dict = {}
    if isinstance(loop, (ast.For, ast.AsyncFor)):
        bounded = _is_small_literal_collection(loop.iter, resolve, loop)
        for name in _names(loop.target):
            # over a literal set the value itself is bounded, but len()/.shape of it is data
            why[name] = (BOUNDED if bounded else "") + f"the loop variable of the loop at line {loop.lineno}"
        body = loop.body
    elif isinstance(loop, ast.While):
        body = loop.body
    else:  # comprehension
        for gen in loop.generators:
            if not _is_small_literal_collection(gen.iter):
                for name in _names(gen.target):
                    why[name] = f"the comprehension variable at line {loop.lineno}"
        return why
    stmts = list(_walk_scope(body))
    changed = True
    while changed:
        changed = False
        for stmt in stmts:
            for target, value in _bindings(stmt):
                names = list(_names(target))
                if not names or all(n in why for n in names):
                    continue
                reason = None
                if isinstance(stmt, ast.AugAssign):
                    reason = f"a counter updated in the loop at line {stmt.lineno}"
                elif isinstance(stmt, (ast.For, ast.AsyncFor)) and target is stmt.target:
                    if not _is_small_literal_collection(stmt.iter):
                        reason = f"the loop variable of the loop at line {stmt.lineno}"
                elif value is not None:
                    used = set(_names_in(value))
                    if used & set(names):
                        reason = f"a value recomputed from itself in the loop at line {stmt.lineno}"
                    elif any(expr_varies(value, {u: why[u]}) for u in used & set(why)):
                        source = next(u for u in sorted(used & set(why)) if expr_varies(value, {u: why[u]}))
                        reason = f"computed from `{source}` ({why[source].replace(BOUNDED, '')})"
                    elif _reads_data(value):
                        reason = f"read from data in the loop (line {stmt.lineno})"
                if reason:
                    for n in names:
                        if n not in why:
                            why[n] = reason
                            changed = True
    return why


BOUNDED = "bounded:"


def expr_varies(expr, why: dict) -> Optional[str]:
    """Why `expr` takes a new value each iteration, or None."""
    for name in _names_in(expr):
        reason = why.get(name)
        if reason is None:
            continue
        if reason.startswith(BOUNDED):
            if _size_of(expr, name):
                return f"the size of `{name}`, {reason[len(BOUNDED):]} over data"
            continue
        return f"`{name}` is {reason}"
    if _reads_data(expr):
        return "it is read from array data (float()/int()/.item())"
    return None


_BOUNDED_COMBINATORS = {"product", "zip", "enumerate", "reversed", "sorted", "permutations",
                        "combinations", "list", "tuple"}


def _is_small_literal_collection(node, resolve=None, at=None, depth=0) -> bool:
    """`("relu", "gelu")`, `[1, 2, 4]`, `itertools.product((1, 2), (3, 4))`: a bounded set of values.
    `resolve(name, at)` gives the expressions a name may hold where `at` reads it: all of them
    must be such sets."""
    if isinstance(node, ast.Name) and resolve is not None and depth < 3:
        bound = resolve(node.id, at)
        return bool(bound) and all(isinstance(value, ast.expr) and
                                   _is_small_literal_collection(value, resolve, at, depth + 1) for value in bound)
    if isinstance(node, ast.Call) and node.args and not node.keywords:
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        if name in _BOUNDED_COMBINATORS:
            return all(_is_small_literal_collection(a, resolve, at, depth + 1) for a in node.args)
        return False
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and len(node.elts) <= 16:
        try:
            evaluate_literal(node)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return False
        return True
    return False


def _reads_data(expr) -> bool:
    for node in ast.walk(expr):
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and node.func.id in ("float", "int") and node.args \
                    and not isinstance(node.args[0], ast.Constant) and not _is_shape_expr(node.args[0]):
                return True
            if isinstance(node.func, ast.Attribute) and node.func.attr in ("item", "tolist"):
                return True
    return False


def _size_of(expr, name) -> bool:
    """Does `expr` take len()/.shape/.size of `name`?"""
    for node in ast.walk(expr):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" \
                and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id == name:
            return True
        if isinstance(node, ast.Attribute) and node.attr in ("shape", "size") \
                and isinstance(node.value, ast.Name) and node.value.id == name:
            return True
    return False


def is_size_expr(node) -> bool:
    """`len(x)`, `x.shape[0]`, `x.size`: a Python int computed from an array's shape."""
    return isinstance(node, (ast.Call, ast.Attribute, ast.Subscript, ast.BinOp)) and _is_shape_expr(node) \
        and not any(isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Slice) for n in ast.walk(node))


def _is_shape_expr(node) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr in ("shape", "ndim", "size") for n in ast.walk(node)) \
        or (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len")


def _walk_scope(body):
    """Statements of a function body, descending into blocks but not into nested defs/classes."""
    stack = list(reversed(body))
    while stack:
        stmt = stack.pop()
        yield stmt
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for name in ("body", "orelse", "finalbody"):
            block = getattr(stmt, name, None)
            if isinstance(block, list):
                stack.extend(reversed([s for s in block if isinstance(s, ast.stmt)]))
        for handler in getattr(stmt, "handlers", ()) or ():
            stack.extend(reversed(handler.body))
        for case in getattr(stmt, "cases", ()) or ():
            stack.extend(reversed(case.body))


def _bindings(stmt):
    if isinstance(stmt, ast.Assign):
        for t in stmt.targets:
            yield t, stmt.value
    elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)) and stmt.value is not None:
        yield stmt.target, stmt.value
    elif isinstance(stmt, (ast.For, ast.AsyncFor)):
        yield stmt.target, None
    elif isinstance(stmt, (ast.With, ast.AsyncWith)):
        for item in stmt.items:
            if item.optional_vars is not None:
                yield item.optional_vars, None
    elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield ast.Name(id=stmt.name, ctx=ast.Store()), stmt


def _names_in(expr):
    for node in ast.walk(expr):
        if isinstance(node, ast.Name):
            yield node.id


def scope_body(scope, tree) -> list:
    return scope.body if scope is not None and not isinstance(scope, ast.Lambda) else tree.body


def params_with_default(entry) -> set:
    return params_with_defaults(entry.args)
