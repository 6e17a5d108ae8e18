"""When a static argument that changes inside a loop still takes only a few values (JAX201).

Two shapes of evidence count:
- the value is read from the shape of an array that the same call passes (`f(x, n=x.shape[0])`):
  a new value comes with a new input shape, which compiles again anyway;
- the value is looked up in a fixed table (`ACTIVATIONS[name]`, `dataset_dict[name].meta['task']`
  or a list display filled from a dict): it takes at most one value per entry.

The value is followed through the loop's assignments and into helpers of the file that return
it (`task, batch = next_batch(step)`), where their parameters are what changes.
"""

from __future__ import annotations

import ast
from typing import Optional

from jaxlint.analysis import calls
from jaxlint.analysis.shown import Ctx, text_of
from jaxlint.analysis.syntax import COMPREHENSIONS

_TABLE_ANNOTATIONS = ("dict", "Dict", "Mapping", "typing.Dict", "typing.Mapping", "FrozenDict",
                      "collections.abc.Mapping", "frozendict")
_SHAPE_PRESERVING = {"jnp.asarray", "jnp.array", "np.asarray", "np.array", "jax.device_put",
                     "np.ascontiguousarray"}
_MAX_DEPTH = 6


class Bounded:
    """Answers `does this static argument take few values?` for one call in one loop."""

    def __init__(self, analysis, shown, site, loop, why):
        self.analysis = analysis
        self.shown = shown
        self.site = site
        self.loop = loop
        self.why = why
        self.passed = _passed_arrays(analysis, site)
        self.loop_bindings = _bindings_in(loop)

    def reason(self, node) -> Optional[str]:
        """Why `node` (a static argument of the call) is bounded, or None."""
        if self._iterates_table(self.loop, dicts_only=True) and self._from_entries(node, set()):
            return (f"the loop at line {self.loop.lineno} runs over the entries of a fixed table, and "
                    f"the value is computed from the entry (one value per entry at most)")
        found = self._check(node, None, 0)
        return "; ".join(sorted(found)) if found else None

    def _from_entries(self, node, seen) -> bool:
        """Does `node` change in the loop only through the loop's own variable (no counter, no
        value carried from one iteration to the next, nothing read from array data)?"""
        if _reads_data(node):
            return False
        loop_names = {n for t, _ in _targets_and_iterables(self.loop) for n in calls._names(t)}
        for sub in ast.walk(node):
            if not isinstance(sub, ast.Name) or sub.id in seen or sub.id in loop_names:
                continue
            if not self._varies(sub.id, None):
                continue
            seen.add(sub.id)
            bindings = self.loop_bindings.get(sub.id)
            if not bindings:
                return False
            for target, value, stmt in bindings:
                if value is None or isinstance(stmt, (ast.AugAssign, ast.For, ast.AsyncFor, ast.With,
                                                      ast.AsyncWith)):
                    return False
                if sub.id in {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}:
                    return False      # recomputed from itself: carried across iterations
                if not self._from_entries(value, seen):
                    return False
        return True

    # `func` is None in the calling loop (what varies: `why`), else the helper's FuncInfo
    # (what varies: its parameters).
    def _check(self, node, func, depth) -> Optional[set]:
        if depth > _MAX_DEPTH:
            return None
        if _reads_data(node):
            return None
        if isinstance(node, ast.Subscript) and self._is_table(node.value, func):
            return {f"it is looked up in `{text_of(node.value)}`, a fixed table"}
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
                and self._is_table(node.func.value, func):
            found = {f"it is looked up in `{text_of(node.func.value)}`, a fixed table"}
            for extra in node.args[1:]:
                inner = self._check(extra, func, depth + 1)
                if inner is None:
                    return None
                found |= inner
            return found
        if calls.is_size_expr(node) and not isinstance(node, ast.BinOp):
            return self._size(node, func)
        if isinstance(node, ast.Name):
            return self._name(node, func, depth)
        if isinstance(node, ast.Call):
            scope = func.node if func is not None else self.site.scope
            if self.shown.function_of(node.func, Ctx(scope, node.lineno)) is not None:
                returned = self._returned(node, None, depth, scope)
                if returned is not None:
                    return returned
        found = set()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)):
                continue
            inner = self._check(child, func, depth + 1)
            if inner is None:
                return None
            found |= inner
        return found

    def _size(self, node, func) -> Optional[set]:
        """`x.shape[0]`, `len(x)`: bounded when `x` is an array the same call passes."""
        arrays = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        varying = {n for n in arrays if self._varies(n, func)}
        if func is None and varying and varying <= self.passed:
            return {f"it is the shape of `{sorted(varying)[0]}`, which the same call passes (a new "
                    f"shape compiles again anyway)"}
        return set() if not varying else None

    def _name(self, node, func, depth) -> Optional[set]:
        name = node.id
        if not self._varies(name, func):
            return set()
        if func is not None:
            if name in func.params:
                return None
            found = self.shown.lookup(name, Ctx(func.node, 10 ** 9))
            return self._check(found[0], func, depth + 1) if found is not None else None
        bindings = self.loop_bindings.get(name)
        if not bindings:
            if _binds(self.loop, name) and self._iterates_table(self.loop, name):
                return {"it comes from the entries of a fixed table the loop runs over, one value per entry at most"}
            return None
        # the bindings before the call in the body reach it; the later ones only the next iteration
        before = [b for b in bindings if b[2].lineno < self.site.node.lineno] or bindings
        found = set()
        for target, value, stmt in before:
            inner = self._binding(name, target, value, stmt, depth)
            if inner is None:
                return None
            found |= inner
        return found

    def _binding(self, name, target, value, stmt, depth) -> Optional[set]:
        if isinstance(stmt, (ast.For, ast.AsyncFor)) and target is stmt.target:
            if self._iterates_table(stmt):
                return {f"it comes from the entries of `{text_of(stmt.iter)}`, one value per entry at most"}
            return None
        if value is None or isinstance(stmt, ast.AugAssign):
            return None
        if isinstance(target, ast.Name):
            return self._check(value, None, depth + 1)
        index = _flat_index(target, name)
        if index is None:
            return None
        if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) > index \
                and not any(isinstance(e, ast.Starred) for e in value.elts):
            return self._check(value.elts[index], None, depth + 1)
        if isinstance(value, ast.Call):
            return self._returned(value, index, depth)
        return None

    def _returned(self, call, index, depth, scope=None) -> Optional[set]:
        """What a helper of the file returns (element `index` of it), bounded whatever its arguments."""
        info = self.shown.function_of(call.func, Ctx(scope if scope is not None else self.site.scope,
                                                     call.lineno))
        if info is None or depth > _MAX_DEPTH:
            return None
        returns = [r for r in ast.walk(info.node) if isinstance(r, ast.Return) and r.value is not None
                   and self.analysis.parents.scope_of(r) is info.node]
        if not returns:
            return None
        found = set()
        for ret in returns:
            value = ret.value
            if index is not None:
                if not isinstance(value, (ast.Tuple, ast.List)) or len(value.elts) <= index:
                    return None
                value = value.elts[index]
            inner = self._check(value, info, depth + 1)
            if inner is None:
                return None
            found |= inner
        return found

    def _varies(self, name, func) -> bool:
        if func is None:
            reason = self.why.get(name)
            return reason is not None and not reason.startswith(calls.BOUNDED)
        if name in func.params:
            return True
        return self.analysis.model.scope(func.node).assigns(name)

    def _is_table(self, node, func) -> bool:
        """A name bound to a dict/list/tuple/set display or a dict comprehension that nothing
        fills from a range or from data, or a parameter annotated as a mapping."""
        if not isinstance(node, ast.Name) or self._varies(node.id, func) and func is None:
            return False
        scope = func.node if func is not None else self.site.scope
        if func is not None and node.id in func.params:
            return False
        ctx = Ctx(scope, self.loop.lineno if func is None else 10 ** 9)
        found = self.shown.lookup(node.id, ctx)
        if found is not None:
            value, where = found
            if isinstance(value, (ast.Dict, ast.DictComp, ast.SetComp, ast.Set, ast.Tuple)):
                return True
            if isinstance(value, ast.List):
                return self._filled_from_tables(node.id, where.scope)
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) \
                    and value.func.id in ("dict", "frozenset") and value.func.id not in self.analysis.index.module_names:
                return True
            return False
        owner = self.shown.owner_of_parameter(node.id, ctx)
        if owner is not None and not isinstance(owner, ast.Lambda):
            for arg in owner.args.posonlyargs + owner.args.args + owner.args.kwonlyargs:
                if arg.arg == node.id and arg.annotation is not None:
                    return text_of(arg.annotation).strip("'\"").split("[")[0] in _TABLE_ANNOTATIONS
        return False

    def _iterates_table(self, loop, name=None, dicts_only=False) -> bool:
        """`for k, v in d.items()`, `for k in list(d.keys())`, `for k in d` over a dict, `for x in
        widths` over a literal list: at most one value per entry of a fixed table. For a
        comprehension, the generator that binds `name` (all of them without a name)."""
        pairs = _targets_and_iterables(loop)
        if name is not None:
            pairs = [(t, it) for t, it in pairs if name in set(calls._names(t))]
        return bool(pairs) and all(self._table_iterable(it, loop, dicts_only) for _, it in pairs)

    def _table_iterable(self, it, loop, dicts_only=False) -> bool:
        """Over a dict's entries; with `dicts_only` False also over a literal list or tuple (whose
        elements are bounded, though their sizes are data: `len(sentence)`)."""
        while isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id in ("list", "sorted", "tuple") \
                and len(it.args) == 1:
            it = it.args[0]
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and it.func.attr in ("items", "keys", "values") \
                and not it.args:
            return True
        if isinstance(it, ast.Name):
            found = self.shown.lookup(it.id, Ctx(self.analysis.parents.scope_of(loop), loop.lineno))
            if found is not None and (isinstance(found[0], (ast.Dict, ast.DictComp)) or not dicts_only
                                      and calls._is_small_literal_collection(found[0])):
                return True
        return not dicts_only and calls._is_small_literal_collection(it)

    def _filled_from_tables(self, name, scope) -> bool:
        """A list display grown by `.append`/`.extend` only in loops over dicts or literal sets."""
        body = calls.scope_body(scope, self.analysis.tree)
        for stmt in ast.walk(ast.Module(body=body, type_ignores=[])):
            if isinstance(stmt, ast.Call) and isinstance(stmt.func, ast.Attribute) \
                    and stmt.func.attr in ("append", "extend", "insert") \
                    and isinstance(stmt.func.value, ast.Name) and stmt.func.value.id == name:
                for loop in self.analysis.parents.loops_of(stmt):
                    if not self._iterates_table(loop):
                        return False
        return True


def _passed_arrays(analysis, site) -> set:
    """Names the call passes as traced arguments, unchanged in shape (`x`, `jnp.asarray(x)`)."""
    found = set()
    for param, arg in site.args.items():
        if param in site.entry.static:
            continue
        stack = [arg.node]
        while stack:
            node = stack.pop()
            if isinstance(node, ast.Name):
                found.add(node.id)
            elif isinstance(node, (ast.Tuple, ast.List)):
                stack.extend(node.elts)
            elif isinstance(node, ast.Dict):
                stack.extend(v for v in node.values if v is not None)
            elif isinstance(node, ast.Call) and node.args and (
                    analysis.imports.resolve(node.func) in _SHAPE_PRESERVING
                    or isinstance(node.func, ast.Attribute) and node.func.attr == "astype"):
                stack.append(node.args[0] if not isinstance(node.func, ast.Attribute) or
                             node.func.attr != "astype" else node.func.value)
    return found


def _bindings_in(loop) -> dict:
    """name -> [(target, value, statement)] of its bindings in the loop body."""
    body = loop.body if isinstance(loop, (ast.For, ast.AsyncFor, ast.While)) else []
    found = {}
    for stmt in calls._walk_scope(body):
        for target, value in calls._bindings(stmt):
            for name in calls._names(target):
                found.setdefault(name, []).append((target, value, stmt))
    return found


def _targets_and_iterables(loop) -> list:
    if isinstance(loop, (ast.For, ast.AsyncFor)):
        return [(loop.target, loop.iter)]
    if isinstance(loop, COMPREHENSIONS):
        return [(g.target, g.iter) for g in loop.generators]
    return []


def _binds(loop, name) -> bool:
    return any(name in set(calls._names(t)) for t, _ in _targets_and_iterables(loop))


def _flat_index(target, name) -> Optional[int]:
    if isinstance(target, (ast.Tuple, ast.List)) and all(isinstance(e, ast.Name) for e in target.elts):
        for i, elt in enumerate(target.elts):
            if elt.id == name:
                return i
    return None


def _reads_data(node) -> bool:
    return calls.expr_varies(node, {}) is not None
