"""Signature changes between the calls of one jitted function, in program order (JAX306/JAX307).

jit keeps one compiled version per signature, so the calls of a function that JAX306/JAX307
report are those that bring a new kind of argument: a dtype or weak type (JAX306), or a pytree
structure (JAX307), that no earlier call of the same function passed for that parameter.

"Earlier" means program order inside one function body (or the module body): calls in different
functions may run in different programs, and tests call a function with several dtypes on
purpose. Two calls that cannot both run are not compared: the two branches of an `if`, a `try`
body and its `except` handlers, two `case`s, or a call in a branch that ends in `return`/`raise`
and a call after that branch. One call site can also see two kinds across the iterations of its loop: a
name bound before the loop and rebound (unconditionally) later in the loop body, or a loop over
a literal list of values of different kinds.
"""

from __future__ import annotations

import ast
import itertools
import os
from dataclasses import dataclass
from typing import Optional

from jaxlint.analysis.semantic import LOOP_STATEMENTS, BindingKind, ReachKind, comprehension_target, enclosing_statement
from jaxlint.analysis.signature_reader import reader_for
from jaxlint.analysis.signatures import Leaf, dtype_difference, structure_difference

STRUCTURE, DTYPE = "structure", "dtype"


@dataclass
class Change:
    """A call that passes a new kind of value for `param`."""

    kind: str                 # STRUCTURE | DTYPE
    site: object              # calls.CallSite
    param: str
    path: tuple               # where inside the argument (dict keys, tuple positions)
    old: object               # Leaf/Tree seen before
    new: object               # Leaf/Tree passed here
    before: str               # where the old kind was seen: "at line 12", "in the first iteration (...)"
    now: str = ""             # where the new one comes from, when it is not this call


def signature_changes(analysis) -> list:
    """Every Change in the module, computed once and shared by JAX306 and JAX307."""
    cached = analysis.__dict__.get("_signature_changes")
    if cached is not None:
        return cached
    changes = []
    groups: dict = {}
    for site in analysis.jit_calls():
        groups.setdefault((id(site.entry), id(site.scope)), []).append(site)
    for sites in groups.values():
        changes.extend(_changes_in_group(analysis, sites))
    analysis.__dict__["_signature_changes"] = changes
    return changes


def _changes_in_group(analysis, sites):
    entry = sites[0].entry
    reader = reader_for(analysis, sites[0].scope)
    seen: dict = {}              # param -> [(sig, site, argument node)]
    for site in sites:
        for param, arg in site.args.items():
            if param in entry.static:
                continue
            sig = reader.sig_at(arg.node, site.node)
            yield from _loop_variants(analysis, reader, site, param, arg.node)
            earlier = [item for item in seen.get(param, ()) if not _exclusive(analysis, item[1], site)]
            seen.setdefault(param, []).append((sig, site, arg.node))
            if earlier:
                change = _new_kind(analysis, reader, entry, earlier, (sig, site, arg.node), param)
                if change is not None:
                    yield change


def _new_kind(analysis, reader, entry, earlier, current, param) -> Optional[Change]:
    """A Change when the current argument differs from every earlier one: in structure from all
    of them (JAX307), else in dtype from those with the same structure (JAX306)."""
    sig, site, node = current
    structure = [structure_difference(old, sig) for old, _, _ in earlier]
    if all(structure):
        path, old, new = structure[-1]
        return Change(STRUCTURE, site, param, path, old, new, f"at line {earlier[-1][1].node.lineno}")
    if entry.filtering and isinstance(sig, Leaf) and sig.python:
        return None              # equinox makes Python scalars static: JAX304 territory, not dtype
    last = None
    for (old, other, _), diff in zip(earlier, structure):
        if diff:
            continue
        found = dtype_difference(old, sig)
        if not found:
            return None
        last = (found, other)
    if last is None:
        return None
    (path, old, new), other = last
    return Change(DTYPE, site, param, path, old, new, f"at line {other.node.lineno}")


def _loop_variants(analysis, reader, site, param, node):
    """One call site that sees two kinds across the iterations of the loop around it."""
    if not isinstance(node, ast.Name) or not site.loops:
        return
    stmt = enclosing_statement(analysis.parents, site.node)
    if stmt is None:
        return
    comp = comprehension_target(analysis.parents, node, node.id)
    if comp is not None:
        if isinstance(comp[1].target, ast.Name):
            yield from _literal_variants(reader, site, param, node, comp[1].iter, stmt, comp[0])
        index = _target_index(comp[1].target, node.id)
        if index is not False:
            yield from _appended_variants(analysis, reader, site, param, comp[1], stmt, index)
        return
    reach = reader.bindings.reach(node.id, node, stmt)
    if reach.kind is ReachKind.BOUND and reach.binding is not None and isinstance(reach.binding.value, ast.IfExp):
        yield from _conditional_variants(analysis, reader, site, param, node, reach.binding)
        return
    if reach.kind in (ReachKind.CARRIED, ReachKind.SELF) and reach.binding is not None and reach.binding.value is not None:
        loop_path = reader.bindings.path_of.get(id(reach.loop))
        if loop_path is None:
            return
        first = reader.sig(reach.binding.value, reach.binding.stmt)
        for later in reach.later:
            if later.path != loop_path + ((reach.loop, "body"),) or later.kind is BindingKind.LOOP_TARGET \
                    or (later.value is None and later.kind is not BindingKind.UNPACKED):
                continue          # rebound only on some iterations, or in a nested block
            second = reader.rebound_sig(later, node.id, first)
            change = _variant_change(site, param, first, second,
                                     f"in the first iteration (`{node.id}` bound at line {reach.binding.line})",
                                     f"`{node.id}` rebound at line {later.line}, seen from the second iteration on")
            if change is not None:
                yield change
                return
    elif reach.kind is ReachKind.LOOPVAR and isinstance(reach.loop.target, ast.Name):
        yield from _literal_variants(reader, site, param, node, reach.loop.iter, reach.binding.stmt, reach.loop)
        yield from _yielded_variants(reader, site, param, node, reach.loop.iter, reach.binding.stmt, reach.loop)
        yield from _appended_variants(analysis, reader, site, param, reach.loop, reach.loop, None)
    elif reach.kind is ReachKind.LOOPVAR and _target_index(reach.loop.target, node.id) is not False:
        yield from _appended_variants(analysis, reader, site, param, reach.loop, reach.loop,
                                      _target_index(reach.loop.target, node.id))


def _target_index(target, name):
    """None for a loop target that is `name`, i for `a, name, c`, False otherwise."""
    if isinstance(target, ast.Name):
        return None if target.id == name else False
    if isinstance(target, ast.Tuple) and all(isinstance(e, ast.Name) for e in target.elts):
        names = [e.id for e in target.elts]
        if names.count(name) == 1:
            return names.index(name)
    return False


def _appended_variants(analysis, reader, site, param, loop, stmt, index):
    """A loop over a list that an earlier loop filled with `.append(...)`, where what it appended
    (or its element `index` of an appended tuple: `batches.append((x, mask))`) was bound to
    `a if cond else b` with `cond` reading that loop's variable: the list holds both structures."""
    iterable = loop.iter
    if not isinstance(iterable, ast.Name):
        return
    where = reader.bindings.reach(iterable.id, iterable, stmt)
    if where.kind is not ReachKind.BOUND or not isinstance(getattr(where.binding, "value", None), ast.List):
        return
    for mutation in reader.bindings.mutated(iterable.id):
        call = mutation.node
        if mutation.method != "append" or not isinstance(call, ast.Call) or len(call.args) != 1:
            continue
        element = call.args[0]
        if index is not None:
            if not isinstance(element, ast.Tuple) or len(element.elts) != len(loop.target.elts):
                continue
            element = element.elts[index]
        stmt = enclosing_statement(analysis.parents, call)
        binding = None
        if isinstance(element, ast.Name) and stmt is not None:
            found = reader.bindings.reach(element.id, element, stmt)
            if found.kind is ReachKind.BOUND and found.binding is not None and isinstance(found.binding.value, ast.IfExp):
                binding = found.binding
        if binding is None:
            continue
        filling = [anc for anc in analysis.parents.loops_of(call) if isinstance(anc, LOOP_STATEMENTS)]
        if not filling or not _reads_loop(reader, binding.value.test, binding.stmt, filling):
            continue
        value = binding.value
        change = _variant_change(site, param, reader.sig(value.body, binding.stmt),
                                 reader.sig(value.orelse, binding.stmt),
                                 f"for the items appended when `{_text(value.test)}` holds "
                                 f"(`{_text(value.body)}`, line {binding.line})",
                                 f"for the other items of `{iterable.id}`, appended at line {call.lineno} by "
                                 f"{describe_loop(filling[-1])}")
        if change is not None:
            yield change
            return


def _reads_loop(reader, test, stmt, loops) -> bool:
    """Does `test` read the variable of one of `loops`, or a value one of them carries?"""
    for name in ast.walk(test):
        if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Load):
            reach = reader.bindings.reach(name.id, name, stmt)
            if reach.kind in (ReachKind.LOOPVAR, ReachKind.CARRIED, ReachKind.SELF) and \
                    any(reach.loop is loop for loop in loops):
                return True
    return False


def _yielded_variants(reader, site, param, node, iterable, stmt, loop):
    """A loop over a generator of the project whose yields differ in structure: `yield {"x": xb,
    "mask": None}` for full batches, `yield {"x": padded, "mask": mask}` for the last one."""
    if not isinstance(iterable, ast.Call):
        return
    found = reader.yielded_sigs(iterable, stmt)
    if found is None or len(found[0]) > 16:
        return
    yields, path = found
    home = "line " if path == reader.analysis.path else f"{os.path.basename(path)}:"    # `line 12`, `data.py:12`
    for (first_expr, first), (later_expr, later) in itertools.combinations(yields, 2):
        found = structure_difference(first, later) if first is not None and later is not None else None
        if found:
            yield Change(STRUCTURE, site, param, found[0], found[1], found[2],
                         f"as `{_text(first_expr)}` yields it ({home}{first_expr.lineno})",
                         f"`{_text(later_expr)}` ({home}{later_expr.lineno}), another value of `{node.id}` "
                         f"the generator yields in {describe_loop(loop)}")
            return


def _conditional_variants(analysis, reader, site, param, node, binding):
    """`mask = None if b % 2 == 0 else m`, bound in the loop around the call, whose condition
    reads the loop's variable or a value the loop carries: the iterations take both branches."""
    value, stmt = binding.value, binding.stmt
    around = {id(anc) for anc in analysis.parents.chain(stmt)}
    loops = [loop for loop in site.loops if id(loop) in around]
    if not loops:
        return          # bound once, before the loop: one branch for the whole loop
    varying = False
    for name in ast.walk(value.test):
        if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Load):
            reach = reader.bindings.reach(name.id, name, stmt)
            if reach.kind in (ReachKind.LOOPVAR, ReachKind.CARRIED, ReachKind.SELF) and \
                    any(reach.loop is loop for loop in loops):
                varying = True
    if not varying:
        return
    change = _variant_change(site, param, reader.sig(value.body, stmt), reader.sig(value.orelse, stmt),
                             f"when `{_text(value.test)}` holds (`{_text(value.body)}`, line {binding.line})",
                             f"`{_text(value.orelse)}` when it does not, on other iterations of "
                             f"{describe_loop(loops[-1])}")
    if change is not None:
        yield change


def _literal_variants(reader, site, param, node, iterable, stmt, loop):
    """A loop over a literal list whose values differ in kind: `for t in [0, 0.5, 1]`."""
    if isinstance(iterable, ast.Name):
        inner = reader.bindings.reach(iterable.id, iterable, stmt)
        if inner.kind is not ReachKind.BOUND or inner.binding.value is None:
            return
        iterable, stmt = inner.binding.value, inner.binding.stmt
    if not isinstance(iterable, (ast.List, ast.Tuple)) or not 2 <= len(iterable.elts) <= 64:
        return
    sigs = [reader.sig(e, stmt) for e in iterable.elts]
    for i in range(1, len(sigs)):
        change = _variant_change(site, param, sigs[0], sigs[i], f"in the first iteration (`{_text(iterable.elts[0])}`)",
                                 f"`{_text(iterable.elts[i])}`, a later value of `{node.id}` in "
                                 f"{describe_loop(loop)}")
        if change is not None:
            yield change
            return


def _variant_change(site, param, first, second, before, now) -> Optional[Change]:
    if first is None or second is None:
        return None
    found = structure_difference(first, second)
    if found:
        return Change(STRUCTURE, site, param, found[0], found[1], found[2], before, now)
    if site.entry.filtering and isinstance(second, Leaf) and (second.python or first.python):
        return None
    found = dtype_difference(first, second)
    if found:
        return Change(DTYPE, site, param, found[0], found[1], found[2], before, now)
    return None


# -- which calls can both run ---------------------------------------------------------------------

def _branches(analysis, node) -> list:
    """(parent, part, block) for each branch holding `node`, innermost first, up to its scope."""
    out = []
    child = node
    for parent in analysis.parents.chain(node):
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.Module)):
            break
        if isinstance(parent, (ast.If, ast.IfExp)):
            part = "body" if _holds(parent.body, child) else "orelse" if _holds(parent.orelse, child) else None
            if part is not None:
                out.append((parent, part, getattr(parent, part)))
        elif isinstance(parent, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            if _holds(parent.body, child):
                # a handler runs when the body failed, before its call could compile
                out.append((parent, "body", parent.body))
            for i, handler in enumerate(parent.handlers):
                if handler is child:
                    out.append((parent, f"handler{i}", handler.body))
        elif isinstance(parent, ast.Match):
            for i, case in enumerate(parent.cases):
                if case is child:
                    out.append((parent, f"case{i}", case.body))
        child = parent
    return out


def _holds(block, child) -> bool:
    if isinstance(block, list):
        return any(item is child for item in block)
    return block is child


def _exclusive(analysis, first, second) -> bool:
    """Can the calls `first` (earlier) and `second` not both run in one pass of their code?"""
    a = _branches(analysis, first.node)
    b = _branches(analysis, second.node)
    b_parts = {(id(parent), part) for parent, part, _ in b}
    b_parents = {id(parent): part for parent, part, _ in b}
    for parent, part, block in a:
        other = b_parents.get(id(parent))
        if other is not None and other != part:
            if isinstance(parent, ast.If) and _changes_per_iteration(analysis, parent):
                return False              # `if step < 2:` in a loop: one branch, then the other
            return True                   # two branches of the same if / try / match
        if (id(parent), part) not in b_parts and isinstance(block, list) and block \
                and isinstance(block[-1], (ast.Return, ast.Raise)):
            return True                   # the first call's branch leaves the function
    return False


def _changes_per_iteration(analysis, branch: ast.If) -> bool:
    """Does the test of `branch` read a name that a loop around it (in its function) binds, its
    loop variable or a name assigned in its body? Then one iteration may take one branch and the
    next the other (`for step in range(n): if step < warmup: ... else: ...`)."""
    names = {n.id for n in ast.walk(branch.test) if isinstance(n, ast.Name)}
    loops = [loop for loop in analysis.parents.loops_of(branch) if isinstance(loop, LOOP_STATEMENTS)]
    if not names or not loops:
        return False
    model = analysis.model
    scope = model.scope_of(branch)
    for loop in loops:
        for name in names:
            for binding in scope.by_name.get(name, ()):
                if binding.stmt is loop or (loop, "body") in binding.path or (loop, "orelse") in binding.path:
                    return True
    return False


def describe_loop(node) -> str:
    return f"the loop at line {node.lineno}" if isinstance(node, LOOP_STATEMENTS) else \
        f"the comprehension at line {node.lineno}"


def _text(node) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 40 else text[:37] + "..."
