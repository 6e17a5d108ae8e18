"""Whether code runs many times, as the file shows it, and what changes from one run to the next.

Code runs repeatedly when a loop or comprehension around it runs it again, or when the function
that holds it is called in such a loop, directly or through callers that are: each such loop,
with the chain of calls from it, is a *witness*. A name is not evidence: a `train_step` that no
loop calls, a factory or a setup method that runs once, have no witness.

Calls are resolved as Python resolves names: a nested def is called only from inside the function
that defines it, and a parameter or local variable of the same name hides it; `C(...)` runs
`C.__init__`; `obj(...)` runs `C.__call__` when `obj` was bound to `C(...)`; `obj.m(...)` may run
any method `m` of the file unless `obj` is an imported module or an object of another known kind.
Calls made while a jitted (or scanned, vmapped) function traces are not witnesses: they run once
per compile of the outer function, and a jit there is inlined into it.

Each witness also records which names take a new value in each repetition: the loop's variables
and what is computed from them, followed into the parameters of each function called on the way
(and into `self` when the receiver changes). JAX301 reads them to tell the same program compiled
again from a different program each time.
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass
from typing import Optional

from jaxlint.analysis import api_tables as api
from jaxlint.analysis.calls import _is_small_literal_collection, _walk_scope
from jaxlint.analysis.module import positional_params
from jaxlint.analysis.syntax import COMPREHENSIONS, LineFilter, free_names, pruned_walk, target_names, walk
from jaxlint.analysis.semantic import SemanticModel

# How a name varies between repetitions. LITERAL: it comes from a loop over a literal collection of
# Python values (`for flag in (False, True)`), a sweep over configurations.
LOOP = 1
LITERAL = 2

MODULE = 0          # the scope key of module-level names

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_MUTATORS = {"append", "extend", "insert", "update", "add", "setdefault", "__setitem__"}
_MODULE_BASES = {"flax.linen.Module", "nnx.Module", "eqx.Module", "flax.linen.module.Module"}
_MEMO_DECORATORS = ("cache", "memo")
_DISPLAYS = (ast.Dict, ast.List, ast.Set, ast.Tuple, ast.Constant, ast.JoinedStr, ast.ListComp, ast.DictComp,
             ast.SetComp)


@dataclass(eq=False)
class Witness:
    """A loop that runs some code many times, through `calls` (outermost first)."""

    loop: ast.AST
    calls: tuple        # ((call node, callee qualname), ...): the call in the loop first
    varying: dict       # scope key -> {name: LOOP | LITERAL}: names that change between repetitions
    where: str = ""     # the file of the loop and the calls, when another module's (else this one)

    @property
    def reason(self) -> str:
        at = f"{self.where}:" if self.where else "line "
        if not self.calls:
            return f"inside the loop at {at}{self.loop.lineno}"
        call, callee = self.calls[-1]
        if len(self.calls) == 1:
            return f"`{callee}` is called in the loop at {at}{self.loop.lineno} ({at}{call.lineno})"
        return (f"`{callee}` is called from `{self.calls[-2][1]}` ({at}{call.lineno}), which runs in "
                f"the loop at {at}{self.loop.lineno}")


def scope_key(scope) -> int:
    """The key of a FuncInfo's names (MODULE for module-level names)."""
    return MODULE if scope is None else id(scope.node)


class Repetition:
    """Witnesses of repetition for the defs of one module, computed per def on first use."""

    MAX_DEPTH = 6           # caller chains longer than this are not followed
    MAX_WITNESSES = 12      # per def: enough to find one that repeats the same program

    def __init__(self, tree: ast.Module, parents, index, lines=None, traced_nodes=frozenset(), model=None):
        self.tree = tree
        self.parents = parents
        self.index = index
        self.imports = index.imports
        self.lines = lines
        self.module_methods = module_methods_under_trace(index)
        self.traced_nodes = set(traced_nodes) | self.module_methods
        self._witnesses: dict = {}          # id(def node) -> [Witness]
        self._busy: set = set()
        self._bindings: dict = {}           # scope key -> [(names, names read, binds)]
        self._locals: dict = {}             # scope key -> set of names bound there
        self.model = model if model is not None else SemanticModel(tree, parents, lines=lines)
        self._propagated: dict = {}
        self.traced_callers: dict = {}      # id(def node) -> the traced function that calls it
        self._diff_calls = None             # name -> calls `jax.grad(name)(...)` (_calls_through_diff)

    # -- public questions ------------------------------------------------------------------------
    def function_of(self, node):
        """The FuncInfo of the def that runs `node` (through lambdas), None at module level."""
        for anc in self.parents.chain(node):
            if isinstance(anc, _FUNCTIONS):
                return self.index.by_node.get(id(anc))
        return None

    def traced_host(self, node) -> Optional[str]:
        """Which function around `node` runs only while JAX traces it (described), or None."""
        for anc in self.parents.chain(node):
            if isinstance(anc, _SCOPES) and id(anc) in self.traced_nodes:
                info = self.index.by_node.get(id(anc))
                name = f"`{info.qualname}`" if info is not None else "a lambda"
                if id(anc) in self.module_methods:
                    return (f"{name}, a module method reached from `__call__`, which runs while the "
                            f"jitted step that applies the model traces")
                return f"{name}, which JAX traces"
        return None

    def contexts(self, node, within=None) -> list:
        """Witnesses that run `node`: the loops around it in its own function (innermost first),
        then the witnesses of that function. `within`: only loops that also hold that node."""
        scope = self.function_of(node)
        found = []
        inner_loops = set(id(loop) for loop in self._loops_around(within)) if within is not None else None
        for loop in reversed(self._loops_around(node)):
            if inner_loops is not None and id(loop) not in inner_loops:
                continue
            found.append(Witness(loop, (), {scope_key(scope): self._loop_varying(loop, scope)}))
        if scope is not None:
            found.extend(self.witnesses(scope))
        return found

    def reason(self, node) -> Optional[str]:
        found = self.contexts(node)
        return found[0].reason if found else None

    def witnesses(self, info) -> list:
        """Witnesses that the def `info` runs many times (empty for memoised defs)."""
        key = id(info.node)
        if key in self._witnesses:
            return self._witnesses[key]
        if key in self._busy or len(self._busy) >= self.MAX_DEPTH or is_memoised(info.node):
            return []
        self._busy.add(key)
        try:
            found = []
            for call, caller, receiver in self._calls_of(info):
                for ctx in self._caller_contexts(call, caller):
                    seeds = self._callee_seeds(call, info, receiver, ctx.varying.get(scope_key(caller), {}))
                    seeds.update(self._captured(info, ctx.varying))
                    varying = dict(ctx.varying)
                    varying[scope_key(info)] = self._propagate(info, seeds)
                    found.append(Witness(ctx.loop, ctx.calls + ((call, info.qualname),), varying))
                    if len(found) >= self.MAX_WITNESSES:
                        break
                if len(found) >= self.MAX_WITNESSES:
                    break
        finally:
            self._busy.discard(key)
        self._witnesses[key] = found
        return found

    def external_witnesses(self, info, calls) -> list:
        """Witnesses that the module-level def or method `info` runs many times, from its calls in other
        modules (crossmodule.ImporterCall): the loops and callers there, and which of its
        parameters receive a changing value (none for a memoised def, as for calls in this module)."""
        found = []
        if is_memoised(info.node):
            return found
        for item in calls:
            there = item.repetition
            for ctx in there._caller_contexts(item.call, item.caller):
                seeds = there._callee_seeds(item.call, info, item.receiver,
                                            ctx.varying.get(scope_key(item.caller), {}))
                varying = dict(ctx.varying)
                varying[scope_key(info)] = self._propagate(info, seeds)
                found.append(Witness(ctx.loop, ctx.calls + ((item.call, info.qualname),), varying,
                                     os.path.basename(item.path)))
                if len(found) >= self.MAX_WITNESSES:
                    return found
        return found

    def _captured(self, info, varying: dict) -> dict:
        """Changing names of the functions around a nested def that it sees (not its own locals)."""
        found = {}
        hidden = set(self.local_names(info))
        outer = info.parent
        while outer is not None:
            for name, kind in varying.get(scope_key(outer), {}).items():
                if name not in hidden and name not in found:
                    found[name] = kind
            hidden |= self.local_names(outer)
            outer = outer.parent
        return found

    # -- loops -----------------------------------------------------------------------------------
    def _loops_around(self, node) -> list:
        """Loops and comprehensions around `node` up to its def (through lambdas), outermost first."""
        loops = []
        current = node
        while True:
            loops[:0] = self.parents.loops_of(current)
            scope = self.parents.scope_of(current)
            if not isinstance(scope, ast.Lambda):
                return loops
            current = scope

    def _caller_contexts(self, call, caller) -> list:
        found = [Witness(loop, (), {scope_key(caller): self._loop_varying(loop, caller)})
                 for loop in reversed(self._loops_around(call))]
        if caller is not None:
            found.extend(self.witnesses(caller))
        return found

    def _loop_varying(self, loop, scope) -> dict:
        """Names of `scope` that change from one iteration of `loop` to the next."""
        seeds = {}
        if isinstance(loop, (ast.For, ast.AsyncFor)):
            kind = LITERAL if self._literal_iterable(loop.iter, scope, loop) else LOOP
            for name in target_names(loop.target):
                seeds[name] = kind
        elif isinstance(loop, COMPREHENSIONS):
            for gen in loop.generators:
                kind = LITERAL if self._literal_iterable(gen.iter, scope, loop) else LOOP
                for name in target_names(gen.target):
                    seeds[name] = kind
        return self._propagate(scope, seeds)

    def _literal_iterable(self, node, scope, at) -> bool:
        model = self.model
        where = model.scope(scope.node if scope is not None else None)

        def resolve(name, use):
            return model.values(name, model.statement_of(use), where)
        return _is_small_literal_collection(node, resolve, at)

    # -- names: what each binding reads, followed to a fixpoint ----------------------------------
    def bindings(self, scope) -> list:
        """(names, names read, binds) for each binding statement of a scope, not of nested defs;
        `binds` is False for a store into `x.a` / `x[k]`, which changes `x` without binding it."""
        key = scope_key(scope)
        if key not in self._bindings:
            self._bindings[key] = _scope_bindings(self.tree.body if scope is None else scope.node.body)
        return self._bindings[key]

    def local_names(self, scope) -> set:
        key = scope_key(scope)
        if key not in self._locals:
            names = {n for targets, _, binds in self.bindings(scope) if binds for n in targets}
            if scope is not None:
                names |= set(scope.params)
            else:
                names |= self.index.module_names
            self._locals[key] = names
        return self._locals[key]

    def _propagate(self, scope, seeds: dict) -> dict:
        if not seeds:
            return {}
        cache_key = (scope_key(scope), frozenset(seeds.items()))
        if cache_key in self._propagated:
            return self._propagated[cache_key]
        varying = dict(seeds)
        bindings = self.bindings(scope)
        changed = True
        while changed:
            changed = False
            for targets, reads, _ in bindings:
                kinds = [varying[r] for r in reads if r in varying]
                if not kinds:
                    continue
                kind = max(kinds)
                for target in targets:
                    if varying.get(target, 0) < kind:
                        varying[target] = kind
                        changed = True
        self._propagated[cache_key] = varying
        return varying

    # -- calls -------------------------------------------------------------------------------------
    def _calls_of(self, info) -> list:
        """(call node, calling FuncInfo or None, receiver expr or None) for each call of `info`."""
        found = []
        if info.cls is not None and info.parent is None and info.name == "__init__":
            for call in self._find_calls(self.tree, {info.cls.name}):
                if isinstance(call.func, ast.Name) and self._resolves_to_class(call, info.cls):
                    found.append((call, None))
        elif info.cls is not None and info.parent is None and info.name == "__call__":
            found = [(call, None) for call in self._object_calls(info.cls)]
        elif info.cls is not None and info.parent is None:
            for call in self._find_calls(self.tree, {info.name}):
                if isinstance(call.func, ast.Attribute) and call.func.attr == info.name \
                        and self._may_call_method(call, info):
                    found.append((call, call.func.value))
        else:
            root = info.parent.node if info.parent is not None else self.tree
            for call in self._find_calls(root, {info.name}):
                if isinstance(call.func, ast.Name) and self._resolve_name(call.func.id, call) is info:
                    found.append((call, None))
            found.extend((call, None) for call in self._differentiated_calls(root, info))
        result = []
        for call, receiver in found:
            if self._inside(call, info.node):
                continue        # recursion: whether it repeats depends on the callers outside
            host = self.traced_host(call)
            if host is not None:
                self.traced_callers.setdefault(id(info.node), host)
                continue        # runs once per compile of the outer function, inlined there
            caller = self.function_of(call)
            if info.name == "__call__" and receiver is None and isinstance(call.func, (ast.Name, ast.Attribute)):
                receiver = call.func
            result.append((call, caller, receiver))
        return result

    def _differentiated_calls(self, root, info) -> list:
        """`jax.grad(f)(w, x)`: calls that run `f` again at every evaluation, its arguments
        passed as to `f` itself (grad & co. cache no trace)."""
        return [call for call in self._calls_through_diff().get(info.name, ())
                if (root is self.tree or self._inside(call, root)) and self._resolve_name(info.name, call) is info]

    def _calls_through_diff(self) -> dict:
        """name -> the calls `T(name)(...)` of the module, T one of grad & co.: one walk over the
        lines that name such a transform, for every def asked."""
        if self._diff_calls is None:
            words = {name.rsplit(".", 1)[-1] for name in api.DIFF_WRAPPERS}
            words |= {local for local, target in self.imports.aliases.items() if target in api.DIFF_WRAPPERS}
            found: dict = {}
            for node in pruned_walk(self.tree, LineFilter(self.lines, words)):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Call):
                    inner = node.func
                    if inner.args and isinstance(inner.args[0], ast.Name) \
                            and self.imports.resolve(inner.func) in api.DIFF_WRAPPERS:
                        found.setdefault(inner.args[0].id, []).append(node)
            self._diff_calls = found
        return self._diff_calls

    def _inside(self, node, outer) -> bool:
        return any(anc is outer for anc in self.parents.chain(node))

    def _find_calls(self, root, words) -> list:
        calls = []
        for node in pruned_walk(root, LineFilter(self.lines, words)):
            if isinstance(node, ast.Call):
                func = node.func
                name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
                if name in words:
                    calls.append(node)
        calls.sort(key=lambda c: (c.lineno, c.col_offset))
        return calls

    def _scope_chain(self, node):
        """The scopes whose names `node` sees, innermost first: defs and lambdas, then None."""
        for anc in self.parents.chain(node):
            if isinstance(anc, _SCOPES):
                yield anc
        yield None

    def _resolve_name(self, name: str, at):
        """The FuncInfo a plain name used at `at` refers to, as Python resolves it, or None."""
        for scope in self._scope_chain(at):
            if scope is None:
                return self.index.top_functions.get(name)
            if isinstance(scope, ast.Lambda):
                if name in {a.arg for a in scope.args.posonlyargs + scope.args.args + scope.args.kwonlyargs}:
                    return None
                continue
            info = self.index.by_node.get(id(scope))
            if info is None:
                return None
            if name in self.local_names(info):
                nested = info.nested.get(name)
                if nested is not None and sum(name in t for t, _, binds in self.bindings(info) if binds) == 1 \
                        and name not in info.params:
                    return nested
                return None
        return None

    def _resolves_to_class(self, call, cls) -> bool:
        """Does the name called at `call` refer to the class `cls` (not a local of that name)?"""
        name = call.func.id
        for scope in self._scope_chain(call):
            if scope is None:
                return name in self.index.module_names and self.index.classes.get(name) is cls
            if isinstance(scope, ast.Lambda):
                continue
            info = self.index.by_node.get(id(scope))
            if info is None:
                return False
            if name in self.local_names(info):
                return self.index.classes.get(name) is cls and any(
                    stmt is cls.node for stmt in _walk_scope(info.node.body))
        return False

    def _may_call_method(self, call, info) -> bool:
        """Could `x.m(...)` run the method `info`? Not when `x` is an imported module or is bound
        to a call of an imported function or of another class of this file."""
        receiver = call.func.value
        if isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name) and receiver.func.id == "super":
            return True
        if self.imports.resolve(receiver) is not None:
            return False
        if isinstance(receiver, ast.Name) and receiver.id in ("self", "cls"):
            caller = self.function_of(call)
            owner = caller.cls if caller is not None else None
            if owner is not None and owner is not info.cls and info.name in owner.methods:
                return False        # the caller's own class defines the method it calls
            return True
        if isinstance(receiver, ast.Name):
            caller = self.function_of(call)
            bound = self.model.value(receiver.id, self.model.statement_of(call),
                                     self.model.scope(caller.node if caller is not None else None))
            if isinstance(bound, _DISPLAYS):
                return False        # a dict, list or string: its own methods
            if isinstance(bound, ast.Call):
                if self.imports.resolve(bound.func) is not None:
                    return False
                if isinstance(bound.func, ast.Name) and bound.func.id in self.index.classes:
                    other = self.index.classes[bound.func.id]
                    return other is info.cls or info.name not in other.methods
        return True

    def _object_calls(self, cls) -> list:
        """Calls of objects bound to `C(...)`: `m = C(...); m(x)`, `self.m = C(...); self.m(x)`."""
        local, attrs = [], set()
        for call in self._find_calls(self.tree, {cls.name}):
            if not (isinstance(call.func, ast.Name) and self._resolves_to_class(call, cls)):
                continue
            parent = self.parents.parent_of(call)
            if isinstance(parent, ast.Call) and parent.func is call:
                local.append(parent)                # C(...)(x)
            elif isinstance(parent, ast.Assign):
                for target in parent.targets:
                    if isinstance(target, ast.Name):
                        scope = self.function_of(call)
                        root = scope.node if scope is not None else self.tree
                        for use in self._find_calls(root, {target.id}):
                            if isinstance(use.func, ast.Name) and use.func.id == target.id \
                                    and self.function_of(use) is scope:
                                local.append(use)
                    elif isinstance(target, ast.Attribute):
                        attrs.add(target.attr)
        if attrs:
            for use in self._find_calls(self.tree, attrs):
                if isinstance(use.func, ast.Attribute) and use.func.attr in attrs:
                    local.append(use)
        return sorted(set(local), key=lambda c: (c.lineno, c.col_offset))

    def _callee_seeds(self, call, info, receiver, caller_varying: dict) -> dict:
        """Parameters of `info` that receive a changing value at `call`."""
        seeds = {}
        if not caller_varying:
            return seeds

        def kind_of(expr):
            kinds = [caller_varying[n.id] for n in walk(expr) if isinstance(n, ast.Name) and n.id in caller_varying]
            return max(kinds) if kinds else 0
        params = positional_params(info.node.args)
        is_method = info.cls is not None and info.parent is None and info.is_method
        self_name = params[0] if is_method and params else None
        positional = params[1:] if is_method else params
        everything = [p for p in info.params if p != self_name]
        for i, arg in enumerate(call.args):
            kind = kind_of(arg)
            if not kind:
                continue
            if isinstance(arg, ast.Starred) or i >= len(positional):
                for p in everything:
                    seeds[p] = max(seeds.get(p, 0), kind)
            else:
                seeds[positional[i]] = max(seeds.get(positional[i], 0), kind)
        for kw in call.keywords:
            kind = kind_of(kw.value)
            if not kind:
                continue
            targets = [kw.arg] if kw.arg in info.params else everything
            for p in targets:
                seeds[p] = max(seeds.get(p, 0), kind)
        if self_name is not None:
            if info.name == "__init__":
                kind = max(seeds.values(), default=0)      # a new object, configured by its arguments
            else:
                kind = kind_of(receiver) if receiver is not None else 0
            if kind:
                seeds[self_name] = kind
        return seeds


def module_methods_under_trace(index) -> set:
    """ids of the methods of Flax / NNX / Equinox modules reached from `__call__` (or `setup`):
    they run while the jitted step that applies the model traces, so a jit inside is inlined."""
    module_classes = set()
    changed = True
    while changed:
        changed = False
        for cls in index.classes.values():
            if cls.name not in module_classes and any(
                    b in _MODULE_BASES or (b in index.classes and b in module_classes) for b in cls.bases):
                module_classes.add(cls.name)
                changed = True
    found = set()
    for name in module_classes:
        cls = index.classes[name]
        todo = [m for m in ("__call__", "setup") if m in cls.methods]
        todo += [m for m, info in cls.methods.items()
                 if any(_decorator_name(d) == "compact" for d in info.node.decorator_list)]
        seen = set()
        while todo:
            method = todo.pop()
            if method in seen or method not in cls.methods:
                continue
            seen.add(method)
            node = cls.methods[method].node
            found.add(id(node))
            for sub in walk(node):
                if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) \
                        and isinstance(sub.func.value, ast.Name) and sub.func.value.id == "self":
                    todo.append(sub.func.attr)
    return found


def is_memoised(node) -> bool:
    """A def under `functools.cache` / `lru_cache` (or a memoising decorator): one run per key."""
    for dec in getattr(node, "decorator_list", ()):
        name = _decorator_name(dec).lower()
        if any(word in name for word in _MEMO_DECORATORS):
            return True
    return False


def _decorator_name(dec) -> str:
    target = dec.func if isinstance(dec, ast.Call) else dec
    return target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")




def _names(expr) -> frozenset:
    return frozenset(n.id for n in walk(expr) if isinstance(n, ast.Name))


def _root_name(target):
    while isinstance(target, (ast.Attribute, ast.Subscript, ast.Starred)):
        target = target.value
    return target.id if isinstance(target, ast.Name) else None


def _scope_bindings(body) -> list:
    """(names, names read, binds) for the binding statements of one scope: assignments (a store
    into `x.a` or `x[k]` changes `x` without binding it), loops (the target reads the iterable),
    `with ... as`, nested defs (the name reads what the def captures), imports, and
    `x.append(v)`-style mutations."""
    found = []

    def add(target, reads):
        if isinstance(target, (ast.Attribute, ast.Subscript)):
            root = _root_name(target)
            if root:
                found.append(((root,), reads | _index_names(target), False))
        else:
            found.append((tuple(target_names(target)), reads, True))
    for stmt in _walk_scope(body):
        if isinstance(stmt, ast.Assign):
            reads = _names(stmt.value)
            for target in stmt.targets:
                add(target, reads)
        elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)):
            reads = _names(stmt.value) if stmt.value is not None else frozenset()
            if isinstance(stmt, ast.AugAssign):
                reads |= _names(stmt.target)
            add(stmt.target, reads)
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            add(stmt.target, _names(stmt.iter))
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                if item.optional_vars is not None:
                    add(item.optional_vars, _names(item.context_expr))
        elif isinstance(stmt, _FUNCTIONS):
            found.append(((stmt.name,), free_names(stmt), True))
        elif isinstance(stmt, ast.ClassDef):
            found.append(((stmt.name,), frozenset(), True))
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            found.append((tuple((a.asname or a.name).split(".")[0] for a in stmt.names), frozenset(), True))
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) \
                and isinstance(stmt.value.func, ast.Attribute) and stmt.value.func.attr in _MUTATORS:
            root = _root_name(stmt.value.func.value)
            if root:
                reads = frozenset().union(*(_names(a) for a in stmt.value.args),
                                          *(_names(k.value) for k in stmt.value.keywords))
                found.append(((root,), reads, False))
        elif isinstance(stmt, ast.Try):
            for handler in stmt.handlers:
                if handler.name:
                    found.append(((handler.name,), frozenset(), True))
    return found


def _index_names(target) -> frozenset:
    """Names in the subscripts of a store target: `d[key] = v` binds d from key as well."""
    found = frozenset()
    while isinstance(target, (ast.Attribute, ast.Subscript)):
        if isinstance(target, ast.Subscript):
            found |= _names(target.slice)
        target = target.value
    return found
