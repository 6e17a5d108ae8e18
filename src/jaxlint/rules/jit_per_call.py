"""JAX301 jit-per-call."""

import ast

from jaxlint.analysis import api_tables as api
from jaxlint.analysis.crossmodule import importer_calls
from jaxlint.analysis.module import positional_params
from jaxlint.analysis.syntax import COMPREHENSIONS, LineFilter, pruned_walk, target_names, walk
from jaxlint.analysis.repetition import LITERAL, MODULE, free_names, is_memoised, scope_key
from jaxlint.findings import Finding
from jaxlint.rules.base import Rule


class JitPerCall(Rule):
    code = "JAX301"
    name = "jit-per-call"
    family = "recompilation"
    summary = "jax.jit applied to a new function object every time the code runs: compiles every time."
    what = """
        Flags `jax.jit` (also `pmap`, `eqx.filter_jit`) applied to a lambda, a nested function, a
        `functools.partial` (of your function or a library's: `partial(jax.tree.map, fn)`), a
        `jax.grad(...)` result built on the spot or a bound method (`self.f = jax.jit(self.f)`,
        `jax.jit(self.model.apply)`: each access makes a new object; for a class of the file
        that inherits `apply` from a Flax linen Module too), when the code shows that
        it runs many times and compiles the same program each time: it sits in a loop or
        comprehension, or in a function that a loop calls (directly or through its callers; for
        a method, a call `obj.method(...)` in a loop; for `__init__`, objects created in a loop),
        and what the jitted function captures does not change from one run to the next.

        Stays silent, with a `--verbose` note saying why, when the repetition is not in the code
        (no loop reaches the function: a factory, a setup method, public API called by others),
        when the jit runs while an outer jit traces (a helper of a jitted function, a `lax.scan`
        body, a Flax / NNX / Equinox module's `__call__`): it is inlined there, when the result is
        memoised (`if self._fn is None: self._fn = jax.jit(...)`, a dict cache, `functools.cache`),
        when the jitted function is never called, and when each run jits a different program: the
        function uses the loop variable (or a value computed from it) as more than array data, or
        the jit's options depend on it, as in an autotuning sweep, a loop over models or
        configurations, or a shape that changes. A changing value the function uses only as array
        data (arithmetic, array arguments: a batch, a learning rate, a temperature) is a constant
        baked into the same program: still reported, since an argument would compile once.
        `jax.jit(f)` in a loop, with `f` defined before the loop, is the same function object and
        is cached by JAX.
    """
    why = """
        jit's cache is keyed on the function object. A new lambda, closure or partial is a new
        key even when its code and captured values are identical, so every call traces and
        compiles the same program again.
    """
    example = """
        import jax

        def train(w, grads):
            for g in grads:
                step = jax.jit(lambda w, g: w - 0.1 * g)
                w = step(w, g)
            return w
    """
    use_instead = """
        import jax

        @jax.jit
        def step(w, g):
            return w - 0.1 * g

        def train(w, grads):
            for g in grads:
                w = step(w, g)
            return w
    """

    fix = ("No automatic fix: hoisting the jit out of the loop or function changes which values "
           "the jitted function closes over.")

    def check(self, analysis):
        for entry in analysis.entries + analysis.finder.unseen:
            if not entry.compiled:
                continue
            if entry.via_decorator and entry.func is not None and entry.func.parent is not None:
                what = f"the nested function `{entry.func.name}`"
            elif not entry.via_decorator and entry.fresh:
                what = entry.fresh
            else:
                continue
            site = entry.site
            if isinstance(site, ast.Call) and any(
                    kw.arg == "inline" and isinstance(kw.value, ast.Constant) and kw.value.value
                    for kw in site.keywords):
                continue      # inline=True: traced into its caller, never compiled on its own
            finding = self._judge(analysis, entry, what)
            if isinstance(finding, str):
                analysis.notes.append(f"JAX301 not reported at line {site.lineno}: {finding}")
            elif finding is not None:
                yield finding

    def _judge(self, analysis, entry, what):
        """A Finding, or the reason (a note) why this jit site is not reported."""
        rep = analysis.repeated
        site = entry.site
        anchor, within = _creation(entry)
        scope = rep.function_of(anchor)
        host = rep.traced_host(anchor)
        if host is not None:
            return (f"it runs inside {host}: the jit of {what} is inlined into the outer program, "
                    f"not compiled on its own")
        if scope is None and not analysis.parents.loops_of(anchor):
            return None                      # module-level code outside loops runs once
        if not _is_used(analysis, entry):
            return "the jitted function is never called in this file, so nothing compiles"
        memo = _memoised(analysis, entry, anchor, scope)
        if memo:
            return f"the jitted function is memoised ({memo}): it is built once and reused"
        contexts = rep.contexts(anchor, within)
        if not contexts and within is None and scope is not None and scope.parent is None \
                and analysis.project is not None and (
                    scope.cls is None or analysis.index.top_classes.get(scope.cls.name) is scope.cls):
            contexts = rep.external_witnesses(scope, importer_calls(
                analysis.project, analysis.path, scope.name, analysis.config, analysis.depends,
                cls=scope.cls.name if scope.cls is not None else None))
        if not contexts:
            loops = analysis.parents.loops_of(site) if within is not None else []
            if loops:
                return (f"`{entry.func.name}` is defined once, outside the loop at line "
                        f"{loops[-1].lineno}: jitting the same function object again hits JAX's cache")
            if is_memoised(scope.node):
                return f"`{scope.qualname}` is memoised: it runs once per distinct argument"
            caller = rep.traced_callers.get(id(scope.node))
            if caller is not None:
                return (f"`{scope.qualname}` is called only from {caller}: the jit of {what} is "
                        f"inlined into the outer program")
            return f"no repeated caller of `{scope.qualname}` found"
        reads, passed, options = _program_inputs(analysis, entry, scope)
        bodies = None
        changes = None
        for ctx in contexts:
            changed = _changing(ctx.varying, reads, passed)
            if changed is None:
                return Finding(
                    code=self.code, line=site.lineno, col=site.col_offset, function=entry.name,
                    message=f"{entry.wrapper} is applied to {what} on every repetition",
                    detail=(f"{entry.wrapper} is applied to {what}, {ctx.reason}: a new function object "
                            f"each time, so every call traces and compiles the same program again. "
                            f"Fix: {_hoist_advice(entry, what, scope)}"))
            how, names = changed
            if bodies is None:
                bodies = _program_bodies(analysis, entry, scope)
            if names and not names & options and bodies and all(
                    _only_array_data(analysis, bodies, name) for name in names):
                shown = ", ".join(f"`{n}`" for n in sorted(names))
                return Finding(
                    code=self.code, line=site.lineno, col=site.col_offset, function=entry.name,
                    message=f"{entry.wrapper} is applied to {what} on every repetition",
                    detail=(f"{entry.wrapper} is applied to {what}, {ctx.reason}: a new function object "
                            f"each time, and {shown}, which changes with each repetition, is used in "
                            f"it only as array data, baked in as a constant: every call traces and "
                            f"compiles the same program again. Fix: jit the function once and pass "
                            f"{shown} as an argument"))
            changes = changes or (how, ctx)
        how, ctx = changes
        return f"{how}, which changes with each repetition ({ctx.reason}): each compile is a different program"


def _creation(entry):
    """(node where the jitted function object is created, node that must run with it or None).
    `jax.jit(f)` of a nested def `f` re-jits the object the `def` made: a loop around the jit
    alone reuses one object, which JAX's cache recognises."""
    if entry.via_decorator:
        return entry.func.node, None
    target = entry.site.args[0] if isinstance(entry.site, ast.Call) and entry.site.args else None
    if isinstance(target, ast.Name) and entry.func is not None and entry.func.parent is not None:
        return entry.func.node, entry.site
    return entry.site, None


def _hoist_advice(entry, what: str, scope) -> str:
    """How to build the jitted function once: a bound method used in a method that runs per step
    is jitted where its object is made."""
    if what.startswith("the bound method `self.") and scope is not None and scope.name != "__init__":
        held = what.split("`")[1]
        return (f"jit it once where the object is made (`self._jitted = {entry.wrapper}({held})` in "
                f"`__init__`) and call that")
    return "define the function once at module level (pass changing values as arguments) and jit it once"


def _is_used(analysis, entry) -> bool:
    """Is the jitted object called, or does it escape (returned, passed, stored) in this file?"""
    if entry.immediate_calls or analysis.call_sites.get(id(entry)):
        return True
    parents = analysis.parents
    if entry.via_decorator:
        holder, names, attrs = entry.func.node, {entry.func.name}, set()
    else:
        holder = parents.parent_of(entry.site)
        if isinstance(holder, ast.Expr):
            return False
        if not isinstance(holder, (ast.Assign, ast.AnnAssign)):
            return True
        targets = holder.targets if isinstance(holder, ast.Assign) else [holder.target]
        names = {t.id for t in targets if isinstance(t, ast.Name)}
        attrs = {t.attr for t in targets if isinstance(t, ast.Attribute)}
        if any(not isinstance(t, (ast.Name, ast.Attribute)) for t in targets):
            return True
    scope = analysis.repeated.function_of(holder)
    root = scope.node if scope is not None else analysis.tree
    for node in walk(root):
        if isinstance(node, ast.Name) and node.id in names and isinstance(node.ctx, ast.Load):
            return True
    if attrs:
        for node in walk(analysis.tree):
            if isinstance(node, ast.Attribute) and node.attr in attrs and isinstance(node.ctx, ast.Load):
                return True
    return False


def _memoised(analysis, entry, anchor, scope):
    """How the jitted object is cached, or None: built under `if X is None:` / `if k not in C:`
    and stored into X / C, or in a function that returns early from a cache it fills with it."""
    held = _holders(analysis, entry)
    for anc in analysis.parents.chain(anchor):
        if scope is not None and anc is scope.node:
            break
        if isinstance(anc, ast.If):
            stored = _stores(anc.body, held) & _guarded(anc.test)
            if stored:
                return f"built under `if` on `{sorted(stored)[0]}`, which it then fills"
    if scope is None:
        return None
    return _cache_in(scope.node, held) or _memoised_by_callers(analysis, scope)


def _cache_in(func, held):
    """How `func` caches what `held` names: a cache it checks and returns from early, and fills
    with it; else None."""
    stores = _stores(func.body, held)
    if stores:
        for node in walk(func):
            if isinstance(node, ast.If) and any(isinstance(s, ast.Return) for s in node.body):
                cached = _guarded(node.test) & stores
                if cached:
                    return f"`{sorted(cached)[0]}` is checked and returned early, then filled"
    return None


def _memoised_by_callers(analysis, scope):
    """A factory that makes the jitted function, whose every call in the module is cached by the
    caller (`if k in cache: return cache[k]` ... `f = make(k)`; `cache[k] = f`)."""
    if scope.name not in analysis.names_called():
        return None
    home = scope.parent.node if scope.parent is not None else analysis.tree
    found = None
    for call in pruned_walk(home, LineFilter(analysis.lines, {scope.name})):
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == scope.name):
            continue
        holder = analysis.parents.parent_of(call)
        names = {t.id for t in holder.targets if isinstance(t, ast.Name)} if isinstance(holder, ast.Assign) else set()
        caller = analysis.parents.scope_of(call)
        how = _cache_in(caller, (call, names)) if isinstance(caller, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
        if how is None:
            return None
        found = found or f"each call of `{scope.name}` is cached by its caller: {how}"
    return found


def _holders(analysis, entry):
    """The jit node itself and the names bound to the jitted object where it is made."""
    if entry.via_decorator:
        return entry.func.node, {entry.func.name}
    holder = analysis.parents.parent_of(entry.site)
    names = set()
    if isinstance(holder, ast.Assign):
        names = {t.id for t in holder.targets if isinstance(t, ast.Name)}
    return entry.site, names


def _text(node) -> str:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr") \
            and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
        return f"{ast.unparse(node.args[0])}.{node.args[1].value}"
    return ast.unparse(node)


def _guarded(test) -> set:
    """What a cache test checks: `X is None`, `not X`, `k in C`, `hasattr(o, 'a')`, `X`."""
    if isinstance(test, ast.BoolOp):
        return set().union(*(_guarded(v) for v in test.values))
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _guarded(test.operand)
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        op, right = test.ops[0], test.comparators[0]
        if isinstance(op, (ast.Is, ast.IsNot, ast.Eq, ast.NotEq)) and isinstance(right, ast.Constant) \
                and right.value is None:
            return {_text(test.left)}
        if isinstance(op, (ast.In, ast.NotIn)):
            return {_text(right)}
        return set()
    if isinstance(test, (ast.Name, ast.Attribute, ast.Call)):
        return {_text(test)}
    return set()


def _stores(body, held) -> set:
    """`X`, `self.x`, `C` (for `C[k] = ...`) into which these statements store the jitted object
    (`held`: the jit node and the names bound to it)."""
    node_held, names_held = held

    def holds(value):
        return any(sub is node_held or isinstance(sub, ast.Name) and sub.id in names_held for sub in walk(value))
    found = set()
    for stmt in body:
        for node in walk(stmt):
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None and holds(node.value):
                for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    if isinstance(target, ast.Subscript):
                        found.add(_text(target.value))
                    elif isinstance(target, (ast.Name, ast.Attribute)):
                        found.add(_text(target))
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr in ("setdefault", "update", "__setitem__") \
                    and any(holds(a) for a in node.args + [k.value for k in node.keywords]):
                found.add(_text(node.func.value))
    return found


def _names(exprs) -> set:
    return {n.id for expr in exprs for n in walk(expr) if isinstance(n, ast.Name)}


def _program_inputs(analysis, entry, scope):
    """What makes up the compiled program, as (scope key, name) pairs: `reads` are the names the
    jitted function captures (through the nested defs it uses), the partial's and grad's bound
    arguments and the jit's own options; `passed` are the names in the arguments of calls of the
    jitted object (a program input only when they come from a sweep over literal values)."""
    rep = analysis.repeated
    site = entry.site
    exprs = []
    names = set()
    if entry.via_decorator:
        names |= free_names(entry.func.node)
    else:
        target = site.args[0]
        exprs += site.args[1:] + [kw.value for kw in site.keywords]
        if isinstance(target, ast.Lambda):
            names |= free_names(target)
        elif isinstance(target, ast.Call):
            exprs += target.args[1:] + [kw.value for kw in target.keywords]
            names |= _names([target.args[0]]) if target.args else set()
        elif isinstance(target, ast.Attribute):
            names |= _names([target])          # `m.apply` of each model in turn: another program
        if entry.func is not None and entry.func.parent is not None:
            names |= free_names(entry.func.node)
    names |= _names(exprs)
    names = _through_nested_defs(rep, names, scope)
    passed = set()
    for call, _ in analysis.call_sites.get(id(entry), []):
        passed |= _names(call.args + [kw.value for kw in call.keywords])
    # a comprehension's variable changes with each of its repetitions, as the scope's own names
    # do (the repetition finder keys it on the enclosing scope)
    comprehended = {name for anc in analysis.parents.chain(site) if isinstance(anc, COMPREHENSIONS)
                    for gen in anc.generators for name in target_names(gen.target)}
    return (_bind(rep, names, scope, comprehended), _bind(rep, passed, scope, comprehended), _names(exprs))


def _through_nested_defs(rep, names: set, scope) -> set:
    """Add what the nested defs named in `names` capture, as a call of them would read it."""
    names = set(names)
    todo = list(names)
    while todo:
        name = todo.pop()
        s = scope
        while s is not None:
            if name in rep.local_names(s):
                nested = s.nested.get(name)
                if nested is not None:
                    for more in free_names(nested.node) - names:
                        names.add(more)
                        todo.append(more)
                break
            s = s.parent
    return names


def _bind(rep, names: set, scope, comprehended=frozenset()) -> set:
    """(key of the scope that binds it, name) for each name read from `scope`, as Python resolves it
    (`comprehended`: variables of comprehensions around the read, keyed on `scope`)."""
    bound = set()
    for name in names:
        if name in comprehended:
            bound.add((scope_key(scope), name))
            continue
        s = scope
        while s is not None and name not in rep.local_names(s):
            s = s.parent
        if s is not None:
            bound.add((scope_key(s), name))
        elif name in rep.local_names(None):
            bound.add((MODULE, name))
    return bound


def _changing(varying: dict, reads: set, passed: set):
    """(how an input of the program changes between repetitions, the changing names it captures),
    or None when nothing that makes up the program changes."""
    captured = {name for key, name in reads if name in varying.get(key, ())}
    if captured:
        return f"the jitted function is built from `{sorted(captured)[0]}`", captured
    for key, name in sorted(passed, key=lambda pair: pair[1]):
        if varying.get(key, {}).get(name) == LITERAL:
            return f"the jitted function is called with `{name}`, taken from a sweep over literal values", set()
    return None


def _program_bodies(analysis, entry, scope) -> list:
    """The defs and lambdas whose code the jitted function runs: itself and the nested defs of
    its enclosing functions that it calls by name (empty for a partial or a grad of another def)."""
    if entry.via_decorator or entry.func is not None and entry.func.parent is not None:
        first = entry.func.node
    elif isinstance(entry.site, ast.Call) and entry.site.args and isinstance(entry.site.args[0], ast.Lambda):
        first = entry.site.args[0]
    else:
        return []
    rep = analysis.repeated
    bodies, todo, seen = [], [first], set()
    while todo:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        bodies.append(node)
        for name in free_names(node):
            s = scope
            while s is not None:
                if name in rep.local_names(s):
                    if name in s.nested:
                        todo.append(s.nested[name].node)
                    break
                s = s.parent
    return bodies


_DEPTH = 3


def _only_array_data(analysis, bodies, name, depth=0) -> bool:
    """Is every read of `name` in these function bodies array data: an operand of arithmetic, an
    array argument of a call, returned? Such a value could be a traced argument, so a new value
    per run changes only a constant of one program. Anything else (a method or attribute of it,
    a branch on it, a shape, a static or concrete argument) may change the program: not data."""
    reads = 0
    for body in bodies:
        parents = {}
        for node in walk(body):
            for child in ast.iter_child_nodes(node):
                parents[id(child)] = node
        for node in walk(body):
            if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
                reads += 1
                if not _data_use(analysis, node, parents, body, depth):
                    return False
    return reads > 0


def _data_use(analysis, node, parents, body, depth) -> bool:
    parent = parents.get(id(node))
    if isinstance(parent, ast.Assign) and parent.value is node and depth < _DEPTH:
        names = [n.id for t in parent.targets for n in walk(t) if isinstance(n, ast.Name)]
        plain = all(isinstance(n, (ast.Name, ast.Tuple, ast.List, ast.Store)) for t in parent.targets for n in walk(t))
        return plain and bool(names) and all(_only_array_data(analysis, [body], n, depth + 1) for n in names)
    if isinstance(parent, ast.BinOp) or isinstance(parent, ast.UnaryOp) and not isinstance(parent.op, ast.Not):
        return _data_use(analysis, parent, parents, body, depth)      # what the arithmetic feeds
    if isinstance(parent, (ast.Return, ast.Lambda)):
        return True
    if isinstance(parent, (ast.Tuple, ast.List, ast.Starred)) or \
            isinstance(parent, ast.Subscript) and parent.value is node and isinstance(parent.slice, ast.Constant):
        return _data_use(analysis, parent, parents, body, depth)
    if isinstance(parent, ast.keyword):
        call = parents.get(id(parent))
        return isinstance(call, ast.Call) and _data_argument(analysis, call, None, parent.arg, depth)
    if isinstance(parent, ast.Call) and parent.func is not node:
        return _data_argument(analysis, parent, parent.args.index(node), None, depth)
    return False


def _data_argument(analysis, call, position, keyword, depth) -> bool:
    """Is this argument of `call` array data? jnp/lax arguments unless the API needs them concrete;
    an argument of a def of this file when that def uses its parameter as data; builtins never."""
    if any(isinstance(a, ast.Starred) for a in call.args):
        return False
    name = analysis.imports.resolve(call.func) if isinstance(call.func, (ast.Name, ast.Attribute)) else None
    if name is not None and name.startswith(api.ARRAY_NAMESPACES):
        for pos, kw in api.CONCRETE_ARGS.get(name, ()):
            if (position is not None and position == pos) or (keyword is not None and keyword == kw):
                return False
        return True
    if isinstance(call.func, ast.Name):
        info = analysis.index.top_functions.get(call.func.id)
        if info is None:
            return False      # a builtin (int, range, len...) or a name we cannot see into
        if depth >= _DEPTH:
            return False
        params = positional_params(info.node.args)
        param = keyword if keyword is not None else params[position] if position < len(params) else None
        return param is not None and _only_array_data(analysis, [info.node], param, depth + 1)
    if isinstance(call.func, ast.Call):
        return True           # jax.grad(loss)(p, batch), jax.vmap(f)(x): array arguments
    return False
