"""The semantic model of one module: scopes, typed bindings, and which binding a name reads.

Every question "what does this name hold here?" is answered here, for every rule and every
analysis module, with one meaning: the bindings that *reach* the use along the control flow of
its scope (a branch that returns, raises, breaks or continues does not fall through), then, for a
name the scope does not bind, the enclosing function scopes and the module, as Python resolves
names (class bodies are skipped; `global` and `nonlocal` are obeyed).

A scope is built on demand, by one walk of its statements (not of nested scopes), so a file pays
only for the scopes the analysis asks about. Each binding records its kind, the expression bound
to exactly that name (`a, b = x, y` pairs the elements), the blocks that hold it (its *path*, used
for dominance and loops) and where its value becomes visible.

Queries:
- `SemanticModel.scope(node)`: the `Scope` of a def, lambda or class (None or the module: the
  module scope);
- `Scope.reaching(name, stmt)`: the bindings that may reach the start of `stmt`, and whether a path
  reaches it with the name unbound in this scope;
- `Scope.reach(name, node, stmt)`: the finer answer the signature rules need (a loop variable, a
  counter, a value carried around a loop);
- `SemanticModel.values(name, stmt, scope)` / `value(...)`: the expressions a name can hold at a
  statement, through enclosing scopes; `value` only when there is exactly one;
- `SemanticModel.classify(name, scope)`: local, free (an enclosing function's), global or
  unbound, as `symtable` classifies it (tests hold the two equal).
"""

from __future__ import annotations

import ast
import enum
from dataclasses import dataclass, field
from typing import Optional

from jaxlint.analysis.syntax import LineFilter, Parents, child_bodies, child_nodes, target_names

LOOP_STATEMENTS = (ast.For, ast.AsyncFor, ast.While)
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
FUNCTION_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
SCOPE_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
# List/dict/set methods that change a container in place.
MUTATORS = {"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "popitem",
            "sort", "reverse", "__setitem__", "__delitem__", "add", "discard"}
GROWERS = {"append", "extend", "insert"}


class ScopeKind(enum.Enum):
    MODULE = "module"
    CLASS = "class"
    FUNCTION = "function"
    LAMBDA = "lambda"


class BindingKind(enum.Enum):
    PARAMETER = "parameter"
    ASSIGNMENT = "assignment"        # `name = value` (or one element of `a, b = x, y`)
    UNPACKED = "unpacked"            # a target inside a tuple/list/starred target, value unknown
    AUGMENTED = "augmented"          # `name += value`: computed from the old value
    ANNOTATION = "annotation"        # `name: T` without a value: declares, binds nothing
    LOOP_TARGET = "loop-target"      # `for name in ...`
    WITH_TARGET = "with-target"      # `with ... as name`
    EXCEPT_TARGET = "except-target"  # `except E as name`
    IMPORT = "import"
    FUNCTION = "function"            # `def name`
    CLASS = "class"                  # `class name`
    WALRUS = "walrus"                # `(name := value)`
    MATCH = "match"                  # a capture of a `case` pattern
    DELETION = "deletion"            # `del name`: makes the name local, unbinds it
    MARK = "mark"                    # not a binding: a point a query follows (`reads_after`)


class NameScope(enum.Enum):
    """Where a name read in a scope is looked up (symtable's classification)."""
    LOCAL = "local"
    FREE = "free"          # bound by an enclosing function
    GLOBAL = "global"      # the module's (or a builtin)


class ReachKind(enum.Enum):
    BOUND = "bound"            # `binding` dominates the use
    LOOPVAR = "loopvar"        # the target of `loop` around the use
    SELF = "self"              # rebound from itself in `loop` around the use: a counter, an accumulator
    CARRIED = "carried"        # bound before `loop`, rebound inside it after the use (`later`)
    AMBIGUOUS = "ambiguous"    # a binding that does not dominate the use
    UNBOUND = "unbound"        # not bound in the scope


@dataclass(eq=False)
class Binding:
    """One binding of `name` in one scope."""

    name: str
    kind: BindingKind
    stmt: ast.AST                # the statement that binds (the def for a parameter)
    value: Optional[ast.AST]     # the expression bound to exactly this name, when that simple
    path: tuple                  # ((compound statement, field), ...) from the scope body down
    start: tuple                 # (line, col) from which the new value is visible

    @property
    def line(self) -> int:
        return self.stmt.lineno

    @property
    def definition(self) -> Optional[ast.AST]:
        """The def or class node of a FUNCTION / CLASS binding."""
        return self.stmt if self.kind in (BindingKind.FUNCTION, BindingKind.CLASS) else None

    def refers_to_itself(self) -> bool:
        """`n += 1`, `acc = jnp.concatenate([acc, x])`: the new value is computed from the old."""
        if self.kind is BindingKind.AUGMENTED:
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
    """What reaches a use of a name (see ReachKind)."""

    kind: ReachKind
    binding: Optional[Binding] = None
    loop: Optional[ast.AST] = None
    later: list = field(default_factory=list)


@dataclass(frozen=True)
class Reaching:
    """The bindings of one scope that may reach a point, and whether some path reaches it with the
    name unbound there (then an enclosing scope, or an error, supplies it)."""

    bindings: tuple
    maybe_unbound: bool


_UNBOUND = object()       # stands in a flow state for "no binding of this scope"


class Scope:
    """Every binding and in-place change of the names of one scope, with the blocks that hold them."""

    def __init__(self, kind: ScopeKind, node: Optional[ast.AST], body: list, parent: Optional["Scope"],
                 scan_expressions: bool = True, mutator_lines: Optional[LineFilter] = None):
        self.kind = kind
        self.node = node
        self.body = body
        self.parent = parent
        self.by_name: dict = {}           # name -> [Binding] in source order
        self.mutations: dict = {}
        self.attribute_stores: dict = {}  # name -> [(attribute, value, statement)]: `name.attr = value`
        self.path_of: dict = {}           # id(statement) -> path of the block that holds it
        self.declared_global: set = set()
        self.declared_nonlocal: set = set()
        self._scan = scan_expressions
        self._mutator_lines = mutator_lines   # lines naming a mutating method (None: every line)
        self._flows: dict = {}            # name -> {id(stmt): state at its start}, "exit": state
        self.statements: list = []        # every statement of the scope, in source (pre-)order
        self._at_line: dict = {}
        if node is not None and isinstance(node, FUNCTION_NODES):
            start = (node.lineno, node.col_offset)
            for arg in _arguments(node.args):
                self._add(arg.arg, BindingKind.PARAMETER, node, None, (), start)
        self._walk(body, ())

    # -- the walk -------------------------------------------------------------------------------
    def _walk(self, body, path):
        for stmt in body:
            self.path_of[id(stmt)] = path
            self.statements.append(stmt)
            self._record(stmt, path)
            if isinstance(stmt, SCOPE_NODES):
                continue
            if isinstance(stmt, (ast.With, ast.AsyncWith)):
                self._walk(stmt.body, path)          # a with-block always runs its body
                continue
            for name in ("body", "orelse", "finalbody"):
                block = getattr(stmt, name, None)
                if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                    self._walk(block, path + ((stmt, name),))
            for i, handler in enumerate(getattr(stmt, "handlers", ()) or ()):
                if handler.name:
                    self._add(handler.name, BindingKind.EXCEPT_TARGET, stmt, None, path + ((stmt, f"handler{i}"),),
                              (handler.lineno, handler.col_offset))
                self._walk(handler.body, path + ((stmt, f"handler{i}"),))
            for i, case in enumerate(getattr(stmt, "cases", ()) or ()):
                for sub in ast.walk(case.pattern):
                    name = getattr(sub, "name", None) if isinstance(sub, (ast.MatchAs, ast.MatchStar)) else \
                        getattr(sub, "rest", None) if isinstance(sub, ast.MatchMapping) else None
                    if name:
                        self._add(name, BindingKind.MATCH, stmt, None, path + ((stmt, f"case{i}"),),
                                  (stmt.lineno, stmt.col_offset))
                self._walk(case.body, path + ((stmt, f"case{i}"),))

    def _add(self, name, kind, stmt, value, path, start):
        self.by_name.setdefault(name, []).append(Binding(name, kind, stmt, value, path, start))

    def _record(self, stmt, path):
        end = (stmt.end_lineno, stmt.end_col_offset)
        kind = type(stmt)
        if kind is ast.Assign or kind is ast.AnnAssign:
            targets = stmt.targets if kind is ast.Assign else [stmt.target]
            for target in targets:
                if stmt.value is None:
                    if isinstance(target, ast.Name):
                        self._add(target.id, BindingKind.ANNOTATION, stmt, None, path, end)
                    continue
                if isinstance(target, ast.Name):
                    self._add(target.id, BindingKind.ASSIGNMENT, stmt, stmt.value, path, end)
                elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(stmt.value, (ast.Tuple, ast.List)) \
                        and len(target.elts) == len(stmt.value.elts) \
                        and all(isinstance(t, ast.Name) for t in target.elts):
                    for t, v in zip(target.elts, stmt.value.elts):
                        self._add(t.id, BindingKind.ASSIGNMENT, stmt, v, path, end)
                elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
                    self.attribute_stores.setdefault(target.value.id, []).append((target.attr, stmt.value, stmt))
                else:
                    for name in target_names(target):
                        self._add(name, BindingKind.UNPACKED, stmt, None, path, end)
                    self._subscript_store(target, path)
        elif kind is ast.AugAssign:
            if isinstance(stmt.target, ast.Name):
                left = ast.copy_location(ast.Name(id=stmt.target.id, ctx=ast.Load()), stmt.target)
                value = ast.copy_location(ast.BinOp(left=left, op=stmt.op, right=stmt.value), stmt)
                self._add(stmt.target.id, BindingKind.AUGMENTED, stmt, value, path, end)
                method = "extend" if isinstance(stmt.op, ast.Add) else "aug"
                self.mutations.setdefault(stmt.target.id, []).append(Mutation(stmt.target.id, stmt, method, path))
            else:
                self._subscript_store(stmt.target, path)
        elif kind is ast.For or kind is ast.AsyncFor:
            start = (stmt.body[0].lineno, stmt.body[0].col_offset) if stmt.body else end
            for name in target_names(stmt.target):
                self._add(name, BindingKind.LOOP_TARGET, stmt, None, path, start)
        elif kind is ast.With or kind is ast.AsyncWith:
            for item in stmt.items:
                if item.optional_vars is not None:
                    for name in target_names(item.optional_vars):
                        self._add(name, BindingKind.WITH_TARGET, stmt, None, path, (stmt.lineno, stmt.col_offset))
        elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            self._add(stmt.name, BindingKind.FUNCTION, stmt, None, path, (stmt.lineno, stmt.col_offset))
        elif kind is ast.ClassDef:
            self._add(stmt.name, BindingKind.CLASS, stmt, None, path, (stmt.lineno, stmt.col_offset))
        elif kind is ast.Import or kind is ast.ImportFrom:
            for alias in stmt.names:
                if alias.name != "*":
                    name = alias.asname or alias.name.split(".")[0]
                    self._add(name, BindingKind.IMPORT, stmt, None, path, end)
        elif kind is ast.Delete:
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    self._add(target.id, BindingKind.DELETION, stmt, None, path, end)
                self._subscript_store(target, path, "__delitem__")
        elif kind is ast.Global:
            self.declared_global.update(stmt.names)
        elif kind is ast.Nonlocal:
            self.declared_nonlocal.update(stmt.names)
        if kind in (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return):
            if self._scan or self._mutator_lines is None or self._mutator_lines.touches(stmt):
                self._method_calls(stmt, path)
        elif self._scan:
            self._walrus_in(stmt, path)

    def _subscript_store(self, target, path, method="__setitem__"):
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            name = target.value.id
            self.mutations.setdefault(name, []).append(Mutation(name, target, method, path))

    def _method_calls(self, stmt, path):
        value = getattr(stmt, "value", None)
        if value is None or isinstance(value, (ast.Constant, ast.Name, ast.Attribute)):
            return
        for node in _expression_nodes(value):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and isinstance(node.func.value, ast.Name) and node.func.attr in MUTATORS:
                name = node.func.value.id
                self.mutations.setdefault(name, []).append(Mutation(name, node, node.func.attr, path))
            elif isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
                self._add(node.target.id, BindingKind.WALRUS, stmt, node.value, path,
                          (stmt.end_lineno, stmt.end_col_offset))

    def _walrus_in(self, stmt, path):
        """`:=` in the expressions a compound statement evaluates itself (`if (n := len(x)):`)."""
        for expr in _own_expressions(stmt):
            for node in _expression_nodes(expr):
                if isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
                    self._add(node.target.id, BindingKind.WALRUS, stmt, node.value, path,
                              (node.end_lineno, node.end_col_offset))

    # -- questions ------------------------------------------------------------------------------
    def binds(self, name: str) -> bool:
        """Is `name` local to this scope (as Python decides: any binding, `del` included)?"""
        if name in self.declared_global or name in self.declared_nonlocal:
            return False
        return name in self.by_name

    def assigns(self, name: str, definitions: bool = True) -> bool:
        """Does a statement of this scope give `name` a value (a parameter or a bare annotation
        does not; a def or class does unless `definitions` is False)?"""
        skip = _NOT_ASSIGNING if definitions else _NOT_ASSIGNING | {BindingKind.FUNCTION, BindingKind.CLASS}
        return any(b.kind not in skip for b in self.by_name.get(name, ()))

    def local_names(self) -> set:
        return {name for name in self.by_name if self.binds(name)}

    def statement_at(self, line: int):
        """The innermost statement of this scope whose lines hold `line` (None: none does)."""
        if line not in self._at_line:
            found = None
            for stmt in self.statements:
                if stmt.lineno <= line <= (stmt.end_lineno or stmt.lineno):
                    found = stmt          # pre-order: an inner statement comes after its block
            self._at_line[line] = found
        return self._at_line[line]

    def use_path(self, stmt) -> tuple:
        """The path of the statement holding a use (() when the statement is not in this scope)."""
        return self.path_of.get(id(stmt), ())

    def reach(self, name: str, node, stmt) -> Reach:
        """What reaches the use of `name` at `node`, inside statement `stmt` of this scope."""
        bindings = [b for b in self.by_name.get(name, ()) if b.kind in _REACH_KINDS]
        if not bindings:
            return Reach(ReachKind.UNBOUND)
        use_path = self.use_path(stmt)
        position = (node.lineno, node.col_offset)
        before = [b for b in bindings if b.start <= position]
        loops = [blk for blk, part in use_path if isinstance(blk, LOOP_STATEMENTS) and part == "body"]
        # a counter or accumulator: rebound from itself inside a loop around the use
        for loop in reversed(loops):
            inside = [b for b in bindings if (loop, "body") in b.path]
            if any(b.kind is BindingKind.LOOP_TARGET and b.stmt is loop for b in bindings):
                continue      # the loop binds it afresh each iteration: nothing carries over
            if inside and all(b.refers_to_itself() for b in inside):
                outside = [b for b in before if (loop, "body") not in b.path]
                first = outside[-1] if outside and _dominates(outside[-1], use_path) else None
                return Reach(ReachKind.SELF, binding=first, loop=loop, later=inside)
        if not before:
            return Reach(ReachKind.UNBOUND if all(b.kind is not BindingKind.LOOP_TARGET for b in bindings)
                         else ReachKind.AMBIGUOUS)
        last = before[-1]
        if last.kind is BindingKind.LOOP_TARGET and (last.stmt, "body") in use_path:
            return Reach(ReachKind.LOOPVAR, binding=last, loop=last.stmt)
        if not _dominates(last, use_path):
            return Reach(ReachKind.AMBIGUOUS, binding=last)
        for loop in loops:
            if (loop, "body") in last.path:
                continue
            later = [b for b in bindings if (loop, "body") in b.path]
            if later:
                return Reach(ReachKind.CARRIED, binding=last, loop=loop, later=later)
        return Reach(ReachKind.BOUND, binding=last)

    def reaching(self, name: str, stmt=None) -> Reaching:
        """The bindings of `name` that may reach the start of `stmt` (a statement of this scope at
        any depth of its blocks), following the control flow; with no `stmt` (or one outside the
        scope), those that reach the end of the scope (its last statement or a `return`)."""
        flow = self._flows.get(name)
        if flow is None:
            flow = self._flows[name] = _Flow(self, name).run()
        state = flow.get(id(stmt)) if stmt is not None else None
        if state is None:
            state = flow.get("exit") or frozenset()
        bindings = tuple(sorted((b for b in state if b is not _UNBOUND), key=lambda b: b.start))
        return Reaching(bindings, _UNBOUND in state)

    def reads_after(self, name: str, stmt) -> list:
        """The reads of `name` that run after `stmt` (a statement of this scope) with the value
        it had there: reached from `stmt` along the control flow (the next iterations of a loop
        around it included, `stmt` itself too then) before any rebinding. [(statement, Name node)]
        in source order; `stmt`'s own rebinding (`p = step(p)`) ends the chain at once."""
        mark = Binding(name, BindingKind.MARK, stmt, None, self.path_of.get(id(stmt), ()),
                       (stmt.lineno, stmt.col_offset))
        flow = _Flow(self, name, mark).run()
        found = []
        for other in self.statements:
            state = flow.get(id(other))
            if state and mark in state:
                found.extend((other, node) for node in _reads_of(other, name))
        return found

    def stored_attributes(self, name: str, attribute: str) -> list:
        """(value, statement) of each `name.attribute = value` in this scope, in source order."""
        return [(value, stmt) for attr, value, stmt in self.attribute_stores.get(name, ()) if attr == attribute]

    def mutated(self, name: str) -> list:
        return self.mutations.get(name, [])

    def grown_in(self, name: str, loop) -> list:
        """The in-place growths of `name` (append/extend/insert, `+=`) inside `loop`."""
        return [m for m in self.mutations.get(name, ()) if m.method in GROWERS and (loop, "body") in m.path]

    def reset_in(self, name: str, loop) -> bool:
        """Is `name` bound afresh inside `loop` (so it does not grow from one iteration to the next)?"""
        return any((loop, "body") in b.path and not b.refers_to_itself()
                   for b in self.by_name.get(name, ()))


class _Flow:
    """Reaching bindings of one name through one scope's statements: a state is the set of
    bindings that may hold (with _UNBOUND for "none of this scope"); None is unreachable."""

    def __init__(self, scope: Scope, name: str, mark: Optional[Binding] = None):
        self.scope = scope
        self.name = name
        self.at: dict = {}
        self.by_stmt: dict = {}
        if mark is not None:                # before the statement's own bindings: they win
            self.by_stmt[id(mark.stmt)] = [mark]
        for b in scope.by_name.get(name, ()):
            self.by_stmt.setdefault(id(b.stmt), []).append(b)
        self.loops: list = []          # [(breaks, continues)] of the loops being run
        self.returns: list = []        # states at each `return`

    def run(self) -> dict:
        params = [b for b in self.by_stmt.get(id(self.scope.node), ()) if b.kind is BindingKind.PARAMETER] \
            if self.scope.node is not None else []
        start = frozenset(params) if params else frozenset((_UNBOUND,))
        # the end of the scope: what falls through its last statement or leaves by `return`
        self.at["exit"] = _join(self.block(self.scope.body, start), _join_all(self.returns))
        return self.at

    def block(self, body, state):
        for stmt in body:
            key = id(stmt)
            previous = self.at.get(key)
            self.at[key] = _join(previous, state) if previous is not None else (state or frozenset())
            state = self.stmt(stmt, state)
        return state

    def bind(self, stmt, state, kinds=None):
        found = [b for b in self.by_stmt.get(id(stmt), ())
                 if kinds is None or b.kind in kinds or b.kind is BindingKind.MARK]
        found = [b for b in found if b.kind is not BindingKind.ANNOTATION]
        if not found or state is None:
            return state
        if found[-1].kind is BindingKind.DELETION:
            return frozenset((_UNBOUND,))
        if any(b.kind is BindingKind.WALRUS for b in found) and \
                all(b.kind is BindingKind.WALRUS for b in found) and type(stmt) not in _SIMPLE:
            return state | frozenset(found)      # `:=` in a test may not run on every path
        return frozenset(found[-1:])

    def stmt(self, stmt, state):
        if state is None:
            # unreachable: still record the statements inside, as reaching nothing
            for body in _blocks(stmt):
                self.block(body, None)
            return None
        kind = type(stmt)
        if kind is ast.If:
            state = self.bind(stmt, state, (BindingKind.WALRUS,))
            return _join(self.block(stmt.body, state), self.block(stmt.orelse, state))
        if kind in (ast.For, ast.AsyncFor, ast.While):
            return self.loop(stmt, state)
        if kind in (ast.With, ast.AsyncWith):
            return self.block(stmt.body, self.bind(stmt, state))
        if kind is ast.Try or kind is getattr(ast, "TryStar", None):
            return self.try_(stmt, state)
        if kind is ast.Match:
            out = None
            for i, case in enumerate(stmt.cases):
                captured = [b for b in self.by_stmt.get(id(stmt), ()) if b.kind is BindingKind.MATCH
                            and b.path and b.path[-1] == (stmt, f"case{i}")]
                out = _join(out, self.block(case.body, frozenset(captured[-1:]) if captured else state))
            return _join(out, state)
        if kind is ast.Return:
            self.returns.append(state)
            return None
        if kind is ast.Raise:
            return None
        if kind is ast.Break:
            if self.loops:
                self.loops[-1][0].append(state)
            return None
        if kind is ast.Continue:
            if self.loops:
                self.loops[-1][1].append(state)
            return None
        return self.bind(stmt, state)

    def loop(self, stmt, state):
        head = state
        breaks: list = []
        continues: list = []
        self.loops.append((breaks, continues))
        is_for = not isinstance(stmt, ast.While)
        if not is_for:
            head = self.bind(stmt, head, (BindingKind.WALRUS,))
        for _ in range(3):            # the states only grow; three rounds settle nested bodies
            del breaks[:], continues[:]
            entry = self.bind(stmt, head, (BindingKind.LOOP_TARGET,)) if is_for else head
            out = self.block(stmt.body, entry)
            new = _join(_join(head, out), _join_all(continues))
            if new == head:
                break
            head = new
        self.loops.pop()
        forever = isinstance(stmt, ast.While) and isinstance(stmt.test, ast.Constant) and bool(stmt.test.value)
        normal = None if forever else self.block(stmt.orelse, head)
        return _join(normal, _join_all(breaks))

    def try_(self, stmt, state):
        body_out = self.block(stmt.body, state)
        # a handler may start after any statement of the body ran
        seen = state
        for inner in _statements(stmt.body):
            seen = _join(seen, self.at.get(id(inner)))
        seen = _join(seen, body_out)
        out = self.block(stmt.orelse, body_out) if stmt.orelse else body_out
        for i, handler in enumerate(stmt.handlers):
            entry = seen
            named = [b for b in self.by_stmt.get(id(stmt), ()) if b.kind is BindingKind.EXCEPT_TARGET
                     and b.path and b.path[-1] == (stmt, f"handler{i}")]
            if named:
                entry = frozenset(named)
            out = _join(out, self.block(handler.body, entry))
        if stmt.finalbody:
            final = self.block(stmt.finalbody, _join(out, seen))
            return final if out is not None else None
        return out


# The bindings `reach` weighs (the signature rules' view: statements that give a name a value).
_REACH_KINDS = frozenset(BindingKind) - {BindingKind.PARAMETER, BindingKind.ANNOTATION, BindingKind.EXCEPT_TARGET,
                                         BindingKind.MATCH, BindingKind.DELETION}
_NOT_ASSIGNING = frozenset({BindingKind.PARAMETER, BindingKind.ANNOTATION})
_VALUE_KINDS = frozenset(BindingKind) - {BindingKind.ANNOTATION, BindingKind.DELETION}
_SIMPLE = (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return)


def _join(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return a | b


def _join_all(states):
    out = None
    for s in states:
        out = _join(out, s)
    return out


def _blocks(stmt):
    """The statement blocks of a compound statement (none for a nested scope)."""
    if isinstance(stmt, SCOPE_NODES):
        return ()
    return child_bodies(stmt)


def _statements(body):
    stack = list(reversed(body))
    while stack:
        stmt = stack.pop()
        yield stmt
        for block in _blocks(stmt):
            stack.extend(reversed(block))


def _own_expressions(stmt):
    """The expressions a compound (or other non-assignment) statement evaluates itself."""
    kind = type(stmt)
    if kind in (ast.If, ast.While):
        yield stmt.test
    elif kind in (ast.For, ast.AsyncFor):
        yield stmt.iter
    elif kind in (ast.With, ast.AsyncWith):
        for item in stmt.items:
            yield item.context_expr
    elif kind is ast.Match:
        yield stmt.subject
    elif kind in (ast.Assert,):
        yield stmt.test
    elif kind is ast.Raise and stmt.exc is not None:
        yield stmt.exc


def _reads_of(stmt, name: str):
    """The Name nodes reading `name` in what the statement evaluates itself (a compound
    statement's header; not its blocks, not a nested def's or lambda's body)."""
    kind = type(stmt)
    if kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
        return
    exprs = list(_own_expressions(stmt)) if _has_blocks(stmt) else \
        [child for child in child_nodes(stmt) if isinstance(child, ast.expr)]
    for expr in exprs:
        yield from _name_reads(expr, name)


def _name_reads(expr, name: str):
    """The Name nodes of an expression that read `name` of the enclosing scope: not inside a
    lambda, nor where a comprehension's own `for` binds `name` (its element, its conditions
    and the iterables of the generators after that `for`)."""
    stack = [expr]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is ast.Name:
            if node.id == name and isinstance(node.ctx, ast.Load):
                yield node
            continue
        if kind is ast.Lambda:
            continue
        if kind in COMPREHENSIONS:
            shadowed = False
            for gen in node.generators:
                if shadowed:
                    break
                stack.append(gen.iter)
                shadowed = name in target_names(gen.target)
                if not shadowed:
                    stack.extend(gen.ifs)
            if not shadowed:
                stack.extend(child for child in child_nodes(node) if child not in node.generators)
            continue
        stack.extend(child_nodes(node))


def _has_blocks(stmt) -> bool:
    return any(True for _ in _blocks(stmt))


def _expression_nodes(expr):
    """The nodes of an expression, not inside a lambda (its own scope); comprehensions are
    entered, since `:=` there binds in the enclosing function."""
    stack = [expr]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.Lambda):
            continue
        stack.extend(child_nodes(node))


def _arguments(args: ast.arguments):
    yield from args.posonlyargs
    yield from args.args
    if args.vararg is not None:
        yield args.vararg
    yield from args.kwonlyargs
    if args.kwarg is not None:
        yield args.kwarg


def _dominates(binding: Binding, use_path: tuple) -> bool:
    """The binding's block encloses the use's: it ran on every path to the use."""
    path = binding.path
    return len(path) <= len(use_path) and use_path[:len(path)] == path


class SemanticModel:
    """Scopes of one module, built on demand, and the name queries every rule asks."""

    def __init__(self, tree: ast.Module, parents=None, scan_expressions: bool = True, lines=None):
        """`lines` (the source lines) lets the walk skip looking for `x.append(...)` & co. in
        statements whose lines name no mutating method."""
        self.tree = tree
        self._parents = parents
        self._scan = scan_expressions
        self._mutator_lines = LineFilter.attributes(lines, MUTATORS) if lines is not None else None
        self._scopes: dict = {}
        self.module = self._make(None)

    @property
    def parents(self):
        if self._parents is None:
            self._parents = Parents(self.tree)
        return self._parents

    def _make(self, node) -> Scope:
        if node is None or isinstance(node, ast.Module):
            return Scope(ScopeKind.MODULE, None, self.tree.body, None, self._scan, self._mutator_lines)
        parent = self.scope(self._enclosing(node))
        if isinstance(node, ast.Lambda):
            return Scope(ScopeKind.LAMBDA, node, [], parent, self._scan, self._mutator_lines)
        kind = ScopeKind.CLASS if isinstance(node, ast.ClassDef) else ScopeKind.FUNCTION
        return Scope(kind, node, node.body, parent, self._scan, self._mutator_lines)

    def _enclosing(self, node):
        for anc in self.parents.chain(node):
            if isinstance(anc, SCOPE_NODES):
                return anc
        return None

    def scope(self, node) -> Scope:
        """The scope of a def, lambda or class node; None or the module node: the module scope."""
        if node is None or isinstance(node, ast.Module):
            return self.module
        key = id(node)
        found = self._scopes.get(key)
        if found is None:
            found = self._scopes[key] = self._make(node)
        return found

    def scope_of(self, node) -> Scope:
        """The scope a node's code runs in (decorators and defaults: the enclosing one)."""
        return self.scope(self._enclosing(node))

    # -- name resolution ------------------------------------------------------------------------
    def classify(self, name: str, scope: Scope) -> NameScope:
        if name in scope.declared_global:
            return NameScope.GLOBAL
        if name in scope.declared_nonlocal:
            return NameScope.FREE
        if scope.binds(name):
            return NameScope.LOCAL
        outer = scope.parent
        while outer is not None and outer.kind is not ScopeKind.MODULE:
            if name == "__class__" and outer.kind is ScopeKind.CLASS and scope.kind is not ScopeKind.CLASS:
                return NameScope.FREE       # the implicit cell of `super()` in a method
            if outer.kind is not ScopeKind.CLASS and (outer.binds(name) or name in outer.declared_nonlocal):
                return NameScope.FREE
            if outer.kind is not ScopeKind.CLASS and name in outer.declared_global:
                return NameScope.GLOBAL
            outer = outer.parent
        return NameScope.GLOBAL

    def defining_scope(self, name: str, scope: Scope) -> Optional[Scope]:
        """The scope whose bindings a read of `name` in `scope` sees (None: a builtin or unbound)."""
        if name in scope.declared_global:
            return self.module if self.module.binds(name) else None
        if scope.binds(name) and name not in scope.declared_nonlocal:
            return scope
        outer = scope.parent
        while outer is not None:
            if outer.kind is ScopeKind.MODULE:
                return outer if outer.binds(name) else None
            if outer.kind is not ScopeKind.CLASS:
                if name in outer.declared_global:
                    return self.module if self.module.binds(name) else None
                if outer.binds(name) and name not in outer.declared_nonlocal:
                    return outer
            outer = outer.parent
        return None

    def bindings_at(self, name: str, stmt, scope: Scope) -> Optional[tuple]:
        """The bindings a read of `name` in statement `stmt` of `scope` may see: flow-sensitive in
        the scope that binds it when the read is in that scope, else what reaches the end of the
        defining scope (a closure or a global is read when the function runs). None when a path
        reaches the read with the name unbound (a builtin, or a name the file does not show)."""
        owner = self.defining_scope(name, scope)
        if owner is None:
            return None
        if owner is scope:
            found = owner.reaching(name, stmt)
        elif owner.kind is ScopeKind.MODULE:
            found = owner.reaching(name)
            if not found.bindings:      # the module body ends in an exception: any of its bindings
                found = Reaching(tuple(b for b in owner.by_name[name] if b.kind in _VALUE_KINDS), False)
        else:                           # a closure reads the variable whenever it runs
            found = Reaching(tuple(b for b in owner.by_name[name] if b.kind in _VALUE_KINDS), False)
        if found.maybe_unbound and owner.kind is not ScopeKind.MODULE:
            return None
        return found.bindings or None

    def values(self, name: str, stmt, scope: Scope) -> Optional[list]:
        """Every expression `name` may hold where `stmt` reads it; None when one is not known
        (a parameter, a loop target, an unpacked element, a builtin...). A def or class binding
        gives its node."""
        bindings = self.bindings_at(name, stmt, scope)
        if not bindings:
            return None
        out = []
        for b in bindings:
            value = b.definition if b.definition is not None else b.value
            if value is None:
                return None
            out.append(value)
        return out

    def value(self, name: str, stmt, scope: Scope) -> Optional[ast.AST]:
        """The one expression `name` holds where `stmt` reads it, else None."""
        found = self.values(name, stmt, scope)
        if found is None:
            return None
        first = found[0]
        return first if all(v is first for v in found) else None

    def statement_of(self, node) -> Optional[ast.AST]:
        """The innermost statement holding `node`."""
        return enclosing_statement(self.parents, node)


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
