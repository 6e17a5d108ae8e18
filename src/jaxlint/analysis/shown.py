"""What the file shows about a value: the expressions a name can hold where it is read.

A name is followed the way Python binds it: the last assignment before the line in its function,
then the enclosing functions, then the module; a parameter to the arguments the file's calls pass
(and its default where a call leaves it out); `self.x` to what the class's methods assign. From
there `values()` gives every Python value an expression can take (`range(1, L - 1)` with `L = 18`
passed at one call and left at its default 8 at another), `truth()` a flag's value. Anything the
file does not show is unknown, and callers treat unknown as "say nothing".
"""

from __future__ import annotations

import ast
import functools
import inspect
import itertools
import math
import operator
from dataclasses import dataclass, field, replace
from typing import Optional

from jaxlint.analysis import api_tables as api
from jaxlint.analysis.module import defaults, evaluate_literal, positional_params
from jaxlint.analysis.semantic import BindingKind
from jaxlint.analysis.syntax import LineFilter, pruned_walk, target_names, text_of  # noqa: F401 - text_of is read from here too

MAX_DEPTH = 4           # calls followed from where a value is read to where it is made
MAX_VALUES = 64         # a value set larger than this is not worth enumerating
MAX_STEPS = 20_000      # values followed per file, at most


@dataclass(frozen=True)
class Ctx:
    """Where an expression is evaluated: the enclosing def (None: module level), the line (names
    bound before it count) and the arguments bound to that def's parameters by the call that led
    here (param -> (expression, Ctx of the caller))."""

    scope: Optional[ast.AST]
    line: int
    bound: tuple = ()          # ((param, (expr, Ctx)), ...): hashable, small
    depth: int = 0
    # The Shown of the module the expression is in, when it is not the one reading it (an
    # argument of a call that led into a function of another module); None: the reader's own.
    module: object = field(default=None, compare=False)

    def binding(self, name):
        for param, value in self.bound:
            if param == name:
                return value
        return None

    def deeper(self) -> "Ctx":
        return Ctx(self.scope, self.line, self.bound, self.depth + 1, self.module)


@dataclass(frozen=True)
class Values:
    """The values an expression can take: those the file shows, and whether that is all of them."""

    known: frozenset = frozenset()
    complete: bool = False

    @staticmethod
    def of(*items) -> "Values":
        return Values(frozenset(items), True)


UNKNOWN = Values()
_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Div: operator.truediv}


def read_in_home(method):
    """A question about an expression is answered by the reader of the module the expression is
    in: when `ctx` belongs to another module (an argument passed into one of its functions), the
    call goes to that module's reader. The one place a reader hands a question across modules."""
    position = list(inspect.signature(method).parameters).index("ctx")
    name = method.__name__

    @functools.wraps(method)
    def answer(self, *args, **kwargs):
        ctx = args[position - 1] if len(args) >= position else kwargs["ctx"]
        other = ctx.module
        if other is not None and other is not self:
            return getattr(other, name)(*args, **kwargs)
        return method(self, *args, **kwargs)
    return answer


class Shown:
    """Follows names, parameters and attributes of one analysed file to the values it shows."""

    def __init__(self, analysis):
        self.analysis = analysis
        self.imports = analysis.imports
        self._deciding: set = set()     # id() of the `if` statements whose test is being decided
        self.index = analysis.index
        self.parents = analysis.parents
        self._callers: dict = {}
        self._budget = MAX_STEPS

    def stamped(self, ctx) -> Ctx:
        """`ctx` marked as this module's, to be handed to another module's reader."""
        return ctx if ctx.module is self else replace(ctx, module=self)

    def spend(self) -> bool:
        """One more step of following values; False once a file has used its budget (a name
        passed through many calls of many functions branches at every level)."""
        self._budget -= 1
        return self._budget > 0

    @read_in_home
    def function_of(self, func, ctx):
        """The def a call's function expression names: nested, module level, `self.m`/`cls.m`."""
        scope_info = self.index.by_node.get(id(ctx.scope)) if ctx.scope is not None else None
        if isinstance(func, ast.Name) and self._is_local(func.id, ctx) \
                and not (scope_info is not None and func.id in scope_info.nested):
            return None
        info = self.analysis.finder.resolve_function(func, scope_info, None)
        if info is None or any(e.func is info and e.is_jit for e in self.analysis.entries):
            return None
        return info

    def bind(self, info, call, ctx, skip_self=None) -> Optional[tuple]:
        """The call's arguments bound to `info`'s parameters: ((param, (expr, ctx)), ...)."""
        args = info.node.args
        positional = positional_params(args)
        if skip_self or (skip_self is None and info.is_method and isinstance(call.func, ast.Attribute)):
            positional = positional[1:]
        bound = []
        for i, arg in enumerate(call.args):
            if isinstance(arg, ast.Starred):
                return None
            if i < len(positional):
                bound.append((positional[i], (arg, ctx)))
        for kw in call.keywords:
            if kw.arg is None:
                return None
            bound.append((kw.arg, (kw.value, ctx)))
        passed = {name for name, _ in bound}
        left_out = defaults(args)
        if left_out.keys() - passed:       # a parameter this call leaves out holds its default
            where = Ctx(self.parents.scope_of(info.node), info.node.lineno, (), ctx.depth)
            bound.extend((name, (node, where)) for name, node in left_out.items() if name not in passed)
        return tuple(bound)

    # -- values -------------------------------------------------------------------------------
    def lookup(self, name, ctx) -> Optional[tuple]:
        """(expression, ctx) of the latest binding of `name` that reaches where `ctx` evaluates,
        else None (see `lookup_all`)."""
        found = [item for item in self.lookup_all(name, ctx) if item[0] is not None]
        return found[-1] if found else None

    @read_in_home
    def lookup_all(self, name, ctx) -> list:
        """(expression, ctx) for each binding of `name` that reaches where `ctx` evaluates (the
        semantic model's answer, in source order), less those in a branch that the arguments
        bound by the call that led here rule out; [] when one of them is not an expression the
        file shows (a loop target, a `with` target...) or none is found. A parameter that reaches
        too (rebound on some paths only) is the item (None, ctx)."""
        found = ctx.binding(name)
        if found is not None:
            return [found]
        scope = ctx.scope
        line = ctx.line
        model = self.analysis.model
        while True:
            if isinstance(scope, ast.Lambda):
                if name in _param_names(scope):
                    return []
                scope = self.parents.scope_of(scope)
                continue
            where = model.scope(scope)
            bindings = [b for b in where.by_name.get(name, ()) if b.kind not in _NOT_STATEMENT]
            if bindings:
                # what reaches the statement at the line: in `ds = ds.batch(32)` the right side
                # reads the older `ds`; read from an inner def (line past the end), any binding
                inner = Ctx(scope, line, ctx.bound if scope is ctx.scope else (), ctx.depth)
                out = []
                if line < 10 ** 9:
                    reaching = where.reaching(name, where.statement_at(line)).bindings
                    bindings = [b for b in reaching if b.kind not in _NOT_STATEMENT]
                    if any(b.kind is BindingKind.PARAMETER for b in reaching):
                        out.append((None, inner))
                for b in bindings:
                    if self.excluded_branch(scope, b.stmt, inner):
                        continue
                    element = _binding_element(b)
                    if element is None:
                        return []
                    out.append((element, Ctx(scope, b.line, inner.bound, ctx.depth)))
                return out[-1:] if line >= 10 ** 9 else out
            if scope is None:
                return []
            if name in _param_names(scope):
                return []
            scope = self.parents.scope_of(scope)
            line = 10 ** 9

    @read_in_home
    def excluded_branch(self, scope, node, ctx) -> bool:
        """Is `node` in a branch of an `if` (inside `scope`) whose test the file decides against?"""
        child = node
        for anc in self.parents.chain(node):
            if anc is scope:
                return False
            if isinstance(anc, ast.If) and id(anc) not in self._deciding:
                self._deciding.add(id(anc))     # a test that reads a name bound in its own branch
                try:                            # (`if not done: ... done = ...`) is not decided
                    truth = self.truth(anc.test, ctx)     # from inside that branch
                finally:
                    self._deciding.discard(id(anc))
                if truth is not None and ((child in anc.body and not truth) or (child in anc.orelse and truth)):
                    return True
            child = anc
        return False

    @read_in_home
    def owner_of_parameter(self, name, ctx) -> Optional[ast.AST]:
        """The def (this one or an enclosing one) whose parameter `name` is, where `ctx` reads it."""
        if ctx.binding(name) is not None:
            return None
        scope = ctx.scope
        while scope is not None:
            if name in _param_names(scope):
                return scope
            if not isinstance(scope, ast.Lambda) and self.analysis.model.scope(scope).assigns(name):
                return None
            scope = self.parents.scope_of(scope)
        return None

    @read_in_home
    def parameter_values(self, name, ctx) -> list:
        """What a parameter receives, as (expression, ctx) pairs: what each of the file's calls of
        its def passes, or the default where a call leaves it out (or no call is seen)."""
        scope = self.owner_of_parameter(name, ctx)
        if scope is None or isinstance(scope, ast.Lambda):
            return []
        info = self.index.by_node.get(id(scope))
        if info is None or ctx.depth >= MAX_DEPTH:
            return []
        default = defaults(info.node.args).get(name)
        default = None if default is None else \
            (default, Ctx(self.parents.scope_of(info.node), info.node.lineno, (), ctx.depth + 1))
        found = []
        for call, skip in self.callers(info):
            where = Ctx(self.parents.scope_of(call), call.lineno, (), ctx.depth + 1)
            bound = self.bind(info, call, where, skip_self=skip)
            if bound is None:
                continue
            value = dict(bound).get(name, default)
            if value is not None:
                found.append(value)
        if not found and default is not None:
            found.append(default)
        return found

    @read_in_home
    def attribute_values(self, node, ctx) -> list:
        """`self.loader`: what the methods of the enclosing class assign to `self.loader`;
        `config.batch_size`: what the scope that made the object (`config = Namespace()`, passed
        to the def that reads it) assigns to `config.batch_size`."""
        if not isinstance(node.value, ast.Name):
            return []
        if node.value.id != "self":
            return self._stored_attribute(node.value.id, node.attr, ctx, 0)
        if ctx.scope is None:
            return []
        info = self.index.by_node.get(id(ctx.scope))
        while info is not None and info.cls is None:
            info = info.parent
        if info is None or ctx.depth >= MAX_DEPTH:
            return []
        found = []
        for method in info.cls.methods.values():
            for sub in ast.walk(method.node):
                if isinstance(sub, ast.Assign):
                    for target in sub.targets:
                        if isinstance(target, ast.Attribute) and target.attr == node.attr \
                                and isinstance(target.value, ast.Name) and target.value.id == "self":
                            found.append((sub.value, Ctx(method.node, sub.lineno, (), ctx.depth + 1)))
        return found

    def _stored_attribute(self, name, attr, ctx, depth) -> list:
        """(value, ctx) of each `name.attr = value` of the scope where the object `name` holds
        was made by a call (a namespace, a config object), through aliases and parameters."""
        if depth > 3 or ctx.depth >= MAX_DEPTH or not self.spend():
            return []
        found = []
        made = self.lookup_all(name, ctx)
        if not made and self.owner_of_parameter(name, ctx) is not None:
            made = self.parameter_values(name, ctx)
            if not made:
                return []
            for value, where in made:
                if isinstance(value, ast.Name):
                    found.extend(self._stored_attribute(value.id, attr, where, depth + 1))
            return found
        for value, where in made:
            if value is None:          # a parameter on some paths: what the calls pass
                for passed, at in self.parameter_values(name, where):
                    if isinstance(passed, ast.Name):
                        found.extend(self._stored_attribute(passed.id, attr, at, depth + 1))
            elif isinstance(value, ast.Name):
                found.extend(self._stored_attribute(value.id, attr, where, depth + 1))
            elif isinstance(value, ast.Call) and not isinstance(where.scope, ast.Lambda):
                if (self.imports.resolve(value.func) or "") in api.NAMESPACE_TYPES:
                    found.extend((kw.value, where) for kw in value.keywords if kw.arg == attr)
                elif not self._bare_class(value.func, attr, where):
                    continue
                scope = self.analysis.model.scope(where.scope)
                found.extend((stored, Ctx(where.scope, stmt.lineno, where.bound, where.depth + 1))
                             for stored, stmt in scope.stored_attributes(name, attr))
        return found

    def _bare_class(self, func, attr, ctx) -> bool:
        """Is `func` a class of the file that never sets `attr` itself (in its body or methods),
        so its objects hold only what is assigned to them from outside?"""
        if not isinstance(func, ast.Name) or self._is_local(func.id, ctx):
            return False
        cls = self.index.top_classes.get(func.id)
        if cls is None or cls.node.bases or cls.node.keywords or cls.node.decorator_list:
            return False
        for sub in ast.walk(cls.node):
            if isinstance(sub, ast.Attribute) and sub.attr == attr and isinstance(sub.ctx, ast.Store):
                return False
            if isinstance(sub, ast.Name) and sub.id == attr and isinstance(sub.ctx, ast.Store):
                return False
            if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)) and sub.name in (attr, "__setattr__",
                                                                                         "__getattr__"):
                return False
        return True

    def callers(self, info) -> list:
        """(call, skips_self) for the calls of a def in this file (by name; a method by attribute,
        `__init__` by its class's name)."""
        key = id(info.node)
        if key not in self._callers:
            if info.name == "__init__" and info.cls is not None:
                names, attr, skip = {info.cls.name}, False, True
            else:
                names, attr, skip = {info.name}, info.is_method, info.is_method
            found = []
            for node in pruned_walk(self.analysis.tree, LineFilter(self.analysis.lines, names)):
                if isinstance(node, ast.Call):
                    func = node.func
                    if isinstance(func, ast.Name) and func.id in names and not attr:
                        found.append((node, skip))
                    elif isinstance(func, ast.Attribute) and func.attr in names and attr:
                        found.append((node, True))
            self._callers[key] = found
        return self._callers[key]

    @read_in_home
    def truth(self, node, ctx, depth=0) -> Optional[bool]:
        """True/False when the file shows the value of a flag, else None."""
        if isinstance(node, ast.Constant) and isinstance(node.value, (bool, int)):
            return bool(node.value)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            inner = self.truth(node.operand, ctx, depth + 1)
            return None if inner is None else not inner
        if isinstance(node, ast.Name) and depth < 6 and self.spend():
            if node.id in self.index.constants and self.lookup(node.id, ctx) is None \
                    and isinstance(self.index.constants[node.id], (bool, int)):
                return bool(self.index.constants[node.id])
            found = self.lookup(node.id, ctx)
            if found is not None:
                return self.truth(found[0], found[1], depth + 1)
            values = [self.truth(v, c, depth + 1) for v, c in self.parameter_values(node.id, ctx)]
            if values and all(v is not None for v in values) and len(set(values)) == 1:
                return values[0]
        return None

    @read_in_home
    def literal(self, node, ctx, depth=0):
        """The Python value of a literal, a module constant or a name bound to one; else None."""
        if isinstance(node, ast.Name) and depth < 4:
            found = self.lookup(node.id, ctx)
            if found is not None:
                return self.literal(found[0], found[1], depth + 1)
            if node.id in self.index.constants:
                return self.index.constants[node.id]
            values = [self.literal(v, c, depth + 1) for v, c in self.parameter_values(node.id, ctx)]
            if len(values) == 1:
                return values[0]
            return None
        try:
            return evaluate_literal(node)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None

    @read_in_home
    def _is_local(self, name, ctx) -> bool:
        """Is `name` bound in the enclosing def (a variable or parameter hides a def or class)?"""
        scope = ctx.scope
        if scope is None or isinstance(scope, ast.Lambda):
            return False
        if name in _param_names(scope):
            return True
        return self.analysis.model.scope(scope).assigns(name, definitions=False)

    @read_in_home
    def values(self, node, ctx, depth=0) -> Values:
        """Every value `node` can take where `ctx` evaluates it, as far as the file shows."""
        if depth > 12 or ctx.depth > MAX_DEPTH or not self.spend():
            return UNKNOWN
        if isinstance(node, ast.Constant):
            value = node.value
            ok = value is None or isinstance(value, (int, float, str, bool))
            if isinstance(value, int) and value.bit_length() > 62:
                ok = False      # no count is this large, and str() of a huge int can raise
            return Values.of(value) if ok else UNKNOWN
        if isinstance(node, ast.Name):
            found = self.lookup_all(node.id, ctx)
            if found and any(value is not None for value, _ in found):
                return self._union([self.values(value, where, depth + 1) if value is not None else
                                    self._union([self.values(v, c, depth + 1)
                                                 for v, c in self.parameter_values(node.id, where)])
                                    for value, where in found])
            if self.owner_of_parameter(node.id, ctx) is not None:
                return self._union([self.values(v, c, depth + 1) for v, c in self.parameter_values(node.id, ctx)])
            if node.id in self.index.constants and not self._is_local(node.id, ctx):
                value = self.index.constants[node.id]
                if isinstance(value, int) and value.bit_length() > 62:
                    return UNKNOWN
                return Values.of(value) if isinstance(value, (int, float, str, bool)) else UNKNOWN
            return self._imported_constant(node, ctx)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            imported = self._imported_constant(node, ctx)
            if imported.known:
                return imported
            stored = self.attribute_values(node, ctx)
            return self._union([self.values(v, c, depth + 1) for v, c in stored]) if stored else imported
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            return self._combine(_BINOPS[type(node.op)], [self.values(node.left, ctx, depth + 1),
                                                          self.values(node.right, ctx, depth + 1)])
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            sign = operator.neg if isinstance(node.op, ast.USub) else operator.pos
            return self._combine(sign, [self.values(node.operand, ctx, depth + 1)])
        if isinstance(node, ast.IfExp):
            test = self.truth(node.test, ctx)
            if test is not None:
                return self.values(node.body if test else node.orelse, ctx, depth + 1)
            return self._union([self.values(node.body, ctx, depth + 1), self.values(node.orelse, ctx, depth + 1)])
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords \
                and not self._is_local(node.func.id, ctx) and node.func.id not in self.index.module_names:
            name = node.func.id
            if name in ("int", "abs", "round") and len(node.args) == 1:
                return self._combine({"int": int, "abs": abs, "round": round}[name],
                                     [self.values(node.args[0], ctx, depth + 1)])
            if name in ("min", "max") and len(node.args) >= 2:
                return self._combine({"min": min, "max": max}[name],
                                     [self.values(a, ctx, depth + 1) for a in node.args])
            if name == "len" and len(node.args) == 1:
                try:
                    return Values.of(len(evaluate_literal(node.args[0])))
                except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                    return UNKNOWN
        if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords \
                and (self.imports.resolve(node.func) or "") in ("math.ceil", "math.floor"):
            return self._combine(math.ceil if self.imports.resolve(node.func) == "math.ceil" else math.floor,
                                 [self.values(node.args[0], ctx, depth + 1)])
        return UNKNOWN

    def _imported_constant(self, node, ctx) -> Values:
        """A literal that another module of the project binds once to the name imported here
        (`N` of `from .config import N`, `config.N`). Only literals: the other module's names
        mean what its own imports say, not ours."""
        view = getattr(self.analysis.flow, "external", None)
        root = node if isinstance(node, ast.Name) else node.value
        if view is None or self._is_local(root.id, ctx):
            return UNKNOWN
        expr = view.constant(node)
        if expr is None:
            return UNKNOWN
        try:
            value = evaluate_literal(expr)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return UNKNOWN
        if isinstance(value, bool) or isinstance(value, (int, float, str)) and \
                not (isinstance(value, int) and value.bit_length() > 62):
            return Values.of(value)
        return UNKNOWN

    @staticmethod
    def _union(parts) -> Values:
        known = frozenset().union(*(p.known for p in parts)) if parts else frozenset()
        complete = bool(parts) and all(p.complete for p in parts) and len(known) <= MAX_VALUES
        return Values(known if len(known) <= MAX_VALUES else frozenset(), complete)

    @staticmethod
    def _combine(func, parts) -> Values:
        if any(not p.known for p in parts):
            return UNKNOWN
        if math.prod(len(p.known) for p in parts) > MAX_VALUES:
            return UNKNOWN
        out, complete = set(), all(p.complete for p in parts)
        for combo in itertools.product(*(p.known for p in parts)):
            if not all(isinstance(v, (int, float)) for v in combo):
                complete = False
                continue
            try:
                value = func(*combo)
            except (ArithmeticError, ValueError, TypeError, OverflowError):
                complete = False
                continue
            if isinstance(value, (int, float)) and abs(value) < 2 ** 62:
                out.add(value)
            else:
                complete = False
        return Values(frozenset(out), complete and bool(out))



_NOT_STATEMENT = frozenset({BindingKind.PARAMETER, BindingKind.ANNOTATION})


def _binding_element(binding):
    """The expression a binding gives its name, as `values` can read it, or None."""
    kind = binding.kind
    if kind in (BindingKind.ASSIGNMENT, BindingKind.AUGMENTED, BindingKind.WALRUS):
        return binding.value
    if kind is BindingKind.UNPACKED and isinstance(binding.stmt, ast.Assign):
        for target in binding.stmt.targets:
            if binding.name in set(target_names(target)):
                return _element(target, binding.stmt.value, binding.name)
    return None


def _element(target, value, name):
    """What `name` holds after `target = value`: the value, or its element for `a, b = ...`
    (a display's element, or `call()[i]` for a call); None for a loop or `with` target."""
    if not isinstance(value, ast.expr):
        return None
    if isinstance(target, ast.Name):
        return value
    if isinstance(target, (ast.Tuple, ast.List)) and all(isinstance(e, ast.Name) for e in target.elts):
        index = next(i for i, e in enumerate(target.elts) if e.id == name)
        if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts) \
                and not any(isinstance(e, ast.Starred) for e in value.elts):
            return value.elts[index]
        if isinstance(value, ast.Call):
            element = ast.Subscript(value=value, slice=ast.Constant(index), ctx=ast.Load())
            return ast.copy_location(element, value)
    return None


def _param_names(func) -> set:
    args = func.args
    names = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    names |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    return names
