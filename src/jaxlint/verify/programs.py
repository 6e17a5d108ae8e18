"""Where the file itself calls the code a finding is about, and how to run that code.

PARENT SIDE, standard library only: everything is read from the file's AST.

A finding is about an *anchor*: the traced function (trace-time rules), or the function holding
the flagged call (static-argument and recompilation rules). The program reaches the anchor from
the functions that call it or pass it on (`lax.scan(step, ...)`), from the function a nested def
lives in, and so on up to a few levels. Code that runs it, in order of trust:

- the module's own top-level calls (they run when the module is imported: always observed);
- test functions (`def test_*():`, methods of `class Test*:`) that reach it;
- the `if __name__ == "__main__":` block, only when the user opts in (it may train for hours);
- functions of the file that reach it and need no argument (`run()`, `Trainer().fit()` with the
  instance the file builds): the program's own code makes every value;
- only then, a function that reaches it called with *guessed* arguments. Which arguments of the
  calls it makes depend on the guess is worked out here (`tainted_calls`), so that a verdict on
  guessed inputs never counts as a confirmation of what the guess itself chose.

Functions that parse the command line (`main()`, `sys.argv`, `argparse`) count as main-block code.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass, field
from typing import Optional

MAIN = "__main__"
MAX_DEPTH = 4
MAX_DRIVERS = 3
ALL = "*"
_BUILTINS = set(dir(builtins))
_MAIN_WORDS = ("argparse", "parse_args", "sys.argv", "click.", "absl", "fire.Fire")


def is_main_test(node) -> bool:
    """`if __name__ == "__main__":` (either side)."""
    if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare):
        return False
    test = node.test
    if len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
        return False
    sides = [test.left, test.comparators[0]]
    return any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides) and \
        any(isinstance(s, ast.Constant) and s.value == "__main__" for s in sides)


def required_params(node, skip_self: bool = False) -> list:
    args = node.args
    positional = args.posonlyargs + args.args
    if skip_self and positional:
        positional = positional[1:]
    first_default = len(args.posonlyargs + args.args) - len(args.defaults)
    offset = 1 if skip_self and (args.posonlyargs + args.args) else 0
    required = [a.arg for i, a in enumerate(positional, offset) if i < first_default]
    required += [a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is None]
    return required


def _callee(call) -> Optional[str]:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


@dataclass
class Reach:
    """The functions that reach an anchor, by distance, and the module-level code that does."""

    depth: dict = field(default_factory=dict)      # qualname -> distance (the anchor: 0)
    module: bool = False                           # a top-level statement calls into it
    main: bool = False                             # the main block does


class ProgramIndex:
    """Defs, classes, calls and name references of one file, with what contains each."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.defs: dict = {}            # qualname -> def node (methods `C.m`, nested `f.g`)
        self.kind: dict = {}            # qualname -> "function" | "method" | "nested"
        self.parent: dict = {}          # qualname -> enclosing def's qualname (nested defs)
        self.classes: dict = {}         # top-level class name -> node
        self.refs: list = []            # (name, is_attribute, is_call, container, node)
        self.main_blocks: list = []     # top-level `if __name__ == "__main__":` nodes
        self.module_names: set = set()
        self.aliases: dict = {}         # name -> qualname of the def it wraps (`step = jax.jit(_step)`)
        tree = ctx.tree
        if tree is None:
            return
        for node in tree.body:
            for target in _bound_names(node):
                self.module_names.add(target)
            if is_main_test(node):
                self.main_blocks.append(node)
                self._walk(node.body, MAIN, None)
                self._walk([node.test], None, None)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self._def(node, node.name, "function")
            elif isinstance(node, ast.ClassDef):
                self.classes[node.name] = node
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        self._def(item, f"{node.name}.{item.name}", "method")
                    else:
                        self._walk([item], None, node.name)
            else:
                self._walk([node], None, None)
        self._find_aliases(tree)

    def _def(self, node, qualname, kind, parent=None):
        self.defs.setdefault(qualname, node)
        self.kind.setdefault(qualname, kind)
        if parent:
            self.parent.setdefault(qualname, parent)
        self._walk(node.decorator_list, parent, None)
        self._walk(node.body, qualname, None)

    def _walk(self, nodes, container, owner_class):
        stack = list(nodes)
        while stack:
            node = stack.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and container is not None \
                    and container != MAIN:
                self._def(node, f"{container}.{node.name}", "nested", container)
                continue
            if isinstance(node, ast.Call):
                name = _callee(node)
                if name:
                    self.refs.append((name, isinstance(node.func, ast.Attribute), True, container, node))
                for arg in list(node.args) + [k.value for k in node.keywords]:
                    value = arg.value if isinstance(arg, ast.Starred) else arg
                    if isinstance(value, ast.Name):
                        self.refs.append((value.id, False, False, container, node))
                    elif isinstance(value, ast.Attribute):
                        self.refs.append((value.attr, True, False, container, node))
            stack.extend(ast.iter_child_nodes(node))

    def _find_aliases(self, tree):
        """`step = jax.jit(_step)`, `step = jax.jit(partial(_step, n=3))`, `f = vmap(g)`: the
        name calls the def (through any nesting of wrapping calls, first argument first). In a
        class body, the name is an attribute of the class wrapping one of its methods."""
        for cls in self.classes.values():
            for item in cls.body:
                if isinstance(item, ast.Assign) and isinstance(item.value, ast.Call):
                    wrapped = self._wrapped(item.value, scope=cls.name)
                    for target in item.targets:
                        if wrapped is not None and isinstance(target, ast.Name):
                            self.aliases.setdefault(target.id, wrapped)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Assign) or not isinstance(node.value, ast.Call):
                continue
            wrapped = self._wrapped(node.value)
            if wrapped is None:
                continue
            for target in node.targets:
                if isinstance(target, ast.Name):
                    self.aliases.setdefault(target.id, wrapped)
                elif isinstance(target, ast.Attribute):
                    self.aliases.setdefault(target.attr, wrapped)

    def _wrapped(self, call, depth=0, scope=None) -> Optional[str]:
        if depth > 4 or not isinstance(call, ast.Call):
            return None
        first = call.args[0] if call.args else None
        if isinstance(first, ast.Name):
            if scope and f"{scope}.{first.id}" in self.defs:
                return f"{scope}.{first.id}"
            return self.resolve(first.id)
        if isinstance(first, ast.Call):
            return self._wrapped(first, depth + 1, scope)
        if isinstance(call.func, ast.Call):                     # partial(jax.jit, ...)(f)
            return self._wrapped(call.func, depth + 1, scope)
        return None

    def jitted_attribute(self, qualname: str) -> str:
        """The attribute to call a method by: a class-body alias wrapping it, else its name."""
        cls, _, name = qualname.rpartition(".")
        for alias, target in self.aliases.items():
            if target == qualname and alias != name:
                return alias
        return name

    # -- lookups -------------------------------------------------------------------------------
    def resolve(self, name: str) -> Optional[str]:
        """The def a plain name called at module scope means (a function or an alias of one)."""
        if name in self.defs and self.kind.get(name) == "function":
            return name
        return self.aliases.get(name)

    def normalise(self, qualname: str) -> Optional[str]:
        if not qualname:
            return None
        name = qualname.replace(".<locals>", "")
        if name in self.defs:
            return name
        tail = name.split(".")[-1]
        matches = [q for q in self.defs if q.split(".")[-1] == tail]
        return matches[0] if len(matches) == 1 else None

    def container_at(self, line: int) -> Optional[str]:
        """The innermost def whose body or signature holds `line` (not its decorators), None at
        module level, MAIN in the main block."""
        best = None
        for qualname, node in self.defs.items():
            if node.lineno <= line <= node.end_lineno and (best is None or node.lineno >= best[0]):
                best = (node.lineno, qualname)
        if best is not None:
            return best[1]
        if any(block.lineno <= line <= block.end_lineno for block in self.main_blocks):
            return MAIN
        return None

    def names_of(self, qualname: str) -> tuple:
        """(plain names, attribute names) by which code of the file refers to a def."""
        short = qualname.split(".")[-1]
        kind = self.kind.get(qualname)
        aliases = {a for a, q in self.aliases.items() if q == qualname}
        if kind == "method":
            if short in ("__init__", "__call__"):
                # building an instance runs `__init__`; code that builds one is where its
                # `__call__` gets called (through a variable the AST cannot follow)
                return {qualname.split(".")[0]}, {short} | aliases
            return set(), {short} | aliases
        return {short} | aliases, aliases

    def reach(self, anchor: str) -> Reach:
        """Which code reaches `anchor`, breadth first up to MAX_DEPTH calls away."""
        out = Reach()
        if anchor not in self.defs:
            return out
        out.depth[anchor] = 0
        frontier = [anchor]
        while frontier:
            qualname = frontier.pop(0)
            depth = out.depth[qualname]
            if depth >= MAX_DEPTH:
                continue
            plain, attrs = self.names_of(qualname)
            found = set()
            for name, is_attr, is_call, container, _node in self.refs:
                if not ((not is_attr and name in plain) or (is_attr and name in attrs)):
                    continue
                if container is None:
                    out.module = out.module or is_call
                elif container == MAIN:
                    out.main = True
                elif container != qualname:
                    found.add(container)
            parent = self.parent.get(qualname)
            if parent:
                found.add(parent)          # a nested def runs through the call of its enclosing one
            for container in sorted(found):
                if container not in out.depth:
                    out.depth[container] = depth + 1
                    frontier.append(container)
        return out

    def is_main_code(self, qualname: str) -> bool:
        """A function that parses the command line, or is called from the main block only."""
        node = self.defs.get(qualname)
        if node is None:
            return False
        if node.name in ("main", "cli"):
            return True
        text = ast.get_source_segment(self.ctx.text, node) or ""
        if any(word in text for word in _MAIN_WORDS):
            return True
        plain, attrs = self.names_of(qualname)
        containers = {c for name, is_attr, _, c, _ in self.refs
                      if (not is_attr and name in plain) or (is_attr and name in attrs)}
        return bool(containers) and containers == {MAIN}

    def tests(self) -> list:
        """Test functions callable without arguments: [(qualname, expression)]."""
        out = []
        for qualname, node in self.defs.items():
            kind = self.kind[qualname]
            if kind == "function" and node.name.startswith("test") and not required_params(node):
                out.append((qualname, f"{node.name}()"))
            elif kind == "method" and node.name.startswith("test"):
                cls = qualname.split(".")[0]
                if cls.startswith("Test") and not required_params(node, skip_self=True):
                    instance = self.instance(cls)
                    if instance:
                        out.append((qualname, f"{instance[0]}.{node.name}()"))
        return out

    def init_of(self, cls: str, depth: int = 0):
        """(the `__init__` def the class uses, or None; whether its constructor is unknown: a
        base class from another module). Bases defined in the file are followed."""
        node = self.classes.get(cls)
        if node is None or depth > 8:
            return None, True
        init = next((item for item in node.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
                     and item.name == "__init__"), None)
        if init is not None:
            return init, False
        for base in node.bases:
            if isinstance(base, ast.Name) and base.id == "object":
                continue
            if isinstance(base, ast.Name) and base.id in self.classes:
                return self.init_of(base.id, depth + 1)
            return None, True
        return None, False

    def instance(self, cls: str) -> Optional[tuple]:
        """(expression, how) building an instance of class `cls` the way the file does: one of its
        own constructions whose arguments mean the same at module scope, or a constructor that
        needs no argument. None when neither exists."""
        node = self.classes.get(cls)
        if node is None:
            return None
        for name, is_attr, is_call, _container, call in self.refs:
            if is_call and not is_attr and name == cls and self._module_evaluable(call):
                return ast.unparse(call), "built as the file builds it"
        init, unknown = self.init_of(cls)
        if unknown or (init is not None and required_params(init, skip_self=True)):
            return None
        if init is None and _has_required_fields(node):
            return None
        return f"{cls}()", "built without arguments"

    def dataclass_fields(self, cls: str) -> list:
        """[(field, annotation)] of a dataclass-like class body without a default."""
        node = self.classes.get(cls)
        if node is None:
            return []
        return [(item.target.id, item.annotation) for item in node.body
                if isinstance(item, ast.AnnAssign) and item.value is None and item.simple]

    def _module_evaluable(self, expr) -> bool:
        """Whether every name `expr` reads is a module-level name or a builtin."""
        for node in ast.walk(expr):
            if isinstance(node, (ast.Lambda, ast.NamedExpr, ast.comprehension)):
                return False
            if isinstance(node, ast.Name) and node.id not in self.module_names and node.id not in _BUILTINS:
                return False
        return True


def _has_required_fields(cls) -> bool:
    """A dataclass-like class body with an annotated field without a default."""
    return any(isinstance(item, ast.AnnAssign) and item.value is None and item.simple for item in cls.body)


def _bound_names(node) -> set:
    out = set()
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        out.add(node.name)
    elif isinstance(node, (ast.Import, ast.ImportFrom)):
        for alias in node.names:
            out.add((alias.asname or alias.name).split(".")[0])
    elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            out |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    elif isinstance(node, (ast.If, ast.Try, ast.With)):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt):
                out |= _bound_names(child)
        for handler in getattr(node, "handlers", []):
            for child in handler.body:
                out |= _bound_names(child)
    return out


# -- what the guess decides ---------------------------------------------------------------------

def tainted_names(node, guessed: set) -> set:
    """Local names of function `node` whose values may come from the guessed parameters
    (assignments, loop targets, `with ... as`, comprehensions; a fixpoint over the body)."""
    tainted = set(guessed)
    assigns = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Assign):
            assigns.append((sub.targets, sub.value))
        elif isinstance(sub, (ast.AugAssign, ast.AnnAssign)) and sub.value is not None:
            assigns.append(([sub.target], sub.value))
        elif isinstance(sub, (ast.For, ast.AsyncFor)):
            assigns.append(([sub.target], sub.iter))
        elif isinstance(sub, ast.comprehension):
            assigns.append(([sub.target], sub.iter))
        elif isinstance(sub, ast.withitem) and sub.optional_vars is not None:
            assigns.append(([sub.optional_vars], sub.context_expr))
        elif isinstance(sub, ast.NamedExpr):
            assigns.append(([sub.target], sub.value))
    changed = True
    while changed:
        changed = False
        for targets, value in assigns:
            if _mentions(value, tainted):
                for target in targets:
                    for n in ast.walk(target):
                        if isinstance(n, ast.Name) and n.id not in tainted:
                            tainted.add(n.id)
                            changed = True
                # x.append(guess) / x[i] = guess taints x too
                for target in targets:
                    if isinstance(target, (ast.Attribute, ast.Subscript)):
                        base = target
                        while isinstance(base, (ast.Attribute, ast.Subscript)):
                            base = base.value
                        if isinstance(base, ast.Name) and base.id not in tainted:
                            tainted.add(base.id)
                            changed = True
        for sub in ast.walk(node):
            if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and \
                    isinstance(sub.func.value, ast.Name) and sub.func.value.id not in tainted and \
                    any(_mentions(a, tainted) for a in list(sub.args) + [k.value for k in sub.keywords]):
                tainted.add(sub.func.value.id)          # xs.append(guessed)
                changed = True
    return tainted


def _mentions(expr, names: set) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(expr))


def tainted_calls(index: ProgramIndex, node, guessed: set) -> tuple:
    """({line: [callee parameters whose argument depends on the guess]}, {callee: [same]}) for
    the calls in function `node` (ALL when an argument cannot be mapped: *args, an unknown
    callee). `jax.vmap(f, ...)(a, b)` and the like count as calls of `f`. Lines are strings
    (JSON keys)."""
    tainted = tainted_names(node, guessed)
    by_line: dict = {}
    by_callee: dict = {}
    for call in ast.walk(node):
        if not isinstance(call, ast.Call):
            continue
        args = list(call.args)
        if not any(_mentions(a, tainted) for a in args + [k.value for k in call.keywords]):
            continue
        names = set()
        target = _call_target(index, call)
        if isinstance(call.func, ast.Attribute) and _mentions(call.func.value, tainted):
            names.add("self")
        params = None
        if target is not None:
            fn = index.defs[target].args
            params = [a.arg for a in fn.posonlyargs + fn.args]
            if index.kind.get(target) == "method" and params and isinstance(call.func, ast.Attribute):
                params = params[1:]
        for position, arg in enumerate(args):
            if not _mentions(arg, tainted):
                continue
            if isinstance(arg, ast.Starred) or params is None or position >= len(params):
                names.add(ALL)
            else:
                names.add(params[position])
        for keyword in call.keywords:
            if _mentions(keyword.value, tainted):
                names.add(keyword.arg or ALL)
        if names:
            for line in range(call.lineno, (call.end_lineno or call.lineno) + 1):
                by_line.setdefault(str(line), set()).update(names)
            if target is not None:
                by_callee.setdefault(target, set()).update(names)
    return ({line: sorted(names) for line, names in by_line.items()},
            {callee: sorted(names) for callee, names in by_callee.items()})


def _call_target(index: ProgramIndex, call) -> Optional[str]:
    """The def of the file a call calls: `f(...)`, an alias, `obj.method(...)` when one method of
    the file has that name, or `transform(f, ...)(...)` (vmap, jit, grad: the arguments reach f)."""
    func = call.func
    if isinstance(func, ast.Call):
        inner = func.args[0] if func.args else None
        if isinstance(inner, ast.Name):
            return index.resolve(inner.id)
        return None
    callee = _callee(call)
    if callee is None:
        return None
    if isinstance(func, ast.Name):
        return index.resolve(callee)
    owners = [q for q in index.defs if index.kind.get(q) == "method" and q.split(".")[-1] == callee]
    return owners[0] if len(owners) == 1 else None
