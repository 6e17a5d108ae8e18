"""Which binding of a name reaches a use, in one function (or the module body).

The signature rules (JAX305-JAX307) need more than "the last assignment above this line": a name
bound in one branch of an `if` does not tell what the call sees, a name rebound later in the
loop around the call is seen by the next iteration, and a loop variable or a counter takes a new
value each iteration. This module answers those questions from the syntax of one scope: every
binding statement with the blocks that hold it (its *path*), and for a use, the binding that
reaches it on every path (it dominates the use), or why none does.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Optional

from jaxlint.analysis.module import target_names, walk

LOOP_STATEMENTS = (ast.For, ast.AsyncFor, ast.While)
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
# List/dict methods that change a container in place.
MUTATORS = {"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "popitem",
            "sort", "reverse", "__setitem__", "__delitem__", "add", "discard"}
GROWERS = {"append", "extend", "insert"}
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


@dataclass(eq=False)
class Binding:
    """One statement binding `name`."""

    name: str
    stmt: ast.AST
    value: Optional[ast.AST]     # the expression bound by `name = value`; None when not that simple
    path: tuple                  # ((compound statement, field), ...) from the scope body down
    kind: str                    # "assign" | "aug" | "for" | "other"
    start: tuple                 # (line, col) from which the new value is visible

    @property
    def line(self) -> int:
        return self.stmt.lineno

    def refers_to_itself(self) -> bool:
        """`n += 1`, `acc = jnp.concatenate([acc, x])`: the new value is computed from the old."""
        if self.kind == "aug":
            return True
        return self.value is not None and any(
            isinstance(n, ast.Name) and n.id == self.name for n in ast.walk(self.value))


@dataclass(eq=False)
class Mutation:
    """`name.append(...)`, `name[k] = v`, `name += [...]`: the object bound to `name` changes."""

    name: str
    node: ast.AST
    method: str
    path: tuple


@dataclass
class Reach:
    """What reaches a use of a name.

    kind: "bound" (`binding` dominates the use), "loopvar" (the target of `loop` around the use),
    "self" (rebound from itself in `loop` around the use: a counter or an accumulator),
    "carried" (bound before `loop` by `binding`, rebound inside it after the use by `later`),
    "ambiguous" (a binding that does not dominate the use), "unbound" (not bound in the scope)."""

    kind: str
    binding: Optional[Binding] = None
    loop: Optional[ast.AST] = None
    later: list = field(default_factory=list)


class ScopeBindings:
    """Every binding and in-place change of a name in one scope, with the blocks that hold it."""

    def __init__(self, body: list):
        self.by_name: dict = {}
        self.mutations: dict = {}
        self.path_of: dict = {}          # id(statement) -> path of the block that holds it
        self._walk(body, ())

    def _walk(self, body, path):
        for stmt in body:
            self.path_of[id(stmt)] = path
            self._record(stmt, path)
            if isinstance(stmt, _SCOPES):
                continue
            if isinstance(stmt, (ast.With, ast.AsyncWith)):
                self._walk(stmt.body, path)          # a with-block always runs its body
                continue
            for name in ("body", "orelse", "finalbody"):
                block = getattr(stmt, name, None)
                if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                    self._walk(block, path + ((stmt, name),))
            for i, handler in enumerate(getattr(stmt, "handlers", ()) or ()):
                self._walk(handler.body, path + ((stmt, f"handler{i}"),))
            for i, case in enumerate(getattr(stmt, "cases", ()) or ()):
                self._walk(case.body, path + ((stmt, f"case{i}"),))

    def _add(self, name, stmt, value, path, kind, start):
        self.by_name.setdefault(name, []).append(Binding(name, stmt, value, path, kind, start))

    def _record(self, stmt, path):
        end = (stmt.end_lineno, stmt.end_col_offset)
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if stmt.value is None:
                return
            for target in targets:
                if isinstance(target, ast.Name):
                    self._add(target.id, stmt, stmt.value, path, "assign", end)
                elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(stmt.value, (ast.Tuple, ast.List)) \
                        and len(target.elts) == len(stmt.value.elts) \
                        and all(isinstance(t, ast.Name) for t in target.elts):
                    for t, v in zip(target.elts, stmt.value.elts):
                        self._add(t.id, stmt, v, path, "assign", end)
                else:
                    for name in target_names(target):
                        self._add(name, stmt, None, path, "other", end)
                    self._subscript_store(target, path)
        elif isinstance(stmt, ast.AugAssign):
            if isinstance(stmt.target, ast.Name):
                left = ast.copy_location(ast.Name(id=stmt.target.id, ctx=ast.Load()), stmt.target)
                value = ast.copy_location(ast.BinOp(left=left, op=stmt.op, right=stmt.value), stmt)
                self._add(stmt.target.id, stmt, value, path, "aug", end)
                method = "extend" if isinstance(stmt.op, ast.Add) else "aug"
                self.mutations.setdefault(stmt.target.id, []).append(Mutation(stmt.target.id, stmt, method, path))
            else:
                self._subscript_store(stmt.target, path)
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            start = (stmt.body[0].lineno, stmt.body[0].col_offset) if stmt.body else end
            for name in target_names(stmt.target):
                self._add(name, stmt, None, path, "for", start)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                if item.optional_vars is not None:
                    for name in target_names(item.optional_vars):
                        self._add(name, stmt, None, path, "other", (stmt.lineno, stmt.col_offset))
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self._add(stmt.name, stmt, None, path, "other", (stmt.lineno, stmt.col_offset))
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            for alias in stmt.names:
                name = (alias.asname or alias.name).split(".")[0]
                self._add(name, stmt, None, path, "other", end)
        elif isinstance(stmt, ast.Delete):
            for target in stmt.targets:
                self._subscript_store(target, path, "__delitem__")
        if isinstance(stmt, (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return)):
            self._method_calls(stmt, path)

    def _subscript_store(self, target, path, method="__setitem__"):
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            name = target.value.id
            self.mutations.setdefault(name, []).append(Mutation(name, target, method, path))

    def _method_calls(self, stmt, path):
        value = getattr(stmt, "value", None)
        if value is None or isinstance(value, (ast.Constant, ast.Name, ast.Attribute)):
            return
        for node in walk(value):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and isinstance(node.func.value, ast.Name) and node.func.attr in MUTATORS:
                name = node.func.value.id
                self.mutations.setdefault(name, []).append(Mutation(name, node, node.func.attr, path))
            elif isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
                self._add(node.target.id, stmt, None, path, "other", (stmt.end_lineno, stmt.end_col_offset))

    # -- questions ------------------------------------------------------------------------------
    def use_path(self, stmt) -> tuple:
        """The path of the statement holding a use (() when the statement is not in this scope)."""
        return self.path_of.get(id(stmt), ())

    def reach(self, name: str, node, stmt) -> Reach:
        """What reaches the use of `name` at `node`, inside statement `stmt` of this scope."""
        bindings = self.by_name.get(name)
        if not bindings:
            return Reach("unbound")
        use_path = self.use_path(stmt)
        position = (node.lineno, node.col_offset)
        before = [b for b in bindings if b.start <= position]
        loops = [blk for blk, part in use_path if isinstance(blk, LOOP_STATEMENTS) and part == "body"]
        # a counter or accumulator: rebound from itself inside a loop around the use
        for loop in reversed(loops):
            inside = [b for b in bindings if (loop, "body") in b.path]
            if inside and all(b.refers_to_itself() for b in inside):
                outside = [b for b in before if (loop, "body") not in b.path]
                first = outside[-1] if outside and _dominates(outside[-1], use_path) else None
                return Reach("self", binding=first, loop=loop, later=inside)
        if not before:
            return Reach("unbound" if all(b.kind != "for" for b in bindings) else "ambiguous")
        last = before[-1]
        if last.kind == "for" and (last.stmt, "body") in use_path:
            return Reach("loopvar", binding=last, loop=last.stmt)
        if not _dominates(last, use_path):
            return Reach("ambiguous", binding=last)
        for loop in loops:
            if (loop, "body") in last.path:
                continue
            later = [b for b in bindings if (loop, "body") in b.path]
            if later:
                return Reach("carried", binding=last, loop=loop, later=later)
        return Reach("bound", binding=last)

    def mutated(self, name: str) -> list:
        return self.mutations.get(name, [])

    def grown_in(self, name: str, loop) -> list:
        """The in-place growths of `name` (append/extend/insert, `+=`) inside `loop`."""
        return [m for m in self.mutations.get(name, ()) if m.method in GROWERS and (loop, "body") in m.path]

    def reset_in(self, name: str, loop) -> bool:
        """Is `name` bound afresh inside `loop` (so it does not grow from one iteration to the next)?"""
        return any((loop, "body") in b.path and not b.refers_to_itself()
                   for b in self.by_name.get(name, ()))


def _dominates(binding: Binding, use_path: tuple) -> bool:
    """The binding's block encloses the use's: it ran on every path to the use."""
    path = binding.path
    return len(path) <= len(use_path) and use_path[:len(path)] == path


def enclosing_statement(parents, node):
    """The innermost statement holding `node`."""
    if isinstance(node, ast.stmt):
        return node
    for anc in parents.chain(node):
        if isinstance(anc, ast.stmt):
            return anc
    return None


def comprehension_target(parents, node, name: str):
    """The comprehension around `node` (in its own scope) whose `for` binds `name`, and its generator."""
    for anc in parents.chain(node):
        if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.stmt)):
            return None
        if isinstance(anc, COMPREHENSIONS):
            for gen in anc.generators:
                if name in set(target_names(gen.target)):
                    return anc, gen
    return None
