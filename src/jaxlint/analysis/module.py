"""An index of one module: its functions, classes and constants, built in one walk of the tree.

Rules and the dataflow look things up here (`which def does this name call?`, `is this class a
pytree?`, `what is N_STEPS?`) instead of walking the tree again.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Optional

from jaxlint.analysis import api_tables as api
from jaxlint.analysis.api_tables import NUMPY_ARRAY_RESULTS
from jaxlint.analysis.names import ImportMap
from jaxlint.analysis.semantic import BindingKind, SemanticModel
from jaxlint.analysis.syntax import LineFilter, child_bodies, child_nodes, target_names, walk

FunctionNode = (ast.FunctionDef, ast.AsyncFunctionDef)

_PYTREE_CLASS_DECORATORS = {
    "jax.tree_util.register_pytree_node_class", "jax.tree_util.register_dataclass",
    "flax.struct.dataclass", "chex.dataclass", "jax.tree_util.register_static",
}
_PYTREE_BASES = {"eqx.Module", "flax.linen.Module", "nnx.Module", "typing.NamedTuple",
                 "flax.struct.PyTreeNode", "nnx.Object", "nnx.Pytree", "chex.ArrayTree"}


@dataclass(eq=False)
class FuncInfo:
    node: ast.AST
    name: str
    qualname: str
    cls: Optional["ClassInfo"] = None
    parent: Optional["FuncInfo"] = None
    nested: dict = field(default_factory=dict)      # name -> FuncInfo defined directly inside

    @property
    def params(self) -> list:
        return param_names(self.node.args)

    @property
    def is_method(self) -> bool:
        if self.cls is None or self.parent is not None:
            return False
        return not any(_decorator_name(d) in ("staticmethod",) for d in self.node.decorator_list)

    @property
    def method_kind(self) -> str:
        """How the class binds this def: "instance", "class", "static" or "property" ("" when
        it is not a method). What Python passes as the first argument depends on it."""
        if self.cls is None or self.parent is not None:
            return ""
        names = {_decorator_name(d) for d in self.node.decorator_list}
        for kind, words in (("static", ("staticmethod",)), ("class", ("classmethod",)),
                            ("property", ("property", "cached_property", "setter", "getter"))):
            if names.intersection(words):
                return kind
        return "instance"


@dataclass(eq=False)
class ClassInfo:
    node: ast.ClassDef
    name: str
    bases: list
    methods: dict = field(default_factory=dict)
    is_pytree: bool = False
    dataclass: Optional[dict] = None   # {"frozen": bool, "eq": bool} when decorated @dataclass
    defines_eq: bool = False
    defines_hash: bool = False
    registered_here: bool = False      # registered by its own decorator (not inherited)


_VALUED = (BindingKind.ASSIGNMENT, BindingKind.WALRUS)


def _decorator_name(dec: ast.AST) -> str:
    if isinstance(dec, ast.Call):
        dec = dec.func
    if isinstance(dec, ast.Name):
        return dec.id
    if isinstance(dec, ast.Attribute):
        return dec.attr
    return ""


def param_names(args: ast.arguments) -> list:
    names = [a.arg for a in args.posonlyargs + args.args]
    if args.vararg:
        names.append(args.vararg.arg)
    names += [a.arg for a in args.kwonlyargs]
    if args.kwarg:
        names.append(args.kwarg.arg)
    return names


def positional_params(args: ast.arguments) -> list:
    return [a.arg for a in args.posonlyargs + args.args]


def defaults(args: ast.arguments) -> dict:
    """param -> its default expression, for the parameters of a def that have one."""
    positional = args.posonlyargs + args.args
    out = {a.arg: d for a, d in zip(positional[len(positional) - len(args.defaults):], args.defaults)}
    out.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
    return out


def params_with_defaults(args: ast.arguments) -> set:
    return set(defaults(args))


# Names of the jax.tree_util functions that register a class as a pytree (see
# registered_pytree_classes); a function body can hold a registration only on a line naming one.
_REGISTRATION_WORDS = {"register_pytree_node", "register_pytree_node_class", "register_pytree_with_keys",
                       "register_pytree_with_keys_class", "register_dataclass", "register_static"}


def _is_registration(name: str) -> bool:
    return name.startswith("jax.tree_util.register_") or name.endswith("register_pytree_node")


class ModuleIndex:
    def __init__(self, tree: ast.Module, imports: Optional[ImportMap] = None, lines=None):
        """`lines` (the source lines) lets it skip the statements of function bodies that cannot
        define a function or class or register a pytree: most of a library's statements."""
        self.tree = tree
        self.lines = lines
        # (class name, parameter, position) -> what other modules pass there (set by the file's
        # analysis when it has a project: crossmodule.classes_passed_by_importers)
        self.outside = None
        self.imports = imports or ImportMap(tree, lines)
        self.functions: list = []            # every FuncInfo, in source order
        self.by_node: dict = {}              # id(def node) -> FuncInfo
        self.top_functions: dict = {}        # module-level def name -> FuncInfo (the last def)
        self.top_defs: dict = {}             # module-level def name -> every FuncInfo, in order
        self.top_classes: dict = {}          # module-level class name -> ClassInfo (the last)
        self.instances: dict = {}            # module-level NAME = Cls(...) -> ClassInfo
        self.module_assignments: dict = {}   # module-level name -> [(line, value or None)] of its assignments
        self.classes: dict = {}              # class name -> ClassInfo (any nesting; last wins)
        self.constants: dict = {}            # module-level NAME -> literal value
        self.sequences: set = set()          # module-level names bound to list/tuple/dict displays
        self.ndarrays: set = set()           # module-level names bound to a new NumPy array
        self.jax_arrays: set = set()         # module-level names bound to a new JAX array (jnp.cumsum(...))
        self.rebound_globals: set = set()    # names a def declares `global`
        self.module_names: set = set()       # every name bound at module level
        self.static_fields: set = set()      # attribute names declared static in a pytree class
        self._registered = None
        self._model = None
        self._registration_calls: list = []  # `f(Name, ...)` statements: maybe pytree registrations
        words = _REGISTRATION_WORDS | {"def", "class", "global"}
        words |= {local for local, target in self.imports.aliases.items() if _is_registration(target)}
        self._in_functions = LineFilter(lines, words)
        self._index_body(tree.body, None, None, "")

    # -- building ------------------------------------------------------------------------------
    def _index_body(self, body, cls, parent, prefix):
        for stmt in body:
            if parent is not None and not self._in_functions.touches(stmt):
                continue
            self._index_stmt(stmt, cls, parent, prefix)

    def _index_stmt(self, stmt, cls, parent, prefix):
        if isinstance(stmt, FunctionNode):
            info = FuncInfo(stmt, stmt.name, prefix + stmt.name, cls if parent is None else None, parent)
            self.functions.append(info)
            self.by_node[id(stmt)] = info
            if parent is not None:
                parent.nested[stmt.name] = info
            elif cls is not None:
                cls.methods[stmt.name] = info
            else:
                self.top_functions[stmt.name] = info
                self.top_defs.setdefault(stmt.name, []).append(info)
                self.module_names.add(stmt.name)
                self.instances.pop(stmt.name, None)
                self.top_classes.pop(stmt.name, None)
            self._index_body(stmt.body, None, info, info.qualname + ".")
            return
        if isinstance(stmt, ast.ClassDef):
            info = self._class_info(stmt)
            self.classes[stmt.name] = info
            if parent is None and cls is None:
                self.module_names.add(stmt.name)
                self.top_classes[stmt.name] = info
                self.instances.pop(stmt.name, None)
            self._index_body(stmt.body, info, None if parent is None else parent,
                             prefix + stmt.name + ".")
            return
        if parent is None and cls is None:
            self._record_module_binding(stmt)
        elif isinstance(stmt, ast.Global):
            self.rebound_globals.update(stmt.names)     # a def may rebind a module-level name
        if isinstance(stmt, (ast.Expr, ast.Assign)) and isinstance(stmt.value, ast.Call) \
                and stmt.value.args and isinstance(stmt.value.args[0], ast.Name):
            self._registration_calls.append(stmt.value)
            for kw in stmt.value.keywords:      # register_dataclass(Cls, meta_fields=[...])
                if kw.arg == "meta_fields" and isinstance(kw.value, (ast.List, ast.Tuple)):
                    self.static_fields.update(e.value for e in kw.value.elts
                                              if isinstance(e, ast.Constant) and isinstance(e.value, str))
            self._record_flatten_aux(stmt.value)
        for child in child_bodies(stmt):
            self._index_body(child, cls, parent, prefix)

    def _record_flatten_aux(self, call):
        """`register_pytree_node(Cls, Cls._flatten, ...)` or `(Cls, flatten, ...)`: the attributes
        the flatten function puts in the aux data are static, as a `tree_flatten` method's are."""
        flatten = call.args[1] if len(call.args) > 1 else \
            next((kw.value for kw in call.keywords if kw.arg == "flatten_func"), None)
        func = None
        if isinstance(flatten, ast.Attribute) and isinstance(flatten.value, ast.Name):
            owner = self.classes.get(flatten.value.id)
            method = owner.methods.get(flatten.attr) if owner is not None else None
            func = method.node if method is not None else None
        elif isinstance(flatten, ast.Name):
            info = self.top_functions.get(flatten.id)
            func = info.node if info is not None else None
        if func is not None and _is_registration(self.imports.resolve(call.func) or ""):
            self.static_fields.update(_aux_attributes(func))

    def _record_module_binding(self, stmt):
        targets = []
        value = None
        if isinstance(stmt, ast.Assign):
            targets, value = stmt.targets, stmt.value
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            targets, value = [stmt.target], stmt.value
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            for alias in stmt.names:
                self.module_names.add((alias.asname or alias.name).split(".")[0])
                self.module_assignments.setdefault((alias.asname or alias.name).split(".")[0], []).append(
                    (stmt.lineno, None))
            return
        for target in targets:
            for name in target_names(target):
                self.module_names.add(name)
                self.module_assignments.setdefault(name, []).append(
                    (value.lineno, value) if isinstance(target, ast.Name) and value is not None else (stmt.lineno, None))
                self.instances.pop(name, None)
                self.top_classes.pop(name, None)     # `Model = make_model()` rebinds the name
                if not isinstance(target, ast.Name):
                    self.ndarrays.discard(name)      # `A, B = (jnp.array(x) for x in (A, B))`
            if isinstance(target, ast.Name) and isinstance(value, ast.Call) and isinstance(value.func, ast.Name) \
                    and value.func.id in self.top_classes:
                self.instances[target.id] = self.top_classes[value.func.id]
            if isinstance(target, ast.Name) and value is not None:
                try:
                    if not _small_literal(value):
                        raise ValueError("a generated table, not a constant worth folding")
                    self.constants[target.id] = evaluate_literal(value)
                except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                    self.constants.pop(target.id, None)
                if isinstance(value, (ast.Tuple, ast.List, ast.Dict, ast.ListComp, ast.DictComp)):
                    self.sequences.add(target.id)
                else:
                    self.sequences.discard(target.id)
                if isinstance(value, ast.Call) and self.imports.resolve(value.func) in NUMPY_ARRAY_RESULTS:
                    self.ndarrays.add(target.id)
                else:
                    self.ndarrays.discard(target.id)
                if isinstance(value, ast.Call) and _makes_jax_array(self.imports.resolve(value.func) or ""):
                    self.jax_arrays.add(target.id)
                else:
                    self.jax_arrays.discard(target.id)

    def _class_info(self, node: ast.ClassDef) -> ClassInfo:
        bases = [self.imports.resolve(b) or (b.id if isinstance(b, ast.Name) else "") for b in node.bases]
        info = ClassInfo(node, node.name, bases)
        for dec in node.decorator_list:
            target = dec.func if isinstance(dec, ast.Call) else dec
            name = self.imports.resolve(target) or (target.id if isinstance(target, ast.Name) else "")
            if name in _PYTREE_CLASS_DECORATORS or name.endswith("register_pytree_node_class"):
                info.is_pytree = True
                info.registered_here = True
            if name in ("dataclasses.dataclass", "dataclass"):
                opts = {"frozen": False, "eq": True}
                if isinstance(dec, ast.Call):
                    for kw in dec.keywords:
                        if kw.arg in opts and isinstance(kw.value, ast.Constant):
                            opts[kw.arg] = bool(kw.value.value)
                info.dataclass = opts
        if any(b in _PYTREE_BASES or b.endswith(("NamedTuple", ".Module", "PyTreeNode"))
               for b in bases):
            info.is_pytree = True
        for stmt in node.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) \
                    and _is_static_field(stmt.value):
                self.static_fields.add(stmt.target.id)
            if isinstance(stmt, FunctionNode) and stmt.name == "tree_flatten":
                self.static_fields.update(_aux_attributes(stmt))
            if isinstance(stmt, FunctionNode):
                info.defines_eq |= stmt.name == "__eq__"
                info.defines_hash |= stmt.name == "__hash__"
            elif isinstance(stmt, ast.Assign):
                for t in stmt.targets:
                    if isinstance(t, ast.Name) and t.id == "__hash__":
                        info.defines_hash = True
        return info

    # -- queries ------------------------------------------------------------------------------
    def function_at(self, name: str, line: int) -> Optional[FuncInfo]:
        """The module-level def that `name` means in module-level code at `line`: the last one
        defined before it (a notebook that redefines a function in a later cell)."""
        defs = self.top_defs.get(name)
        if not defs:
            return None
        before = [info for info in defs if info.node.lineno < line]
        return before[-1] if before else None

    def lookup_method(self, cls: "ClassInfo", attr: str, depth: int = 0, skip_own=False) -> Optional[FuncInfo]:
        """The def `attr` names on `cls`: its own (unless `skip_own`: `super()`), else a base
        class's of this file."""
        if attr in cls.methods and not skip_own:
            return cls.methods[attr]
        if depth < 8:
            for base in cls.bases:
                other = self.top_classes.get(base)
                if other is not None and other is not cls:
                    found = self.lookup_method(other, attr, depth + 1)
                    if found is not None:
                        return found
        return None

    def attribute_class(self, cls: "ClassInfo", attr: str, foreign: bool = False) -> Optional["ClassInfo"]:
        """The class of the object `self.attr` holds when every assignment to it in the class's
        methods is a call of one class of this file (`self.net = Net(...)` in `__init__`), or a
        parameter of `__init__` every caller fills with an object of one class. With `foreign`,
        that class may be one of another module of the project (its ClassInfo read there: only
        its name, bases and methods are for asking, never its body as this module's code)."""
        cache = self.__dict__.setdefault("_attribute_classes", {})
        key = (id(cls), attr, foreign)
        if key not in cache:
            cache[key] = None           # while deciding (a class holding an object of itself)
            held = []
            for method, value in self._assignments_by_attr(cls).get(attr, []):
                if isinstance(value, ast.Call):
                    held.append(self.class_named(value.func))
                elif isinstance(value, ast.Name) and method.name == "__init__" and value.id in method.params \
                        and cls.name in self.top_classes:
                    held.extend(self._classes_passed(cls, method, value.id, foreign) or [None])
                else:
                    held.append(None)
            if not foreign:
                local = {id(c) for c in self.classes.values()}
                held = [h if h is not None and id(h) in local else None for h in held]
            one = held and all(h is not None for h in held) and len({id(h) for h in held}) == 1
            cache[key] = held[0] if one else None
        return cache[key]

    def _classes_passed(self, cls: "ClassInfo", init: "FuncInfo", param: str, foreign: bool = False) -> list:
        """The class of the object each call `Cls(...)` passes for a parameter of its `__init__`
        (`DART(model)` with `model = RadarField()`), in this module and, with `foreign`, through
        `outside` in the project's modules importing it; None where a call does not show it; []
        when no call is seen. `self.model = model` holds what the callers pass."""
        positional = positional_params(init.node.args)[1:]
        found = []
        for call, scope in self._calls_named(cls.name):
            arg = next((kw.value for kw in call.keywords if kw.arg == param), None)
            if arg is None and param in positional and positional.index(param) < len(call.args):
                arg = call.args[positional.index(param)]
            if arg is None or any(isinstance(a, ast.Starred) for a in call.args) \
                    or any(kw.arg is None for kw in call.keywords):
                found.append(None)
            elif isinstance(arg, ast.Call):
                found.append(self.class_named(arg.func))
            elif isinstance(arg, ast.Name):
                found.append(self.local_instance(arg.id, scope))
            else:
                found.append(None)
        if foreign and self.outside is not None:
            position = positional.index(param) if param in positional else None
            for held in self.outside(cls.name, param, position):
                found.append(self.top_classes.get(held) if isinstance(held, str) else held)
        return found

    def _calls_named(self, name: str) -> list:
        """(call, FuncInfo of the def it is in, None at module level) for each `name(...)` call of
        the module, from a walk of the statements whose lines mention the name (kept per name)."""
        cache = self.__dict__.setdefault("_calls_by_name", {})
        if name not in cache:
            found = cache[name] = []
            lines = LineFilter(self.lines, {name})
            todo = [(self.tree, None)]
            while todo:
                node, scope = todo.pop()
                for child in child_nodes(node):
                    if isinstance(child, ast.stmt) and not lines.touches(child):
                        continue
                    inner = self.by_node.get(id(child), scope) if isinstance(
                        child, (ast.FunctionDef, ast.AsyncFunctionDef)) else scope
                    if isinstance(child, ast.Call) and isinstance(child.func, ast.Name) and child.func.id == name:
                        found.append((child, scope))
                    todo.append((child, inner))
            found.sort(key=lambda item: (item[0].lineno, item[0].col_offset))
        return cache[name]

    def metadata_attribute(self, cls: "ClassInfo", attr: str) -> bool:
        """Is `self.attr` plain metadata of an object whose framework keeps such attributes static
        (an NNX Module: api.STATIC_ATTRIBUTE_BASES)? Every assignment to it in the class's methods
        is a literal, a display of literals and names, or a parameter of the method not annotated
        as an array."""
        if not self._has_static_attributes(cls, 0):
            return False
        assigned = self._assignments_by_attr(cls).get(attr, [])
        return bool(assigned) and all(_metadata_value(value, method.node.args, self.imports)
                                      for method, value in assigned)

    def _has_static_attributes(self, cls: "ClassInfo", depth: int) -> bool:
        if depth > 8:
            return False
        for base in cls.bases:
            if base in api.STATIC_ATTRIBUTE_BASES:
                return True
            other = self.top_classes.get(base)
            if other is not None and other is not cls and self._has_static_attributes(other, depth + 1):
                return True
        return False

    def attribute_assignments(self, cls: "ClassInfo", attr: str) -> list:
        """The values the class's methods assign to `self.attr` (None for an augmented one). One
        walk of the class's methods answers every attribute."""
        return [value for _, value in self._assignments_by_attr(cls).get(attr, [])]

    def _assignments_by_attr(self, cls: "ClassInfo") -> dict:
        """attr -> [(method, value)] of the class's `self.attr = value` (None for `+=`), from one
        walk of its methods."""
        cache = self.__dict__.setdefault("_attribute_assignments", {})
        by_attr = cache.get(id(cls))
        if by_attr is None:
            by_attr = cache[id(cls)] = {}
            for method in cls.methods.values():
                for node in walk(method.node):
                    targets = node.targets if isinstance(node, ast.Assign) else \
                        [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else ()
                    for target in targets:
                        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                                and target.value.id == "self":
                            value = None if isinstance(node, ast.AugAssign) else getattr(node, "value", None)
                            by_attr.setdefault(target.attr, []).append((method, value))
        return by_attr

    def record_fields(self, cls: "ClassInfo", depth: int = 0) -> Optional[tuple]:
        """The fields a call of `cls` fills, in order, when `cls` is a record: a NamedTuple or a
        dataclass-like pytree whose constructor the class does not write itself. None otherwise."""
        if depth > 8 or self.lookup_method(cls, "__init__") is not None:
            return None
        decorators = {self.imports.resolve(d.func if isinstance(d, ast.Call) else d) or "" for d in cls.node.decorator_list}
        dataclass_like = decorators & {"dataclasses.dataclass", "flax.struct.dataclass", "chex.dataclass"} \
            or any(b in ("flax.struct.PyTreeNode", "eqx.Module") for b in cls.bases)
        named_tuple = any(b in ("typing.NamedTuple", "NamedTuple") or b.endswith(".NamedTuple") for b in cls.bases)
        fields = []
        for base in cls.bases:
            other = self.top_classes.get(base)
            if other is not None and other is not cls:
                inherited = self.record_fields(other, depth + 1)
                if inherited is None:
                    return None
                fields.extend(inherited)
                dataclass_like = dataclass_like or bool(inherited)
            elif not (base in ("object", "typing.NamedTuple", "NamedTuple", "typing.Generic")
                      or base.endswith(".NamedTuple") or base in ("flax.struct.PyTreeNode", "eqx.Module")):
                return None       # a base of another module may add fields or a constructor
        if not (dataclass_like or named_tuple):
            return None
        for stmt in cls.node.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                annotation = ast.unparse(stmt.annotation) if stmt.annotation is not None else ""
                if "ClassVar" in annotation or "InitVar" in annotation:
                    continue
                if stmt.target.id not in fields:
                    fields.append(stmt.target.id)
        return tuple(fields)

    def is_named_tuple(self, cls: "ClassInfo") -> bool:
        """A NamedTuple (immutable: its fields stay what it was built with)."""
        return any(b in ("typing.NamedTuple", "NamedTuple") or b.endswith(".NamedTuple") for b in cls.bases)

    def class_named(self, node) -> Optional["ClassInfo"]:
        """The module-level class an annotation or a callee names (`Model`, `"Model"`)."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return self.top_classes.get(node.value.strip())
        if isinstance(node, ast.Name):
            return self.top_classes.get(node.id)
        return None

    @property
    def model(self) -> SemanticModel:
        """The semantic model of the module (the analysis shares its own; else one of our own)."""
        if self._model is None:
            shared = self.__dict__.get("share_model")
            self._model = shared() if shared is not None else SemanticModel(self.tree, lines=self.lines)
        return self._model

    def bindings_of(self, scope: FuncInfo) -> dict:
        """What a def's body binds, as the semantic model says which names are local to it:
        name -> the values bound (an expression, the node of a def or class; None for a binding
        whose value is not one expression: a loop or `with` target, an import, an unpacked
        element, `+=`). `global`/`nonlocal` names map to [None]. Parameters are not listed."""
        cache = self.__dict__.setdefault("_bindings", {})
        key = id(scope.node)
        if key not in cache:
            where = self.model.scope(scope.node)
            found = {}
            for name, bindings in where.by_name.items():
                values = [b.definition if b.definition is not None else
                          b.value if b.kind in _VALUED else None
                          for b in bindings if b.kind is not BindingKind.PARAMETER]
                if values:
                    found[name] = values
            for name in where.declared_global | where.declared_nonlocal:
                found[name] = [None]
            cache[key] = found
        return cache[key]

    def local_instance(self, name: str, scope: Optional[FuncInfo]) -> Optional["ClassInfo"]:
        """The class of the object `name` holds where `scope` (a def, None: the module) reads it,
        as Python resolves the name: a parameter annotated with a class of this file, a local bound
        only by calls of one class, or a module-level `name = Cls(...)`. None when unsure."""
        cache = self.__dict__.setdefault("_local_instances", {})
        key = (id(scope), name)
        if key in cache:
            return cache[key]
        found = None
        s = scope
        while s is not None:
            args = s.node.args
            params = {a.arg: a for a in args.posonlyargs + args.args + args.kwonlyargs}
            if args.vararg is not None or args.kwarg is not None:
                params.update({a.arg: None for a in (args.vararg, args.kwarg) if a is not None})
            if name in params:
                a = params[name]
                found = self.class_named(a.annotation) if a is not None and a.annotation is not None else None
                break
            values = self.bindings_of(s).get(name)
            if values is not None:
                classes = {id(c): c for c in (self.class_named(v.func) if isinstance(v, ast.Call) else None
                                               for v in values)}
                found = next(iter(classes.values())) if len(classes) == 1 else None
                break
            s = s.parent
        else:
            found = self.instances.get(name)
        cache[key] = found
        return found

    def registered_pytree_classes(self) -> set:
        """Classes registered by a call such as `jax.tree_util.register_pytree_node(Cls, ...)`."""
        if self._registered is not None:
            return self._registered
        found = set()
        for node in self._registration_calls:
            if _is_registration(self.imports.resolve(node.func) or ""):
                found.add(node.args[0].id)
        self._registered = found
        return found


_NOT_ARRAYS = {"shape", "ndim", "size", "dtype", "result_type", "finfo", "iinfo", "issubdtype",
               "promote_types", "can_cast", "isdtype", "broadcast_shapes", "iscomplexobj", "isscalar"}


def _makes_jax_array(name: str) -> bool:
    """`jnp.cumsum`, `jax.numpy.array`, `jax.random.normal`: a call whose result is a JAX array."""
    prefix, _, short = name.rpartition(".")
    return prefix in ("jnp", "jax.numpy", "jax.random") and short not in _NOT_ARRAYS and not short[:1].isupper()


def _is_static_field(value) -> bool:
    """`struct.field(pytree_node=False)`, `eqx.field(static=True)`, `static_field()`,
    `dataclasses.field(metadata=dict(static=True))`."""
    if not isinstance(value, ast.Call):
        return False
    name = value.func.attr if isinstance(value.func, ast.Attribute) else getattr(value.func, "id", "")
    if name == "static_field":
        return True
    for kw in value.keywords:
        if kw.arg == "pytree_node" and isinstance(kw.value, ast.Constant) and kw.value.value is False:
            return True
        if kw.arg == "static" and isinstance(kw.value, ast.Constant) and kw.value.value is True:
            return True
        if kw.arg == "metadata" and _says_static(kw.value):
            return True     # dataclasses.field(metadata=dict(static=True)): register_dataclass's meta field
    return False


def _says_static(node) -> bool:
    """`dict(static=True)` / `{"static": True}`."""
    if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "dict":
        return any(kw.arg == "static" and isinstance(kw.value, ast.Constant) and kw.value.value is True
                   for kw in node.keywords)
    if isinstance(node, ast.Dict):
        return any(isinstance(k, ast.Constant) and k.value == "static" and isinstance(v, ast.Constant)
                   and v.value is True for k, v in zip(node.keys, node.values))
    return False


def _aux_attributes(func) -> set:
    """`self.x` names in the aux-data half of `return children, aux` in a flatten function (its
    first parameter is the object: `self` for tree_flatten, any name for a function)."""
    params = func.args.posonlyargs + func.args.args
    owner = params[0].arg if params else "self"
    found = set()
    for sub in ast.walk(func):
        if isinstance(sub, ast.Return) and isinstance(sub.value, ast.Tuple) and len(sub.value.elts) == 2:
            for node in ast.walk(sub.value.elts[1]):
                if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == owner:
                    found.add(node.attr)
    return found


_NUMBER_TYPES = (int, float, complex)


def evaluate_literal(node):
    """`ast.literal_eval(node)` for a node: the same values, the same ValueError otherwise.

    `ast.literal_eval` defines four closures per call, which form reference cycles that only the
    garbage collector frees; the analysis calls it thousands of times per library file."""
    kind = type(node)
    if kind is ast.Constant:
        return node.value
    if kind is ast.Tuple:
        return tuple([evaluate_literal(e) for e in node.elts])
    if kind is ast.List:
        return [evaluate_literal(e) for e in node.elts]
    if kind is ast.Set:
        return {evaluate_literal(e) for e in node.elts}
    if kind is ast.Dict:
        if len(node.keys) != len(node.values) or any(k is None for k in node.keys):
            raise ValueError("malformed node or string: dict unpacking")
        return {evaluate_literal(k): evaluate_literal(v) for k, v in zip(node.keys, node.values)}
    if kind is ast.Call and isinstance(node.func, ast.Name) and node.func.id == "set" \
            and not node.args and not node.keywords:
        return set()
    if kind is ast.UnaryOp:
        return _signed_number(node)
    if kind is ast.BinOp and isinstance(node.op, (ast.Add, ast.Sub)):
        left = _signed_number(node.left)
        right = _number(node.right)
        if isinstance(left, _NUMBER_TYPES) and isinstance(right, complex):
            return left + right if isinstance(node.op, ast.Add) else left - right
    raise ValueError(f"malformed node or string on line {getattr(node, 'lineno', '?')}")


def _signed_number(node):
    if type(node) is ast.UnaryOp and isinstance(node.op, (ast.UAdd, ast.USub)):
        operand = _number(node.operand)
        return +operand if isinstance(node.op, ast.UAdd) else -operand
    return _number(node)


def _number(node):
    if type(node) is ast.Constant and type(node.value) in _NUMBER_TYPES:
        return node.value
    raise ValueError(f"malformed node or string on line {getattr(node, 'lineno', '?')}")


def _small_literal(node) -> bool:
    """Cheap enough to evaluate as a literal: a generated table of 100,000 rows took seconds."""
    return node.end_lineno - node.lineno <= 200 and \
        len(getattr(node, "elts", None) or getattr(node, "keys", None) or ()) <= 1000


def _metadata_value(value, args: ast.arguments, imports) -> bool:
    """A value that is Python metadata, not an array: a literal, a tuple/list display of such
    values, or a parameter of the method not annotated as an array (nor a Variable); when unsure,
    metadata (a finding needs evidence)."""
    if isinstance(value, ast.Constant):
        return True
    if isinstance(value, (ast.Tuple, ast.List)):
        return all(_metadata_value(e, args, imports) for e in value.elts)
    if isinstance(value, ast.Name):
        for a in args.posonlyargs + args.args + args.kwonlyargs:
            if a.arg == value.id:
                if a.annotation is None:
                    return True       # unannotated: sizes and flags far more often than arrays
                return not any(_may_be_array(part, imports) for part in _annotation_parts(a.annotation))
    return False


def _annotation_parts(annotation):
    """The types an annotation admits: `Optional[X]`, `X | None`, `Union[X, Y]` and a string
    annotation (`"jax.Array"`) opened up."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return [annotation]
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return _annotation_parts(annotation.left) + _annotation_parts(annotation.right)
    if isinstance(annotation, ast.Subscript) and ast.unparse(annotation.value).split(".")[-1] in ("Optional", "Union"):
        inner = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
        return [part for node in inner for part in _annotation_parts(node)]
    return [annotation]


def _may_be_array(annotation, imports) -> bool:
    """An array or an NNX Variable (traced under the framework's jit), not metadata."""
    head = annotation.value if isinstance(annotation, ast.Subscript) else annotation
    text = imports.resolve(head) or ast.unparse(head)
    return text in api.ARRAY_ANNOTATIONS or text.split(".")[-1] in ("Variable", "Param", "Array", "ndarray")

