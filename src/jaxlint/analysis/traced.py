"""Where tracing starts: every function whose parameters JAX turns into tracers.

A function is traced when it is compiled by a jit-like wrapper (any spelling: decorator,
decorator factory, `functools.partial(jax.jit, ...)`, `g = jax.jit(f, ...)`, `jax.jit(f)(x)`) or
is the body of a lax control-flow primitive or `jax.vmap`. For each we record which parameters
are static, read from `static_argnums`/`static_argnames` the way JAX reads them.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass, field
from typing import Optional

from jaxlint.analysis import api_tables as api
from jaxlint.analysis.module import (FuncInfo, ModuleIndex, evaluate_literal, param_names,
                                     params_with_defaults, positional_params)
from jaxlint.analysis.syntax import LineFilter, relevant_children, text_of
from jaxlint.analysis.names import canonical


@dataclass(eq=False)
class StaticSpec:
    """`static_argnums` / `static_argnames` as written at one jit site."""

    argnums: Optional[tuple] = None
    argnames: Optional[tuple] = None
    argnums_node: Optional[ast.AST] = None
    argnames_node: Optional[ast.AST] = None
    unresolved: bool = False   # written with something we cannot evaluate statically


@dataclass(eq=False)
class TracedEntry:
    """One place where tracing starts, and what it makes static."""

    wrapper: str                         # canonical wrapper: jax.jit, lax.scan, jax.vmap, ...
    site: ast.AST                        # the decorator or call that makes it traced
    func: Optional[FuncInfo] = None
    lam: Optional[ast.Lambda] = None
    spec: StaticSpec = field(default_factory=StaticSpec)
    static: set = field(default_factory=set)
    bound: set = field(default_factory=set)      # bound by partial(...) or as `self` of self.m
    unbatched: set = field(default_factory=set)  # vmap in_axes=None: the value passes untouched
    call_names: set = field(default_factory=set)  # plain names it is called by in this module
    call_attrs: set = field(default_factory=set)  # attribute names it is called by (methods)
    immediate_calls: list = field(default_factory=list)  # `jax.jit(f)(...)` call nodes
    spec_problems: list = field(default_factory=list)    # (lead, detail, is_error) for JAX203
    static_in_varargs: bool = False              # static_argnums reaching into *args
    static_kwargs: set = field(default_factory=set)      # static_argnames that land in **kwargs
    negative_argnums: bool = False
    via_decorator: bool = False
    host: Optional[FuncInfo] = None              # the plain function whose call starts the trace
    name_scope: Optional[FuncInfo] = None        # where `call_names` are bound (None: module)
    class_body: object = None                    # ClassInfo when `g = jax.jit(m)` sits in a class body
    scope: Optional[FuncInfo] = None             # the def the site is in (None: module level)
    diff: Optional[set] = None                   # autodiff alone (grad, vjp...): the differentiated params
    self_class: object = None                    # ClassInfo of the object a bound method was taken from
    fails_before_trace: str = ""                 # why JAX raises before tracing (`@jax.jit @staticmethod`)
    donated: set = field(default_factory=set)    # parameters in donate_argnums/donate_argnames
    outer: str = ""                              # a decorator applied over the jit one (its name)
    home: str = ""                               # the file defining it, when another module's
    home_imports: object = None                  # that module's ImportMap

    @property
    def node(self) -> ast.AST:
        return self.func.node if self.func else self.lam

    @property
    def args(self) -> ast.arguments:
        return self.node.args

    @property
    def name(self) -> str:
        return self.func.qualname if self.func else self.label or "<lambda>"

    fresh: str = ""               # what jit was applied to when it is a new object each time
    label: str = ""               # the jitted expression, for a function the file does not show
    is_jit: bool = False           # a jit-like wrapper (static arguments, call-time errors)
    compiled: bool = False         # compiles and caches per call signature

    @property
    def filtering(self) -> bool:
        return self.wrapper in api.FILTERING_WRAPPERS


def _literal(node, index: ModuleIndex):
    """Evaluate a static_argnums/argnames expression: literals and module constants only."""
    if isinstance(node, ast.Name) and node.id in index.constants:
        return index.constants[node.id]
    try:
        return evaluate_literal(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _UNRESOLVED


_UNRESOLVED = object()


# Nodes that cannot hold a call: a third of what the scan would visit (every Name has a Load).
_CALL_FREE = frozenset([ast.Name, ast.Constant, ast.Pass, ast.Break, ast.Continue, ast.Global, ast.Nonlocal]
                       + [kind for base in (ast.expr_context, ast.operator, ast.boolop, ast.unaryop, ast.cmpop)
                          for kind in base.__subclasses__()])


@functools.lru_cache(maxsize=8)
def _wrapper_words(jit_wrappers: frozenset) -> tuple:
    """Every wrapper that starts a trace, and the last words of their names (once per process)."""
    interesting = frozenset(jit_wrappers | api.TRACING_WRAPPERS | set(api.TRANSFORM_BODY_ARGS) | {api.SWITCH}
                            | set(api.DIFF_WRAPPERS) | set(api.APPLY_TRANSFORMS))
    return interesting, frozenset(name.rsplit(".", 1)[-1] for name in interesting)


class TracedFinder:
    def __init__(self, index: ModuleIndex, extra_wrappers: Optional[dict] = None, lines=None):
        self.index = index
        self.imports = index.imports
        self.entries: list = []
        self.unseen: list = []        # jit sites of functions the file does not show (_unseen_target)
        self.foreign: list = []       # (wrapper, site) of a jit of a name or attribute no def here is
        # wrapper name -> (static_argnums keyword, static_argnames keyword)
        self.jit_wrappers = dict(api.JIT_WRAPPERS)
        self.extra_wrappers = dict(extra_wrappers or {})
        self.jit_wrappers.update(self.extra_wrappers)
        self.line_filter = LineFilter(lines, self._trigger_words())

    def _trigger_words(self) -> set:
        """Words a line must contain to hold a jit site or a transform call."""
        interesting, words = _wrapper_words(frozenset(self.jit_wrappers))
        words = set(words)
        for local, target in self.imports.aliases.items():
            if canonical(target) in interesting:
                words.add(local)
        return words

    # -- recognising wrappers ------------------------------------------------------------------
    def wrapper_of(self, expr) -> Optional[tuple]:
        """(wrapper, keywords) if `expr` used as a decorator makes its function traced."""
        name = self.imports.resolve(expr) if isinstance(expr, (ast.Name, ast.Attribute)) else None
        if name in self.jit_wrappers or name in api.TRACING_WRAPPERS:
            return name, []
        if isinstance(expr, ast.Call):
            fname = self.imports.resolve(expr.func)
            if (fname in self.jit_wrappers or fname in api.TRACING_WRAPPERS) and not expr.args:
                return fname, expr.keywords        # @jax.jit(static_argnames=...)
            if fname == "functools.partial" and expr.args:
                inner = self.imports.resolve(expr.args[0])
                if inner in self.jit_wrappers or inner in api.TRACING_WRAPPERS:
                    return inner, expr.keywords
        return None

    # -- discovery ------------------------------------------------------------------------------
    def find(self) -> list:
        self._wrapped_inner = set()      # calls that are the function of another transform
        for info in self.index.functions:
            for position, dec in enumerate(info.node.decorator_list):
                found = self.wrapper_of(dec)
                if found:
                    entry = self._add(found[0], dec, func=info, keywords=found[1])
                    entry.via_decorator = True
                    entry.scope = info.parent
                    entry.fails_before_trace = self._stacking_failure(info, position, entry)
                    entry.outer = self._outer_decorator(info, position)
                    if found[0] == "jax.vmap":
                        self._read_in_axes(entry, None, found[1])
                    elif found[0] == "jax.shard_map":
                        self._read_in_specs(entry, found[1], ())
                    if info.cls is not None and info.parent is None:
                        entry.call_attrs.add(info.name)
                    else:
                        entry.call_names.add(info.name)
                        entry.name_scope = info.parent
        self._scan_calls(self.index.tree, scope=None, cls=None)
        return self.entries

    def _outer_decorator(self, info: FuncInfo, position: int) -> str:
        """The decorator applied over the jit decorator at `position` (calls of the name go
        through it first), '' when there is none or it hands the call on unchanged."""
        for dec in reversed(info.node.decorator_list[:position]):
            target = dec.func if isinstance(dec, ast.Call) else dec
            name = self.index.imports.resolve(target) or getattr(target, "id", "") or ast.unparse(target)
            if name in ("functools.partial", "partial") and isinstance(dec, ast.Call) and dec.args:
                inner = dec.args[0]
                name = self.index.imports.resolve(inner) or getattr(inner, "id", "") or ast.unparse(inner)
            if name not in ("staticmethod",):
                return canonical(name)
        return ""

    def _stacking_failure(self, info: FuncInfo, position: int, entry) -> str:
        """Why a jit decorator stacked with @staticmethod/@classmethod never traces the body:
        `@jax.jit` over either raises TypeError when the class is built (neither object is a
        function to jit), and `@classmethod` over `@jax.jit` passes the class itself as the first
        argument, which jit cannot trace unless it is static (JAX 0.10.2)."""
        inner = {getattr(d, "id", getattr(d, "attr", "")) for d in info.node.decorator_list[position + 1:]}
        if inner & {"staticmethod", "classmethod"}:
            return f"{entry.wrapper} of a staticmethod/classmethod object raises TypeError"
        if info.method_kind == "class" and info.params and info.params[0] not in entry.static:
            return f"{entry.wrapper} under @classmethod traces the class `{info.params[0]}`: TypeError at the call"
        return ""

    def _scan_calls(self, node, scope: Optional[FuncInfo], cls):
        """Walk the tree keeping track of the enclosing function and class."""
        for child in relevant_children(node, self.line_filter.hits):
            if type(child) in _CALL_FREE:
                continue
            if isinstance(child, ast.stmt) and not self.line_filter.touches(child):
                continue
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                info = self.index.by_node.get(id(child))
                self._scan_calls(child, info, None)
                continue
            if isinstance(child, ast.ClassDef):
                self._scan_calls(child, scope, self.index.classes.get(child.name))
                continue
            if isinstance(child, ast.Assign) and isinstance(child.value, ast.Call):
                entry = self._wrap_call(child.value, scope, cls)
                if entry is not None:
                    entry.class_body = cls
                    entry.name_scope = scope
                    for target in child.targets:
                        if isinstance(target, ast.Name):
                            entry.call_names.add(target.id)
                        elif isinstance(target, ast.Attribute):
                            entry.call_attrs.add(target.attr)
                    self._scan_calls(child.value, scope, cls)
                    continue
            if isinstance(child, ast.Call):
                if isinstance(child.func, ast.Call):
                    entry = self._wrap_call(child.func, scope, cls)
                    if entry is not None:
                        entry.immediate_calls.append(child)
                        for sub in child.args + [k.value for k in child.keywords]:
                            self._scan_calls(sub, scope, cls)
                        self._scan_calls(child.func, scope, cls)
                        continue
                self._wrap_call(child, scope, cls)
            self._scan_calls(child, scope, cls)

    def _wrap_call(self, call: ast.Call, scope, cls) -> Optional[TracedEntry]:
        """`jax.jit(f, ...)`, `lax.scan(body, ...)`, `jax.vmap(f)`: register the traced function."""
        name = self.imports.resolve(call.func)
        if name is None or id(call) in self._wrapped_inner:
            return None
        if name in api.DIFF_WRAPPERS and call.args:
            argnums = self._argnums(name, call)
            entry = None
            if argnums is not None:
                entry = self._entry_for_target(name, call, call.args[0], scope, cls, [])
            if entry is not None:
                positional = [p for p in positional_params(entry.args) if p not in entry.bound]
                entry.diff = {positional[i] for i in argnums if -len(positional) <= i < len(positional)}
                entry.host = None     # analysed on its own: the arguments' values do not matter
            return None
        if name in api.APPLY_TRANSFORMS and call.args:
            entry = self._entry_for_target(name, call, call.args[0], scope, cls, [])
            if entry is not None and api.APPLY_TRANSFORMS[name][0] == "diff":
                entry.diff = {p for p in positional_params(entry.args) if p not in entry.bound}
                entry.host = None
            return None
        if (name in self.jit_wrappers or name in api.TRACING_WRAPPERS) and call.args:
            target = call.args[0]
            entry = self._entry_for_target(name, call, target, scope, cls, call.keywords)
            if entry is None and (name in api.COMPILING_WRAPPERS or name in self.extra_wrappers):
                if isinstance(target, (ast.Name, ast.Attribute)):
                    self.foreign.append((name, call))     # maybe another module's (file.py)
                return self._unseen_target(name, call, target, scope, cls)
            if entry is not None and name == "jax.vmap":
                self._read_in_axes(entry, call)
            elif entry is not None and name == "jax.shard_map":
                self._read_in_specs(entry, call.keywords, call.args)
            return entry
        if name in api.TRANSFORM_BODY_ARGS:
            positions = api.TRANSFORM_BODY_ARGS[name]
            for pos in positions:
                if pos < len(call.args):
                    self._entry_for_target(name, call, call.args[pos], scope, cls, [])
            for kw in call.keywords:
                if kw.arg in api.TRANSFORM_BODY_KEYWORDS.get(name, ()):
                    self._entry_for_target(name, call, kw.value, scope, cls, [])
        elif name == api.SWITCH and len(call.args) > 1 and isinstance(call.args[1], (ast.List, ast.Tuple)):
            for branch in call.args[1].elts:
                self._entry_for_target(name, call, branch, scope, cls, [])
        return None

    def _unseen_target(self, wrapper, site, target, scope, cls) -> Optional[TracedEntry]:
        """A jit of a function whose code the file does not show, when the jitted object is new at
        each evaluation of the site: a `functools.partial` (or a grad) of a library or imported
        function, or a bound method that a class of this file inherits from a library base
        (`self.model.apply` of a Flax module) or that a class of another module defines (an
        object the callers pass in). Kept apart from `entries` (there is no body to trace here):
        only the jit-per-call rule reads them."""
        fresh, label = "", ""
        if isinstance(target, ast.Call) and target.args:
            inner = self.imports.resolve(target.func)
            label = text_of(target.args[0])
            if inner == "functools.partial":
                fresh = f"a new functools.partial of `{label}`"
            elif inner in api.CALL_THROUGH_WRAPPERS:
                fresh = f"the new function returned by {inner}(`{label}`)"
        elif isinstance(target, ast.Attribute):
            owner = self._held_class(target.value, scope, cls, foreign=True)
            if owner is None and isinstance(target.value, ast.Name) and target.value.id not in ("self", "cls"):
                owner = self.index.local_instance(target.value.id, scope)
            if owner is not None and self.index.lookup_method(owner, target.attr) is None \
                    and target.attr in self._library_methods(owner):
                label = text_of(target)
                fresh = f"the bound method `{label}`"
            elif owner is not None and owner not in self.index.classes.values():
                method = owner.methods.get(target.attr)     # a class of another module: its own def
                if method is not None and method.method_kind == "instance" and not method.node.decorator_list:
                    label = text_of(target)
                    fresh = f"the bound method `{label}`"
        if not fresh or not label:
            return None
        entry = TracedEntry(wrapper=wrapper, site=site, is_jit=True, compiled=True, fresh=fresh, label=label,
                            scope=scope)
        self.unseen.append(entry)
        return entry

    def _library_methods(self, owner, depth=0) -> set:
        """The methods a class of this file inherits from library bases (api.LIBRARY_METHODS)."""
        found = set()
        for base in owner.bases:
            found |= api.LIBRARY_METHODS.get(base, set())
            other = self.index.top_classes.get(base)
            if other is not None and other is not owner and depth < 8:
                found |= self._library_methods(other, depth + 1)
        return found

    def _argnums(self, name, call) -> Optional[tuple]:
        """The argument positions `jax.grad(f, argnums=...)` differentiates; None if unreadable."""
        position = api.DIFF_WRAPPERS[name]
        node = None
        if len(call.args) > position:
            node = call.args[position]
        for kw in call.keywords:
            if kw.arg == "argnums":
                node = kw.value
            elif kw.arg is None:
                return None
        if node is None:
            return (0,)
        value = _literal(node, self.index)
        if isinstance(value, int) and not isinstance(value, bool):
            return (value,)
        if isinstance(value, (tuple, list)) and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            return tuple(value)
        return None

    def _entry_for_target(self, wrapper, site, target, scope, cls, keywords) -> Optional[TracedEntry]:
        found = self._unwrap(target, scope, cls, site)
        if found is None:
            return None
        func, lam, bound, fresh, self_class = found
        entry = self._add(wrapper, site, func=func, lam=lam, keywords=keywords, bound=bound)
        entry.fresh, entry.scope, entry.self_class = fresh, scope, self_class
        if entry.func is not None and entry.func.method_kind == "class" and entry.func.params \
                and entry.func.params[0] in bound:
            entry.self_class = entry.func.cls
        if scope is not None and not entry.is_jit:
            entry.host = scope
        return entry

    def _unwrap(self, target, scope, cls, site, depth=0) -> Optional[tuple]:
        """What a transform is applied to: (def, lambda, parameters bound before the call, how it
        is a new object each time, class of the object a bound method comes from). Sees through
        `functools.partial` and other transforms: in `jax.jit(jax.vmap(partial(f, k=3)))` the traced
        function is `f`, less `k`."""
        if depth > 8:
            return None
        if isinstance(target, ast.Call):
            inner = self.imports.resolve(target.func)
            if inner == "functools.partial" and target.args:
                if any(k.arg is None for k in target.keywords) or any(isinstance(a, ast.Starred) for a in target.args):
                    return None       # partial(f, **options): which parameters it binds is unknown
                found = self._unwrap(target.args[0], scope, cls, site, depth + 1)
                if found is None:
                    return None
                func, lam, bound, fresh, self_class = found
                node = func.node if func is not None else lam
                positional = [p for p in positional_params(node.args) if p not in bound]
                bound = bound | set(positional[: len(target.args) - 1]) | {k.arg for k in target.keywords if k.arg}
                name = func.name if func is not None else "<lambda>"
                return func, lam, bound, f"a new functools.partial of `{name}`", self_class
            if inner in api.CALL_THROUGH_WRAPPERS and target.args:
                # jax.jit(jax.grad(f)): f's parameters are traced too.
                self._wrapped_inner.add(id(target))
                found = self._unwrap(target.args[0], scope, cls, site, depth + 1)
                if found is None:
                    return None
                func, lam, bound, fresh, self_class = found
                name = func.name if func is not None else "<lambda>"
                return func, lam, bound, f"the new function returned by {inner}(`{name}`)", self_class
            return None
        if isinstance(target, ast.Lambda):
            return None, target, set(), "a lambda", None
        if isinstance(target, ast.Name):
            found = self._binding_of(target.id, scope, cls, getattr(site, "lineno", None))
            if isinstance(found, ast.expr):     # `f = partial(f, k=1)` before `jax.jit(f)`
                owner = self.index.class_named(found.func) if isinstance(found, ast.Call) else None
                call = self.index.lookup_method(owner, "__call__") if owner is not None else None
                if call is not None and call.method_kind == "instance" and call.params:
                    return call, None, {call.params[0]}, "", owner      # `jax.jit(model)`: its __call__
                inner = self._unwrap(found, scope, cls, found, depth + 1)
                # the object was built where it was assigned, not at this site
                return inner[:3] + ("",) + inner[4:] if inner is not None else None
            func = found
        else:
            func = self.resolve_function(target, scope, cls)
        if func is None:
            return None
        if func.parent is not None and isinstance(target, ast.Name):
            return func, None, set(), f"the nested function `{func.name}`", None
        bound, self_class = set(), None
        if isinstance(target, ast.Attribute) and func.params:
            via_class = isinstance(target.value, ast.Name) and (
                target.value.id == "cls" or self.index.class_named(target.value) is not None
                and not self._shadowed(target.value.id, scope))
            kind = func.method_kind
            if kind == "class" or kind == "instance" and not via_class:
                bound = {func.params[0]}
                self_class = func.cls if kind == "class" else self._receiver_class(target.value, scope, cls, func)
            if kind == "instance" and not via_class:
                # jit of a bound method: a new bound-method object at each evaluation, which jit
                # traces again even for the same object (JAX 0.10.2: 3 calls, 3 traces)
                return func, None, bound, f"the bound method `{ast.unparse(target)}`", self_class
        return func, None, bound, "", self_class

    def _shadowed(self, name, scope) -> bool:
        """Is `name` bound by a def around `scope` (so a module-level name does not apply)?"""
        s = scope
        while s is not None:
            if name in param_names(s.node.args) or name in self.index.bindings_of(s):
                return True
            s = s.parent
        return False

    def _receiver_class(self, node, scope, cls, func):
        if isinstance(node, ast.Name) and node.id == "self":
            return func.cls
        if isinstance(node, ast.Name):
            return self.index.local_instance(node.id, scope)
        return self._held_class(node, scope, cls)

    def _binding_of(self, name, scope: Optional[FuncInfo], cls, line):
        """What `name` holds where a transform at `line` reads it, as Python resolves it: the
        innermost def that binds it (a parameter: unknown), its latest binding before the site (a
        def, or an assigned expression to look through), the class body's method, or the module's
        binding (in module-level code, the latest before `line`: a notebook cell may redefine a
        function). None when the file does not show it."""
        s, at = scope, line
        while s is not None:
            if name in param_names(s.node.args):
                return None
            bindings = self.index.bindings_of(s).get(name)
            if bindings is not None:
                return self._latest(bindings, at)
            s, at = s.parent, None       # an enclosing def's name is read when the closure runs
        if cls is not None and name in cls.methods:
            return cls.methods[name]
        candidates = [info.node for info in self.index.top_defs.get(name, ())]
        candidates += [value for _, value in self.index.module_assignments.get(name, ())]
        if not candidates:
            return None
        if len(candidates) == 1 and candidates[0] is not None and not isinstance(candidates[0], ast.expr):
            return self.index.by_node.get(id(candidates[0]))
        return self._latest(candidates, line if scope is None and cls is None else None,
                            lines=[info.node.lineno for info in self.index.top_defs.get(name, ())]
                            + [at_line for at_line, _ in self.index.module_assignments.get(name, ())])

    def _latest(self, bindings, line, lines=None):
        """The binding in effect at `line` (the last one before it; the last of all without a
        line): a FuncInfo for a def, the value for an assignment, None for anything else."""
        if lines is None:
            lines = [getattr(b, "lineno", None) for b in bindings]
        if any(at is None for at in lines):
            return None
        order = sorted(range(len(bindings)), key=lambda i: lines[i])
        if line is not None:
            order = [i for i in order if lines[i] < line]
        if not order:
            return None
        chosen = bindings[order[-1]]
        if isinstance(chosen, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return self.index.by_node.get(id(chosen))
        return chosen if isinstance(chosen, ast.expr) else None

    def resolve_function(self, target, scope: Optional[FuncInfo], cls) -> Optional[FuncInfo]:
        """The def a name or attribute refers to (see `_binding_of` for names). `self.m`, `cls.m`,
        `Model.m` and `obj.m`, where `obj` holds an object of a class of this file, name methods."""
        if isinstance(target, ast.Name):
            found = self._binding_of(target.id, scope, cls, None)
            return found if isinstance(found, FuncInfo) else None
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
            base = target.value.id
            if base in ("self", "cls"):
                owner = scope.cls if scope is not None and scope.cls is not None else cls
                s = scope
                while owner is None and s is not None:
                    owner, s = s.cls, s.parent
                if owner is not None:
                    return self.index.lookup_method(owner, target.attr)
                return None
            owner = self.index.class_named(target.value) if not self._shadowed(base, scope) else None
            if owner is None:
                owner = self.index.local_instance(base, scope)
            if owner is not None:
                return self.index.lookup_method(owner, target.attr)
        if isinstance(target, ast.Attribute):
            owner = self._held_class(target.value, scope, cls)
            if owner is not None:
                return self.index.lookup_method(owner, target.attr)
        return None

    def _held_class(self, node, scope: Optional[FuncInfo], cls, foreign: bool = False):
        """The class of this file whose object `self.attr` holds (every assignment to it in the
        class's methods calls that one class: `self.model = Net(...)`), else None; with `foreign`,
        also a class of another module that callers pass in (ModuleIndex.attribute_class)."""
        if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"):
            return None
        owner = scope.cls if scope is not None and scope.cls is not None else cls
        s = scope
        while owner is None and s is not None:
            owner, s = s.cls, s.parent
        return self.index.attribute_class(owner, node.attr, foreign) if owner is not None else None

    # -- static arguments -----------------------------------------------------------------------
    def _add(self, wrapper, site, func=None, lam=None, keywords=(), bound=()) -> TracedEntry:
        entry = TracedEntry(wrapper=wrapper, site=site, func=func, lam=lam, bound=set(bound),
                            is_jit=wrapper in self.jit_wrappers,
                            compiled=wrapper in api.COMPILING_WRAPPERS or wrapper in self.extra_wrappers)
        self._read_spec(entry, keywords)
        self.entries.append(entry)
        return entry

    def _read_spec(self, entry: TracedEntry, keywords):
        if entry.wrapper in api.DONATING_WRAPPERS:
            self._read_donation(entry, keywords)
        entry.spec = self.static_spec(entry.wrapper, keywords)
        self._resolve_static(entry)

    def static_spec(self, wrapper: str, keywords) -> StaticSpec:
        """`static_argnums` / `static_argnames` as a jit site writes them (literals and module
        constants; anything else leaves the spec unresolved)."""
        nums_kw, names_kw = self.jit_wrappers.get(wrapper, (None, None))
        spec = StaticSpec()
        for kw in keywords:
            if kw.arg is None:
                spec.unresolved = True       # **options: cannot know
                continue
            if kw.arg not in (nums_kw, names_kw):
                continue
            value = _literal(kw.value, self.index)
            if value is _UNRESOLVED:
                spec.unresolved = True
                continue
            if kw.arg == nums_kw:
                values = (value,) if isinstance(value, int) else \
                    tuple(value) if isinstance(value, (tuple, list)) else None
                if values is None or not all(isinstance(v, int) and not isinstance(v, bool)
                                             and v.bit_length() <= 256 for v in values):  # printable
                    spec.unresolved = True
                    continue
                spec.argnums, spec.argnums_node = values, kw.value
            else:
                values = (value,) if isinstance(value, str) else \
                    tuple(value) if isinstance(value, (tuple, list)) else None
                if values is None or not all(isinstance(v, str) for v in values):
                    spec.unresolved = True
                    continue
                spec.argnames, spec.argnames_node = values, kw.value
        return spec

    def _read_donation(self, entry: TracedEntry, keywords):
        """The parameters `donate_argnums`/`donate_argnames` name (literals only; else none)."""
        positional = [p for p in positional_params(entry.args) if p not in entry.bound]
        names = set(param_names(entry.args))
        for kw in keywords:
            if kw.arg not in ("donate_argnums", "donate_argnames"):
                continue
            value = _literal(kw.value, self.index)
            values = (value,) if isinstance(value, (int, str)) else \
                tuple(value) if isinstance(value, (tuple, list)) else ()
            for v in values:
                if kw.arg == "donate_argnums" and type(v) is int and -len(positional) <= v < len(positional):
                    entry.donated.add(positional[v])
                elif kw.arg == "donate_argnames" and isinstance(v, str) and v in names:
                    entry.donated.add(v)

    def _resolve_static(self, entry: TracedEntry):
        args = entry.args
        positional = [p for p in positional_params(args) if p not in entry.bound]
        posonly = {a.arg for a in args.posonlyargs}
        all_params = set(param_names(args))
        spec = entry.spec
        for num in spec.argnums or ():
            if num < 0:
                entry.negative_argnums = True
                if -num <= len(positional):
                    entry.static.add(positional[num])
                continue
            if num < len(positional):
                entry.static.add(positional[num])
            elif args.vararg is not None:
                entry.static_in_varargs = True
            else:
                kwonly = [a.arg for a in args.kwonlyargs]
                extra = f" ({', '.join(kwonly)} {'is' if len(kwonly) == 1 else 'are'} keyword-only)" if kwonly else ""
                entry.spec_problems.append((
                    f"static_argnums={num} is out of range for `{entry.name}`",
                    f"static_argnums={num} but `{entry.name}` accepts only {len(positional)} "
                    f"positional argument{'s' if len(positional) != 1 else ''}{extra}: "
                    f"jax.jit raises ValueError when it is applied. Fix: count the positional "
                    f"parameters from 0, or name the parameter in static_argnames", True))
        for name in spec.argnames or ():
            if name in posonly:
                entry.spec_problems.append((
                    f"static_argnames names `{name}`, a positional-only parameter of `{entry.name}`",
                    "jax.jit raises ValueError when it is applied. Fix: name it in static_argnums",
                    True))
            elif name in all_params:
                entry.static.add(name)
            elif args.kwarg is not None:
                entry.static_kwargs.add(name)
            else:
                entry.spec_problems.append((
                    f"static_argnames names `{name}`, not a parameter of `{entry.name}`",
                    f"The parameters of `{entry.name}` are "
                    f"{', '.join(sorted(all_params - entry.bound)) or 'none'}: "
                    f"jax.jit raises ValueError when it is applied. Fix: name one of them", True))
        if entry.negative_argnums:
            entry.spec_problems.append((
                f"negative static_argnums on `{entry.name}` depend on each call's spelling",
                f"Negative static_argnums on `{entry.name}` are resolved against the positional "
                f"arguments of each call: passing an argument by keyword shifts which parameter is "
                f"static. Fix: name it with static_argnames instead", False))

    def _read_in_specs(self, entry: TracedEntry, keywords, args):
        """shard_map passes an argument whose in_specs entry is None as it is, untraced."""
        positional = [p for p in positional_params(entry.args) if p not in entry.bound]
        for i in shard_map_passthrough(keywords, args, len(positional)):
            entry.unbatched.add(positional[i])

    def _read_in_axes(self, entry: TracedEntry, call: Optional[ast.Call], keywords=()):
        in_axes = None
        for kw in list(keywords) + (call.keywords if call is not None else []):
            if kw.arg == "in_axes":
                in_axes = kw.value
        if in_axes is None and call is not None and len(call.args) > 1:
            in_axes = call.args[1]
        if in_axes is None:
            return
        positional = [p for p in positional_params(entry.args) if p not in entry.bound]
        for i in unbatched_positions(in_axes, len(positional), self.index.constants):
            entry.unbatched.add(positional[i])


def traced_params(entry: TracedEntry, passed: Optional[set]) -> set:
    """Parameters that receive tracers: not static, not bound, and for parameters with a default
    only those some call in the module passes (`passed`; None means no call was seen)."""
    if entry.spec.unresolved:
        return set()
    params = [p for p in param_names(entry.args) if p not in entry.bound and p not in entry.static]
    defaults = params_with_defaults(entry.args)
    result = set()
    for p in params:
        if p in entry.unbatched and not entry.is_jit:
            continue
        if p in defaults and (passed is None or p not in passed):
            continue
        result.add(p)
    return result


def shard_map_passthrough(keywords, args, nargs: int) -> set:
    """Argument positions shard_map passes through untouched: an in_specs entry of None (JAX
    0.10.2 hands the Python value to the body). A spec it cannot read (a variable) counts as
    None: the argument keeps whatever it was. `PartitionSpec(...)` (or a nested tuple) traces."""
    in_specs = next((kw.value for kw in keywords or () if kw.arg == "in_specs"), None)
    if in_specs is None and len(args) > 2:
        in_specs = args[2]       # jax.experimental.shard_map.shard_map(f, mesh, in_specs, out_specs)
    if isinstance(in_specs, ast.Call):
        return set()
    if isinstance(in_specs, (ast.Tuple, ast.List)):
        return {i for i, e in enumerate(in_specs.elts)
                if i < nargs and not isinstance(e, (ast.Call, ast.Tuple, ast.List))}
    return set(range(nargs))


def unbatched_positions(in_axes, nargs: int, constants: dict) -> set:
    """Argument positions vmap passes through untouched (in_axes None). When in_axes cannot be
    read (a variable, a call), every position counts as untouched: values keep what they were."""
    if isinstance(in_axes, ast.Name) and in_axes.id in constants:
        value = constants[in_axes.id]
        if value is None:
            return set(range(nargs))
        if isinstance(value, int):
            return set()
        if isinstance(value, (tuple, list)):
            return {i for i, v in enumerate(value) if v is None and i < nargs}
        return set(range(nargs))
    if isinstance(in_axes, ast.Constant):
        return set(range(nargs)) if in_axes.value is None else set()
    if isinstance(in_axes, (ast.Tuple, ast.List)):
        return {i for i, e in enumerate(in_axes.elts) if i < nargs and (   # in_axes may be longer: (0, *axes)
                isinstance(e, ast.Constant) and e.value is None or not isinstance(e, ast.Constant)
                and not isinstance(e, (ast.UnaryOp, ast.Tuple, ast.List, ast.Dict)))}
    return set(range(nargs))
