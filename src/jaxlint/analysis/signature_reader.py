"""Reads the abstract call signature (`signatures.py`) of an argument expression, from the code.

Without running anything: Python literals are weak int32/float32/complex64 (`bool` a strong
bool); `jnp.array([1, 2])` is int32, `[1., 2.]` float32, `jnp.array(1.0)` a weak float32;
`dtype=`, `.astype(T)`, `jnp.float32(x)` are strong; NumPy's 64-bit types become 32-bit (JAX's
x64 is off by default, and a float64 array compiles exactly like a float32 one). Shapes come
from constructors (`zeros`, `arange`, `linspace`, `eye`, `jax.random.*`), slices, `reshape`,
`pad`, `stack`/`concatenate` and arrays built from Python lists.

Names are followed to the binding that reaches the call (`semantic.py`); a loop variable, a
counter, a count read from each batch or a list grown in the loop becomes an atom that changes
per iteration. Every fact was checked against jax 0.10.2 (CPU). Anything else is unknown.
"""

from __future__ import annotations

import ast
import math
from dataclasses import replace
from typing import Optional

from jaxlint.analysis.api_tables import (ARRAY_RESULT, ARRAY_RESULT_WITH_ARGS, ELEMENT_UPDATES,
                                         ELEMENT_UPDATES_PROMOTING, FLOAT_RESULT, STRONG_FLOAT_ARGS, STRONG_RESULT,
                                         TUPLE_KEYWORDS, VALUE_AND_GRAD_WRAPPERS)
from jaxlint.analysis.module import evaluate_literal
from jaxlint.analysis.semantic import (LOOP_STATEMENTS, BindingKind, ReachKind, Scope, comprehension_target,
                                       enclosing_statement)
from jaxlint.analysis.shown import Ctx
from jaxlint.analysis.syntax import text_of
from jaxlint.analysis.signatures import (MORE, Atom, Leaf, Opaque, Tree, dtype_difference, leaves, poly_add,
                                         poly_atom, poly_atoms, poly_const, poly_mul, poly_value,
                                         structure_difference)

_MAX_DEPTH = 16
# Casts to the default dtypes are often defensive (`idx.astype(jnp.int32)` of what is int32
# already): they say nothing about the value's own dtype.
_DEFENSIVE_CASTS = {"float32", "int32", "bool"}
# `acc = jnp.concatenate([acc, x])` and friends: the result is larger than `acc`.
_GROWING_JOINS = {"concatenate", "append", "vstack", "hstack", "row_stack", "column_stack", "stack"}

# -- dtypes ------------------------------------------------------------------------------------

_DTYPES = {
    "float32": "float32", "float64": "float32", "double": "float32", "single": "float32",
    "float16": "float16", "half": "float16", "bfloat16": "bfloat16",
    "int32": "int32", "int64": "int32", "int16": "int16", "int8": "int8",
    "uint32": "uint32", "uint64": "uint32", "uint16": "uint16", "uint8": "uint8",
    "bool": "bool", "bool_": "bool", "complex64": "complex64", "complex128": "complex64",
}
# Nodes of a literal that means the same in any module (a constant read from another module).
_LITERAL_NODES = (ast.Constant, ast.Tuple, ast.List, ast.Dict, ast.UnaryOp, ast.USub, ast.UAdd, ast.Load)
_PYTHON_DTYPES = {"float": "float32", "int": "int32", "bool": "bool", "complex": "complex64"}
_FLOATING = {"float32", "float16", "bfloat16", "complex64"}
_NAMESPACES = ("jnp.", "np.")


def python_kind(value) -> Optional[str]:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, complex):
        return "complex"
    return None


def _promote_python(kinds) -> Optional[str]:
    """The Python type of arithmetic on these Python scalar types."""
    order = ["bool", "int", "float", "complex"]
    if not kinds or any(k not in order for k in kinds):
        return None
    return max(kinds, key=order.index)


class SignatureReader:
    """Reads argument signatures in one calling scope of one module (shared by the rules)."""

    def __init__(self, analysis, scope, params: Optional[dict] = None):
        """`params`: parameter name -> signature, when reading a def called with those arguments."""
        self.analysis = analysis
        self.imports = analysis.imports
        self.scope = scope
        self.bindings: Scope = analysis.model.scope(scope)
        self.atoms: dict = {}            # atom key -> Atom
        self.params = params or {}
        self.carried: dict = {}          # name -> signature it holds when entering the loop body
        self._steady: dict = {}           # (name, id(binding before the loop)) -> _steady_sig's answer
        self._depth = 0

    # -- entry points ----------------------------------------------------------------------------
    def sig_at(self, expr, call):
        """The signature of `expr`, an argument of `call`."""
        stmt = enclosing_statement(self.analysis.parents, call)
        return self.sig(expr, stmt)

    def varying_atoms(self, sig, loops) -> list:
        """(leaf path, dim index or None, Atom) for each dimension of `sig` that follows a value
        changing per iteration of one of `loops` (dim index None: the leaf grows by accumulation)."""
        found = []
        loop_ids = {id(loop) for loop in loops}
        for path, leaf in leaves(sig):
            if leaf.grows is not None and id(leaf.grows[0]) in loop_ids:
                found.append((path, None, Atom(leaf.origin, "growth", leaf.grows[0], reason=leaf.grows[1])))
                continue
            for i, dim in enumerate(leaf.shape or ()):
                if dim is None or dim is MORE:
                    continue
                atom = self._varying_atom(dim, loop_ids)
                if atom is not None:
                    found.append((path, i, atom))
        return found

    def varying_length(self, sig, loops) -> Optional[Atom]:
        """The atom that makes the length of a list or tuple `sig` change per iteration of one of
        `loops` (`[f(i) for i in range(k)]` with `k` rebound in the loop), or None."""
        if not isinstance(sig, Tree) or sig.length is None:
            return None
        return self._varying_atom(sig.length, {id(loop) for loop in loops})

    def varying_atom(self, dim, loops) -> Optional[Atom]:
        """The atom that makes the int `dim` (see `dim`) change per iteration of one of `loops`."""
        return None if dim is None else self._varying_atom(dim, {id(loop) for loop in loops})

    def _varying_atom(self, dim, loop_ids) -> Optional[Atom]:
        """The atom that makes `dim` change per iteration of one of the loops: the only atom of
        that loop in it (two, like `stop - start` of one loop, may change together)."""
        by_loop: dict = {}
        for key in sorted(poly_atoms(dim)):
            atom = self.atoms.get(key)
            if atom is not None and atom.varies and id(atom.loop) in loop_ids:
                by_loop.setdefault(id(atom.loop), []).append(atom)
        for atoms in by_loop.values():
            if len(atoms) == 1:
                return atoms[0]
        return None

    # -- names -------------------------------------------------------------------------------------
    def _reach(self, name_node, stmt):
        if self._may_hold_comprehension(stmt):
            comp = comprehension_target(self.analysis.parents, name_node, name_node.id)
            if comp is not None:
                return "comprehension", comp
        if stmt is None:
            return "unbound", None
        return "scope", self.bindings.reach(name_node.id, name_node, stmt)

    def _may_hold_comprehension(self, stmt) -> bool:
        """Can a comprehension bind names in `stmt`? Its text says `for` (asking the parent links
        for every name would cost a walk up the tree each)."""
        lines = self.analysis.lines
        if stmt is None or not lines or isinstance(stmt, (ast.For, ast.AsyncFor, ast.While, ast.If, ast.With,
                                                          ast.Try, ast.FunctionDef, ast.ClassDef)):
            return True
        end = getattr(stmt, "end_lineno", None) or stmt.lineno
        return any("for" in line for line in lines[stmt.lineno - 1:end])

    def _passed_sig(self, name: str):
        """What every call of the module's def passes for its parameter `name` (`fit(losses)`
        with `losses = jax.random.uniform(k, (10,))`), when the file shows calls, each can be
        read and all agree; None otherwise. Shapes are kept only where they are constants (the
        caller's symbolic dimensions belong to its own loops)."""
        scope = self.scope
        if not isinstance(scope, ast.FunctionDef) or self._depth + 4 > _MAX_DEPTH:
            return None
        cache = self.__dict__.setdefault("_passed", {})
        if name in cache:
            return cache[name]
        cache[name] = None                      # a recursive def asks for itself: unknown
        info = self.analysis.index.by_node.get(id(scope))
        shown = self.analysis.shown
        if info is None or not scope.body or not shown.callers(info):
            return None
        sigs = []
        for expr, where in shown.parameter_values(name, Ctx(scope, scope.body[0].lineno)):
            if where.module is not None:
                return None
            reader = reader_for(self.analysis, where.scope)
            if reader is self or reader._depth + 4 > _MAX_DEPTH:
                return None
            reader._depth, depth = max(reader._depth, self._depth + 2), reader._depth
            try:
                sig = reader.sig(expr, enclosing_statement(self.analysis.parents, expr))
            finally:
                reader._depth = depth
            sig = _constant_shapes(sig)
            if sig is None or isinstance(sig, Opaque) or (sigs and sig != sigs[0]):
                return None
            sigs.append(sig)
        cache[name] = sigs[0] if sigs else None
        return cache[name]

    def _module_value(self, name: str):
        """The one value a module-level name is bound to (a function reads it after import)."""
        if self.scope is None:
            return None
        module = self.analysis.model.module
        found = module.by_name.get(name, [])
        if len(found) == 1 and found[0].kind is BindingKind.ASSIGNMENT and not found[0].path and not module.mutated(name):
            return found[0]
        return None

    def _shown_python_kind(self, node) -> Optional[str]:
        """A parameter (or name) whose every value the file shows is a Python int or float:
        `make_features(100, key)` makes `jnp.arange(num_steps)` an int32 array."""
        if not isinstance(node, ast.Name):
            return None
        return _shown_kind(self.analysis.shown.values(node, Ctx(self.scope, node.lineno)))

    # -- signatures ----------------------------------------------------------------------------------
    def sig(self, expr, stmt):
        if self._depth > _MAX_DEPTH:
            return None
        self._depth += 1
        try:
            return self._sig(expr, stmt)
        finally:
            self._depth -= 1

    def _sig(self, expr, stmt):
        if isinstance(expr, ast.Constant):
            return _constant_sig(expr.value, text_of(expr) or "?")
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
            inner = self.sig(expr.operand, stmt)
            if isinstance(inner, Leaf) and inner.python != "bool":
                return inner
            return None
        if isinstance(expr, ast.Name):
            return self._name_sig(expr, stmt)
        if isinstance(expr, (ast.Tuple, ast.List)):
            if any(isinstance(e, ast.Starred) for e in expr.elts):
                return None
            kind = "tuple" if isinstance(expr, ast.Tuple) else "list"
            return Tree(kind, tuple(self.sig(e, stmt) for e in expr.elts), origin=_text(expr))
        if isinstance(expr, ast.Dict):
            return self._dict_sig(list(zip(expr.keys, expr.values)), stmt, expr)
        if isinstance(expr, ast.ListComp):
            return Tree("list", None, length=self._comprehension_length(expr, stmt),
                        elt=self.sig(expr.elt, stmt), origin=_text(expr))
        if isinstance(expr, ast.Call):
            return self._call_sig(expr, stmt)
        if isinstance(expr, ast.Subscript):
            return self._subscript_sig(expr, stmt)
        if isinstance(expr, ast.BinOp):
            return self._binop_sig(expr, stmt)
        if isinstance(expr, ast.Compare):
            return self._compare_sig(expr, stmt)
        if isinstance(expr, ast.Attribute) and expr.attr == "T":
            base = self.sig(expr.value, stmt)
            if isinstance(base, Leaf) and base.shape is not None and MORE not in base.shape:
                return Leaf(base.dtype, base.weak, tuple(reversed(base.shape)), origin=_text(expr))
        if isinstance(expr, ast.Attribute) and self._imported_here(expr, stmt):
            return self._imported_constant_sig(expr)
        return None

    def _imported_constant_sig(self, node):
        """`config.BETA`, `BETA` imported from a module of the project that binds it once to a
        literal: the literal's signature."""
        value = self.analysis.imported_value(node)
        if value is None or not all(isinstance(n, _LITERAL_NODES) for n in ast.walk(value)):
            return None
        return self.sig(value, None)

    def _name_sig(self, node, stmt):
        if stmt is None and isinstance(self.scope, ast.Lambda) and node.id in self.params:
            return self.params[node.id]         # a parameter of the lambda read in its body
        how, reach = self._reach(node, stmt)
        if how == "comprehension":
            comp, gen = reach
            if isinstance(gen.target, ast.Name):
                return self._element_sig(gen.iter, stmt, comp)
            return None
        if how == "unbound" or reach.kind is ReachKind.UNBOUND:
            if node.id in ("None",):
                return Tree("None")
            if node.id in self.params and how != "unbound":
                return self.params[node.id]
            found = self._module_value(node.id)
            if found is not None:
                return self._bound_sig(found, node)
            if how != "unbound" and self._imported_here(node, stmt):
                return self._imported_constant_sig(node)
            if how == "unbound" or node.id in self.analysis.index.module_names:
                return None
            passed = self._passed_sig(node.id)
            if passed is not None:
                return passed
            return Opaque(f"{node.id}@{id(self.scope)}", node.id)
        if reach.kind is ReachKind.BOUND:
            sig = self._bound_sig(reach.binding, node)
            if sig is None and reach.binding.value is not None:
                return Opaque(f"{node.id}@{id(reach.binding)}", node.id)
            return sig
        if reach.kind is ReachKind.LOOPVAR:
            loop = reach.loop
            if isinstance(loop.target, ast.Name):
                return self._element_sig(loop.iter, reach.binding.stmt, loop)
            return None
        if reach.kind in (ReachKind.SELF, ReachKind.CARRIED) and node.id in self.carried:
            return self.carried[node.id]
        if reach.kind in (ReachKind.SELF, ReachKind.CARRIED):
            steady = self._steady_sig(node, reach)
            if steady is not None:
                return steady
        if reach.kind is ReachKind.SELF:
            return self._accumulated(node, reach)
        return None

    def _steady_sig(self, node, reach):
        """A name the loop around the use rebinds (`avg = step(avg, v)`), when what it is bound to
        before the loop and what each rebinding makes of that have one kind, shape and dtype: that
        signature, at every iteration. None when an iteration changes it (growth, a new dtype:
        what the drift rules look at) or a rebinding cannot be read."""
        binding = reach.binding
        if binding is None or binding.value is None or reach.loop is None:
            return None
        key = (node.id, id(binding))
        if key not in self._steady:      # every read of the name in the loop asks the same
            self._steady[key] = None     # (and a rebinding that reads it asks again: not steady)
            self._steady[key] = self._steady_uncached(node, reach)
        return self._steady[key]

    def _steady_uncached(self, node, reach):
        binding = reach.binding
        loop_path = self.bindings.path_of.get(id(reach.loop))
        if loop_path is None or not reach.later:
            return None
        first = self.sig(binding.value, binding.stmt)
        if first is None or isinstance(first, Opaque):
            return None
        for later in reach.later:
            if later.path != loop_path + ((reach.loop, "body"),) or later.kind is BindingKind.LOOP_TARGET \
                    or later.value is None:
                return None
            second = self.rebound_sig(later, node.id, first)
            if second is None or structure_difference(first, second) or dtype_difference(first, second) \
                    or [leaf.shape for _, leaf in leaves(first)] != [leaf.shape for _, leaf in leaves(second)]:
                return None
        return first

    def rebound_sig(self, later, name, first):
        """What a rebinding in a loop binds the first time it runs (`lr = decay(lr)` reads there
        the value `first` that `name` held before the loop)."""
        if first is None:
            return self.binding_sig(later)
        once = SignatureReader(self.analysis, self.scope)
        once.carried = {name: first}
        once._depth = self._depth + 2       # two names of one loop rebound from each other: finite
        found = once.binding_sig(later)
        self.atoms.update(once.atoms)
        return found

    def binding_sig(self, binding):
        """The signature of what one binding binds: its value, or its element of an unpacked
        tuple (`w, mom = step(w, g, mom)` binds `mom` to element 1 of what `step` returns)."""
        if binding.value is not None:
            return self.sig(binding.value, binding.stmt)
        stmt = binding.stmt
        if binding.kind is not BindingKind.UNPACKED or not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
            return None
        target = stmt.targets[0]
        if not isinstance(target, (ast.Tuple, ast.List)) or not all(isinstance(t, ast.Name) for t in target.elts):
            return None
        names = [t.id for t in target.elts]
        if names.count(binding.name) != 1:
            return None
        whole = self.sig(stmt.value, stmt)
        if isinstance(whole, Tree) and whole.kind in ("tuple", "list") and whole.children is not None \
                and len(whole.children) == len(names):
            return whole.children[names.index(binding.name)]
        return None

    def _bound_sig(self, binding, use):
        if binding.value is None:
            return self.binding_sig(binding)
        sig = self.sig(binding.value, binding.stmt)
        if isinstance(sig, Tree) and sig.kind in ("list", "dict") and self.bindings.mutated(use.id) \
                and binding in self.bindings.by_name.get(use.id, ()):
            grown = self._list_growth(use, sig) if sig.kind == "list" else self._keys_set(use, binding, sig)
            if grown is not None:
                return grown
            return Tree(sig.kind, origin=sig.origin)       # changed in place: contents unknown
        return sig

    def _keys_set(self, use, binding, sig):
        """A dict display that `d["key"] = value` statements give more keys before the use: the
        display's keys and the ones set on every path from the binding to the use. None (contents
        unknown) when any other change of the dict may run between them: another kind of change,
        a computed key, a store on some paths only, or one after the use in a loop that runs the
        use again with the same dict."""
        if sig.keys is None or sig.children is None:
            return None
        stmt = enclosing_statement(self.analysis.parents, use)
        use_path = self.bindings.use_path(stmt)
        bind_path = binding.path
        if stmt is None or use_path[:len(bind_path)] != bind_path:
            return None             # the binding is not in a block around the use
        here = (use.lineno, use.col_offset)
        added = {}
        for change in sorted(self.bindings.mutated(use.id), key=lambda m: (m.node.lineno, m.node.col_offset)):
            target = change.node
            if change.method != "__setitem__" or not isinstance(target, ast.Subscript) \
                    or not isinstance(target.slice, ast.Constant) or not isinstance(target.slice.value, str):
                return None
            at = (target.lineno, target.col_offset)
            path = change.path
            if path[:len(bind_path)] != bind_path:
                return None         # outside the binding's block: may change another dict
            common = 0
            while common < min(len(path), len(use_path)) and path[common] == use_path[common]:
                common += 1
            if at < binding.start:
                if common == len(bind_path) or not any(isinstance(block, LOOP_STATEMENTS)
                                                       for block, _ in use_path[len(bind_path):common]):
                    continue        # before the binding, in no loop around both: another dict
                return None
            if common == len(path) and at < here:
                store = enclosing_statement(self.analysis.parents, target)
                if not isinstance(store, ast.Assign) or len(store.targets) != 1:
                    return None
                added[target.slice.value] = self.sig(store.value, store)
                continue            # in a block around the use, before it: set on every path
            if common < len(path) and common < len(use_path) and path[common][0] is use_path[common][0] \
                    and isinstance(path[common][0], ast.If) and path[common][1] != use_path[common][1] \
                    and not any(isinstance(block, LOOP_STATEMENTS) for block, _ in use_path[len(bind_path):common]):
                continue            # the other branch of an `if` (no loop between it and the binding)
            if at > here and not any(isinstance(block, LOOP_STATEMENTS) for block, _ in use_path[len(bind_path):]):
                continue            # after the use, and no loop runs the use again before a new binding
            return None
        if not added:
            return sig              # every store runs after the use, or on another path
        children = dict(zip(sig.keys, sig.children))
        children.update(added)
        try:
            ordered = tuple(sorted(children))
        except TypeError:
            return None
        return Tree("dict", tuple(children[k] for k in ordered), keys=ordered, origin=sig.origin)

    def _list_growth(self, use, sig):
        """A list appended to in a loop around the use (and never emptied there) grows per iteration."""
        if sig.kind != "list":
            return None
        stmt = enclosing_statement(self.analysis.parents, use)
        if stmt is None:
            return None
        for block, part in reversed(self.bindings.use_path(stmt)):
            if isinstance(block, LOOP_STATEMENTS) and part == "body":
                grown = self.bindings.grown_in(use.id, block)
                if grown and not self.bindings.reset_in(use.id, block):
                    how = grown[0]
                    why = (f"`{use.id}` grows by `.{how.method}()` at line {how.node.lineno} in each iteration "
                           f"of the loop at line {block.lineno}")
                    return Tree("list", None, grows=(block, why), origin=use.id)
        return None

    def _accumulated(self, node, reach):
        """`acc = jnp.concatenate([acc, x])` / `lst = lst + [x]` in the loop around the use."""
        for binding in reach.later:
            value = binding.value
            if binding.kind is BindingKind.AUGMENTED and isinstance(binding.stmt.value, (ast.List, ast.ListComp, ast.Tuple)):
                why = f"`{node.id}` grows by `+=` at line {binding.line} in each iteration of the loop at " \
                      f"line {reach.loop.lineno}"
                return Tree("list", None, grows=(reach.loop, why), origin=node.id)
            if isinstance(value, ast.Call):
                name = self.imports.resolve(value.func) or ""
                short = name.rsplit(".", 1)[-1]
                if name.startswith(_NAMESPACES) and short in _GROWING_JOINS:
                    why = (f"`{node.id}` grows by `{name}` at line {binding.line} in each iteration of the loop "
                           f"at line {reach.loop.lineno}")
                    return Leaf(grows=(reach.loop, why), origin=node.id)
            if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add) \
                    and any(isinstance(side, (ast.List, ast.ListComp)) for side in (value.left, value.right)):
                why = f"`{node.id}` grows at line {binding.line} in each iteration of the loop at line " \
                      f"{reach.loop.lineno}"
                return Tree("list", None, grows=(reach.loop, why), origin=node.id)
        return None

    def _element_sig(self, iterable, stmt, loop):
        """What a loop over `iterable` binds: Python ints for range(), a literal's common element."""
        if isinstance(iterable, ast.Name):
            how, reach = self._reach(iterable, stmt)
            if how == "scope" and reach.kind is ReachKind.BOUND and reach.binding.value is not None:
                return self._element_sig(reach.binding.value, reach.binding.stmt, loop)
            if how != "scope" or reach.kind is not ReachKind.UNBOUND:
                return None
            return _row_of(self.sig(iterable, stmt), iterable)     # a parameter: what callers pass
        if _is_call_to(iterable, "range", self):
            return Leaf("int32", True, (), python="int", origin=_text(iterable))
        if isinstance(iterable, (ast.List, ast.Tuple)) and iterable.elts:
            sigs = [self.sig(e, stmt) for e in iterable.elts]
            if all(s is not None and s == sigs[0] for s in sigs):
                return sigs[0]
            return None
        return _row_of(self.sig(iterable, stmt), iterable)      # an array's rows, a list's element

    def _dict_sig(self, pairs, stmt, node):
        keys = []
        children = {}
        for key, value in pairs:
            if key is None:
                return None
            try:
                k = key if isinstance(key, str) else evaluate_literal(key)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                return None
            if not isinstance(k, (str, int)) or isinstance(k, bool):
                return None
            keys.append(k)
            children[k] = self.sig(value, stmt)
        try:
            ordered = tuple(sorted(set(keys)))
        except TypeError:
            return None
        return Tree("dict", tuple(children[k] for k in ordered), keys=ordered, origin=_text(node))

    # -- calls ---------------------------------------------------------------------------------------
    def _call_sig(self, call, stmt):
        func = call.func
        if isinstance(func, ast.Call):
            return self._value_and_grad_sig(call, stmt)
        callee = self._project_def(func, stmt)
        if callee is not None:
            return self._returned_sig(callee, call, stmt)
        if isinstance(func, (ast.Name, ast.Attribute)) and self._imported_here(func, stmt):
            cls = self.analysis.imported_class(func)       # `PendulumState(...)` of another module
            if cls is not None:
                return self._namedtuple_sig(cls, call, stmt)
        if isinstance(func, ast.Attribute) and not self.imports.resolve(func):
            method = self.analysis.object_method(func, call, self.scope) if isinstance(func.value, ast.Name) else None
            if method is not None:      # `env.reset(key)` after `env = Asterix()`: what it returns
                return self._returned_sig((method[0], method[2].node, False), call, stmt, skip_self=True)
            return self._method_sig(call, stmt)
        name = self.imports.resolve(func) or ""
        if not name and isinstance(func, ast.Name):
            return self._builtin_or_class_sig(call, stmt)
        if not name.startswith(_NAMESPACES + ("jax.random.",)):
            return self._float_result_sig(call, stmt, name) or self._some_array(call)
        prefix, short = name.rsplit(".", 1)
        kwargs = {kw.arg: kw.value for kw in call.keywords if kw.arg}
        if any(kw.arg is None for kw in call.keywords) or any(isinstance(a, ast.Starred) for a in call.args):
            return None
        numpy = prefix == "np"
        origin = _text(call)
        if prefix in ("jnp", "np") and short in _DTYPES:
            arg = self.sig(call.args[0], stmt) if call.args else None
            shape = arg.shape if isinstance(arg, Leaf) and not arg.python else (() if isinstance(arg, Leaf) else None)
            return Leaf(_DTYPES[short], False, shape, origin=origin)
        if prefix in ("jnp", "np") and short in ("array", "asarray"):
            return self._array_sig(call, stmt, numpy, kwargs)
        if prefix in ("jnp", "np") and short in ("zeros", "ones", "empty"):
            shape = self.shape_arg(_arg(call, 0, "shape", kwargs), stmt)
            dtype = self.dtype_arg(_arg(call, 1, "dtype", kwargs), stmt, default="float32")
            return Leaf(dtype, False if dtype else None, shape, origin=origin)
        if prefix in ("jnp", "np") and short == "full":
            shape = self.shape_arg(_arg(call, 0, "shape", kwargs), stmt)
            dtype_node = _arg(call, 2, "dtype", kwargs)
            if dtype_node is not None:
                dtype = self.dtype_arg(dtype_node, stmt)
                return Leaf(dtype, False if dtype else None, shape, origin=origin)
            fill = self.sig(_arg(call, 1, "fill_value", kwargs), stmt) if _arg(call, 1, "fill_value", kwargs) else None
            if isinstance(fill, Leaf) and fill.python:
                return Leaf(fill.dtype, not numpy and fill.python != "bool", shape, origin=origin)
            return Leaf(None, None, shape, origin=origin)
        if prefix in ("jnp", "np") and short in ("zeros_like", "ones_like", "empty_like", "full_like"):
            base = self.sig(call.args[0], stmt) if call.args else None
            dtype_node = kwargs.get("dtype") or (call.args[2] if short == "full_like" and len(call.args) > 2 else
                                                 call.args[1] if short != "full_like" and len(call.args) > 1 else None)
            shape = base.shape if isinstance(base, Leaf) else None
            if dtype_node is not None:
                dtype = self.dtype_arg(dtype_node, stmt)
                return Leaf(dtype, False if dtype else None, shape, origin=origin)
            if isinstance(base, Leaf):
                return Leaf(base.dtype, False if base.weak is False else None, shape, origin=origin)
            return None
        if prefix in ("jnp", "np") and short == "arange":
            return self._arange_sig(call, stmt, kwargs)
        if prefix in ("jnp", "np") and short == "linspace":
            num = _arg(call, 2, "num", kwargs)
            dim = self.dim(num, stmt) if num is not None else poly_const(50)
            dtype = self.dtype_arg(kwargs.get("dtype"), stmt, default="float32")
            return Leaf(dtype, False if dtype else None, (dim,), origin=origin)
        if prefix in ("jnp", "np") and short in ("eye", "identity"):
            n = self.dim(call.args[0], stmt) if call.args else kwargs.get("N") and self.dim(kwargs["N"], stmt)
            m_node = _arg(call, 1, "M", kwargs) if short == "eye" else None
            m = n if m_node is None or (isinstance(m_node, ast.Constant) and m_node.value is None) else \
                self.dim(m_node, stmt)
            dtype = self.dtype_arg(kwargs.get("dtype"), stmt, default="float32")
            return Leaf(dtype, False if dtype else None, (n, m), origin=origin)
        if prefix in ("jnp", "np") and short == "pad":
            return self._pad_sig(call, stmt, kwargs)
        if prefix in ("jnp", "np") and short in ("stack", "concatenate"):
            return self._join_sig(call, stmt, kwargs, short)
        if prefix == "jax.random":
            return self._random_sig(call, stmt, short, kwargs)
        if prefix == "np.random" and short in ("rand", "randn") and call.args:
            return Leaf("float32", False, tuple(self.dim(a, stmt) for a in call.args), origin=origin)
        return self._float_result_sig(call, stmt, name) or self._some_array(call)

    def _some_array(self, call):
        """A JAX call that returns one array (`jnp.where(c, 1, -1)`): an array, dtype and shape
        not read."""
        return Leaf() if self._returns_one_array(call) else None

    def _value_and_grad_sig(self, call, stmt):
        """`jax.value_and_grad(loss_fn)(w, x, y)`: (what `loss_fn` returns for these arguments, the
        gradients, unknown). `has_aux=` or another argument changes what comes back: not read."""
        inner = call.func
        if self.imports.resolve(inner.func) not in VALUE_AND_GRAD_WRAPPERS or inner.keywords or len(inner.args) != 1 \
                or not isinstance(inner.args[0], ast.Name):
            return None
        callee = self._project_def(inner.args[0], stmt)
        if callee is None:
            return None
        value = self._returned_sig(callee, call, stmt)
        if not isinstance(value, Leaf):
            return None
        return Tree("tuple", (_as_array(value), None), origin=_text(call))

    def _float_result_sig(self, call, stmt, name):
        """`jnp.mean(loss)`, `jnp.exp(x)`, `jax.nn.relu(h)`: a JAX function of one float32 array,
        typed by the probed table (FLOAT_RESULT); `jnp.minimum(scale, MAX)` with a strong float
        argument (STRONG_FLOAT_ARGS)."""
        positions = STRONG_FLOAT_ARGS.get(name)
        if positions is not None and not call.keywords and len(call.args) == max(positions) + 1 \
                and not any(isinstance(a, ast.Starred) for a in call.args):
            sigs = [self.sig(call.args[i], stmt) for i in positions]
            if any(_strong_float(s) for s in sigs) and not any(
                    isinstance(s, Tree) or isinstance(s, Leaf) and s.python == "complex" for s in sigs):
                return Leaf(None, False, None, origin=_text(call), floating=True)
        rule = FLOAT_RESULT.get(name)
        if len(call.args) != 1 or isinstance(call.args[0], ast.Starred):
            return None
        if rule is not None and not call.keywords:
            found = _float_result(self.sig(call.args[0], stmt), rule, _text(call))
            if found is not None:
                return found
        return _strong_result(name, rule, call, _text(call))

    # -- calls of the module's own functions ---------------------------------------------------------
    def _project_def(self, func, stmt) -> Optional[tuple]:
        """(analysis of its module, def node, jitted) of the function of the project that `func`
        names: one of this module's, or one imported from another module; else None."""
        if isinstance(func, ast.Name):
            found = self._module_def(func, stmt)
            if found is not None:
                return (self.analysis,) + found
        if isinstance(func, (ast.Name, ast.Attribute)) and self._imported_here(func, stmt):
            return self.analysis.imported_def(func)
        return None

    def _module_def(self, func, stmt) -> Optional[tuple]:
        """(def node, jitted) of the module-level function a call names, or None: a name this
        scope does not bind (or, in module-level code, the module's own top-level binding), bound
        once at module level by a `def` or to a jitted function."""
        how, reach = self._reach(func, stmt)
        if how != "scope" or func.id in self.params:
            return None
        if reach.kind is ReachKind.UNBOUND:
            return self.analysis.module_def(func.id)
        if self.scope is None and reach.kind is ReachKind.BOUND and not reach.binding.path:
            return self.analysis.module_def(func.id)     # module-level code calling a module function
        return None

    def _imported_here(self, func, stmt) -> bool:
        """Does `func` (`helper`, `mod.helper`) start from a name the module imports, not one
        this scope binds (in module-level code: the import itself)?"""
        root = func
        while isinstance(root, ast.Attribute):
            root = root.value
        if not isinstance(root, ast.Name) or root.id in self.params:
            return False
        how, reach = self._reach(root, stmt)
        if how != "scope" or not (reach.kind is ReachKind.UNBOUND or (
                self.scope is None and reach.kind is ReachKind.BOUND and not reach.binding.path)):
            return False
        found = self.analysis.model.module.by_name.get(root.id, [])
        return bool(found) and all(b.kind is BindingKind.IMPORT for b in found)

    def yielded_sigs(self, call, stmt) -> Optional[tuple]:
        """([(yield expression, its signature)], the generator's file) of a generator function of
        the project that `call` calls (`make_batches(x, y, 32)`), read with its parameters bound
        to the arguments; None when it is not one."""
        callee = self._project_def(call.func, stmt)
        if callee is None or not isinstance(callee[1], ast.FunctionDef):
            return None
        analysis, node, _ = callee
        reader = self._bound_reader(analysis, node, call, stmt)
        if reader is None:
            return None
        found = []
        for sub in _own_statements(node):
            if isinstance(sub, ast.Expr) and isinstance(sub.value, ast.Yield) and sub.value.value is not None:
                found.append((sub.value.value, reader.sig(sub.value.value, sub)))
        self.atoms.update(reader.atoms)
        if not found:
            return None
        return sorted(found, key=lambda item: (item[0].lineno, item[0].col_offset)), analysis.path

    def _bound_reader(self, analysis, node, call, stmt, skip_self: bool = False):
        """A reader of the function `node` with its parameters bound to what `call` passes (and
        the literal defaults it leaves out; `skip_self`: a method called on its object), or None
        when the call cannot be mapped."""
        if self._depth + 4 > _MAX_DEPTH or isinstance(node, ast.AsyncFunctionDef) \
                or any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            return None
        args = node.args
        positional = [a.arg for a in args.posonlyargs + args.args][1 if skip_self else 0:]
        if len(call.args) > len(positional):
            return None
        bound = {name: self.sig(arg, stmt) for name, arg in zip(positional, call.args)}
        for kw in call.keywords:
            if kw.arg not in positional and kw.arg not in {a.arg for a in args.kwonlyargs}:
                return None
            bound[kw.arg] = self.sig(kw.value, stmt)
        # a parameter the call leaves out holds its default: a literal reads the same anywhere
        pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults)) + \
            [(a.arg, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
        for name, default in pairs:
            if name not in bound and _literal(default):
                bound[name] = self.sig(default, stmt)
        reader = SignatureReader(analysis, node, bound)
        reader._depth = self._depth + 2
        return reader

    def _returned_sig(self, callee, call, stmt, skip_self: bool = False):
        """What a call of one of the module's functions returns, read in the function with its
        parameters bound to the arguments' signatures. A jitted function returns arrays: a
        Python scalar comes back as a weakly typed array, arithmetic as an array."""
        analysis, node, jitted = callee
        if isinstance(node, ast.Lambda):
            returns, falls_through = [ast.Return(value=node.body)], False
        else:
            returns, falls_through = _returns_of(node)
        if not returns or falls_through:
            return None
        reader = self._bound_reader(analysis, node, call, stmt, skip_self)
        if reader is None:
            return None
        sigs = []
        for ret in returns:
            if ret.value is None:
                return None
            where = None if isinstance(node, ast.Lambda) else ret      # a lambda's body: no statement
            sig = reader.output_sig(ret.value, where) if jitted else reader.sig(ret.value, where)
            if sig is None or isinstance(sig, Opaque):
                return None
            sigs.append(sig)
        self.atoms.update(reader.atoms)
        if not all(sig == sigs[0] for sig in sigs[1:]):
            return None
        return replace(sigs[0], origin=_text(call)) if isinstance(sigs[0], Leaf) else sigs[0]

    def output_sig(self, expr, stmt):
        """What a jitted function gives back for the returned `expr`: containers as they are,
        every leaf an array."""
        if isinstance(expr, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in expr.elts):
            return Tree("tuple" if isinstance(expr, ast.Tuple) else "list",
                        tuple(self.output_sig(e, stmt) for e in expr.elts), origin=_text(expr))
        sig = self.sig(expr, stmt)
        if (sig is None or isinstance(sig, Opaque)) and self._arithmetic(expr, stmt, 0):
            return Leaf()
        return _as_array(sig)

    def _arithmetic(self, expr, stmt, depth) -> bool:
        """Is `expr` surely an array or a number, never a container or None? Arithmetic that no
        container supports (`a - b`, `a @ b`, `a / b`), `+`/`*` with such an operand, or a call
        of a JAX function that returns one array (`jnp.where(c, a, b)`, `jnp.linalg.norm(v)`)."""
        if depth > 4:
            return False
        if isinstance(expr, ast.Name):
            reach = self.bindings.reach(expr.id, expr, stmt)
            if reach.kind is ReachKind.BOUND and reach.binding.value is not None:
                return self._arithmetic(reach.binding.value, reach.binding.stmt, depth + 1)
            return False
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
            return self._arithmetic(expr.operand, stmt, depth + 1)
        if isinstance(expr, ast.Call):
            return self._returns_one_array(expr)
        if not isinstance(expr, ast.BinOp):
            return False
        if isinstance(expr.op, (ast.Sub, ast.Div, ast.MatMult, ast.Pow, ast.FloorDiv)):
            return True
        if not isinstance(expr.op, (ast.Add, ast.Mult)):
            return False
        for side in (expr.left, expr.right):
            sig = self.sig(side, stmt)
            if isinstance(sig, Leaf) and sig.certain and (isinstance(expr.op, ast.Add) or sig.python != "int"):
                return True
            if self._arithmetic(side, stmt, depth + 1):
                return True
        return False

    def _returns_one_array(self, call) -> bool:
        """Does this JAX call return one array (ARRAY_RESULT), not a tuple?"""
        if any(isinstance(a, ast.Starred) for a in call.args) or \
                any(kw.arg is None or kw.arg.startswith(TUPLE_KEYWORDS) for kw in call.keywords):
            return False
        name = self.imports.resolve(call.func) or ""
        return name in ARRAY_RESULT or ARRAY_RESULT_WITH_ARGS.get(name) == len(call.args)

    def _builtin_or_class_sig(self, call, stmt):
        func = call.func.id
        shadowed = func in self.analysis.index.module_names or self.bindings.by_name.get(func)
        if not shadowed and func in ("float", "int", "complex") and len(call.args) == 1 and not call.keywords:
            return Leaf(_PYTHON_DTYPES[func], True, (), python=func, origin=_text(call))
        if not shadowed and func == "bool" and len(call.args) == 1:
            return Leaf("bool", False, (), python="bool", origin=_text(call))
        if not shadowed and func == "dict" and not call.args and all(kw.arg for kw in call.keywords):
            return self._dict_sig([(kw.arg, kw.value) for kw in call.keywords], stmt, call)
        if not shadowed and func in ("tuple", "list") and len(call.args) <= 1 and not call.keywords:
            # `tuple(layers)`: a container of that kind whose length is not known; a tuple and
            # a list never share a pytree structure, whatever their lengths.
            return Tree(func, None, origin=_text(call))
        cls = self.analysis.index.classes.get(func)
        rebound = any(not isinstance(b.stmt, ast.ClassDef) for b in self.bindings.by_name.get(func, ()))
        return self._namedtuple_sig(cls, call, stmt) if cls is not None and not rebound else None

    def _namedtuple_sig(self, cls, call, stmt):
        """`State(step=0, lr=1.0)` of a NamedTuple class that gives every field, by position or by
        name: a tree of the fields' signatures."""
        if not _is_namedtuple(cls) or not all(kw.arg for kw in call.keywords) \
                or any(isinstance(a, ast.Starred) for a in call.args):
            return None
        fields = _namedtuple_fields(cls)
        given = dict(zip(fields or (), call.args))
        given.update((kw.arg, kw.value) for kw in call.keywords)
        if fields is None or len(call.args) > len(fields) or set(given) != set(fields) \
                or len(given) != len(call.args) + len(call.keywords):
            return None
        return Tree(f"NamedTuple {cls.name}", tuple(self.sig(given[f], stmt) for f in fields),
                    keys=tuple(fields), origin=_text(call))

    def _method_sig(self, call, stmt):
        func = call.func
        origin = _text(call)
        target = func.value
        if func.attr in ELEMENT_UPDATES and isinstance(target, ast.Subscript) \
                and isinstance(target.value, ast.Attribute) and target.value.attr == "at":
            # `x.at[i].set(v)`: a new array of x's shape and dtype (`v` is cast to it)
            base = self.sig(target.value.value, stmt)
            if not isinstance(base, Leaf) or base.python or not base.certain:
                return None
            if func.attr in ELEMENT_UPDATES_PROMOTING and not (base.dtype or "").startswith(("float", "bfloat",
                                                                                              "complex")):
                return Leaf(None, None, base.shape, origin=origin)
            return Leaf(base.dtype, base.weak, base.shape, origin=origin, dtype_of=base.dtype_of)
        base = self.sig(target, stmt)
        if func.attr == "astype" and len(call.args) == 1 and isinstance(base, Opaque):
            dtype = self.dtype_arg(call.args[0], stmt)
            if not dtype:
                return None
            cast_from = base.key if dtype not in _DEFENSIVE_CASTS else None
            return Leaf(dtype, False, None, origin=origin, cast_from=cast_from)
        if func.attr == "astype" and len(call.args) == 1 and base is None:
            dtype = self.dtype_arg(call.args[0], stmt)     # `np.concatenate(...).astype(np.float32)`:
            return Leaf(dtype, False, None, origin=origin) if dtype else None   # an array of that dtype
        if func.attr == "reshape" and isinstance(base, Opaque):
            base = Leaf(None, None, None, dtype_of=base.key)
        if not isinstance(base, Leaf) or base.python:
            return None
        rule = FLOAT_RESULT.get("." + func.attr)
        if rule is not None and not call.args and not call.keywords:
            found = _float_result(base, rule, origin)
            if found is not None:
                return found
        if not call.args:
            found = _strong_result("." + func.attr, rule, call, origin)
            if found is not None:
                return found
        if func.attr == "astype" and call.args:
            dtype = self.dtype_arg(call.args[0], stmt)
            cast_from = base.dtype_of if base.dtype is None and dtype not in _DEFENSIVE_CASTS else None
            return Leaf(dtype, False if dtype else None, base.shape, origin=origin, cast_from=cast_from)
        if func.attr == "reshape" and call.args:
            args = call.args
            if len(args) == 1:
                shape = self.shape_arg(args[0], stmt)
            else:
                shape = tuple(self.dim(a, stmt) for a in args)
            if shape is not None and any(d is not None and poly_value(d) == -1 for d in shape):
                shape = _infer_minus_one(shape, base.shape)
            return Leaf(base.dtype, base.weak, shape, origin=origin, dtype_of=base.dtype_of)
        if func.attr in ("copy", "block_until_ready"):
            return base
        return None

    def _array_sig(self, call, stmt, numpy, kwargs):
        """jnp.array / jnp.asarray / np.array / np.asarray."""
        origin = _text(call)
        data = call.args[0] if call.args else kwargs.get("object")
        dtype_node = call.args[1] if len(call.args) > 1 else kwargs.get("dtype")
        forced = self.dtype_arg(dtype_node, stmt) if dtype_node is not None else None
        if dtype_node is not None and forced is None:
            return None
        if data is None:
            return None
        try:
            value = evaluate_literal(data)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            value = _NOT_LITERAL
        if value is not _NOT_LITERAL:
            shape, kind = _literal_shape(value)
            if kind is None:
                return None
            weak = shape == () and kind != "bool" and not numpy and forced is None
            return Leaf(forced or _PYTHON_DTYPES[kind], weak, shape, origin=origin)
        inner = self.sig(data, stmt)
        if forced and (inner is None or isinstance(inner, Opaque)) and not numpy:
            return Leaf(forced, False, None, origin=origin)     # an explicit dtype: strong, whatever the data
        if isinstance(inner, Leaf):
            if inner.grows is not None:
                return Leaf(forced, False if forced else None, None, origin=origin, grows=inner.grows)
            weak = False if forced or inner.weak is False or numpy else None
            if inner.python and not numpy and forced is None:
                weak = inner.python != "bool"
            return Leaf(forced or inner.dtype, weak, inner.shape, origin=origin)
        if isinstance(inner, Tree) and inner.kind in ("list", "tuple"):
            if inner.grows is not None:
                return Leaf(forced, False if forced else None, None, origin=origin, grows=inner.grows)
            shape, dtype = self._sequence_shape(inner, data, stmt)
            return Leaf(forced or dtype, False if (forced or dtype) else None, shape, origin=origin)
        return None

    def _sequence_shape(self, tree, node, stmt):
        """Shape and dtype of an array built from a Python sequence of arrays or scalars."""
        if tree.children is not None:
            kids = tree.children
            if not kids:
                return (poly_const(0),), None
            if all(isinstance(k, Leaf) for k in kids) and all(k.shape == kids[0].shape for k in kids):
                kinds = [k.python for k in kids]
                if all(kinds):
                    dtype = _PYTHON_DTYPES.get(_promote_python(kinds) or "", None)
                else:
                    dtypes = {k.dtype for k in kids}
                    dtype = dtypes.pop() if len(dtypes) == 1 and None not in dtypes else None
                rest = kids[0].shape
                return ((poly_const(len(kids)),) + tuple(rest) if rest is not None else
                        (poly_const(len(kids)), MORE)), dtype
            return (poly_const(len(kids)), MORE), None
        if tree.length is not None:
            elt_shape = None
            dtype = None
            if isinstance(tree.elt, Leaf):
                elt_shape = tree.elt.shape
                dtype = _PYTHON_DTYPES.get(tree.elt.python or "", None) if tree.elt.python else tree.elt.dtype
            elif isinstance(node, ast.ListComp):
                inner = self.sequence_length(node.elt, stmt)
                if inner is not None:
                    elt_shape = (inner, MORE)
            return ((tree.length,) + tuple(elt_shape) if elt_shape is not None else (tree.length, MORE)), dtype
        return None, None

    def _arange_sig(self, call, stmt, kwargs):
        args = list(call.args)
        for key in ("start", "stop", "step"):
            if key in kwargs:
                return None
        if not 1 <= len(args) <= 3:
            return None
        kinds = []
        for a in args:
            s = self.sig(a, stmt)
            kinds.append(s.python if isinstance(s, Leaf) else self._shown_python_kind(a))
        dtype = self.dtype_arg(kwargs.get("dtype"), stmt) if "dtype" in kwargs else \
            (_PYTHON_DTYPES.get(_promote_python(kinds) or "", None) if all(kinds) else None)
        if dtype == "bool":
            dtype = "int32"
        start, stop = (None, args[0]) if len(args) == 1 else (args[0], args[1])
        step = args[2] if len(args) == 3 else None
        numbers = [_number(a) for a in args]
        if all(n is not None for n in numbers):
            bounds = [0.0] + numbers if len(numbers) == 1 else numbers
            lo, hi, by = bounds[0], bounds[1], bounds[2] if len(bounds) == 3 else 1
            length = poly_const(max(0, math.ceil((hi - lo) / by))) if by else None
        elif step is not None and self.dim(step, stmt) != poly_const(1):
            length = self._opaque(call, stmt)
        else:
            stop_dim = self.dim(stop, stmt)
            start_dim = self.dim(start, stmt) if start is not None else poly_const(0)
            length = poly_add(stop_dim, start_dim, -1) if stop_dim is not None and start_dim is not None else None
        return Leaf(dtype, False if dtype else None, (length,), origin=_text(call))

    def _pad_sig(self, call, stmt, kwargs):
        if not call.args:
            return None
        base = self.sig(call.args[0], stmt)
        width = call.args[1] if len(call.args) > 1 else kwargs.get("pad_width")
        if width is None:
            return None
        shape = base.shape if isinstance(base, Leaf) and base.shape is not None else None
        dtype, weak = (base.dtype, base.weak) if isinstance(base, Leaf) else (None, None)
        first = self._leading_dim(call.args[0], stmt, base)
        pairs = self._pad_widths(width, stmt)
        if pairs is None:
            return None
        if shape is None or MORE in shape:
            if len(pairs) != 1 or first is None:
                return None
            before, after = pairs[0]
            grown = poly_add(poly_add(first, before), after)
            return Leaf(dtype, weak, (grown, MORE) if shape is None or len(shape) != 2 else (grown,),
                        origin=_text(call))
        if len(pairs) == 1:
            pairs = pairs * len(shape)
        if len(pairs) != len(shape):
            return None
        out = []
        for dim, (before, after) in zip(shape, pairs):
            out.append(None if dim is None or before is None or after is None else
                       poly_add(poly_add(dim, before), after))
        return Leaf(dtype, weak, tuple(out), origin=_text(call))

    def _pad_widths(self, width, stmt):
        """[(before, after)] per axis from an int, a pair, or a tuple of pairs."""
        if isinstance(width, (ast.Tuple, ast.List)):
            if width.elts and all(isinstance(e, (ast.Tuple, ast.List)) for e in width.elts):
                pairs = []
                for e in width.elts:
                    if len(e.elts) != 2:
                        return None
                    pairs.append((self.dim(e.elts[0], stmt), self.dim(e.elts[1], stmt)))
                return pairs
            if len(width.elts) == 2:
                return [(self.dim(width.elts[0], stmt), self.dim(width.elts[1], stmt))]
            return None
        d = self.dim(width, stmt)
        return [(d, d)] if d is not None else None

    def _join_sig(self, call, stmt, kwargs, short):
        if not call.args:
            return None
        parts = self.sig(call.args[0], stmt)
        if not isinstance(parts, Tree) or parts.kind not in ("list", "tuple"):
            return None
        if parts.grows is not None:
            return Leaf(grows=parts.grows, origin=_text(call))
        if short == "stack":
            shape, dtype = self._sequence_shape(parts, call.args[0], stmt)
            axis = kwargs.get("axis") or (call.args[1] if len(call.args) > 1 else None)
            if axis is not None and not (isinstance(axis, ast.Constant) and axis.value == 0):
                shape = None
            return Leaf(dtype, False if dtype else None, shape, origin=_text(call))
        kids = parts.children
        axis = kwargs.get("axis") or (call.args[1] if len(call.args) > 1 else None)
        if kids is None or not kids or (axis is not None and not (isinstance(axis, ast.Constant) and axis.value == 0)):
            return None
        if not all(isinstance(k, Leaf) and k.shape and k.shape[0] is not None and k.shape[0] is not MORE
                   for k in kids):
            return None
        total = ()
        for k in kids:
            total = poly_add(total, k.shape[0])
        rests = {k.shape[1:] for k in kids}
        rest = rests.pop() if len(rests) == 1 else (MORE,)
        dtypes = {k.dtype for k in kids}
        dtype = dtypes.pop() if len(dtypes) == 1 and None not in dtypes and all(k.weak is False for k in kids) \
            else None
        return Leaf(dtype, False if dtype else None, (total,) + tuple(rest), origin=_text(call))

    def _random_sig(self, call, stmt, short, kwargs):
        origin = _text(call)
        if short in ("normal", "uniform", "truncated_normal", "laplace", "logistic", "gumbel", "cauchy",
                     "exponential", "rademacher"):
            index = 3 if short == "truncated_normal" else 1
            shape_node = _arg(call, index, "shape", kwargs)
            if short == "uniform":
                shape_node = _arg(call, 1, "shape", kwargs)
            shape = self.shape_arg(shape_node, stmt) if shape_node is not None else ()
            dtype = self.dtype_arg(kwargs.get("dtype"), stmt, default="float32")
            if short == "rademacher":
                dtype = self.dtype_arg(kwargs.get("dtype"), stmt, default="int32")
            return Leaf(dtype, False if dtype else None, shape, origin=origin)
        if short == "randint":
            shape = self.shape_arg(_arg(call, 1, "shape", kwargs), stmt)
            dtype = self.dtype_arg(kwargs.get("dtype"), stmt, default="int32")
            return Leaf(dtype, False if dtype else None, shape, origin=origin)
        if short == "bernoulli":
            shape_node = _arg(call, 2, "shape", kwargs)
            shape = self.shape_arg(shape_node, stmt) if shape_node is not None else None
            return Leaf("bool", False, shape, origin=origin)
        if short == "permutation" and len(call.args) >= 2:
            n = self.sig(call.args[1], stmt)
            if isinstance(n, Leaf) and n.python == "int":
                return Leaf("int32", False, (self.dim(call.args[1], stmt),), origin=origin)
        return None

    # -- subscripts and arithmetic --------------------------------------------------------------------
    def _subscript_sig(self, node, stmt):
        base = self.sig(node.value, stmt)
        index = node.slice
        source = base.key if isinstance(base, Opaque) else base.dtype_of if isinstance(base, Leaf) else None
        if isinstance(base, Opaque):
            base = None
        if isinstance(base, Tree):
            try:
                key = evaluate_literal(index)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                return None
            if base.children is None:
                return None
            if base.kind == "dict":
                return base.children[base.keys.index(key)] if base.keys and key in base.keys else None
            if isinstance(key, int) and not isinstance(key, bool) and -len(base.children) <= key < len(base.children):
                return base.children[key]
            return None
        parts = index.elts if isinstance(index, ast.Tuple) else [index]
        if not any(isinstance(p, ast.Slice) for p in parts) and not (isinstance(base, Leaf) and base.shape):
            if isinstance(base, Leaf) and not base.python and base.shape is None:
                # an element or rows of an array of unknown shape: an array of its dtype
                return Leaf(base.dtype, base.weak, None, origin=_text(node), certain=base.certain, dtype_of=source)
            return None
        if isinstance(base, Leaf) and base.python:
            return None
        dtype, weak = (base.dtype, base.weak) if isinstance(base, Leaf) else (None, None)
        shape = base.shape if isinstance(base, Leaf) and base.shape is not None else None
        certain = isinstance(base, Leaf)
        if shape is None:
            shape = (self._leading_dim(node.value, stmt, base), MORE)
        out = []
        rest = list(shape)
        for part in parts:
            if isinstance(part, ast.Constant) and part.value is None:
                out.append(poly_const(1))
                continue
            if isinstance(part, ast.Constant) and part.value is Ellipsis:
                return Leaf(dtype, weak, None, origin=_text(node), certain=certain, dtype_of=source)
            if not rest:
                return None
            dim = rest.pop(0)
            if dim is MORE:
                rest = [None, MORE]
                dim = rest.pop(0)
            if isinstance(part, ast.Slice):
                out.append(self._slice_length(part, dim, stmt, node))
                continue
            kind = self.sig(part, stmt)
            if isinstance(kind, Leaf) and kind.python == "int":
                continue              # an integer index drops the axis
            return Leaf(dtype, weak, None, origin=_text(node), certain=certain, dtype_of=source)
        return Leaf(dtype, weak, tuple(out) + tuple(rest), origin=_text(node), certain=certain, dtype_of=source)

    def _leading_dim(self, base_node, stmt, base):
        if isinstance(base, Leaf) and base.shape and base.shape[0] is not MORE:
            return base.shape[0]
        return self._fixed_atom(f"len({_text(base_node)})")

    def _slice_length(self, part, dim, stmt, node):
        if part.step is not None:
            step = self.dim(part.step, stmt)
            if step != poly_const(1):
                return self._opaque(node, stmt)
        if dim is None:
            dim = self._fixed_atom(f"len({_text(node.value)})")

        def bound(expr, default):
            if expr is None:
                return default
            if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
                inner = self.dim(expr.operand, stmt)
                return poly_add(dim, inner, -1) if inner is not None else None
            value = self.dim(expr, stmt)
            if value is not None and poly_value(value) is not None and poly_value(value) < 0:
                return poly_add(dim, value)
            return value

        lower = bound(part.lower, poly_const(0))
        upper = bound(part.upper, dim)
        if lower is None or upper is None:
            return None
        return poly_add(upper, lower, -1)

    def _compare_sig(self, node, stmt):
        """`x < 7` with x an array: a strongly typed bool array of the broadcast shape (known
        when the shapes are equal or one side is a scalar). Not for `is`/`in`, chains, or two
        Python values."""
        if len(node.ops) != 1 or isinstance(node.ops[0], (ast.Is, ast.IsNot, ast.In, ast.NotIn)):
            return None
        left, right = self.sig(node.left, stmt), self.sig(node.comparators[0], stmt)
        if not isinstance(left, Leaf) or not isinstance(right, Leaf) or not left.certain or not right.certain:
            return None
        if left.python and right.python:
            return Leaf("bool", False, (), python="bool", origin=_text(node))
        shapes = [side.shape for side in (left, right) if not side.python]
        shape = shapes[0] if len(shapes) == 1 or shapes[0] == shapes[1] else \
            shapes[0] if shapes[1] == () else shapes[1] if shapes[0] == () else None
        return Leaf("bool", False, shape, origin=_text(node))

    def _binop_sig(self, node, stmt):
        left, right = self.sig(node.left, stmt), self.sig(node.right, stmt)
        known = self._typed_binop(node, left, right)
        if known is not None:
            return known
        if isinstance(node.op, _STRONG_KEEPING_OPS):
            for one, other in ((left, right), (right, left)):
                if _strong_float(one) and not isinstance(other, Tree) and not (
                        isinstance(other, Leaf) and (other.python == "complex" or not other.python
                                                     and other.dtype and other.weak is not None)):
                    # arithmetic with a strongly typed float array: strong whatever the other operand
                    # is (a weak type needs every operand weak; a Python or weak int or float does
                    # not outrank a float); some float, its width and shape unknown
                    return Leaf(None, False, None, origin=_text(node), floating=True)
        return None

    def _typed_binop(self, node, left, right):
        """Arithmetic whose operands' types are known."""
        if isinstance(left, Leaf) and isinstance(right, Leaf):
            if left.python and right.python:
                kind = _promote_python([left.python, right.python])
                if kind == "bool" and not isinstance(node.op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
                    kind = "int"
                if kind == "int" and isinstance(node.op, ast.Div):
                    kind = "float"
                if kind is None:
                    return None
                return Leaf(_PYTHON_DTYPES[kind], kind != "bool", (), python=kind, origin=_text(node))
            array, scalar = (left, right) if right.python else (right, left) if left.python else (None, None)
            if array is not None and array.dtype and scalar.python in ("int", "float"):
                if array.dtype in _FLOATING or (array.dtype.startswith(("int", "uint")) and scalar.python == "int"):
                    if isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Pow, ast.Mod, ast.FloorDiv)) or \
                            (isinstance(node.op, ast.Div) and array.dtype in _FLOATING):
                        return Leaf(array.dtype, array.weak, array.shape, origin=_text(node))
                return None
            if not left.python and not right.python and left.dtype and left.dtype == right.dtype \
                    and left.weak is False and right.weak is False \
                    and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
                shape = left.shape if left.shape == right.shape else \
                    left.shape if right.shape == () else right.shape if left.shape == () else None
                return Leaf(left.dtype, False, shape, origin=_text(node))
            return None
        if isinstance(node.op, ast.Add) and isinstance(left, Tree) and isinstance(right, Tree) \
                and left.kind == right.kind and left.kind in ("list", "tuple") \
                and left.children is not None and right.children is not None:
            return Tree(left.kind, left.children + right.children, origin=_text(node))
        return None

    # -- dimensions -----------------------------------------------------------------------------------
    def dim(self, expr, stmt) -> Optional[tuple]:
        """A Python int expression as a polynomial over atoms, or None."""
        if expr is None or self._depth > _MAX_DEPTH:
            return None
        self._depth += 1
        try:
            return self._dim(expr, stmt)
        finally:
            self._depth -= 1

    def _dim(self, expr, stmt):
        if isinstance(expr, ast.Constant):
            value = expr.value
            if isinstance(value, int) and not isinstance(value, bool):
                return poly_const(value)
            return None
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
            inner = self.dim(expr.operand, stmt)
            return poly_mul(inner, poly_const(-1)) if inner is not None else None
        if isinstance(expr, ast.BinOp):
            left, right = self.dim(expr.left, stmt), self.dim(expr.right, stmt)
            if left is None or right is None:
                return None
            if isinstance(expr.op, ast.Add):
                return poly_add(left, right)
            if isinstance(expr.op, ast.Sub):
                return poly_add(left, right, -1)
            if isinstance(expr.op, ast.Mult):
                return poly_mul(left, right)
            a, b = poly_value(left), poly_value(right)
            if a is not None and b is not None:
                try:
                    if isinstance(expr.op, ast.FloorDiv):
                        return poly_const(a // b)
                    if isinstance(expr.op, ast.Mod):
                        return poly_const(a % b)
                    if isinstance(expr.op, ast.Pow) and 0 <= b < 64:
                        return poly_const(a ** b)
                except ZeroDivisionError:
                    return None
            return self._opaque(expr, stmt)
        if isinstance(expr, ast.Name):
            return self._name_dim(expr, stmt)
        if isinstance(expr, ast.Call):
            return self._call_dim(expr, stmt)
        if isinstance(expr, ast.Subscript):
            return self._subscript_dim(expr, stmt)
        if isinstance(expr, ast.Attribute) and expr.attr == "size":
            return self._fixed_atom(_text(expr))
        return self._opaque(expr, stmt)

    def _name_dim(self, node, stmt):
        how, reach = self._reach(node, stmt)
        name = node.id
        if how == "comprehension":
            comp, gen = reach
            return self._loop_atom(name, comp, gen.iter, stmt, f"the comprehension variable at line {comp.lineno}")
        if how == "unbound" or reach.kind is ReachKind.UNBOUND:
            constant = self.analysis.index.constants.get(name)
            if isinstance(constant, int) and not isinstance(constant, bool) and self.scope is not None:
                return poly_const(constant)
            found = self._module_value(name)
            if found is not None:
                return self.dim(found.value, found.stmt)
            return self._fixed_atom(name)
        if reach.kind is ReachKind.LOOPVAR:
            loop = reach.loop
            if not isinstance(loop.target, ast.Name):
                if _enumerate_index(loop, name, self):
                    return self._counter_atom(name, loop, f"the index of the loop at line {loop.lineno}")
                values = self._unpacked_values(loop, name, reach.binding.stmt)
                if values is not None and len(set(values)) == 1:
                    return poly_const(values[0])      # `for bs, n in product((1,), sizes)`: bs is 1
                return self._register(Atom(name, "loop", loop, values=values,
                                           reason=f"a loop variable of the loop at line {loop.lineno}"),
                                      key=f"{name}@{loop.lineno}:{loop.col_offset}")
            return self._loop_atom(name, loop, loop.iter, reach.binding.stmt,
                                   f"the loop variable of the loop at line {loop.lineno}")
        if reach.kind is ReachKind.SELF:
            later = reach.later[0]
            return self._counter_atom(name, reach.loop, f"a counter updated at line {later.line} in the loop at "
                                                        f"line {reach.loop.lineno}")
        if reach.kind is ReachKind.BOUND:
            binding = reach.binding
            if binding.value is None:
                return self._fixed_atom(name)
            data = self._data_read(binding.value, binding.stmt)
            if data is not None:
                loop = data
                return self._register(Atom(name, "data", loop, reason=(
                    f"a count read from the data of each iteration (line {binding.line}) of the loop at line "
                    f"{loop.lineno}")))
            value = self.dim(binding.value, binding.stmt)
            return value if value is not None else self._fixed_atom(name)
        return self._fixed_atom(name)

    def _loop_atom(self, name, loop, iterable, stmt, reason):
        values = self._literal_ints(iterable, stmt)
        atom = Atom(name, "loop", loop, values=values, reason=reason)
        if isinstance(iterable, (ast.List, ast.Tuple, ast.Name)) and values is None:
            element = self._element_sig(iterable, stmt, loop)
            literal = isinstance(iterable, (ast.List, ast.Tuple))
            if literal and not (isinstance(element, Leaf) and element.python == "int"):
                return self._fixed_atom(name)
        return self._register(atom, key=f"{name}@{loop.lineno}:{loop.col_offset}")

    def _counter_atom(self, name, loop, reason):
        return self._register(Atom(name, "counter", loop, reason=reason), key=f"{name}@{loop.lineno}:{loop.col_offset}")

    def _literal_ints(self, iterable, stmt) -> Optional[list]:
        """The ints a loop over `iterable` takes, when they are written in the code."""
        if isinstance(iterable, ast.Name):
            how, reach = self._reach(iterable, stmt)
            if how == "scope" and reach.kind is ReachKind.BOUND and reach.binding.value is not None:
                return self._literal_ints(reach.binding.value, reach.binding.stmt)
            if how == "scope" and reach.kind is ReachKind.UNBOUND:
                constant = self.analysis.index.constants.get(iterable.id)
                if isinstance(constant, (list, tuple)) and all(type(c) is int for c in constant):
                    return list(constant)
            return None
        if _is_call_to(iterable, "range", self) and not iterable.keywords and 1 <= len(iterable.args) <= 3:
            dims = [self.dim(a, stmt) for a in iterable.args]
            bounds = [poly_value(d) if d is not None else None for d in dims]
            if all(b is not None for b in bounds):
                r = range(*bounds)
                return list(r) if len(r) <= 100_000 else None
            return None
        try:
            value = evaluate_literal(iterable)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
        if isinstance(value, (list, tuple)) and all(type(v) is int for v in value):
            return list(value)
        return None

    def _unpacked_values(self, loop, name, stmt) -> Optional[list]:
        """The ints `name` takes in `for a, b in product(A, B)` / `zip(A, B)` / a literal list of
        tuples, when the code writes them."""
        target = loop.target
        if not isinstance(target, ast.Tuple) or not all(isinstance(e, ast.Name) for e in target.elts):
            return None
        index = [e.id for e in target.elts].index(name)
        iterable = loop.iter
        if isinstance(iterable, ast.Name):
            how, reach = self._reach(iterable, stmt)
            if how != "scope" or reach.kind is not ReachKind.BOUND or reach.binding.value is None:
                return None
            iterable, stmt = reach.binding.value, reach.binding.stmt
        if isinstance(iterable, ast.Call) and not iterable.keywords and len(iterable.args) == len(target.elts):
            combines = self.imports.resolve(iterable.func) == "itertools.product" or _is_call_to(iterable, "zip", self)
            return self._literal_ints(iterable.args[index], stmt) if combines else None
        try:
            rows = evaluate_literal(iterable)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
        if isinstance(rows, (list, tuple)) and rows and all(
                isinstance(r, (list, tuple)) and len(r) == len(target.elts) and type(r[index]) is int for r in rows):
            return [r[index] for r in rows]
        return None

    def _data_read(self, value, stmt) -> Optional[ast.AST]:
        """The loop whose per-iteration data `value` counts: `int(mask.sum())`, `x.sum().item()`."""
        inner = value
        if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id == "int" \
                and len(inner.args) == 1:
            inner = inner.args[0]
        elif isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) and inner.func.attr == "item" \
                and not inner.args:
            inner = inner.func.value
        else:
            return None
        receiver = None
        if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) and inner.func.attr in (
                "sum", "count_nonzero") and not inner.args:
            receiver = inner.func.value
        elif isinstance(inner, ast.Call) and (self.imports.resolve(inner.func) or "") in (
                "jnp.sum", "np.sum", "jnp.count_nonzero", "np.count_nonzero") and len(inner.args) == 1:
            receiver = inner.args[0]
        if receiver is None:
            return None
        return self.per_iteration(receiver, stmt)

    def per_iteration(self, node, stmt, depth=0) -> Optional[ast.AST]:
        """The loop of this scope in which `node` holds new data each iteration, if any."""
        while isinstance(node, (ast.Subscript, ast.Attribute)) or (
                isinstance(node, ast.Compare) and len(node.comparators) == 1):
            node = node.left if isinstance(node, ast.Compare) else node.value
        if not isinstance(node, ast.Name) or depth > 4:
            return None
        how, reach = self._reach(node, stmt)
        if how == "comprehension":
            comp, gen = reach
            return None if self._literal_ints(gen.iter, stmt) is not None else comp
        if how != "scope":
            return None
        if reach.kind is ReachKind.LOOPVAR:
            if self._literal_ints(reach.loop.iter, reach.binding.stmt) is not None:
                return None
            try:
                evaluate_literal(reach.loop.iter)
                return None           # a loop over literal values: not data
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                return reach.loop
        if reach.kind is ReachKind.BOUND and reach.binding.value is not None:
            loops = [blk for blk, part in reach.binding.path if isinstance(blk, LOOP_STATEMENTS) and part == "body"]
            if not loops:
                return None
            for sub in ast.walk(reach.binding.value):
                if isinstance(sub, ast.Name) and sub.id != node.id:
                    found = self.per_iteration(sub, reach.binding.stmt, depth + 1)
                    if found is not None and found in loops:
                        return found
        return None

    def _call_dim(self, call, stmt):
        func = call.func
        if isinstance(func, ast.Name) and func.id == "len" and len(call.args) == 1 \
                and not self.bindings.by_name.get("len"):
            arg = call.args[0]
            sig = self.sig(arg, stmt)
            if isinstance(sig, Tree) and sig.grows is not None:
                loop, why = sig.grows
                return self._register(Atom(f"len({_text(arg)})", "growth", loop, reason=why),
                                      key=f"len({_text(arg)})@{loop.lineno}")
            if isinstance(sig, Tree) and sig.children is not None:
                return poly_const(len(sig.children))
            if isinstance(sig, Tree) and sig.length is not None:
                return sig.length
            if isinstance(sig, Leaf) and sig.shape and sig.shape[0] is not MORE and sig.shape[0] is not None:
                return sig.shape[0]
            return self._fixed_atom(f"len({_text(arg)})")
        if isinstance(func, ast.Name) and func.id == "int" and len(call.args) == 1:
            data = self._data_read(call, stmt)
            if data is not None:
                return self._register(Atom(_text(call), "data", data, reason=(
                    f"a count read from the data of each iteration of the loop at line {data.lineno}")))
            return self.dim(call.args[0], stmt)
        if isinstance(func, ast.Name) and func.id == "max" and len(call.args) == 1 and not call.keywords:
            loop = self._longest(call.args[0], stmt)
            if loop is not None:
                return self._register(Atom(_text(call), "longest", loop, reason=(
                    f"the longest sequence of the data of each iteration of the loop at line {loop.lineno}")))
        return self._opaque(call, stmt)

    def _longest(self, arg, stmt) -> Optional[ast.AST]:
        """`max(len(s) for s in batch)` / `max(map(len, batch))` over per-iteration data."""
        if isinstance(arg, (ast.GeneratorExp, ast.ListComp)) and len(arg.generators) == 1:
            gen = arg.generators[0]
            elt = arg.elt
            measures = (isinstance(elt, ast.Call) and isinstance(elt.func, ast.Name) and elt.func.id == "len") or \
                (isinstance(elt, ast.Subscript) and isinstance(elt.value, ast.Attribute) and elt.value.attr == "shape")
            if measures:
                return self.per_iteration(gen.iter, stmt)
        if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Name) and arg.func.id == "map" \
                and len(arg.args) == 2 and isinstance(arg.args[0], ast.Name) and arg.args[0].id == "len":
            return self.per_iteration(arg.args[1], stmt)
        return None

    def _subscript_dim(self, node, stmt):
        value = node.value
        if isinstance(value, ast.Attribute) and value.attr == "shape":
            try:
                k = evaluate_literal(node.slice)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                return self._opaque(node, stmt)
            base = self.sig(value.value, stmt)
            if isinstance(base, Leaf) and base.shape is not None and isinstance(k, int):
                if k >= 0 and k < len(base.shape) and base.shape[k] is not MORE and \
                        MORE not in base.shape[:k] and base.shape[k] is not None:
                    return base.shape[k]
                if k < 0 and MORE not in base.shape and -k <= len(base.shape) and base.shape[k] is not None:
                    return base.shape[k]
            if k == 0:
                return self._fixed_atom(f"len({_text(value.value)})")
            return self._fixed_atom(_text(node))
        sig = self.sig(value, stmt)
        if isinstance(sig, Tree) and sig.children is not None:
            try:
                k = evaluate_literal(node.slice)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                return self._opaque(node, stmt)
            if isinstance(k, int) and -len(sig.children) <= k < len(sig.children):
                return self._leaf_dim(sig.children[k], value, node, stmt)
        if isinstance(value, (ast.Tuple, ast.List)):
            try:
                k = evaluate_literal(node.slice)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                return self._opaque(node, stmt)
            if isinstance(k, int) and -len(value.elts) <= k < len(value.elts):
                return self.dim(value.elts[k], stmt)
        return self._opaque(node, stmt)

    def _leaf_dim(self, child, value, node, stmt):
        if isinstance(value, ast.Name):
            how, reach = self._reach(value, stmt)
            if how == "scope" and reach.kind is ReachKind.BOUND and isinstance(reach.binding.value, (ast.Tuple, ast.List)):
                elts = reach.binding.value.elts
                k = evaluate_literal(node.slice)
                return self.dim(elts[k], reach.binding.stmt)
        return self._opaque(node, stmt)

    def sequence_length(self, expr, stmt) -> Optional[tuple]:
        """The length of a Python list expression: `s + [0] * (n - len(s))` has length n."""
        if isinstance(expr, (ast.List, ast.Tuple)):
            return poly_const(len(expr.elts)) if not any(isinstance(e, ast.Starred) for e in expr.elts) else None
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
            a, b = self.sequence_length(expr.left, stmt), self.sequence_length(expr.right, stmt)
            return poly_add(a, b) if a is not None and b is not None else None
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult):
            for seq, count in ((expr.left, expr.right), (expr.right, expr.left)):
                if isinstance(seq, (ast.List, ast.Tuple)):
                    a, n = self.sequence_length(seq, stmt), self.dim(count, stmt)
                    return poly_mul(a, n) if a is not None and n is not None else None
            return None
        if isinstance(expr, ast.Name):
            return self.dim(ast.copy_location(ast.Call(func=ast.Name(id="len", ctx=ast.Load()), args=[expr],
                                                       keywords=[]), expr), stmt)
        return None

    def _comprehension_length(self, comp, stmt) -> Optional[tuple]:
        if len(comp.generators) != 1 or comp.generators[0].ifs:
            return None
        iterable = comp.generators[0].iter
        if _is_call_to(iterable, "range", self) and len(iterable.args) == 1:
            return self.dim(iterable.args[0], stmt)
        if isinstance(iterable, ast.Name):
            return self.sequence_length(iterable, stmt)
        return None

    # -- atoms ------------------------------------------------------------------------------------------
    def _register(self, atom: Atom, key: Optional[str] = None) -> tuple:
        key = key or atom.text
        known = self.atoms.get(key)
        if known is None or (not known.varies and atom.varies):
            self.atoms[key] = atom
        return poly_atom(key)

    def _fixed_atom(self, text: str) -> tuple:
        return self._register(Atom(text), key=text)

    def _opaque(self, expr, stmt) -> tuple:
        """An expression the polynomials do not model (`n // 2`, `bucket(n)`): a fixed atom. A shape
        that is a function of a loop variable this way may be bucketed: never a finding."""
        return self._fixed_atom(_text(expr))

    # -- small parsers --------------------------------------------------------------------------------
    def shape_arg(self, node, stmt) -> Optional[tuple]:
        if node is None:
            return None
        if isinstance(node, (ast.Tuple, ast.List)):
            if any(isinstance(e, ast.Starred) for e in node.elts):
                return None
            return tuple(self.dim(e, stmt) for e in node.elts)
        if isinstance(node, ast.Attribute) and node.attr == "shape":
            base = self.sig(node.value, stmt)
            return base.shape if isinstance(base, Leaf) else None
        if isinstance(node, ast.Name):
            how, reach = self._reach(node, stmt)
            if how == "scope" and reach.kind is ReachKind.BOUND and isinstance(reach.binding.value, (ast.Tuple, ast.List)):
                return self.shape_arg(reach.binding.value, reach.binding.stmt)
            if how == "scope" and reach.kind in (ReachKind.BOUND, ReachKind.UNBOUND):
                found = self._module_value(node.id) if reach.kind is ReachKind.UNBOUND else None
                if found is not None and isinstance(found.value, (ast.Tuple, ast.List)):
                    return self.shape_arg(found.value, found.stmt)
        dim = self.dim(node, stmt)
        sig = self.sig(node, stmt)
        if dim is not None and isinstance(sig, Leaf) and sig.python == "int":
            return (dim,)
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return (dim,)
        if dim is not None and isinstance(node, (ast.Name, ast.BinOp)) and self._int_like(node, stmt):
            return (dim,)
        return None

    def _int_like(self, node, stmt) -> bool:
        """A name or arithmetic that can only be an int here (a loop over range(), a counter)."""
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name):
                dim = self.dim(sub, stmt)
                atoms = poly_atoms(dim) if dim is not None else set()
                if not atoms or not all(self.atoms.get(a) is not None and self.atoms[a].varies for a in atoms):
                    return False
        return True

    def dtype_arg(self, node, stmt, default=None) -> Optional[str]:
        if node is None:
            return default
        if isinstance(node, ast.Constant):
            if node.value is None:
                return default
            return _DTYPES.get(node.value) if isinstance(node.value, str) else None
        if isinstance(node, ast.Name) and node.id in _PYTHON_DTYPES \
                and node.id not in self.analysis.index.module_names and not self.bindings.by_name.get(node.id):
            return _PYTHON_DTYPES[node.id]
        name = self.imports.resolve(node) or ""
        if name.startswith(_NAMESPACES):
            return _DTYPES.get(name.rsplit(".", 1)[-1])
        if isinstance(node, ast.Attribute) and node.attr == "dtype":
            base = self.sig(node.value, stmt)
            return base.dtype if isinstance(base, Leaf) else None
        return None


_NOT_LITERAL = object()


def _constant_sig(value, text):
    kind = python_kind(value)
    if kind is not None:
        return Leaf(_PYTHON_DTYPES[kind], kind != "bool", (), python=kind, origin=text)
    if value is None:
        return Tree("None", origin="None")
    return None


def _literal_shape(value):
    """(shape, Python element type) of a nested list/tuple of numbers; (None, None) if ragged."""
    kind = python_kind(value)
    if kind is not None:
        return (), kind
    if isinstance(value, (list, tuple)):
        if not value:
            return (poly_const(0),), "float"
        shapes, kinds = set(), []
        for item in value:
            shape, k = _literal_shape(item)
            if k is None:
                return None, None
            shapes.add(shape)
            kinds.append(k)
        if len(shapes) != 1:
            return None, None
        return (poly_const(len(value)),) + shapes.pop(), _promote_python(kinds)
    return None, None


def _number(node):
    """The int or float a literal (maybe negative) stands for, else None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _number(node.operand)
        return -inner if inner is not None else None
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    return None


def _infer_minus_one(shape, base_shape):
    """`reshape(3, -1)`: the -1 is what is left of the size, when every other size is known."""
    sizes = [poly_value(d) if d is not None else None for d in shape]
    known = base_shape is not None and MORE not in base_shape and \
        all(d is not None and poly_value(d) is not None for d in base_shape)
    if known and sizes.count(-1) == 1 and all(v is not None for v in sizes):
        total = math.prod(poly_value(d) for d in base_shape)
        rest = math.prod(v for v in sizes if v != -1)
        if rest and total % rest == 0:
            return tuple(poly_const(total // rest) if v == -1 else d for v, d in zip(sizes, shape))
    return tuple(None if v == -1 else d for v, d in zip(sizes, shape))


def _arg(call, index, keyword, kwargs):
    if keyword in kwargs:
        return kwargs[keyword]
    if len(call.args) > index:
        return call.args[index]
    return None


def _text(node) -> str:
    try:
        text = ast.unparse(node)
    except Exception:  # noqa: BLE001 - unparse of odd synthetic nodes
        return "?"
    return text if len(text) <= 60 else text[:57] + "..."


def _is_call_to(node, builtin: str, reader) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == builtin \
        and not reader.bindings.by_name.get(builtin) and builtin not in reader.analysis.index.module_names


def _enumerate_index(loop, name, reader) -> bool:
    target = loop.target
    return _is_call_to(loop.iter, "enumerate", reader) and isinstance(target, ast.Tuple) and target.elts \
        and isinstance(target.elts[0], ast.Name) and target.elts[0].id == name


def _is_namedtuple(cls) -> bool:
    return any(b in ("typing.NamedTuple", "NamedTuple") or b.endswith(".NamedTuple") for b in cls.bases)


def _namedtuple_fields(cls) -> Optional[list]:
    fields = []
    for stmt in cls.node.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            if stmt.value is not None:
                return None          # defaults: the number of arguments may differ
            fields.append(stmt.target.id)
    return fields


def _returns_of(func) -> tuple:
    """([return statements of `func` itself], whether it can end without one); ([], True) for a
    generator. Kept on the def node: a def is asked once per call of it that a reader meets."""
    found = getattr(func, "_jaxlint_returns", None)
    if found is None:
        found = func._jaxlint_returns = _read_returns(func)
    return found


def _read_returns(func) -> tuple:
    found = []
    for stmt in _own_statements(func):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(stmt, ast.Return):
            found.append(stmt)
        value = getattr(stmt, "value", None)       # `yield x`, `y = yield x`, `return (yield)`
        if isinstance(value, (ast.Yield, ast.YieldFrom)):
            return [], True
    found.sort(key=lambda r: (r.lineno, r.col_offset))
    last = func.body[-1] if func.body else None
    return found, not isinstance(last, (ast.Return, ast.Raise))


def _as_array(sig):
    """A signature as a jitted function's output: Python scalars become (weak) arrays."""
    if isinstance(sig, Leaf) and sig.python:
        return Leaf(sig.dtype, sig.weak, (), origin=sig.origin)
    if isinstance(sig, Tree) and sig.children is not None:
        return Tree(sig.kind, tuple(_as_array(c) for c in sig.children), keys=sig.keys, origin=sig.origin)
    return sig


def _shown_kind(values) -> Optional[str]:
    """'int' / 'float' when every value the file shows is a Python number of that kind."""
    if not values.complete or not values.known:
        return None
    kinds = {"int" if type(v) is int else "float" if type(v) is float else None for v in values.known}
    return kinds.pop() if len(kinds) == 1 and None not in kinds else None


def _row_of(sig, node):
    """What iterating a value of signature `sig` gives: an array's rows (its dtype, the shape
    after the first axis), a list's or tuple's common element; None when not known."""
    if isinstance(sig, Leaf) and not sig.python and sig.certain:
        if sig.shape is None or (sig.shape and sig.shape[0] is MORE):
            return Leaf(sig.dtype, sig.weak, None, origin=f"an element of {_text(node)}", dtype_of=sig.dtype_of)
        if sig.shape:
            return Leaf(sig.dtype, sig.weak, tuple(sig.shape[1:]), origin=f"an element of {_text(node)}",
                        dtype_of=sig.dtype_of)
        return None                         # a 0-d array cannot be iterated
    if isinstance(sig, Tree) and sig.kind in ("list", "tuple"):
        if sig.children:
            first = sig.children[0]
            return first if first is not None and all(c == first for c in sig.children) else None
        return sig.elt
    return None


def _constant_shapes(sig):
    """`sig` with every dimension that is not a constant made unknown (and no growth)."""
    if isinstance(sig, Leaf):
        shape = sig.shape
        if shape is not None and any(d is not MORE and (d is None or poly_value(d) is None) for d in shape):
            shape = None
        return replace(sig, shape=shape, grows=None)
    if isinstance(sig, Tree):
        length = sig.length if sig.length is None or poly_value(sig.length) is not None else None
        children = None if sig.children is None else tuple(_constant_shapes(c) for c in sig.children)
        if children is not None and any(c is None for c in children):
            return None
        return replace(sig, children=children, length=length, grows=None,
                       elt=_constant_shapes(sig.elt) if sig.elt is not None else None)
    return sig


def reader_for(analysis, scope) -> SignatureReader:
    """One reader per calling scope, shared by JAX305-JAX307."""
    cache = analysis.__dict__.setdefault("_signature_readers", {})
    key = id(scope)
    if key not in cache:
        cache[key] = SignatureReader(analysis, scope)
    return cache[key]


def _literal(expr) -> bool:
    """A number, string, bool or None written out (`0.9`, `-1`, `"mean"`)."""
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
        expr = expr.operand
    return isinstance(expr, ast.Constant)


def _float_result(arg, rule, origin) -> Optional[Leaf]:
    """What a FLOAT_RESULT function returns for `arg`: only a float32 JAX array is read (the
    table was probed with those); a Python float or another dtype is left unknown."""
    if not isinstance(arg, Leaf) or arg.python or arg.dtype != "float32" or not arg.certain \
            or arg.grows is not None:
        return None
    shape_kind, weak_kind = rule
    weak = False if weak_kind == "strong" else arg.weak
    if weak is None:
        return None
    return Leaf("float32", weak, arg.shape if shape_kind == "same" else (), origin=origin)


def _strong_result(name, rule, call, origin) -> Optional[Leaf]:
    """A reduction (STRONG_RESULT) returns a strongly typed array whatever its argument: its dtype
    unknown (some float for "float" ones), a scalar when it reduces everything (FLOAT_RESULT says
    so) and no keyword narrows it."""
    kind = STRONG_RESULT.get(name)
    if kind is None or any(kw.arg not in _REDUCTION_KEYWORDS for kw in call.keywords):
        return None
    scalar = rule is not None and rule[0] == "scalar" and not call.keywords
    return Leaf(None, False, () if scalar else None, origin=origin, floating=kind == "float")


def _strong_float(sig) -> bool:
    """A strongly typed float array (its width maybe unknown)."""
    return isinstance(sig, Leaf) and not sig.python and sig.weak is False and sig.grows is None \
        and (sig.dtype in ("float32", "float16", "bfloat16", "float64") or sig.dtype is None and sig.floating)


_REDUCTION_KEYWORDS = ("axis", "keepdims")
_STRONG_KEEPING_OPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)   # a `dtype=` or `where=` may change more than the shape


def _own_statements(func):
    """The statements of a function, at any depth, not those of functions or classes in it."""
    todo = list(func.body)
    while todo:
        stmt = todo.pop()
        yield stmt
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for name in ("body", "orelse", "finalbody"):
            todo.extend(getattr(stmt, name, ()) or ())
        for handler in getattr(stmt, "handlers", ()) or ():
            todo.extend(handler.body)
        for case in getattr(stmt, "cases", ()) or ():
            todo.extend(case.body)
