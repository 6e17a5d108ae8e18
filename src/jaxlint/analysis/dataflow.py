"""Dataflow of traced values through a traced function and the helpers it calls.

An abstract interpreter over the function's `ast`: statements run in order, branches are merged
(traced on any path wins), loop bodies run twice so loop-carried values settle. Every time a
traced value reaches a place where Python needs a concrete value, it records a `Sink`; the rules
turn sinks into findings. Helpers defined in the file are analysed with the taint of their
arguments (memoised per taint signature), so a finding lands on the helper's line and names the
call chain. Budgets bound the work on adversarial input.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from dataclasses import dataclass, field
from typing import Optional

from jaxlint.analysis import api_tables as api
from jaxlint.analysis import values as vals
from jaxlint.analysis.module import (FuncInfo, ModuleIndex, defaults as arg_defaults, evaluate_literal, param_names,
                                     positional_params)
from jaxlint.analysis.syntax import LineFilter, free_names, target_names, walk
from jaxlint.analysis.shown import Ctx
from jaxlint.analysis.semantic import BindingKind
from jaxlint.analysis.traced import shard_map_passthrough, unbatched_positions
from jaxlint.analysis.values import (ARRAY, CONTAINER, FUNC, MAYBE, STATIC, STATIC_V, TRACED,
                                     UNKNOWN, UNKNOWN_V, WRAPPED, V)

_TREE_CONTAINER_RESULTS = {"tree_map", "map", "tree_leaves", "leaves", "tree_unflatten", "unflatten"}
MAX_DEPTH = 8
MAX_FUNCTION_RUNS = 4000
MAX_STEPS = 400_000

_NUMERIC_FORMAT = re.compile(r"[bcdeEfFgGnoxX%]$")
_PERCENT_NUMERIC = re.compile(r"%[-+ #0]*\d*(?:\.\d+)?[diouxXeEfFgGc]")
_ARRAY_ANNOTATIONS = re.compile(
    r"^(?:jax\.)?(?:Array|ArrayLike|jnp\.ndarray|jax\.numpy\.ndarray|int|float|bool|complex|"
    r"(?:jaxtyping\.)?(?:Float|Int|Bool|Shaped|Num|Real|Inexact|Integer|UInt|Complex|Key)\[.*|"
    r"(?:jt|jaxtyping)\.Array|chex\.(?:Array|Numeric|Scalar))$")


@dataclass(frozen=True)
class Frame:
    """Where a sink was found: the function, the traced entry it was reached from, the chain."""

    function: str
    entry: str
    entry_kind: str                 # "jit" | "transform" | "vmap" ...
    chain: tuple = ()               # ((callee, call line, transform[, file]), ...) from the entry to
                                    # `function`; a hop with a file was made in another module
    muted: bool = False             # code that checks for tracers itself: written to run both ways
    origin: str = ""                # the file of the entry, when another module's trace led here
    arrays: frozenset = frozenset()  # the entry's parameters every call passes an array: jit
                                    # refuses them as static arguments (unhashable)


@dataclass
class Sink:
    kind: str          # bool | convert | shape | slice | datadep | typetest | print | loop | static-arg
    node: ast.AST
    value: V
    frame: Frame
    detail: dict = field(default_factory=dict)


class Budget(Exception):
    """Raised when a file exhausts the analysis budget; what was found so far is kept."""


class Env:
    """Variable bindings of one function run, with the enclosing function's for closures."""

    __slots__ = ("vars", "parent")

    def __init__(self, parent: Optional["Env"] = None, bindings: Optional[dict] = None):
        self.vars = dict(bindings or {})
        self.parent = parent

    def lookup(self, name: str) -> Optional[V]:
        env = self
        while env is not None:
            if name in env.vars:
                return env.vars[name]
            env = env.parent
        return None

    def is_local(self, name: str) -> bool:
        env = self
        while env is not None:
            if name in env.vars:
                return True
            env = env.parent
        return False

    def overlay(self) -> "Env":
        """A scope for one branch or loop body: it holds only what it binds and reads the rest
        through this env, so joining it back costs what it bound, not every local (copying all
        of them per branch made a function of 5,000 locals and `if`s take 13 s)."""
        return Env(self)

    def absorb(self, *branches: "Env"):
        """Join overlays back: a name any branch bound becomes the join over the branches, a
        branch that did not bind it contributing the value from before (if there was one)."""
        for name in set().union(*(branch.vars for branch in branches)):
            before = self.vars.get(name)
            value = None
            for branch in branches:
                value = vals.join(value, branch.vars.get(name, before)) if value is not None \
                    else branch.vars.get(name, before)
            self.vars[name] = value


# `global n` / `nonlocal n` as statements (a `;` before one is too odd to matter): prose saying
# "global" does not count
_OUTER_DECLARATION = re.compile(r"\s*(?:global|nonlocal)\s+[A-Za-z_]")


class ModuleFlow:
    """Shared state of the dataflow over one module: sinks, memo, budgets."""

    def __init__(self, index: ModuleIndex, finder, jitted_by_name: dict, jitted_by_attr: dict,
                 is_plain_class, lines=None):
        self.index = index
        self.lines = lines
        self._inspects: dict = {}
        self.imports = index.imports
        self.finder = finder
        self.jitted_by_name = jitted_by_name
        self.jitted_by_attr = jitted_by_attr
        self.is_plain_class = is_plain_class     # ClassInfo -> bool: neither a pytree nor registered
        self.sinks: list = []
        self._jitted_defs = None
        self._sink_keys: set = set()
        self.memo: dict = {}
        self.in_progress: set = set()
        self.runs = 0
        self.steps = 0
        self.make_shown = None       # set by the Analysis: builds the file's `Shown` when first needed
        self.handled = None          # set by the Analysis: is a failure at this node caught where it runs?
        self.external = None         # a crossmodule.ProjectView: calls into other modules of the project
        self.outer_state_calls: dict = {}   # id(callee expression) -> does it store into module state?
        self._shown = None
        self._attribute_reads = None  # attr -> [read on self/cls, read on another object]
        self._declares_outer = None
        self._outside: dict = {}      # id -> an OBJECT value made before the trace (a bound `self`)

    def made_outside(self, value: V) -> V:
        """Mark an object value as one the trace did not create (a jitted bound method's `self`):
        what a traced function stores into it outlives the trace. Returns the value."""
        self._outside[id(value)] = value        # held, so that the id stays its own
        return value

    def module_object(self, cls) -> V:
        """A module-level object (`LOGGER = MetricLogger()`): made when the module was imported,
        before any trace, so what a traced method stores into it outlives the trace (unless its
        class is a pytree, traced itself, or a frozen dataclass, which refuses the store)."""
        value = V(vals.OBJECT, cls=cls)
        if self.is_plain_class(cls) and not (cls.dataclass or {}).get("frozen"):
            self.made_outside(value)
        return value

    def is_outside(self, value: Optional[V]) -> bool:
        return value is not None and self._outside.get(id(value)) is value

    def read_on_objects_only(self, attr: str) -> bool:
        """Is `.attr` read in the module, and only on objects other than `self` (`box.cache`)?
        Then a value a traced method stores into `self.attr` is read after the trace, not back
        in it."""
        found = self._attribute_reads
        if found is None:
            found = self._attribute_reads = {}
            for node in ast.walk(self.index.tree):
                if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
                    on_self = isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")
                    seen = found.setdefault(node.attr, [False, False])
                    seen[0 if on_self else 1] = True
        on_self, elsewhere = found.get(attr, (False, False))
        return elsewhere and not on_self

    def declares_outer_names(self) -> bool:
        """Does the module say `global` or `nonlocal` anywhere? (Most do not: then no function
        needs its scope built to learn which names its stores rebind outside.)"""
        if self._declares_outer is None:
            lines = self.lines
            self._declares_outer = lines is None or any(
                _OUTER_DECLARATION.match(lines[i - 1]) for i in LineFilter(lines, ("global", "nonlocal")).hits or ())
        return self._declares_outer

    def shown(self):
        """What the file shows about values (calls, defaults, factories), built on first use."""
        if self._shown is None and self.make_shown is not None:
            self._shown = self.make_shown()
        return self._shown

    def record(self, kind, node, value, frame, **detail):
        if frame.muted or value is not None and (value.maykey or value.diff and not fails_under_autodiff(kind, detail)):
            return
        if kind in _RAISING_SINKS and self.handled is not None and self.handled(node):
            return          # `try: if rate < 0: ... except ConcretizationTypeError:`: the code expects it
        key = (kind, getattr(node, "lineno", 0), getattr(node, "col_offset", 0), detail.get("key"))
        if key in self._sink_keys:
            return
        self._sink_keys.add(key)
        self.sinks.append(Sink(kind, node, value, frame, detail))

    def jitted_def(self, func) -> Optional[object]:
        """The jit entry of a def decorated with a jit wrapper, if any."""
        if self._jitted_defs is None:
            self._jitted_defs = {id(e.func): e for e in self.finder.entries
                                 if e.is_jit and e.via_decorator and e.func is not None}
        return self._jitted_defs.get(id(func))

    def inspects_tracers(self, node) -> bool:
        """`inspects_tracers(node)`, once per function, and without a walk when no line of the
        function says `tracer` or `concrete` (a walk per callee was 8% of the analysis)."""
        key = id(node)
        if key not in self._inspects:
            self._inspects[key] = _text_may_inspect_tracers(self.lines, node) and \
                inspects_tracers(node, self.module_level_read)
        return self._inspects[key]

    def module_level_read(self, name: ast.Name) -> bool:
        """Does this read see a module-level binding (not a parameter, a local or a closure
        cell)? Such a value is made at import, outside every trace: never a tracer."""
        model = self.index.model
        owner = model.defining_scope(name.id, model.scope_of(name))
        return owner is model.module

    def tick(self, n=1):
        self.steps += n
        if self.steps > MAX_STEPS:
            raise Budget()


class FunctionRun:
    """One abstract execution of one function body with given argument values."""

    def __init__(self, flow: ModuleFlow, func, env: Env, frame: Frame, depth: int,
                 self_value: Optional[V] = None, owner_cls=None, tracing: bool = True, scope=None,
                 unrolls: Optional[bool] = None):
        self.flow = flow
        # tracing: values are staged (jit, lax bodies): jnp results are tracers even from Python
        # values. Otherwise (a plain function hosting transforms, vmap/shard_map outside jit, grad
        # alone) a result is a tracer only when an input is one.
        self.tracing = tracing
        self.unrolls = tracing if unrolls is None else unrolls    # a Python loop is unrolled into a trace
        self.scope = scope                 # the def whose locals this one reads as closure variables
        self._inputs_traced = False
        self._quiet_type_test = 0          # inside the test of `if isinstance(n, int): n = jnp.asarray(n)`
        self.func = func                   # FuncInfo or ast.Lambda
        self.env = env
        self.frame = frame
        self.depth = depth
        self.self_value = self_value
        self.owner_cls = owner_cls
        self.returned: Optional[V] = None
        self.imports = flow.imports

    # == statements ===============================================================================
    def run(self) -> V:
        node = self.func.node if isinstance(self.func, FuncInfo) else self.func
        if isinstance(node, ast.Lambda):
            self.returned = self.eval(node.body)
        else:
            self.exec_block(node.body)
        return self.returned if self.returned is not None else STATIC_V

    def exec_block(self, stmts):
        for stmt in stmts:
            self.exec_stmt(stmt)

    def exec_stmt(self, stmt):
        self.flow.tick()
        method = getattr(self, "stmt_" + type(stmt).__name__, None)
        if method is not None:
            method(stmt)

    def stmt_Expr(self, s):
        self.eval(s.value)

    def stmt_Assign(self, s):
        value = self.eval(s.value)
        for target in s.targets:
            if isinstance(target, ast.Name) and target.id in self._declared_outer():
                self.check_leak(target, None, value, "global", name=target.id)
            elif isinstance(target, (ast.Tuple, ast.List)) and value is not None and value.traced:
                outer = self._declared_outer()     # `key, sub = split(key)` with `global key`
                for name in target_names(target):
                    if name in outer:
                        self.check_leak(target, None, value, "global", name=name)
                        break
            self.bind(target, value)

    def _declared_outer(self) -> set:
        """Names this function declares `global` or `nonlocal` (their stores outlive a trace)."""
        node = self.func.node if isinstance(self.func, FuncInfo) else None
        if node is None or not self.flow.declares_outer_names():
            return frozenset()
        where = self.flow.index.model.scope(node)
        return where.declared_global | where.declared_nonlocal

    def _rebinds_outer_names(self, node) -> bool:
        """Does the def `node` declare `global` or `nonlocal` names? Asked of the semantic model,
        and only in a module that says `global`/`nonlocal` somewhere."""
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or not self.flow.declares_outer_names():
            return False
        where = self.flow.index.model.scope(node)
        return bool(where.declared_global or where.declared_nonlocal)

    def check_leak(self, node, container, value: V, how: str, name: str = "") -> None:
        """A traced value stored into state that outlives the trace (JAX109): a container or
        object the traced code did not create (a module-level or eager closure's list/dict, an
        attribute of a static `self`), or a `global`/`nonlocal` name. A function closing over a
        tracer (`[lambda: x]`) carries it out as well."""
        captured = value is not None and not value.traced
        if captured:
            value = _captured_tracer(value)
        if value is None or not value.traced or value.diff or value.maykey:
            return
        if container is not None:
            if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) \
                    and node.slice.value is Ellipsis:
                return          # `ref[...] = x`: a write into a JAX Ref (or an array), not a list or dict
            root = container
            while isinstance(root, (ast.Attribute, ast.Subscript)):
                root = root.value
            if not isinstance(root, ast.Name):
                return
            if root.id == "self" and self.self_value is not None:
                if self.self_value.traced or self.self_value.state == vals.OBJECT \
                        and not self.flow.is_outside(self.self_value):
                    return      # a pytree self, or an object made in the trace: a temporary
            elif self.env.is_local(root.id) or root.id not in self.flow.index.module_names \
                    and not self._free_of_eager_scope(root.id):
                return
            module = self.imports.resolve(root)
            if module is not None and module.split(".")[0] in _API_MODULES:
                return          # JAX's or NumPy's namespace (`jnp`, `np`): not program state
            if not name:    # `self.history[name]`, not just `self`; another module's `metrics.history`
                text = ast.unparse(container) if root.id == "self" or module is not None else root.id
                name = text if len(text) <= 40 or module is not None else root.id
        self.flow.record("leak", node, value, self.frame, into=name, how=how, closure=captured)

    def _free_of_eager_scope(self, name: str) -> bool:
        """Is `name` bound by an enclosing function that is not being traced (a factory whose
        local list the traced closure appends to)?"""
        node = self.func.node if isinstance(self.func, FuncInfo) else None
        if node is None:
            return False
        model = self.flow.index.model
        where = model.scope(node)
        owner = model.defining_scope(name, where)
        return owner is not None and owner is not where and owner.kind.value == "function"

    def stmt_AnnAssign(self, s):
        if s.value is not None:
            self.bind(s.target, self.eval(s.value))

    def stmt_AugAssign(self, s):
        current = self.eval(s.target) if isinstance(s.target, ast.Name) else UNKNOWN_V
        value = self.binop(s.op, current, self.eval(s.value), s)
        if isinstance(s.target, ast.Name):
            self.bind(s.target, value)
        else:
            self.eval(s.target)

    def stmt_Return(self, s):
        value = self.eval(s.value) if s.value is not None else vals.static(None)
        self.returned = vals.join(self.returned, value)

    def stmt_FunctionDef(self, s):
        info = self.flow.index.by_node.get(id(s))
        self.env.vars[s.name] = V(FUNC, func=info, closure=self.env)

    stmt_AsyncFunctionDef = stmt_FunctionDef

    def stmt_If(self, s):
        normalises = self._quiet_type_test_in(s)
        self._quiet_type_test += normalises
        try:
            test = self.bool_test(s.test)
        finally:
            self._quiet_type_test -= normalises
        if test.state == STATIC and test.const is not vals.NO_CONST:
            self.exec_block(s.body if test.const else s.orelse)
            return
        saved = self.env
        body_env, else_env = saved.overlay(), saved.overlay()
        narrowed, none_in_body = self._none_test(s)
        self.env = body_env
        self._narrow(narrowed, none_in_body)
        self.exec_block(s.body)
        self.env = else_env
        self._narrow(narrowed, not none_in_body)
        self.exec_block(s.orelse)
        self.env = saved
        # a branch that returns or raises does not reach the statements after the `if`
        falls = [env for env, block in ((body_env, s.body), (else_env, s.orelse)) if not _leaves(block)]
        saved.absorb(*(falls or (body_env, else_env)))

    def _none_test(self, s) -> tuple:
        """(names, whether the body is where they are None) for `if x is None:` / `if x is not
        None:`; the names are `x` and the name `x` was copied from (`nbrs = neighbors`) when
        neither was rebound since."""
        test, flip = s.test, False
        while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test, flip = test.operand, not flip
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.IsNot))
                and isinstance(test.left, ast.Name) and isinstance(test.comparators[0], ast.Constant)
                and test.comparators[0].value is None):
            return (), False
        name = test.left.id
        names = (name,)
        node = self.func.node if isinstance(self.func, FuncInfo) else None
        shown = self.flow.shown() if node is not None else None
        if shown is not None:
            scope = shown.analysis.model.scope(node)
            reaching = scope.reaching(name, s)
            if len(reaching.bindings) == 1 and not reaching.maybe_unbound:
                binding = reaching.bindings[0]
                if binding.kind is BindingKind.ASSIGNMENT and isinstance(binding.value, ast.Name) \
                        and binding.value.id != name:
                    source = binding.value.id
                    if scope.reaching(source, binding.stmt) == scope.reaching(source, s):
                        names = (name, source)
        return names, isinstance(test.ops[0], ast.Is) != flip

    def _narrow(self, names, none: bool):
        """Inside a branch of a None test: the name holds None, or a value that is not None."""
        for name in names:
            current = self.env.lookup(name)
            if current is None or current.state not in (vals.UNKNOWN, STATIC) or \
                    current.state == STATIC and current.const is not vals.NO_CONST:
                continue
            self.env.vars[name] = vals.static(None) if none else vals.copy(current, nonnull=True)

    def _quiet_type_test_in(self, s) -> bool:
        """Is the `isinstance` test of this `if` one whose branch does not matter under a trace?
        `if isinstance(n, int): n = jnp.asarray(n)`, a branch that only turns a Python number
        into the array it already is; or `if isinstance(x, int): ... elif hasattr(x, "shape")
        ...:`, a dispatch on the kind of value whose later branch asks for an attribute every
        array has, the branch a tracer takes as the same array does eagerly."""
        tested = {call.args[0].id for call in walk(s.test)
                  if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "isinstance"
                  and len(call.args) == 2 and isinstance(call.args[0], ast.Name)}
        if not tested:
            return False
        if not s.orelse:
            return bool(s.body) and all(
                isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                and stmt.targets[0].id in tested and isinstance(stmt.value, ast.Call) and stmt.value.args
                and isinstance(stmt.value.args[0], ast.Name) and stmt.value.args[0].id == stmt.targets[0].id
                and (self.qualname(stmt.value.func) or "").startswith(("jnp.", "lax.")) for stmt in s.body)
        branch = s.orelse
        while len(branch) == 1 and isinstance(branch[0], ast.If):
            for call in walk(branch[0].test):
                if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "hasattr" \
                        and len(call.args) == 2 and isinstance(call.args[0], ast.Name) and call.args[0].id in tested \
                        and isinstance(call.args[1], ast.Constant) and call.args[1].value in api.STATIC_ATTRIBUTES:
                    return True
            branch = branch[0].orelse
        return False

    def stmt_For(self, s):
        it = s.iter
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "reversed" \
                and len(it.args) == 1 and not self.env.is_local("reversed"):
            it = it.args[0]           # `reversed(range(n))` runs as many times as `range(n)`
        if self.unrolls and isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" \
                and not self.env.is_local("range") and it.args and not it.keywords \
                and not any(isinstance(a, ast.Starred) for a in it.args):
            bounds = [self.eval(a) for a in it.args]
            # a range stepping by more than one walks blocks of an axis (`range(0, n, bs)`): a
            # count of blocks, sized on purpose, not of elements
            axis = self._traced_axis(it.args[0] if len(it.args) == 1 else it.args[1]) if len(it.args) < 3 else None
            self.flow.record("loop", s, bounds[0] if len(bounds) == 1 else bounds[1], self.frame,
                             bounds=bounds, axis=axis)
        element = self.iter_element(s.iter, loop=s if self.unrolls else None)
        self._loop(s.body, lambda: self.bind(s.target, element))
        self.exec_block(s.orelse)

    stmt_AsyncFor = stmt_For

    def stmt_While(self, s):
        self.bool_test(s.test)
        self._loop(s.body, lambda: self.bool_test(s.test))
        self.exec_block(s.orelse)

    def _loop(self, body, each):
        outer = self.env
        self.env = inner = outer.overlay()
        for _ in range(2):
            each()
            self.exec_block(body)
        self.env = outer
        outer.absorb(inner, outer.overlay())     # the body ran, or it never did

    def stmt_With(self, s):
        for item in s.items:
            ctx = self.eval(item.context_expr)
            if item.optional_vars is not None:
                self.bind(item.optional_vars, ctx if ctx.traced else UNKNOWN_V)
        self.exec_block(s.body)

    stmt_AsyncWith = stmt_With

    def stmt_Try(self, s):
        self.exec_block(s.body)
        for handler in s.handlers:
            if handler.name:
                self.env.vars[handler.name] = UNKNOWN_V
            self.exec_block(handler.body)
        self.exec_block(s.orelse)
        self.exec_block(s.finalbody)

    stmt_TryStar = stmt_Try

    def stmt_Assert(self, s):
        self.bool_test(s.test)

    def stmt_Match(self, s):
        subject = self.eval(s.subject)
        saved = self.env
        branches = []
        for case in s.cases:
            self.env = saved.overlay()
            self.match_pattern(case.pattern, subject)
            if case.guard is not None:
                self.bool_test(case.guard)
            self.exec_block(case.body)
            branches.append(self.env)
        self.env = saved
        if branches:
            saved.absorb(*branches)

    def match_pattern(self, pattern, subject: V):
        if isinstance(pattern, ast.MatchValue) and subject.traced and subject.leaf != CONTAINER:
            self.flow.record("bool", pattern, subject, self.frame, how="match-case")
        elif isinstance(pattern, ast.MatchClass) and subject.traced:
            name = self.imports.resolve(pattern.cls) or getattr(pattern.cls, "id", "")
            if name in api.SCALAR_TYPES and not pattern.patterns and not pattern.kwd_patterns:
                self.flow.record("typetest", pattern, subject, self.frame, types=name, how="case")
        elif isinstance(pattern, ast.MatchAs):
            if pattern.name:
                self.env.vars[pattern.name] = subject
            if pattern.pattern is not None:
                self.match_pattern(pattern.pattern, subject)
        elif isinstance(pattern, ast.MatchOr):
            for p in pattern.patterns:
                self.match_pattern(p, subject)
        elif isinstance(pattern, ast.MatchSequence):
            for p in pattern.patterns:
                self.match_pattern(p, vals.element_of(subject))
        elif isinstance(pattern, ast.MatchStar) and pattern.name:
            self.env.vars[pattern.name] = subject

    # == binding =================================================================================
    def bind(self, target, value: V):
        if isinstance(target, ast.Name):
            self.env.vars[target.id] = value.extend(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            elts = target.elts
            has_star = any(isinstance(e, ast.Starred) for e in elts)
            if value.elts is not None and len(value.elts) == len(elts) and not has_star \
                    and not (value.fields and value.cls is None):
                for t, v in zip(elts, value.elts):
                    self.bind(t, v)
            else:
                element = vals.element_of(value) if value.state in (TRACED, STATIC) else UNKNOWN_V
                if value.state == STATIC and value.elts is None:
                    element = STATIC_V
                for t in elts:
                    self.bind(t.value if isinstance(t, ast.Starred) else t, element)
        elif isinstance(target, ast.Starred):
            self.bind(target.value, value)
        else:
            self.eval(target)   # attribute / subscript stores: still check what they evaluate
            root = target.value
            while isinstance(root, (ast.Attribute, ast.Subscript)):
                root = root.value
            if isinstance(root, ast.Name) and root.id != "self" and not self.env.is_local(root.id) \
                    and root.id in self.flow.index.module_names:
                self.check_leak(target, target.value, value, "assignment")   # `CACHE[k] = v` at module level
            elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                    and target.value.id == "self" and (self.flow.read_on_objects_only(target.attr) or (
                        self.self_value is not None and self.self_value.state == STATIC)
                        or self.flow.is_outside(self.self_value)):
                # `self.cache = out` read as `box.cache`, or any attribute of a static `self`
                # (`static_argnums=0`): the object outlives the trace
                self.check_leak(target, target.value, value, "assignment", name=f"self.{target.attr}")
            self.store_field(target, value)

    def store_field(self, target, value: V):
        """`d["k"] = v` / `obj.f = v` on a local whose fields are known: the field now holds
        `v` (a key or field the analysis cannot name forgets them all)."""
        base = target.value if isinstance(target, (ast.Subscript, ast.Attribute)) else None
        if not isinstance(base, ast.Name) or base.id not in self.env.vars:
            return
        record = self.env.vars[base.id]
        if record.state == vals.OBJECT and record.cls is not None and isinstance(target, ast.Attribute) \
                and record.fields is not None and record.elts is not None \
                and self.flow.index.record_fields(record.cls) is None:
            # `self.a = a` in __init__: the object now holds that value (its methods called
            # from __init__ see it); the object stays an object, not a pytree
            fields, elts = list(record.fields), list(record.elts)
            if target.attr in fields:
                elts[fields.index(target.attr)] = value
            else:
                fields.append(target.attr)
                elts.append(value)
            self.env.vars[base.id] = vals.copy(record, fields=tuple(fields), elts=tuple(elts))
            return
        if not record.fields or record.elts is None:
            return
        if isinstance(target, ast.Subscript):
            if record.cls is not None:
                return
            key = target.slice.value if isinstance(target.slice, ast.Constant) and \
                isinstance(target.slice.value, str) else None
        else:
            key = target.attr if record.cls is not None else None
        if key is None:
            self.env.vars[base.id] = UNKNOWN_V      # a key the analysis cannot name: unknown contents
            return
        fields, elts = list(record.fields), list(record.elts)
        if key in fields:
            elts[fields.index(key)] = value
        elif record.cls is None:
            fields.append(key)
            elts.append(value)
        else:
            return
        updated = vals.copy(record, fields=tuple(fields), elts=tuple(elts))
        if value.traced and not record.traced:
            updated = vals.copy(vals.traced(leaf=CONTAINER, path=value.path, params=value.params),
                                fields=tuple(fields), elts=tuple(elts), cls=record.cls)
        self.env.vars[base.id] = updated

    # == expressions =============================================================================
    def eval(self, node) -> V:
        if node is None:
            return UNKNOWN_V
        self.flow.tick()
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self.eval(child)
            return UNKNOWN_V
        return method(node)

    def expr_Constant(self, n):
        return vals.static(n.value, pyseq=isinstance(n.value, (str, bytes)))

    def expr_Name(self, n):
        value = self.env.lookup(n.id)
        if value is not None:
            return value
        index = self.flow.index
        if n.id in index.constants:
            const = index.constants[n.id]
            return vals.static(const, pyseq=isinstance(const, (str, bytes, tuple, list, dict, set, frozenset)))
        if n.id in index.sequences:
            return vals.static(pyseq=True)
        if n.id in index.ndarrays and n.id not in index.rebound_globals:
            return vals.static(ndarray=True)
        if self.scope is not None:
            cls = index.local_instance(n.id, self.scope)
            if cls is not None:
                return V(vals.OBJECT, cls=cls)
            enclosing = self._enclosing_binding(n.id)
            if enclosing is not None:
                return enclosing      # a local of an enclosing def shadows the module's name
        if n.id in index.top_functions:
            return V(FUNC, func=index.top_functions[n.id], closure=None)
        if n.id in index.top_classes:
            return V(vals.CLASS, cls=index.top_classes[n.id])
        if n.id in index.instances:
            return self.flow.module_object(index.instances[n.id])
        if n.id == "self" and self.self_value is not None:
            return self.self_value
        return self._imported_constant(n)

    def _imported_constant(self, n) -> V:
        """What a constant of another module of the project holds (`from .config import LRS`,
        `config.LRS`): its literal value, or a Python sequence for a list/tuple/dict display."""
        view = self.flow.external
        if view is None or self.scope is not None and isinstance(n, ast.Name) and \
                self._enclosing_binding(n.id) is not None:
            return UNKNOWN_V
        value = view.constant(n)
        if value is None:
            return UNKNOWN_V
        try:
            const = evaluate_literal(value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            if isinstance(value, (ast.List, ast.Tuple, ast.Dict, ast.Set, ast.ListComp, ast.DictComp)):
                return vals.static(pyseq=True)
            return UNKNOWN_V
        return vals.static(const, pyseq=isinstance(const, (str, bytes, tuple, list, dict, set, frozenset)))

    def _enclosing_binding(self, name) -> Optional[V]:
        """What a free name holds when an enclosing def binds it (None: it does not): a def nested
        there (its only binding), or an unknown value (a parameter, an assignment)."""
        s = self.scope
        while s is not None:
            if name in param_names(s.node.args):
                return UNKNOWN_V
            bindings = self.flow.index.bindings_of(s).get(name)
            if bindings is not None:
                if all(isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef)) for b in bindings):
                    info = self.flow.index.by_node.get(id(max(bindings, key=lambda b: b.lineno)))
                    if info is not None:
                        return V(FUNC, func=info, closure=None)
                return UNKNOWN_V
            s = s.parent
        return None

    def expr_Attribute(self, n):
        view = self.flow.external
        if view is not None and isinstance(n.value, ast.Name) and n.value.id in view.imported \
                and self.env.lookup(n.value.id) is None:
            imported = self._imported_constant(n)       # `config.LRS` of a project module
            if imported is not UNKNOWN_V:
                return imported
        qual = self.qualname(n)
        if qual is not None:
            return STATIC_V if not qual.startswith(("jnp.", "lax.", "jax.")) or "." in qual[4:] else UNKNOWN_V
        base = self.eval(n.value)
        field = _attribute_of(base, n.attr)
        if field is not None:
            return field.extend(n.attr) if field.traced else field
        owner, via_instance = self.receiver_class(n.value, base)
        if owner is not None:
            method = self.flow.index.lookup_method(owner, n.attr)
            if method is not None:
                return self.method_value(method, owner, base, via_instance)
            held = self.flow.index.attribute_class(owner, n.attr) if via_instance and not base.traced else None
            if held is not None:
                return V(vals.OBJECT, cls=held)     # self.net = Net(...) in a method of the class
            made = self._transformed_method(owner, n, base) if via_instance and not base.traced else None
            if made is not None:
                return made
        if base.state == TRACED:
            if n.attr in api.STATIC_ATTRIBUTES:
                return vals.static(pyseq=n.attr == "shape")
            if n.attr == "at":
                return V(vals.AT, extra=base, path=base.path, params=base.params)
            if n.attr in ("T", "mT", "real", "imag"):
                return vals.copy(base, elts=None, fields=None, cls=None)
            if base.leaf == ARRAY:
                return UNKNOWN_V      # an unknown attribute of an array (a method object)
            if n.attr in self.flow.index.static_fields:
                return STATIC_V       # declared static in a pytree class of this module
            if base.cls is not None and self.flow.index.metadata_attribute(base.cls, n.attr):
                return STATIC_V       # plain metadata of an NNX object: static under the trace
            return vals.copy(base, leaf=MAYBE, elts=None, boolish=False, fields=None, cls=None,
                             path=base.path[:-1] + (f"{base.path[-1]}.{n.attr}",) if base.path else base.path)
        return UNKNOWN_V

    # == classes and objects of this file ========================================================
    def receiver_class(self, node, base: V):
        """(class, through an instance?) when `node.attr` looks an attribute up on a class of this
        file: an object or record of it, the class itself, or `self`/`cls` in its methods."""
        if base.state == vals.OBJECT or base.state == TRACED and base.cls is not None:
            return base.cls, True
        if base.state == vals.CLASS:
            return base.cls, False
        if isinstance(node, ast.Name) and self.owner_cls is not None and base.state in (UNKNOWN, STATIC):
            if node.id == "self":
                return self.owner_cls, True
            if node.id == "cls":
                return self.owner_cls, False
        return None, False

    def method_value(self, method, owner, receiver: V, via_instance: bool) -> V:
        """`obj.m` / `Cls.m`: the def, with what Python binds to its first parameter (the object
        for a method looked up on an instance, the class for a classmethod, nothing for a
        staticmethod or a method looked up on the class)."""
        kind = method.method_kind
        if kind == "property":
            return UNKNOWN_V
        if kind == "class":
            return V(FUNC, func=method, closure=None, bound=([V(vals.CLASS, cls=owner)], {}))
        if kind == "instance" and via_instance:
            return V(FUNC, func=method, closure=None, bound=([receiver], {}))
        return V(FUNC, func=method, closure=None)

    def construct(self, n, cls, args, kwargs) -> V:
        """`Cls(...)` for a class of this file: a record (NamedTuple, dataclass pytree) holds what
        it was given, field by field; any other class gives an object whose methods can be
        followed (its `__init__` is analysed with the arguments)."""
        fields = self.flow.index.record_fields(cls)
        if fields is not None and not any(isinstance(a, ast.Starred) for a in n.args) \
                and all(kw.arg is not None for kw in n.keywords):
            elts = [None] * len(fields)
            for i, value in enumerate(args[:len(fields)]):
                elts[i] = value
            for name, value in kwargs.items():
                if name in fields:
                    elts[fields.index(name)] = value
            elts = tuple(e if e is not None else UNKNOWN_V for e in elts)
            source = vals.first_traced(elts)
            if source is not None:
                return vals.copy(vals.traced(leaf=CONTAINER, elts=elts, path=source.path,
                                             params=frozenset().union(*(e.params for e in elts if e.traced))),
                                 cls=cls, fields=fields)
            return V(vals.OBJECT, cls=cls, elts=elts, fields=fields)
        obj = V(vals.OBJECT, cls=cls, fields=(), elts=())      # attributes set while __init__ runs
        init = self.flow.index.lookup_method(cls, "__init__")
        if init is not None and any(v.traced for v in args + list(kwargs.values())):
            self.call_value(n, V(FUNC, func=init, closure=None, bound=([obj], {})), args, kwargs)
        return obj

    def expr_Subscript(self, n):
        index_node = n.slice
        if self.tracing and isinstance(n.value, ast.Name) and self._module_jax_array(n.value.id):
            self.eval(index_node)
            name = n.value.id
            return vals.traced(leaf=ARRAY, path=(f"{name}[...]",), text=f"global `{name}`")
        base = self.eval(n.value)
        if base.fields and base.cls is None and base.elts is not None and isinstance(index_node, ast.Constant) \
                and isinstance(index_node.value, str):
            field = _field_of(base, index_node.value)
            if field is not None:
                return field.extend(f"{base.path[-1]}[{index_node.value!r}]") if field.traced and base.path \
                    else field
        parts = index_node.elts if isinstance(index_node, ast.Tuple) else [index_node]
        part_values = []
        for part in parts:
            if isinstance(part, ast.Call) and isinstance(part.func, ast.Name) and part.func.id == "slice" \
                    and not self.env.is_local("slice") and not part.keywords:
                part = ast.Slice(*(part.args + [None, None, None])[:3]) if len(part.args) > 1 else \
                    ast.Slice(None, part.args[0] if part.args else None, None)
            if isinstance(part, ast.Slice):
                bounds = [self.eval(b) for b in (part.lower, part.upper, part.step) if b is not None]
                bad = vals.first_traced(bounds)
                if bad is not None and bad.leaf != CONTAINER:
                    self.flow.record("slice", n, bad, self.frame, base=base)
                part_values.append(STATIC_V)
            else:
                part_values.append(self.eval(part))
        index = part_values[0] if len(part_values) == 1 else vals.derived(part_values)
        mask = next((v for v in part_values if v.traced and v.boolish), None)
        if base.state == vals.AT:
            if mask is not None:
                self.flow.record("datadep", n, mask, self.frame, how="at-mask")
            return V(vals.AT, extra=base.extra, path=base.path, params=base.params, wrapper="item")
        if base.traced and isinstance(base.extra, frozenset) and isinstance(index_node, ast.Constant) \
                and index_node.value in base.extra:
            return STATIC_V       # a static_argnames entry of **kwargs
        if base.traced or (base.state == UNKNOWN and mask is not None):
            if mask is not None:
                self.flow.record("datadep", n, mask, self.frame, how="mask")
                return vals.copy(mask, leaf=ARRAY, boolish=False)
            if base.elts is not None and isinstance(index_node, ast.Constant) and not (base.fields and base.cls is None) \
                    and isinstance(index_node.value, int) and -len(base.elts) <= index_node.value < len(base.elts):
                return base.elts[index_node.value]
            if base.traced:
                leaf = ARRAY if base.leaf == ARRAY else MAYBE
                step = None
                if base.path and isinstance(index_node, ast.Constant):
                    step = f"{base.path[-1]}[{index_node.value!r}]"
                result = vals.copy(base, leaf=leaf, elts=None, boolish=False)
                if step:
                    result = vals.copy(result, path=base.path[:-1] + (step,))
                if index.traced:
                    result = vals.copy(result, params=result.params | index.params)
                return result
            return UNKNOWN_V
        if index.traced and index.leaf != CONTAINER and base.state == STATIC and base.ndarray:
            self.flow.record("convert", n, index, self.frame, how="index a NumPy array")
            return UNKNOWN_V
        if index.traced and index.leaf != CONTAINER and base.state == STATIC and base.pyseq \
                and not any(isinstance(p, ast.Slice) for p in parts):
            if isinstance(base.const, dict):
                self.flow.record("convert", n, index, self.frame, how="dict key")
            else:
                self.flow.record("convert", n, index, self.frame, how="index a Python sequence")
            return UNKNOWN_V
        if base.state == STATIC and base.elts is not None and isinstance(index_node, ast.Constant) \
                and not (base.fields and base.cls is None) \
                and isinstance(index_node.value, int) and -len(base.elts) <= index_node.value < len(base.elts):
            return base.elts[index_node.value]
        if base.state == STATIC and base.const is not vals.NO_CONST and index.const is not vals.NO_CONST:
            try:
                const = base.const[index.const]
                return vals.static(const, pyseq=isinstance(const, (str, tuple, list, dict)))
            except Exception:  # noqa: BLE001 - any failure just means "not a known constant"
                return STATIC_V
        if base.state == UNKNOWN and index.traced and index.leaf != CONTAINER and len(parts) == 1 \
                and not isinstance(parts[0], ast.Slice) \
                and not (isinstance(n.value, ast.Attribute) and n.value.attr == "at"):
            # `sizes[i]` with `i` traced: an array indexed by a tracer gives a tracer; a list, a
            # dict or a NumPy array raises at this line instead, so whatever runs on holds one
            # (`x.at[i]` is an indexing helper, a Pallas `ref.at[i]` a view of the ref: neither)
            return vals.copy(index, leaf=MAYBE, elts=None, boolish=False,
                             path=index.path + (f"{_short(n.value)}[...]",))
        return STATIC_V if base.state == STATIC else UNKNOWN_V

    def expr_Starred(self, n):
        return self.eval(n.value)

    def expr_NamedExpr(self, n):
        value = self.eval(n.value)
        self.bind(n.target, value)
        return value

    def expr_Tuple(self, n):
        items = [self.eval(e) for e in n.elts]
        has_star = any(isinstance(e, ast.Starred) for e in n.elts)
        if any(v.traced for v in items):
            made = vals.traced(leaf=CONTAINER, elts=None if has_star else tuple(items),
                               path=vals.first_traced(items).path,
                               params=frozenset().union(*(v.params for v in items if v.traced)))
            if all(v.maykey for v in items if v.traced):
                made.maykey = True      # only keys that may be strings: a list of them may be
            return made
        if any(v.state == UNKNOWN for v in items):
            return vals.static(pyseq=True, elts=None if has_star else tuple(items))
        consts = tuple(v.const for v in items)
        const = vals.NO_CONST if has_star or any(c is vals.NO_CONST for c in consts) else consts
        return vals.static(const=const if isinstance(n, ast.Tuple) else vals.NO_CONST, pyseq=True,
                           elts=None if has_star else tuple(items))

    expr_List = expr_Tuple
    expr_Set = expr_Tuple

    def expr_Dict(self, n):
        for key in n.keys:
            if key is not None:
                k = self.eval(key)
                if k.is_array:
                    self.flow.record("convert", key, k, self.frame, how="dict key")
        items = [self.eval(v) for v in n.values]
        keys = [k.value if isinstance(k, ast.Constant) and isinstance(k.value, str) else None for k in n.keys]
        fields = tuple(keys) if n.keys and None not in keys and len(set(keys)) == len(keys) else None
        if fields is not None:      # {"x": x, "step": 0}: each key's value is known
            return vals.str_keyed(fields, tuple(items))
        if any(v.traced for v in items):
            source = vals.first_traced(items)
            return vals.traced(leaf=CONTAINER, path=source.path, params=source.params)
        return vals.static(pyseq=True)

    def expr_BinOp(self, n):
        return self.binop(n.op, self._staged(n.left), self._staged(n.right), n)

    def _staged(self, node) -> V:
        """An operand of an operator or an array method: a module-level JAX array read under a
        trace is a concrete constant, but every operation on it is staged into the program, so
        what the operation gives is a tracer (`W <= 0`, `-W`, `W.sum()`; JAX 0.10.2). Reading it
        alone (`print(W)`, `float(W)`, `W.item()`) stays concrete."""
        value = self.eval(node)
        if self.tracing and isinstance(node, ast.Name) and not value.traced and self._module_jax_array(node.id):
            return vals.traced(leaf=ARRAY, path=(node.id,), text=f"global `{node.id}`")
        return value

    def binop(self, op, left: V, right: V, node) -> V:
        if isinstance(op, ast.Mult):
            for seq, count in ((left, right), (right, left)):
                if seq.state == STATIC and seq.pyseq and count.is_array:
                    self.flow.record("convert", node, count, self.frame, how="repeat a Python sequence")
                    return UNKNOWN_V
        if isinstance(op, ast.Mod) and left.state == STATIC and isinstance(left.const, str):
            shown = right if right.traced else None
            if shown is not None:
                if _PERCENT_NUMERIC.search(left.const):
                    self.flow.record("convert", node, shown, self.frame, how="%-format as a number")
                    return STATIC_V
                return vals.static(pyseq=True, shows=shown)
        if left.traced or right.traced:
            if all(v.diff for v in (left, right) if v.traced) and not isinstance(op, _DIFFERENTIABLE_OPS):
                return UNKNOWN_V      # `x // 2` under grad alone: no derivative, a concrete value
            boolish = isinstance(op, (ast.BitAnd, ast.BitOr, ast.BitXor)) and \
                all(v.boolish for v in (left, right) if v.traced)
            if isinstance(op, ast.Add) and left.leaf == CONTAINER and right.leaf != ARRAY:
                return vals.derived([left, right], leaf=CONTAINER)
            return vals.derived([left, right], boolish=boolish)
        if left.state == STATIC and right.state == STATIC:
            if isinstance(op, ast.Add) and left.pyseq and right.pyseq:
                return vals.static(pyseq=True)
            return _fold(op, left, right)
        return UNKNOWN_V

    def expr_UnaryOp(self, n):
        operand = self.eval(n.operand) if isinstance(n.op, ast.Not) else self._staged(n.operand)
        if isinstance(n.op, ast.Not):
            if self.is_bool_converted(operand):
                self.flow.record("bool", n, operand, self.frame, how="`not`")
                return STATIC_V
            if operand.state == STATIC and operand.const is not vals.NO_CONST:
                return vals.static(not operand.const)
            return STATIC_V if operand.state == STATIC else UNKNOWN_V
        if operand.traced:
            if operand.diff and isinstance(n.op, ast.Invert):
                return UNKNOWN_V
            return vals.copy(operand, leaf=ARRAY, elts=None) if operand.leaf != CONTAINER else operand
        if operand.state == STATIC and operand.const is not vals.NO_CONST and isinstance(n.op, ast.USub):
            try:
                return vals.static(-operand.const)
            except TypeError:
                return STATIC_V
        return operand

    def expr_BoolOp(self, n):
        return self.boolop(n, in_test=False)

    def boolop(self, n, in_test: bool) -> V:
        result = None
        for i, operand in enumerate(n.values):
            last = i == len(n.values) - 1
            value = self.bool_test(operand) if (in_test or not last) else self.eval(operand)
            result = vals.join(result, value)
            if value.state == STATIC and value.const is not vals.NO_CONST \
                    and bool(value.const) == isinstance(n.op, ast.Or):
                # decided here (`isinstance(tracer, int) and ...`): the rest never runs, and a
                # test of the whole is this value (the branch it guards is dead under trace)
                return vals.static(bool(value.const)) if in_test else result
            if isinstance(n.op, ast.And) and self.is_scalar_type_test(operand):
                break      # isinstance(tracer, int) is False: the rest is never evaluated
            if value.state == UNKNOWN and isinstance(operand, (ast.Call, ast.UnaryOp)) and \
                    self._inspects_traced(operand):
                break      # an unknown check of a traced value guards the rest: cannot tell
        return result if not in_test else (STATIC_V if result is None or not result.traced else result)

    def expr_Compare(self, n):
        staged = not any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in n.ops)
        left = self._staged(n.left) if staged else self.eval(n.left)
        comparators = [self._staged(c) if staged else self.eval(c) for c in n.comparators]
        operands = [left] + comparators
        results = []
        for i, op in enumerate(n.ops):
            a, b = operands[i], operands[i + 1]
            if isinstance(op, (ast.Is, ast.IsNot, ast.Eq, ast.NotEq)) and self._type_of_traced(n, i):
                results.append(vals.static(isinstance(op, (ast.IsNot, ast.NotEq))))
            elif isinstance(op, (ast.Is, ast.IsNot)):
                results.append(_fold_none_test(n, i, a, b, isinstance(op, ast.Is)))
            elif isinstance(op, (ast.Eq, ast.NotEq)) and (_is_none(n, i) or a.state == vals.FUNC):
                results.append(STATIC_V)
            elif isinstance(op, (ast.In, ast.NotIn)):
                if a.is_array and b.state == STATIC and b.pyseq:
                    self.flow.record("bool", n, a, self.frame, how="`in` on a Python sequence")
                    results.append(STATIC_V)
                elif b.traced and b.leaf == CONTAINER:
                    results.append(STATIC_V if not a.traced else UNKNOWN_V)
                else:
                    results.append(vals.derived([a, b], boolish=True) if b.is_array else
                                   (STATIC_V if a.state == b.state == STATIC else UNKNOWN_V))
            elif a.traced or b.traced:
                if (a.traced and a.leaf == CONTAINER) or (b.traced and b.leaf == CONTAINER):
                    results.append(UNKNOWN_V)
                else:
                    results.append(vals.derived([a, b], boolish=True))
            else:
                results.append(_fold_compare(op, a, b))
        if len(results) > 1:
            for r in results[:-1]:
                if r.is_array:
                    self.flow.record("bool", n, r, self.frame, how="chained comparison")
                    return STATIC_V
        out = results[0]
        for r in results[1:]:
            out = vals.join(out, r)
        if out.traced and out.diff and not any(isinstance(op, (ast.In, ast.NotIn)) for op in n.ops):
            return UNKNOWN_V          # a comparison under autodiff alone has a concrete value
        return out

    def _type_of_traced(self, n: ast.Compare, i: int) -> bool:
        """`type(v) is int` with v traced: silently False under jit (JAX106)."""
        operands = [n.left] + n.comparators
        for call, other in ((operands[i], operands[i + 1]), (operands[i + 1], operands[i])):
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "type" \
                    and len(call.args) == 1 and not self.env.is_local("type"):
                name = self.imports.resolve(other) or getattr(other, "id", "")
                value = self.eval(call.args[0])
                if name in api.SCALAR_TYPES and value.traced and value.leaf != CONTAINER:
                    self.flow.record("typetest", n, value, self.frame, types=name, how="type() comparison")
                    return True
        return False

    def expr_IfExp(self, n):
        test = self.bool_test(n.test)
        if test.state == STATIC and test.const is not vals.NO_CONST:
            return self.eval(n.body if test.const else n.orelse)
        return vals.join(self.eval(n.body), self.eval(n.orelse))

    def expr_Lambda(self, n):
        return V(FUNC, func=n, closure=self.env)

    def expr_JoinedStr(self, n):
        shown = None
        for part in n.values:
            if isinstance(part, ast.FormattedValue):
                value = self.eval(part.value)
                spec = _format_spec_text(part.format_spec)
                if value.traced and value.leaf != CONTAINER and spec and _NUMERIC_FORMAT.search(spec):
                    self.flow.record("convert", part, value, self.frame, how=f"format with `:{spec}`")
                elif value.traced or (value.shows is not None):
                    shown = shown or (value if value.traced else value.shows)
        return vals.static(pyseq=True, shows=shown)

    def _comprehension(self, n, elements):
        saved = self.env
        self.env = Env(saved)
        try:
            for gen in n.generators:
                element = self.iter_element(gen.iter)
                self.bind(gen.target, element)
                for cond in gen.ifs:
                    self.bool_test(cond)
            results = [self.eval(e) for e in elements]
        finally:
            self.env = saved
        if any(r.traced for r in results):
            source = vals.first_traced(results)
            return vals.copy(vals.traced(leaf=CONTAINER, path=source.path, params=source.params),
                             maykey=all(r.maykey for r in results if r.traced))
        return vals.static(pyseq=True)

    def expr_ListComp(self, n):
        return self._comprehension(n, [n.elt])

    expr_SetComp = expr_ListComp
    expr_GeneratorExp = expr_ListComp

    def expr_DictComp(self, n):
        return self._comprehension(n, [n.key, n.value])

    # == conversions to Python ===================================================================
    def is_bool_converted(self, v: V) -> bool:
        """Would `bool(v)` raise? Only for a tracer, not for a container holding tracers."""
        if v.state != TRACED:
            return False
        return v.leaf == ARRAY

    def bool_test(self, node) -> V:
        """Evaluate `node` where Python calls bool() on it (if/while/assert/and/or/not)."""
        if isinstance(node, ast.BoolOp):
            return self.boolop(node, in_test=True)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return self.eval(node)
        value = self.eval(node)
        if self.is_bool_converted(value):
            self.flow.record("bool", node, value, self.frame, how="condition")
            return STATIC_V
        return value

    def _inspects_traced(self, node) -> bool:
        if isinstance(node, ast.UnaryOp):
            node = node.operand
        return isinstance(node, ast.Call) and any(
            self.eval(a).traced for a in node.args)

    def is_scalar_type_test(self, node) -> bool:
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance"
                and len(node.args) == 2 and not self.env.is_local("isinstance")):
            return False
        return self._scalar_types(node.args[1]) is not None and self.eval(node.args[0]).traced

    def _never_traced_types(self, node, value: V) -> bool:
        """`isinstance(v, np.ndarray)`: types that a tracer, or a pytree of tracers, never is.
        A tracer is not a list or dict either, though a container of tracers may be one."""
        names = node.elts if isinstance(node, ast.Tuple) else [node]
        if not names:
            return False
        for name_node in names:
            name = self.imports.resolve(name_node) or (name_node.id if isinstance(name_node, ast.Name)
                                                       and not self.env.is_local(name_node.id) else "")
            if name in api.NEVER_TRACED_TYPES:
                continue
            if value.leaf == ARRAY and name in api.CONTAINER_TYPES:
                continue
            return False
        return True

    def _scalar_types(self, node) -> Optional[str]:
        names = node.elts if isinstance(node, ast.Tuple) else [node]
        found = []
        for name_node in names:
            name = self.imports.resolve(name_node) or (name_node.id if isinstance(name_node, ast.Name) else "")
            if name in api.SCALAR_TYPES:
                found.append(name)
            else:
                return None
        return ", ".join(found) if found else None

    def iter_element(self, node, loop=None) -> V:
        """What a `for` over `node` binds to its target, checking the iterable itself. `loop`: the
        for statement, when a trace unrolls it (a loop over the rows of a traced array is recorded)."""
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not self.env.is_local(node.func.id):
            name = node.func.id
            args = [self.eval(a) for a in node.args]
            if loop is not None and name in ("zip", "enumerate", "reversed") and not (name == "zip" and any(
                    value.state == STATIC and not (isinstance(arg, ast.Call) and isinstance(arg.func, ast.Name)
                                                   and arg.func.id == "range")
                    or value.traced and (value.leaf == CONTAINER or value.leaf == MAYBE and not isinstance(arg, ast.Name))
                    for arg, value in zip(node.args, args))):
                # (a zip stops at its shortest sequence: with a static Python sequence,
                # `zip(keys, layer_sizes[:-1])`, or a traced list or tuple, `zip(params[:-1],
                # keys[:-1])` over a list of layers, it loops over Python values, not over the
                # data's rows; a parameter of unknown kind comes first, for the calls to decide)
                pairs = list(zip(node.args, args))
                self._rows(loop, sorted(pairs, key=lambda pair: pair[1].leaf != MAYBE))
            if name == "range":
                self.check_range(node, args)
                return STATIC_V
            if name == "enumerate" and args:
                return vals.static(pyseq=True, elts=(STATIC_V, vals.element_of(args[0], iterating=True)))
            if name == "zip":
                elements = tuple(vals.element_of(a, iterating=True) for a in args)
                if any(e.traced for e in elements):
                    return vals.traced(leaf=CONTAINER, elts=elements, path=vals.first_traced(elements).path,
                                       params=frozenset().union(*(e.params for e in elements if e.traced)))
                return vals.static(pyseq=True, elts=elements)
            if name in ("reversed", "list", "tuple", "sorted", "iter") and args:
                return vals.element_of(args[0], iterating=True)
            return self.eval_call_values(node, args)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("items", "values", "keys") and not node.args:
            receiver = self.eval(node.func.value)
            if receiver.traced:
                inner = vals.copy(receiver, leaf=MAYBE, elts=None)
                if node.func.attr == "items":
                    return vals.traced(leaf=CONTAINER, elts=(STATIC_V, inner), path=inner.path, params=inner.params)
                return inner if node.func.attr == "values" else STATIC_V
            return UNKNOWN_V if receiver.state != STATIC else STATIC_V
        iterable = self.eval(node)
        if loop is not None:
            self._rows(loop, [(node, iterable)])
        if iterable.state in (TRACED, STATIC):
            return vals.element_of(iterable, iterating=True)
        return UNKNOWN_V

    def _traced_axis(self, node, depth=0) -> Optional[tuple]:
        """(array expression, axis, its value, "shape" or "len") when a loop bound counts along an
        axis of a traced value: `x.shape[k]`, `len(x)`, a sum, difference or multiple of one, a
        local name bound to one (`T = x.shape[1]`, `B, T = x.shape`). Its length is a data size,
        static under the trace. A quotient (`n // bs`) counts blocks: not one."""
        if depth > 3:
            return None
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
            return self._traced_axis(node.left, depth + 1) or self._traced_axis(node.right, depth + 1)
        found = None
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape" \
                and isinstance(node.slice, ast.Constant) and type(node.slice.value) is int:
            found = (node.value.value, node.slice.value, "shape")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" \
                and len(node.args) == 1 and not self.env.is_local("len"):
            found = (node.args[0], 0, "len")
        elif isinstance(node, ast.Name) and isinstance(self.func, FuncInfo):
            model = self.flow.index.model
            bindings = model.bindings_at(node.id, model.statement_of(node), model.scope(self.func.node))
            if not bindings or len(bindings) != 1:
                return None
            b = bindings[0]
            if b.value is not None:
                return self._traced_axis(b.value, depth + 1)
            value = getattr(b.stmt, "value", None)
            targets = getattr(b.stmt, "targets", [])
            if isinstance(value, ast.Attribute) and value.attr == "shape" and len(targets) == 1 \
                    and isinstance(targets[0], (ast.Tuple, ast.List)):
                names = [e.id if isinstance(e, ast.Name) else None for e in targets[0].elts]
                if node.id in names and not any(isinstance(e, ast.Starred) for e in targets[0].elts):
                    found = (value.value, names.index(node.id), "shape")
        if found is None or not isinstance(found[0], ast.Name):
            return None
        value = self.env.lookup(found[0].id)
        if value is None or not value.traced or value.diff:
            return None
        return found[0], found[1], value, found[2]

    def _under_jit(self) -> bool:
        """Is this code traced by jit (not only by a lax body or vmap of an eagerly run function)?
        Then every helper it calls runs under the trace, even on static arguments: what their
        jnp/random calls make is a tracer."""
        return self.frame.entry_kind.startswith("jit")

    def _rows(self, loop, iterated):
        """A for-loop under jit over the rows of a traced array (`for row in x`, `zip(xs, ys)`):
        unrolled once per row. Recorded with the first such expression."""
        if not self._under_jit():
            return
        for expr, value in iterated:
            if value.traced and not value.diff and (value.leaf == ARRAY or value.leaf == MAYBE and isinstance(expr, ast.Name)):
                # a parameter of unknown kind may be a list of arrays: the calls decide (JAX302)
                self.flow.record("rows", loop, value, self.frame, over=expr, array=value.leaf == ARRAY)
                return

    def check_range(self, node, args):
        for arg in args:
            if arg.traced and arg.leaf != CONTAINER:
                self.flow.record("convert", node, arg, self.frame, how="range()")
                return

    # == calls ===================================================================================
    def qualname(self, func_node) -> Optional[str]:
        """Canonical name of an imported callable, unless a local variable shadows it."""
        root = func_node
        while isinstance(root, ast.Attribute):
            root = root.value
        if not isinstance(root, ast.Name) or self.env.is_local(root.id):
            return None
        return self.imports.resolve(func_node)

    def expr_Call(self, n):
        args = [self.eval(a) for a in n.args]
        self._inputs_traced = False
        result = self.eval_call_values(n, args)
        self._forget_escaped_fields(n)
        if not self.tracing and result.state == TRACED and not result.diff and not self._inputs_traced:
            return UNKNOWN_V      # not staged: a call of concrete values returns a concrete value
        return result

    def _forget_escaped_fields(self, n: ast.Call):
        """A dict (or mutable record) handed to a function of the program may be changed there:
        what its keys hold is no longer known. JAX, NumPy and pure builtins change nothing."""
        names = [a for a in n.args + [kw.value for kw in n.keywords] if isinstance(a, ast.Name)]
        if not names:
            return
        func = n.func
        if self.qualname(func) is not None or isinstance(func, ast.Name) and func.id in _PURE_BUILTINS \
                and not self.env.is_local(func.id) and func.id not in self.flow.index.module_names:
            return
        for name in names:
            value = self.env.vars.get(name.id)
            if value is not None and value.fields and value.elts is not None and \
                    (value.cls is None or not self.flow.index.is_named_tuple(value.cls)):
                self.env.vars[name.id] = UNKNOWN_V

    def eval_call_values(self, n: ast.Call, args: list) -> V:
        kwargs = {}
        for kw in n.keywords:
            value = self.eval(kw.value)
            if kw.arg is not None:
                kwargs[kw.arg] = value
        func = n.func
        touched = any(v.traced for v in args) or any(v.traced for v in kwargs.values())
        if self.tracing and self.flow.external is not None and (touched or self._stores_outer_state(func)):
            self._external_call(n, args, kwargs, untraced=not touched)
        qual = self.qualname(func)
        if qual is not None:
            self._inputs_traced = touched
            return self.call_api(n, qual, args, kwargs)
        if isinstance(func, ast.Name) and not self.env.is_local(func.id) \
                and func.id not in self.flow.index.module_names and self._enclosing_binding(func.id) is None:
            self._inputs_traced = touched
            return self.call_builtin(n, func.id, args, kwargs)
        if isinstance(func, ast.Attribute):
            receiver = self._staged(func.value) if func.attr in api.ARRAY_METHODS else self.eval(func.value)
            result = self.call_method(n, receiver, func.attr, args, kwargs)
            self._inputs_traced = touched or receiver.traced
            return result
        callee = self.eval(func)
        if callee.state == UNKNOWN and isinstance(func, ast.Name):
            callee = self._factory_product(func) or callee
        result = self.call_value(n, callee, args, kwargs)
        self._inputs_traced = touched or callee.bound is not None and any(v.traced for v in callee.bound[0])
        return result

    def _external_function(self, node):
        """The project Target a function expression names in another module (`utils.period_mse`,
        an imported `period_mse`), when this module's name for it is not a local; else None."""
        view = self.flow.external
        root = node
        while isinstance(root, ast.Attribute):
            root = root.value
        if view is None or not isinstance(root, ast.Name) or self.env.is_local(root.id):
            return None
        return view.target_of(node)

    def _stores_outer_state(self, func) -> bool:
        """Is `func` (`rng.next_key`, an imported `next_key`) a function of another module of
        the project that stores into module state (ProjectView.stores_outer_state)?"""
        root = func
        while isinstance(root, ast.Attribute):
            root = root.value
        if not isinstance(root, ast.Name) or root.id not in self.flow.external.imported:
            return False
        memo = self.flow.outer_state_calls       # the same call, met again by later runs
        found = memo.get(id(func))
        if found is None:
            target = self._external_function(func)
            found = memo[id(func)] = target is not None and target.path.endswith(".py") and \
                self.flow.external.stores_outer_state(target)
        return found

    def _external_call(self, n: ast.Call, args, kwargs, untraced: bool = False) -> None:
        """A function of another module of the project, called here with traced arguments (or
        without, `untraced`): the call is recorded for that module's analysis (crossmodule.py)."""
        target = self._external_function(n.func)
        if target is None and isinstance(n.func, ast.Attribute):
            owner = self._external_function(n.func.value)   # `LOGGER.log(...)`: a method of another module's object
            if owner is not None:
                target = dataclasses.replace(owner, name=f"{owner.name}.{n.func.attr}")
        if target is not None:
            self.flow.external.record(target, n, args, kwargs, self.frame, untraced)

    def _transformed_method(self, owner, n: ast.Attribute, base: V) -> Optional[V]:
        """`self.grad` when the class assigns it once, as a transform of one of its own methods
        (`self.grad = jax.value_and_grad(self.loss)` in `__init__`): that transform of the method,
        bound to this object. Other arguments must be literals, read the same anywhere."""
        if not (isinstance(n.value, ast.Name) and n.value.id == "self"):
            return None
        values = self.flow.index.attribute_assignments(owner, n.attr)
        if len(values) != 1 or not isinstance(values[0], ast.Call):
            return None
        call = values[0]
        wrapper = self.qualname(call.func)
        if wrapper not in api.DIFF_WRAPPERS and wrapper not in api.CALL_THROUGH_WRAPPERS \
                and wrapper not in ("jax.jit", "jax.vmap", "jax.checkpoint"):
            return None
        if not call.args or not (isinstance(call.args[0], ast.Attribute) and isinstance(call.args[0].value, ast.Name)
                                 and call.args[0].value.id == "self"):
            return None
        if self.flow.index.lookup_method(owner, call.args[0].attr) is None:
            return None
        if not all(isinstance(a, ast.Constant) or isinstance(a, ast.Tuple) and all(isinstance(e, ast.Constant)
                   for e in a.elts) for a in call.args[1:] + [k.value for k in call.keywords]):
            return None
        return self.eval(call)

    def _module_jax_array(self, name: str) -> bool:
        """A module-level name bound to a JAX array (`TABLE = jnp.cumsum(...)`), read here: under
        jit, indexing it is a staged operation, so the element is a tracer (a NumPy table's is not)."""
        index = self.flow.index
        if name not in index.jax_arrays or name in index.rebound_globals or self.env.lookup(name) is not None:
            return False
        return self.scope is None or self._enclosing_binding(name) is None

    def _factory_product(self, name: ast.Name) -> Optional[V]:
        """The nested def a name holds when every value the file shows for it is the product of a
        factory of the file: `lr_fn = make_schedule(...)` handed to `make_train_step(lr_fn)`,
        whose jitted step calls `lr_fn(step)`; the factory returns its nested def `schedule`."""
        shown = self.flow.shown()
        if shown is None:
            return None
        scope = self.func.node if isinstance(self.func, FuncInfo) else None
        ctx = Ctx(scope, name.lineno)
        if shown.owner_of_parameter(name.id, ctx) is not None:
            values = shown.parameter_values(name.id, ctx)
        else:
            found = shown.lookup(name.id, ctx)
            values = [found] if found is not None else []
        if len(values) > 4:
            return None       # many callers: not worth following each (and never half of them)
        products = set()
        for expr, where in values:
            for _ in range(3):
                if not isinstance(expr, ast.Name):
                    break
                found = shown.lookup(expr.id, where)
                if found is None:
                    return None
                expr, where = found
            made = self._returned_def(shown, expr, where)
            if made is None:
                return None
            products.add(made)
        if len(products) != 1:
            return None
        return V(FUNC, func=products.pop(), closure=None)

    def _returned_def(self, shown, expr, ctx) -> Optional[FuncInfo]:
        """`make_schedule(...)` where every `return` of make_schedule names one def nested in it."""
        if not isinstance(expr, ast.Call):
            return None
        factory = shown.function_of(expr.func, ctx)
        if factory is None:
            return None
        returned = set()
        for node in _own_returns(factory.node):
            if not isinstance(node.value, ast.Name) or node.value.id not in factory.nested:
                return None
            returned.add(node.value.id)
        if len(returned) != 1:
            return None
        return factory.nested[returned.pop()]

    def call_builtin(self, n, name, args, kwargs) -> V:
        first = args[0] if args else None
        if name == "print":
            shown = next((a if a.traced else a.shows for a in args if a.traced or a.shows is not None), None)
            if shown is not None:
                self.flow.record("print", n, shown, self.frame)
            return vals.static(None)
        if name == "hasattr" and len(args) == 2 and first.traced and first.leaf != CONTAINER \
                and isinstance(n.args[1], ast.Constant) and n.args[1].value in api.STATIC_ATTRIBUTES:
            return vals.static(True)      # every tracer has .shape, .dtype...: the test is decided
        if name == "isinstance" and len(args) == 2:
            if first.traced and not first.maykey:
                types = self._scalar_types(n.args[1])
                if types:
                    if not self._quiet_type_test:
                        self.flow.record("typetest", n, first, self.frame, types=types, how="isinstance")
                    return vals.static(False)
                if self._never_traced_types(n.args[1], first):
                    return vals.static(False)    # never true of a tracer: the branch is dead under trace
            return STATIC_V
        if name in api.CONVERTING_BUILTINS and first is not None and first.traced and first.leaf != CONTAINER:
            self.flow.record("convert", n, first, self.frame, how=api.CONVERTING_BUILTINS[name])
            return STATIC_V
        if name == "bool" and first is not None:
            if self.is_bool_converted(first):
                self.flow.record("bool", n, first, self.frame, how="bool()")
            return STATIC_V
        if name in ("any", "all") and first is not None and first.traced and len(args) == 1:
            element = vals.element_of(first, iterating=True)
            if self.is_bool_converted(element):
                self.flow.record("bool", n, element, self.frame, how=f"builtin {name}()")
            return STATIC_V
        if name == "hash" and first is not None and first.traced:
            self.flow.record("convert", n, first, self.frame, how="hash()")
            return STATIC_V
        if name == "range":
            self.check_range(n, args)
            return vals.static(pyseq=True)
        if name in ("max", "min"):
            traced_args = [a for a in args if a.traced]
            if len(args) > 1 and any(a.traced and a.leaf != CONTAINER for a in args):
                self.flow.record("bool", n, traced_args[0], self.frame, how=f"builtin {name}()")
                return STATIC_V
            if len(args) == 1 and first is not None and first.traced \
                    and self.is_bool_converted(vals.element_of(first, iterating=True)):
                # `max(sizes)` of a traced array: its rows compared with each other
                self.flow.record("bool", n, first, self.frame, how=f"builtin {name}()")
                return STATIC_V
            return vals.derived(args) if traced_args else STATIC_V
        if name in api.ARITHMETIC_BUILTINS:
            if name in ("round", "divmod") and any(a.diff for a in args):
                return UNKNOWN_V      # no derivative: a concrete value under autodiff alone
            if name == "sum" and first is not None and first.traced:
                return vals.copy(first, leaf=ARRAY, elts=None)
            return vals.derived(args + list(kwargs.values()))
        if name in ("str", "repr", "format", "ascii"):
            return vals.static(pyseq=True, shows=first if first is not None and first.traced else None)
        if name in api.STATIC_BUILTINS:
            return STATIC_V
        # `list(d)`, `sorted(d)` of a pytree of unknown kind may be the str keys of a dict
        keys = first is not None and first.traced and first.leaf == MAYBE and not first.elts
        if name in ("list", "tuple") and first is not None:
            if first.traced:
                return vals.copy(first, leaf=CONTAINER if first.leaf != ARRAY else MAYBE,
                                 maykey=first.maykey or keys)
            return vals.static(pyseq=True) if first.state == STATIC else UNKNOWN_V
        if name in ("zip", "enumerate", "reversed", "sorted", "iter", "map", "filter"):
            if not any(a.traced for a in args):
                # a sequence of static values is static (`zip(sizes[:-1], sizes[1:])`); `map` and
                # `filter` apply a function the result also depends on
                return vals.static(pyseq=True) if args and name not in ("map", "filter") and \
                    all(a.state == STATIC for a in args) else UNKNOWN_V
            return vals.traced(leaf=CONTAINER, path=vals.first_traced(args).path,
                               maykey=keys and name in ("sorted", "reversed", "iter"))
        if name == "dict":
            return vals.static(pyseq=True) if not any(a.traced for a in list(kwargs.values()) + args) else \
                vals.traced(leaf=CONTAINER, path=vals.first_traced(list(kwargs.values()) + args).path)
        return UNKNOWN_V

    def call_api(self, n, qual, args, kwargs) -> V:
        everything = args + list(kwargs.values())
        short = qual.split(".", 1)[1] if qual.startswith(("jnp.", "lax.", "np.")) else qual
        if qual in ("operator.index",) and args and args[0].traced:
            self.flow.record("convert", n, args[0], self.frame, how="operator.index()")
            return STATIC_V
        if qual.startswith("math."):
            bad = vals.first_traced(everything)
            if bad is not None and bad.leaf != CONTAINER:
                self.flow.record("convert", n, bad, self.frame, how=f"{qual}()")
                return STATIC_V
            return STATIC_V if all(v.state == STATIC for v in everything) else UNKNOWN_V
        if qual in api.NUMPY_METADATA:
            return STATIC_V           # np.shape(x), np.dtype(x)...: a Python value, tracer or not
        if qual.startswith("np."):
            bad = vals.first_traced(everything)
            if bad is not None and qual in api.NUMPY_CONVERTING and bad.leaf != CONTAINER:
                self.flow.record("convert", n, bad, self.frame, how=f"{qual}()")
                return STATIC_V
            if bad is not None:
                return vals.derived(everything, text=f"{qual}()")
            if qual in api.NUMPY_ARRAY_RESULTS:
                return vals.static(ndarray=True)
            return STATIC_V if all(v.state == STATIC for v in everything) else UNKNOWN_V
        if qual.startswith("jax.debug."):
            return vals.static(None)
        if qual == "functools.partial" and args:
            inner = args[0]
            if inner.state == FUNC:
                before, before_kw = inner.bound if inner.bound is not None else ([], {})
                return V(FUNC, func=inner.func, closure=inner.closure,
                         bound=(list(before) + list(args[1:]), {**before_kw, **kwargs}), extra=inner.extra)
            return UNKNOWN_V
        if qual in api.CALL_THROUGH_WRAPPERS:
            # `jax.vmap(utils.period_mse)`: a function of another module of the project
            elsewhere = self._external_function(n.args[0]) if args and args[0].state not in (FUNC, WRAPPED) \
                and n.args else None
            if args and (args[0].state in (FUNC, WRAPPED) or qual in api.DIFF_WRAPPERS and args[0].state == UNKNOWN
                         or elsewhere is not None or self._call_method(args[0]) is not None):    # `jax.vmap(model)`
                return V(WRAPPED, wrapper=qual, extra=(args[0], n.keywords, n.args[1:], elsewhere))
            if args and args[0].state == STATIC:
                return UNKNOWN_V
            return UNKNOWN_V
        if qual in api.TRANSFORM_BODY_ARGS or qual == api.SWITCH:
            self.check_concrete_args(n, qual, args, kwargs)
            return self.call_control_flow(n, qual, args, kwargs)
        if qual in api.APPLY_TRANSFORMS:
            return self.call_apply(n, qual, args, kwargs)
        if qual in ("jax.tree_util.tree_map", "jax.tree.map", "jax.tree_map"):
            trees = args[1:]
            if args and args[0].state == FUNC and any(t.traced for t in trees):
                leaves = [vals.copy(t, leaf=MAYBE, elts=None, fields=None, cls=None) if t.traced else t for t in trees]
                mapped = self.call_value(n, args[0], leaves, {})
                if mapped.state == STATIC:
                    return STATIC_V     # `tree_map(lambda x: x is None, tree)`: a tree of Python values
            return vals.derived(trees, leaf=MAYBE) if any(t.traced for t in trees) else UNKNOWN_V
        if qual in api.STATIC_RESULT_FUNCTIONS:
            return STATIC_V
        if qual in api.CONCRETE_FOR_PYTHON_OPERAND:
            operand = args[0] if args else kwargs.get("x")
            if operand is not None and operand.state == STATIC:
                return STATIC_V       # lax.psum(1, axis): the axis size, a Python int
        if (qual.startswith(api.ARRAY_NAMESPACES) or qual in api.ARRAY_FUNCTIONS) and not self.tracing:
            tracers = [v for v in everything if v.traced]
            if not tracers or qual in api.COLLECTIVES:
                # not staged (eager, vmap, grad alone): concrete in, concrete out; a collective of
                # eager shard_map gives the same (concrete) value on every device
                return UNKNOWN_V
            if all(v.diff for v in tracers):
                if qual.rsplit(".", 1)[-1] in api.DIFFERENTIABLE_FUNCTIONS:
                    return vals.derived(everything, text=f"{short}()")     # still carries a derivative
                return UNKNOWN_V
        if qual.startswith(api.ARRAY_NAMESPACES) or qual in api.ARRAY_FUNCTIONS:
            self.check_concrete_args(n, qual, args, kwargs)
            self.check_data_dependent(n, qual, args, kwargs)
            source = vals.first_traced(everything)
            text = f"{short}()"
            boolish = qual in api.BOOLEAN_RESULT
            if source is None:
                return vals.traced(path=(text,), text=text, boolish=boolish)
            params = frozenset().union(*(v.params for v in everything if v.traced))
            return vals.traced(path=source.path + (text,), params=params, text=text, boolish=boolish)
        if any(v.traced for v in everything) and qual.startswith(("jax.tree_util.tree_", "jax.tree.")) \
                and qual.rsplit(".", 1)[-1] in _TREE_CONTAINER_RESULTS:
            return vals.derived(everything, leaf=MAYBE)
        return UNKNOWN_V

    def call_method(self, n, receiver: V, attr: str, args, kwargs) -> V:
        everything = args + list(kwargs.values())
        if attr in _STORING_METHODS:
            for value in everything:
                self.check_leak(n, n.func.value, value, f".{attr}()")
        if receiver.state == vals.AT:
            base = receiver.extra
            return vals.derived([base] + everything) if base is not None else UNKNOWN_V
        if receiver.fields and receiver.elts is not None and receiver.cls is not None \
                and attr in ("_replace", "replace") and not args:
            return _replace_fields(receiver, kwargs)
        if receiver.fields and receiver.cls is None and attr in _MUTATING_METHODS \
                and isinstance(n.func.value, ast.Name) and n.func.value.id in self.env.vars:
            self.env.vars[n.func.value.id] = UNKNOWN_V      # its keys change: what they hold is unknown
        field = _attribute_of(receiver, attr)
        if field is not None:
            return self.call_value(n, field, args, kwargs)
        base_call = n.func.value
        if isinstance(base_call, ast.Call) and isinstance(base_call.func, ast.Name) and base_call.func.id == "super" \
                and not base_call.args and self.owner_cls is not None and not self.env.is_local("super"):
            method = self.flow.index.lookup_method(self.owner_cls, attr, skip_own=True)
            if method is not None:      # super().m(...): the base class's def, bound to self
                me = self.env.lookup("self") or UNKNOWN_V
                return self.call_value(n, self.method_value(method, self.owner_cls, me, True), args, kwargs)
        owner, via_instance = self.receiver_class(n.func.value, receiver)
        if owner is not None and via_instance and not receiver.traced \
                and self.flow.index.lookup_method(owner, attr) is None:
            made = self._transformed_method(owner, n.func, receiver)
            if made is not None:         # self.grad = jax.value_and_grad(self.loss); self.grad(...)
                return self.call_value(n, made, args, kwargs)
        if owner is not None and not self._named_receiver(n):
            method = self.flow.index.lookup_method(owner, attr)
            if method is not None:
                jitted = self.flow.jitted_def(method)
                if jitted is not None:      # traced on its own; here only its static arguments matter
                    return self.call_jitted(n, jitted, args, kwargs,
                                            skips_self=method.method_kind == "instance" and via_instance
                                            or method.method_kind == "class")
                return self.call_value(n, self.method_value(method, owner, receiver, via_instance), args, kwargs)
        if receiver.traced:
            if attr in ("item", "tolist", "__array__", "__index__", "__int__", "__float__", "__bool__"):
                if receiver.leaf != CONTAINER:
                    self.flow.record("convert", n, receiver, self.frame, how=f".{attr}()")
                    return STATIC_V
            if receiver.diff:       # autodiff alone: only differentiable results stay tracers
                if attr in api.DIFFERENTIABLE_METHODS and (receiver.leaf == ARRAY or attr in api.ARRAY_METHODS):
                    return vals.copy(receiver, leaf=ARRAY, elts=None, fields=None, cls=None,
                                     path=receiver.path + (f".{attr}()",))
                return UNKNOWN_V
            if receiver.leaf == ARRAY or attr in api.ARRAY_METHODS and receiver.leaf == MAYBE \
                    and attr not in ("get", "copy", "set", "add"):
                self.check_method_args(n, attr, args, kwargs)
                if attr in ("__getitem__",):
                    return vals.copy(receiver, elts=None)
                if attr == "repeat" and args and args[0].traced and "total_repeat_length" not in kwargs:
                    self.flow.record("shape", n, args[0], self.frame, api=".repeat()", arg="repeats")
                boolish = attr == "astype" and n.args and _is_bool_dtype(n.args[0], self.imports)
                return vals.traced(path=receiver.path + (f".{attr}()",), params=receiver.params,
                                   text=f".{attr}()", boolish=bool(boolish))
            if attr in ("keys",):
                return vals.static(pyseq=True)
            if attr in ("get", "pop") and isinstance(receiver.extra, frozenset) and n.args \
                    and isinstance(n.args[0], ast.Constant) and n.args[0].value in receiver.extra:
                return STATIC_V   # a static_argnames entry of **kwargs
            if attr in ("values", "items", "get", "copy", "pop", "setdefault"):
                return vals.copy(receiver, leaf=MAYBE, elts=None)
            if attr in ("replace", "_replace"):
                return vals.copy(receiver, leaf=MAYBE, elts=None)
            return UNKNOWN_V
        if receiver.state == STATIC and isinstance(receiver.const, str) and attr == "format":
            shown = vals.first_traced(everything)
            if shown is not None:
                if re.search(r"\{[^{}]*:[^{}]*[bcdeEfFgGnoxX%]\}", receiver.const):
                    self.flow.record("convert", n, shown, self.frame, how="str.format with a number format")
                    return STATIC_V
                return vals.static(pyseq=True, shows=shown)
            return vals.static(pyseq=True)
        if self._named_receiver(n):
            owner, via_instance = self.receiver_class(n.func.value, receiver)
            method = self.flow.index.lookup_method(owner, attr)
            if method is not None:
                return self.call_value(n, self.method_value(method, owner, receiver, via_instance), args, kwargs)
        jitted = self.flow.jitted_by_attr.get(attr)
        if jitted is not None and isinstance(n.func, ast.Attribute):
            return self.call_jitted(n, jitted, args, kwargs,
                                    skips_self=jitted.func is not None and jitted.func.is_method)
        if receiver.state == FUNC:
            return UNKNOWN_V
        if receiver.state == STATIC and receiver.pyseq and attr in ("index", "count") and \
                any(a.traced for a in args):
            self.flow.record("bool", n, vals.first_traced(args), self.frame, how=f"list.{attr}()")
            return STATIC_V
        source = vals.first_traced(everything)
        if source is not None and self._layer_attribute(n, receiver, attr):
            return vals.traced(leaf=MAYBE, path=source.path + (f".{attr}()",), params=source.params)
        return UNKNOWN_V

    def _layer_attribute(self, n, receiver: V, attr: str) -> bool:
        """Is `obj.attr`, on an object of a class of this file, a layer of a framework its methods
        build (`self.linear1 = nnx.Linear(...)` in `__init__`), and nothing else?"""
        if not isinstance(n.func, ast.Attribute):
            return False
        owner, via_instance = self.receiver_class(n.func.value, receiver)
        if owner is None or not via_instance or self.flow.index.lookup_method(owner, attr) is not None:
            return False
        values = self.flow.index.attribute_assignments(owner, attr)
        if not values:
            return False
        for value in values:
            if not isinstance(value, ast.Call):
                return False
            name = self.imports.resolve(value.func) or ""
            last = name.rpartition(".")[2]
            if not name.startswith(api.LAYER_NAMESPACES) or not last[:1].isupper():
                return False
        return True

    def _named_receiver(self, n) -> bool:
        """`self.m(...)` / `cls.m(...)` in a method, with `self` of no known value."""
        return isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name) \
            and n.func.value.id in ("self", "cls") and self.owner_cls is not None

    def check_method_args(self, n, attr, args, kwargs):
        for pos, kw in api.CONCRETE_METHOD_ARGS.get(attr, ()):
            candidates = []
            if pos == "*":
                candidates = list(args)
            elif pos is not None and pos < len(args):
                candidates = [args[pos]]
            if kw is not None and kw in kwargs:
                candidates.append(kwargs[kw])
            for value in candidates:
                if value.traced:
                    what = kw or "axis"
                    self.flow.record("shape", n, value, self.frame, api=f".{attr}()", arg=what)
                    return

    def check_concrete_args(self, n, qual, args, kwargs):
        spec = api.CONCRETE_ARGS.get(qual)
        short = qual[4:] if qual.startswith(("jnp.", "lax.")) else qual
        display = ("jnp." if qual.startswith("jnp.") else "lax." if qual.startswith("lax.") else "") + short
        if spec:
            for pos, kw in spec:
                value = None
                starred_before = any(isinstance(a, ast.Starred) for a in n.args[:(pos or 0) + 1])
                if pos is not None and pos < len(args) and not starred_before:
                    value = args[pos]
                elif kw is not None and kw in kwargs:
                    value = kwargs[kw]
                if value is not None and value.traced and (qual, kw) in api.ARRAY_ALSO_ACCEPTED:
                    return        # an array of edges is fine traced: not known to be a count
                if value is not None and value.traced:
                    kind = "slice" if qual in api.SLICE_SIZE_APIS else "shape"
                    self.flow.record(kind, n, value, self.frame, api=display + "()", arg=kw or f"argument {pos}")
                    return
        repeat = api.REPEAT_TOTAL_LENGTH.get(qual)
        if repeat is not None:
            (pos, kw), total = repeat
            value = args[pos] if pos < len(args) else kwargs.get(kw)
            if value is not None and value.traced and total not in kwargs:
                self.flow.record("shape", n, value, self.frame, api=display + "()", arg=kw)

    def check_data_dependent(self, n, qual, args, kwargs):
        display = qual
        if qual == "jnp.where":
            if len(args) == 1 and not kwargs and args[0].traced:
                self.flow.record("datadep", n, args[0], self.frame, api="jnp.where() with one argument")
            return
        if qual in api.DATA_DEPENDENT_SHAPE:
            size_kw = api.DATA_DEPENDENT_SHAPE[qual]
            if size_kw is not None and size_kw in kwargs:
                if kwargs[size_kw].traced:
                    self.flow.record("shape", n, kwargs[size_kw], self.frame, api=display + "()", arg=size_kw)
                return
            size_pos = api.SIZE_POSITIONS.get(qual)
            if size_pos is not None and len(args) > size_pos:
                return      # the size keyword passed by position
            source = vals.first_traced(args)
            if source is not None:
                self.flow.record("datadep", n, source, self.frame, api=display + "()", size=size_kw)

    def call_control_flow(self, n, qual, args, kwargs) -> V:
        """Run the bodies of lax control flow with traced parameters (the closure stays live)."""
        def body_at(pos, kw):
            if pos < len(args):
                return args[pos]
            return kwargs.get(kw)

        def node_at(pos, kw):
            if pos < len(n.args):
                return n.args[pos]
            return next((k.value for k in n.keywords if k.arg == kw), None)

        def run(body, node, argv):
            self._run_body(n, node, body, argv, qual)
        carry = None
        if qual == "lax.scan":
            f, init, xs = body_at(0, "f"), body_at(1, "init"), body_at(2, "xs")
            init = self._to_traced(init, "carry")
            xs = self._to_traced(xs, "x") if xs is not None and xs.const is not None else vals.static(None)
            if f is not None:
                run(f, node_at(0, "f"), [init, vals.copy(xs, leaf=MAYBE) if xs.traced else xs])
            return vals.traced(leaf=CONTAINER, path=("lax.scan()",), text="lax.scan()")
        if qual == "lax.fori_loop":
            body, init = body_at(2, "body_fun"), body_at(3, "init_val")
            if body is not None:
                run(body, node_at(2, "body_fun"),
                    [vals.traced(path=("i",), text="loop index"), self._to_traced(init, "carry")])
            return self._to_traced(init, "carry")
        if qual == "lax.while_loop":
            cond, body, init = body_at(0, "cond_fun"), body_at(1, "body_fun"), body_at(2, "init_val")
            carry = self._to_traced(init, "carry")
            for f, node in ((cond, node_at(0, "cond_fun")), (body, node_at(1, "body_fun"))):
                if f is not None:
                    run(f, node, [carry])
            return carry
        if qual == "lax.cond":
            operands = [self._to_traced(a, "operand") for a in args[3:]]
            for f, node in zip(args[1:3], n.args[1:3]):
                run(f, node, operands)
            return vals.traced(leaf=MAYBE, path=("lax.cond()",), text="lax.cond()")
        if qual == "lax.switch":
            operands = [self._to_traced(a, "operand") for a in args[2:]]
            if len(n.args) > 1 and isinstance(n.args[1], (ast.List, ast.Tuple)):
                for elt in n.args[1].elts:
                    run(self.eval(elt), elt, operands)
            return vals.traced(leaf=MAYBE, path=("lax.switch()",), text="lax.switch()")
        if qual == "lax.map":
            f, xs = body_at(0, "f"), body_at(1, "xs")
            if f is not None:
                run(f, node_at(0, "f"), [self._to_traced(xs, "x")])
            return vals.traced(leaf=MAYBE, path=("lax.map()",), text="lax.map()")
        return vals.traced(leaf=MAYBE, path=(qual + "()",))

    def _run_body(self, n, node, body: V, argv: list, qual: str) -> None:
        """Run a body of lax control flow (`node`, its expression in the call `n`) with `argv`. A
        function of another module of the project (`lax.scan(steps.euler_step, ...)`) is run
        there: its call is recorded for that module, as a call with these arguments."""
        if body.state not in (FUNC, WRAPPED) and node is not None and self.flow.external is not None \
                and any(v.traced for v in argv):
            target = self._external_function(node)
            if target is not None:
                self.flow.external.record(target, n, argv, {}, self.frame, arg_nodes=[None] * len(argv))
        self.call_value(n, body, argv, {}, transform=qual)

    def call_apply(self, n, qual, args, kwargs) -> V:
        """`jax.eval_shape(f, *args)`, `jax.vjp(f, *primals)`, `jax.jvp(f, primals, tangents)`,
        `jax.linearize(f, *primals)`: f is traced at once with those arguments."""
        mode, how = api.APPLY_TRANSFORMS[qual]
        if not args or args[0].state not in (FUNC, WRAPPED) or any(isinstance(a, ast.Starred) for a in n.args):
            return UNKNOWN_V
        if how == "args":
            passed, passed_kw = args[1:], (kwargs if qual == "jax.eval_shape" else {})
        else:
            primals = args[1] if len(args) > 1 else kwargs.get("primals")
            if primals is None or primals.elts is None:
                return UNKNOWN_V
            passed, passed_kw = list(primals.elts), {}
        if self.tracing:
            self.call_value(n, args[0], [self._to_traced(a, "argument") for a in passed],
                            {k: self._to_traced(v, k) for k, v in passed_kw.items()})
            return vals.traced(leaf=MAYBE, path=(f"{qual}()",), text=f"{qual}()") if qual != "jax.eval_shape" else UNKNOWN_V
        convert = _as_diff if mode == "diff" else (lambda v: self._to_traced(v, "argument"))
        self.call_value(n, args[0], [convert(a) for a in passed], {k: convert(v) for k, v in passed_kw.items()},
                        transform=qual)
        return UNKNOWN_V

    def _to_traced(self, v, name):
        return _as_traced(v, name, self.flow.index.static_fields)

    def _to_diff(self, v):
        return _as_diff(v, self.flow.index.static_fields)

    def call_value(self, n, callee: V, args, kwargs, transform: Optional[str] = None) -> V:
        if callee.state == WRAPPED:
            inner, keywords, positional_options, elsewhere = callee.extra
            wrapper = callee.wrapper
            if inner.state not in (FUNC, WRAPPED):
                inner = self._call_method(inner) or inner     # `jax.vmap(model)`: its `__call__`
            if inner.state not in (FUNC, WRAPPED) and elsewhere is not None and self.tracing:
                if wrapper == "jax.vmap":       # its body sees one example of each batched argument
                    unbatched = _vmap_unbatched(keywords, positional_options, len(args), self.flow.index.constants)
                    args = [a if i in unbatched else (_staged(a, MAYBE) if a.traced else _batched(a))
                            for i, a in enumerate(args)]
                if any(v.traced for v in args) or any(v.traced for v in kwargs.values()):
                    self.flow.external.record(elsewhere, n, args, kwargs, self.frame)
            if inner.state not in (FUNC, WRAPPED):
                if wrapper in api.DIFF_WRAPPERS and self.tracing:
                    # a derivative of traced values is traced, whatever the function (one of
                    # another module, a parameter): its body need not be known
                    source = vals.first_traced(args + list(kwargs.values()))
                    if source is not None:
                        return vals.traced(leaf=MAYBE, path=source.path + (f"{wrapper}()",), params=source.params)
                    return vals.traced(leaf=MAYBE, path=(f"{wrapper}()",), text=f"{wrapper}()")   # staged
                return UNKNOWN_V
            if wrapper in ("jax.jit", "eqx.filter_jit", "nnx.jit", "jax.pmap"):
                return self.call_value(n, inner, args, kwargs)
            if wrapper in api.DIFF_WRAPPERS:
                if not self.tracing:      # autodiff alone: the differentiated arguments become tracers
                    argnums = _argnums(wrapper, keywords, positional_options, self.flow.index.constants)
                    if argnums is not None:
                        chosen = {i % len(args) for i in argnums if -len(args) <= i < len(args)}
                        self.call_value(n, inner, [self._to_diff(a) if i in chosen else a for i, a in enumerate(args)],
                                        kwargs, transform=wrapper)
                    return UNKNOWN_V      # the gradient of concrete values is concrete
                self.call_value(n, inner, args, kwargs)
                source = vals.first_traced(args + list(kwargs.values()))
                if source is None:      # under a trace the derivative is staged, even of constants
                    return vals.traced(leaf=MAYBE, path=(f"{wrapper}()",), text=f"{wrapper}()")
                return vals.traced(leaf=MAYBE, path=source.path + (f"{wrapper}()",), params=source.params)
            if wrapper == "jax.vmap":
                unbatched = _vmap_unbatched(keywords, positional_options, len(args), self.flow.index.constants)
                args = [a if i in unbatched else (_staged(a, MAYBE) if a.traced else _batched(a))
                        for i, a in enumerate(args)]
            elif wrapper in api.STAGING_WRAPPERS and not self.tracing:
                static = _static_argnums(keywords, self.flow.index.constants)
                if wrapper == "jax.shard_map":
                    static = shard_map_passthrough(keywords, [None, *positional_options], len(args)) \
                        if static is not None else None
                if static is None:
                    return UNKNOWN_V
                args = [a if i in static else self._to_traced(a, "argument") for i, a in enumerate(args)]
                kwargs = {k: self._to_traced(v, k) for k, v in kwargs.items()}
            tracer = wrapper if wrapper in api.TRACING_WRAPPERS else None
            return self.call_value(n, inner, args, kwargs, transform=tracer)
        if callee.state == vals.CLASS and transform is None:
            return self.construct(n, callee.cls, args, kwargs)
        if callee.state == vals.OBJECT and transform is None:
            bound = self._call_method(callee)
            return self.call_value(n, bound, args, kwargs) if bound is not None else UNKNOWN_V
        if callee.state != FUNC or callee.func is None:
            jitted = self._jitted_for_name(n)
            if jitted is not None:
                return self.call_jitted(n, jitted, args, kwargs)
            if callee.state == TRACED and transform is None:
                # a traced pytree of a class of the file called (`model(x)` with `model: MLP`
                # under jit): its `__call__`, as `model.__call__(x)` reads
                bound = self._call_method(callee)
                if bound is not None:
                    return self.call_value(n, bound, args, kwargs)
            return UNKNOWN_V
        if callee.bound is not None:
            bound_args, bound_kwargs = callee.bound
            args = list(bound_args) + list(args)
            kwargs = {**bound_kwargs, **kwargs}
        func = callee.func
        jitted = self._jitted_for_name(n)
        if jitted is not None and transform is None and (jitted.func is func or jitted.lam is func):
            return self.call_jitted(n, jitted, args, kwargs)
        return self.analyse_callee(n, func, callee, args, kwargs, transform)

    def _call_method(self, obj: V) -> Optional[V]:
        """The bound `__call__` of an object of a class of the file (a plain object, or a traced
        pytree such as an equinox Module), when the class defines one that is not jitted itself."""
        if obj.cls is None or obj.state not in (vals.OBJECT, TRACED):
            return None
        method = self.flow.index.lookup_method(obj.cls, "__call__")
        if method is None or method.method_kind != "instance" or \
                obj.state == TRACED and self.flow.jitted_def(method) is not None:
            return None
        return self.method_value(method, obj.cls, obj, True)

    def _jitted_for_name(self, n):
        """The jit entry a called name stands for: the name must be the one the entry binds
        (module level, or the def whose local it is, seen from that def or one nested in it)."""
        if not isinstance(n.func, ast.Name):
            return None
        entries = self.flow.jitted_by_name.get(n.func.id, ())
        here = []
        s = self.func if isinstance(self.func, FuncInfo) else self.scope
        while s is not None:
            here.append(s)
            s = s.parent
        for s in here:              # the innermost def that binds the name wins
            for entry in entries:
                if entry.name_scope is s:
                    return entry
        return next((e for e in entries if e.name_scope is None), None)

    def call_jitted(self, n, entry, args, kwargs, skips_self=False) -> V:
        """Calling another jitted function: a tracer reaching its static parameter fails (JAX103)."""
        positional = [p for p in positional_params(entry.args) if p not in entry.bound]
        if skips_self:
            positional = positional[1:]
        for i, value in enumerate(args):
            if i < len(positional) and positional[i] in entry.static and value.traced:
                self.flow.record("static-arg", n, value, self.frame, callee=entry.name, param=positional[i])
        for name, value in kwargs.items():
            if name in entry.static and value.traced:
                self.flow.record("static-arg", n, value, self.frame, callee=entry.name, param=name)
        source = vals.first_traced(args + list(kwargs.values()))
        if source is None:
            if self.tracing:      # a jitted call inside a trace is staged: its results are tracers
                return vals.traced(leaf=MAYBE, path=(f"{entry.name}()",), text=f"jitted `{entry.name}()`")
            return UNKNOWN_V
        return vals.traced(leaf=MAYBE, path=source.path + (f"{entry.name}()",), params=source.params)

    def analyse_callee(self, n, func, callee: V, args, kwargs, transform) -> V:
        node = func.node if isinstance(func, FuncInfo) else func
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return UNKNOWN_V
        is_method = callee.extra == "method"
        receiver = self.self_value if is_method else None
        if not is_method and args and isinstance(func, FuncInfo) and func.cls is not None \
                and func.method_kind == "instance" and self.flow.is_outside(args[0]):
            receiver = args[0]      # `LOGGER.log(...)`: an object made before the trace is `self`
        bindings = bind_arguments(node.args, args, kwargs, skip_first=is_method)
        has_closure = callee.closure is not None
        batching = transform in api.BATCHING_WRAPPERS
        staged = transform is not None and not _autodiff_only(transform) and not batching
        starts_trace = transform is not None and not self.tracing
        if not any(v.traced or _holds_tracers(v) for v in bindings.values()) and not has_closure \
                and not starts_trace and not (self.tracing and (self._under_jit() or self._rebinds_outer_names(node))):
            # Under jit a helper runs even on static arguments: what its jnp/random calls make is
            # a tracer (`int(jnp.ceil(T / dt))`, `key, sub = random.split(key)` into a global).
            # Not in a lax body traced from a function run eagerly: following every such helper
            # there raised the peak memory of a library-corpus run by 17 MB (165 -> 182 MB) for
            # one class of finding (`int(jnp.ceil(T / dt))` in a fori_loop body's helper).
            return UNKNOWN_V
        defaults = parameter_defaults(func, self.flow.index)
        for name in param_names(node.args):
            if name not in bindings:
                bindings[name] = defaults.get(name, UNKNOWN_V)
        bindings = {k: v.extend(k) for k, v in bindings.items()}
        if self.depth >= MAX_DEPTH:
            return UNKNOWN_V
        key = (id(node), tuple(sorted((k, v.signature()) for k, v in bindings.items())),
               id(callee.closure) if has_closure else None, self.tracing or staged,
               self.flow.is_outside(receiver))
        if key in self.flow.memo:
            return self.flow.memo[key]
        if key in self.flow.in_progress:
            return UNKNOWN_V
        self.flow.runs += 1
        if self.flow.runs > MAX_FUNCTION_RUNS:
            raise Budget()
        name = func.qualname if isinstance(func, FuncInfo) else "<lambda>"
        chain = self.frame.chain
        if not isinstance(node, ast.Lambda):
            chain = chain + ((name, n.lineno, transform),)
        frame = Frame(function=name if not isinstance(node, ast.Lambda) else self.frame.function,
                      entry=self.frame.entry, entry_kind=self.frame.entry_kind, chain=chain,
                      muted=self.frame.muted or self.flow.inspects_tracers(node), origin=self.frame.origin,
                      arrays=self.frame.arrays)
        if starts_trace:     # a plain function hands this body to lax/vmap/grad: tracing starts here
            kind = "vmapped function" if transform == "jax.vmap" else "differentiated function" \
                if transform in api.DIFF_WRAPPERS else f"{transform} body"
            frame = Frame(function=name, entry=name, entry_kind=kind, muted=self.flow.inspects_tracers(node))
        owner = func.cls if isinstance(func, FuncInfo) and func.cls is not None else self.owner_cls
        self.flow.in_progress.add(key)
        try:
            run = FunctionRun(self.flow, func, Env(callee.closure, bindings), frame, self.depth + 1,
                              self_value=receiver, owner_cls=owner,
                              tracing=self.tracing or staged, unrolls=self.unrolls or staged or batching,
                              scope=func.parent if isinstance(func, FuncInfo) and callee.closure is None else None)
            result = run.run()
        finally:
            self.flow.in_progress.discard(key)
        self.flow.memo[key] = result
        return result


def fails_under_autodiff(kind, detail) -> bool:
    """Does this use of a tracer of autodiff alone (whose primal value is concrete) fail? Under
    `jax.grad` without jit, `float()`, `math.*`, `.tolist()`, NumPy conversions, hashing and
    numeric formatting fail; `if`, `int()`, `.item()`, indexing and shapes work (JAX 0.10.2)."""
    if kind != "convert":
        return False
    how = detail.get("how", "")
    return how in api.FAILS_UNDER_AUTODIFF or how.startswith(("math.", "np.", "format with"))


_TRACER_CHECK = re.compile(r"tracer|is_concrete|concrete_or_none|core\.is_constant", re.IGNORECASE)


def _text_may_inspect_tracers(lines, node) -> bool:
    if lines is None or getattr(node, "end_lineno", None) is None:
        return True
    start = min([node.lineno] + [dec.lineno for dec in getattr(node, "decorator_list", ())])
    return any(_TRACER_CHECK.search(line) for line in lines[start - 1:node.end_lineno])


def inspects_tracers(node, module_level=None) -> bool:
    """Does this function test whether its values are tracers? Then it is written to work both
    traced and eagerly, and its branches on tracers are deliberate: stay silent there. A test of
    values read from module-level names only (`module_level(name)` says which) is decided: what
    a module makes at import is concrete under every trace, so such a test mutes nothing."""
    mentions, decided = [], set()
    for sub in walk(node):
        if isinstance(getattr(sub, "ctx", None), ast.Store):
            continue        # `self._saved_tracer = x` keeps a value: it tests nothing
        if isinstance(sub, ast.Name) and _TRACER_CHECK.search(sub.id) or \
                isinstance(sub, ast.Attribute) and _TRACER_CHECK.search(sub.attr):
            mentions.append(sub)
        elif module_level is not None and isinstance(sub, ast.Call) and sub.args:
            tested = _tracer_test(sub)
            if tested is not None and all(isinstance(a, ast.Name) and module_level(a) for a in sub.args[:tested]):
                decided.update(id(n) for n in walk(sub.func if tested == len(sub.args) else sub.args[1]))
    return any(id(sub) not in decided for sub in mentions)


def _tracer_test(call: ast.Call) -> Optional[int]:
    """How many leading arguments a call tests for being tracers: all of them for a test function
    (`is_tracer(x)`, `core.is_concrete(x)`), the first for `isinstance(x, core.Tracer)`; None when
    the call is no such test."""
    func = call.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    if name == "isinstance" and len(call.args) == 2:
        return 1 if any(isinstance(n, (ast.Name, ast.Attribute)) and
                        _TRACER_CHECK.search(n.id if isinstance(n, ast.Name) else n.attr)
                        for n in walk(call.args[1])) else None
    return len(call.args) if _TRACER_CHECK.search(name) and not call.keywords else None


def _field_of(base: V, attr: str) -> Optional[V]:
    """`state.step` of a record, `d["step"]` of a dict, whose fields are known."""
    if base.fields and base.elts is not None and attr in base.fields and len(base.elts) == len(base.fields):
        return base.elts[base.fields.index(attr)]
    return None


def _own_returns(func_node) -> list:
    """The `return` statements of a def itself, not of the defs, lambdas and classes inside it."""
    found, stack = [], list(func_node.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Return):
            found.append(node)
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))
    return found


def _holds_tracers(v: V) -> bool:
    """An object of a plain class with a traced attribute (`self.a = a` in its __init__)."""
    return v.state == vals.OBJECT and bool(v.elts) and any(e.traced for e in v.elts)


def _attribute_of(base: V, attr: str) -> Optional[V]:
    """`state.step`: a field of a record (a dict's keys are not attributes)."""
    return _field_of(base, attr) if base.cls is not None else None


def _replace_fields(record: V, kwargs: dict) -> V:
    """`state._replace(step=...)` / `state.replace(...)`: the same record, some fields new."""
    elts = tuple(kwargs.get(name, elt) for name, elt in zip(record.fields, record.elts))
    source = vals.first_traced(elts)
    if source is None:
        return V(vals.OBJECT, cls=record.cls, elts=elts, fields=record.fields)
    return vals.copy(vals.traced(leaf=CONTAINER, elts=elts, path=source.path,
                                 params=frozenset().union(*(e.params for e in elts if e.traced))),
                     cls=record.cls, fields=record.fields)


# Sinks where JAX raises at trace time (TracerBoolConversionError, ConcretizationTypeError, ...):
# code that catches the error around them does not fail.
_RAISING_SINKS = frozenset({"bool", "convert", "datadep", "shape", "slice"})


def bind_arguments(spec: ast.arguments, args, kwargs: dict, skip_first: bool = False) -> dict:
    """Parameter name -> value, for a call of a def with parameters `spec` (`args`: the values of
    its positional arguments, in order; `kwargs`: keyword -> value). Positional arguments beyond
    the parameters are collected into *args, keywords no parameter takes into **kwargs (a dict
    keyed by them); `skip_first`: the first parameter (`self`) is bound elsewhere. Parameters
    the call leaves out are absent (see parameter_defaults)."""
    names = param_names(spec)
    positional = positional_params(spec)
    if skip_first and positional:
        positional = positional[1:]
    bindings = {}
    for i, value in enumerate(args):
        if i < len(positional):
            bindings[positional[i]] = value
        elif spec.vararg is not None:
            star = spec.vararg.arg
            bindings[star] = vals.join(bindings.get(star), _as_element_of_star(value))
    extra = {}
    for name, value in kwargs.items():
        if name in names:
            bindings[name] = value
        elif spec.kwarg is not None:
            extra[name] = value
    if extra:       # **kwargs: a dict whose keys are the keywords (static strings)
        bindings[spec.kwarg.arg] = vals.str_keyed(tuple(extra), tuple(extra.values()))
    return bindings


def parameter_defaults(func, index: ModuleIndex) -> dict:
    """Parameter name -> what a parameter holds when a call leaves it out: its literal default's
    value (`n=3`), the function a module-level def's default names (`reg=reg_norm`: a call through
    the parameter calls it), a static value of another default expression; *args and **kwargs
    hold nothing known. Parameters without a default are absent."""
    node = func.node if isinstance(func, FuncInfo) else func
    spec = node.args
    found = {}
    top_level = isinstance(func, FuncInfo) and func.parent is None and func.cls is None
    for name, default in arg_defaults(spec).items():
        if top_level and isinstance(default, ast.Name) and default.id in index.top_functions \
                and default.id not in index.rebound_globals:
            found[name] = V(FUNC, func=index.top_functions[default.id], closure=None)
            continue
        try:
            found[name] = vals.static(evaluate_literal(default))
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            found[name] = STATIC_V
    for star in (spec.vararg, spec.kwarg):
        if star is not None:
            found[star.arg] = UNKNOWN_V
    return found


def _as_element_of_star(value: V) -> V:
    """A value collected into *args/**kwargs: the parameter holds a container of it."""
    return vals.copy(value, leaf=CONTAINER) if value.traced else value


def _is_bool_dtype(node, imports) -> bool:
    if isinstance(node, ast.Name) and node.id == "bool":
        return True
    name = imports.resolve(node) or ""
    return name in ("jnp.bool_", "np.bool_", "jnp.bool")


def _as_traced(v: Optional[V], name: str, static_fields=frozenset()) -> V:
    """What a lax primitive (or jit, eval_shape, shard_map) passes to its body for the value `v`
    given as init/operand/argument: a tracer for each leaf. A record keeps its fields, and its
    fields declared static (`pytree_node=False`, `static=True`) keep their values."""
    if v is None:
        return vals.traced(leaf=MAYBE, path=(name,))
    if v.elts is not None and v.fields and len(v.fields) == len(v.elts):
        elts = tuple(e if f in static_fields else _as_traced(e, name, static_fields) for f, e in zip(v.fields, v.elts))
        if vals.first_traced(elts) is None:
            return vals.copy(v, diff=False, maykey=False, elts=elts)
        return vals.copy(vals.traced(leaf=CONTAINER, elts=elts, path=(name,)), cls=v.cls, fields=v.fields)
    if v.traced and v.elts is not None:
        return vals.copy(v, diff=False, maykey=False, elts=tuple(_as_traced(e, name, static_fields) for e in v.elts))
    if v.traced:
        return _staged(v, MAYBE if v.leaf != ARRAY else ARRAY)
    if v.state == STATIC and v.const is None:
        return v
    if v.state in (FUNC, WRAPPED, vals.CLASS):
        return v
    if v.state == STATIC and isinstance(v.const, (int, float, bool, complex)):
        return vals.traced(leaf=ARRAY, path=(name,))
    traced = vals.traced(leaf=MAYBE if v.elts is None else CONTAINER, path=(name,),
                         elts=tuple(_as_traced(e, name, static_fields) for e in v.elts) if v.elts else None)
    if v.cls is not None:
        traced = vals.copy(traced, cls=v.cls, fields=v.fields if v.elts else None)
    return traced


def _staged(v: V, leaf) -> V:
    """A tracer as a staged trace (jit, lax, vmap) sees it: not one of autodiff alone."""
    if v.leaf == leaf and not v.diff and not v.maykey:
        return v
    return vals.copy(v, leaf=leaf, diff=False, maykey=False)


def _as_diff(v: V, static_fields=frozenset()) -> V:
    """What `jax.grad` (outside jit) passes for a differentiated argument: tracers of autodiff
    alone, whose primal values stay concrete."""
    if v.traced or v.state in (FUNC, WRAPPED, vals.CLASS) or v.state == STATIC and v.const is None:
        return v
    if v.state == STATIC and isinstance(v.const, (int, float, complex)) and not isinstance(v.const, bool):
        return vals.traced(leaf=ARRAY, diff=True)
    if v.elts:
        names = v.fields if v.fields and len(v.fields) == len(v.elts) else (None,) * len(v.elts)
        elts = tuple(e if f in static_fields else _as_diff(e, static_fields) for f, e in zip(names, v.elts))
        if vals.first_traced(elts) is None:
            return v
        return vals.copy(vals.traced(leaf=CONTAINER, elts=elts, diff=True), cls=v.cls, fields=v.fields)
    return vals.copy(vals.traced(leaf=MAYBE, diff=True), cls=v.cls)


def _autodiff_only(transform: str) -> bool:
    return transform in api.DIFF_WRAPPERS or api.APPLY_TRANSFORMS.get(transform, ("",))[0] == "diff"


def _argnums(wrapper, keywords, positional_options, constants) -> Optional[tuple]:
    """`argnums` of `jax.grad(f, argnums=...)` as written; None when it cannot be read."""
    position = api.DIFF_WRAPPERS[wrapper]
    node = positional_options[position - 1] if len(positional_options) >= position else None
    for kw in keywords or ():
        if kw.arg == "argnums":
            node = kw.value
        elif kw.arg is None:
            return None
    return _int_tuple(node, constants, default=(0,))


def _static_argnums(keywords, constants) -> Optional[tuple]:
    node = None
    for kw in keywords or ():
        if kw.arg == "static_argnums":
            node = kw.value
        elif kw.arg is None or kw.arg == "static_argnames":
            return None
    return _int_tuple(node, constants, default=())


def _int_tuple(node, constants, default) -> Optional[tuple]:
    if node is None:
        return default
    if isinstance(node, ast.Name) and node.id in constants:
        value = constants[node.id]
    else:
        try:
            value = evaluate_literal(node)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
    if isinstance(value, int) and not isinstance(value, bool):
        return (value,)
    if isinstance(value, (tuple, list)) and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        return tuple(value)
    return None


def _batched(v: V) -> V:
    if v.state == STATIC and v.const is None:
        return v
    return vals.traced(leaf=MAYBE, path=("batched argument",))


def _vmap_unbatched(keywords, positional_options, nargs, constants) -> set:
    in_axes = positional_options[0] if positional_options else None
    for kw in keywords or ():
        if kw.arg == "in_axes":
            in_axes = kw.value
    if in_axes is None:
        return set()
    return unbatched_positions(in_axes, nargs, constants)


def _fold_none_test(n: ast.Compare, i: int, a: V, b: V, is_: bool) -> V:
    """`x is None` for an `x` known to be None, or known not to be (narrowed by an earlier test,
    or a static value known to be another)."""
    operands = [n.left] + n.comparators
    for expr, other in ((operands[i + 1], a), (operands[i], b)):
        if isinstance(expr, ast.Constant) and expr.value is None:
            if other.nonnull:
                return vals.static(not is_)
            if other.state == STATIC and other.const is None:
                return vals.static(is_)
            if other.state == STATIC and other.const is not vals.NO_CONST:
                return vals.static(not is_)     # a static `max_size=14` passed for `max_size=None`
    return STATIC_V


def _leaves(block) -> bool:
    """Does a block always end in `return` or `raise` (its last statement, or an `if` whose
    branches both do)?"""
    if not block:
        return False
    last = block[-1]
    if isinstance(last, (ast.Return, ast.Raise)):
        return True
    return isinstance(last, ast.If) and bool(last.orelse) and _leaves(last.body) and _leaves(last.orelse)


def _is_none(n: ast.Compare, i: int) -> bool:
    operands = [n.left] + n.comparators
    return any(isinstance(o, ast.Constant) and o.value is None for o in (operands[i], operands[i + 1]))


def _captured_tracer(value: V, depth: int = 0) -> Optional[V]:
    """The tracer a function value closes over (a name its body reads from the enclosing traced
    scope), looked for in a function and in the elements of a container holding one; else None."""
    if depth > 4:
        return None
    if value.state == FUNC and value.closure is not None and value.func is not None:
        node = value.func.node if isinstance(value.func, FuncInfo) else value.func
        for name in sorted(free_names(node)):
            held = value.closure.lookup(name)
            if held is not None and held.traced:
                return held
        return None
    for element in value.elts or ():
        found = _captured_tracer(element, depth + 1) if element is not None else None
        if found is not None:
            return found
    return None


def _format_spec_text(spec) -> str:
    if spec is None:
        return ""
    if isinstance(spec, ast.JoinedStr):
        return "".join(v.value for v in spec.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
    return ""


_PURE_BUILTINS = {"len", "print", "isinstance", "issubclass", "str", "repr", "format", "type", "id",
                  "hasattr", "getattr", "callable", "sorted", "list", "tuple", "dict", "set", "iter",
                  "enumerate", "zip", "range", "min", "max", "sum", "abs", "any", "all", "bool", "int",
                  "float", "hash"}
# Namespaces (canonical roots) whose attributes are API, not program state: a mutator called on
# one (`jnp....`, `np....`) stores nothing the program keeps. Any other module's attribute
# (`metrics.history`) is state that outlives a trace.
_API_MODULES = {"jax", "jnp", "lax", "np", "numpy", "jaxlib", "scipy"}
# Methods that store their argument into the receiver (a list, dict, set or deque).
# (`update`/`add` are left out: `tx.update(grads, state)` and `x.at[i].add(v)` store nothing)
_STORING_METHODS = {"append", "extend", "appendleft"}   # `buffer.insert(state, x)` is often functional
_MUTATING_METHODS = {"update", "pop", "popitem", "setdefault", "clear", "__setitem__", "__delitem__"}
_DIFFERENTIABLE_OPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.MatMult)

_FOLDABLE = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
             ast.FloorDiv: lambda a, b: a // b, ast.Pow: lambda a, b: a ** b if abs(b) < 64 else None}


def _fold(op, left: V, right: V) -> V:
    fn = _FOLDABLE.get(type(op))
    if fn is not None and isinstance(left.const, (int, float)) and isinstance(right.const, (int, float)) \
            and not isinstance(left.const, bool) and not isinstance(right.const, bool):
        try:
            result = fn(left.const, right.const)
            if result is not None and (not isinstance(result, int) or abs(result) < 10 ** 12):
                return vals.static(result)
        except (ArithmeticError, ValueError, TypeError):
            pass
    return STATIC_V


def _fold_compare(op, a: V, b: V) -> V:
    if a.state != STATIC or b.state != STATIC:
        return UNKNOWN_V
    return STATIC_V


def _short(node) -> str:
    """The source of a small expression, for the path of a value (`sizes`, `state.table`)."""
    try:
        text = ast.unparse(node)
    except Exception:  # noqa: BLE001 - unparse of odd nodes
        return "..."
    return text if len(text) <= 40 else text[:37] + "..."
