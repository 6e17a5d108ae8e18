"""JAX403 donated-reuse."""

import ast
import os

from jaxlint.analysis import api_tables as api

from jaxlint.analysis.semantic import SCOPE_NODES, NameScope, ScopeKind
from jaxlint.findings import Finding, Fix, NoFix
from jaxlint.rules.base import Rule
from jaxlint.rules.static_args import class_called


class DonatedReuse(Rule):
    code = "JAX403"
    name = "donated-reuse"
    family = "broken state"
    summary = "An array passed in a donated position of a jitted function is read after the call."
    what = """
        Flags a read of a variable after the call that donated it: the variable is passed in a
        position that `donate_argnums`/`donate_argnames` names, and the same value is read later
        in the function (or in the next iteration of a loop around the call) before the name is
        bound again. The semantic model follows the control flow: `p = step(p, g)` rebinds `p` to
        the result, and a read on a path that never passes the call is not reported. JAX deletes
        a donated array only when an output can take over its buffer (same shape and dtype), so
        the rule reports a donation only when the jitted function returns something built
        elementwise from that parameter (`params - lr * g`, a `tree_map` over it, `.at[].set`,
        `state.replace(...)`/`apply_gradients`); a donated batch that only feeds metrics is kept.
    """
    why = """
        Donation lets XLA reuse the input's buffers for the output, so the call deletes the
        caller's array (on CPU too, JAX 0.10.2): the later read raises `RuntimeError: Array has
        been deleted` (or, through a call JAX has cached, `ValueError: ... Buffer has been deleted
        or donated`), far from the call that caused it, and only on the code path that reads it.
    """
    example = """
        from functools import partial
        import jax

        @partial(jax.jit, donate_argnums=(0,))
        def sgd(params, grads):
            return params - 0.1 * grads

        def fit(params, grads):
            new = sgd(params, grads)
            return new - params
    """
    use_instead = """
        from functools import partial
        import jax

        @partial(jax.jit, donate_argnums=(0,))
        def sgd(params, grads):
            return params - 0.1 * grads

        def fit(params, grads):
            old = params.copy()
            params = sgd(params, grads)
            return params - old
    """
    fix = ("Unsafe. When a read after the call wants the old value, the call donates a copy: "
           "`step(jnp.copy(p), g)` when `p` is known to be an array, `step(jax.tree.map(jnp.copy, "
           "p), g)` otherwise (a pytree). When only the next iteration of a loop reads the name and "
           "the call's result is discarded or assigned to another name, the name is bound to the "
           "result (`new = step(p, g)` becomes `p = new = step(p, g)`). Unsafe because the copy "
           "costs a second buffer and its time (the donation no longer saves memory), and the "
           "rebinding changes what the loop computes (each step starts from the last result). No fix "
           "when only the next iteration reads the name but the result is used inside a larger "
           "expression or unpacked: which value the name should take is a decision for the author.")

    def check(self, analysis):
        for site, param, name, reads in _donations(analysis):
            _, node = reads[0]
            # the name the call is written with (`train_step`, not the `_train_step` it wraps)
            callee = ast.unparse(site.node.func)
            callee = callee if len(callee) <= 40 else site.entry.name
            call = ast.unparse(site.node) if len(ast.unparse(site.node)) <= 60 else f"{callee}(...)"
            yield Finding(
                code=self.code, line=node.lineno, col=node.col_offset, function=site.entry.name,
                param=param,
                message=(f"`{name}` is read after it was donated to jitted `{callee}`"
                         + (f" (`{site.entry.name}`)" if callee.rsplit(".", 1)[-1] != site.entry.name.rsplit(".", 1)[-1]
                            else "")
                         + (f" as `{param}`" if param != name else "")),
                detail=(f"`{name}` was donated to jitted `{callee}` (parameter `{param}`) "
                        f"by `{call}` at line {site.node.lineno} and is read here: the call "
                        f"deleted its buffers, so this raises RuntimeError (Array has been "
                        f"deleted; ValueError 'Buffer has been deleted or donated' from a cached "
                        f"call). Fix: rebind the name to the result (`{name} = "
                        f"{callee}(...)`), or read a copy taken before the call"))

    @staticmethod
    def fix_finding(ctx, finding) -> Fix:
        """Pass a copy (`step(jnp.copy(p), g)`) when a later read wants the old value; rebind the
        name to the result (`p = step(p, g)`) when only the next iteration of a loop reads it."""
        analysis = ctx.analysis
        found = next(((site, param, name, reads) for site, param, name, reads in _donations(analysis)
                      if param == finding.param and site.entry.name == finding.function
                      and (reads[0][1].lineno, reads[0][1].col_offset) == (finding.line, finding.col)),
                     None)
        if found is None:
            raise NoFix("the donation is not found in the current text")
        site, param, name, reads = found
        if "." in name:
            raise NoFix(f"`{name}` is an attribute: keep the result in it (`{name} = ...`) by hand")
        call = site.node
        end = (call.end_lineno, call.end_col_offset)
        if any((node.lineno, node.col_offset) >= end for _, node in reads):
            return _copy_fix(ctx, site, param, name)
        return _rebind_fix(ctx, site, name)


def _donations(analysis):
    """(call site, donated parameter, the argument's name, [(statement, Name node)] of the reads
    after the call) for every donated variable read after the call that deleted it."""
    for site in analysis.jit_calls():
        donated = site.entry.donated
        if not donated or site.starred:
            continue
        model = analysis.model
        scope = model.scope(site.scope)
        stmt = model.statement_of(site.node)
        if stmt is None:
            continue
        for param in sorted(donated):
            arg = site.args.get(param)
            if not _output_may_reuse(analysis, site.entry, param, lambda: _passes_container(model, scope, stmt, arg)):
                continue
            if arg is None:
                continue
            if isinstance(arg.node, ast.Name):
                reads = scope.reads_after(arg.node.id, stmt)
                name = arg.node.id
            elif _self_attribute(arg.node):
                reads = _attribute_reads_after(analysis, stmt, arg.node.attr)
                name = f"self.{arg.node.attr}"
            else:
                continue
            reads = [(where, node) for where, node in reads if not _metadata_read(analysis, node)]
            if reads:
                yield site, param, name, reads


def _metadata_read(analysis, node) -> bool:
    """`x.shape`, `batch["inputs"].dtype`, `x.is_deleted()`, a dict's `.keys()`: what a deleted
    array (or the container holding it) still answers, so reading it after the donation is fine
    (checked with JAX 0.10.2)."""
    parent = analysis.parents.parent_of(node)
    while isinstance(parent, ast.Subscript) and parent.value is node and isinstance(parent.slice, (ast.Constant, ast.Name)):
        node, parent = parent, analysis.parents.parent_of(parent)     # `batch["inputs"][key]`: into the pytree
    return isinstance(parent, ast.Attribute) and parent.value is node and \
        (parent.attr in api.STATIC_ATTRIBUTES or parent.attr in ("is_deleted", "keys"))


def _self_attribute(node) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"


def _attribute_reads_after(analysis, stmt, attr) -> list:
    """[(statement, node)] reading `self.attr` in the statements that follow `stmt` in its block,
    up to one that assigns `self.attr` again (straight-line code only; nested defs and lambdas
    run later, if at all, and are not read)."""
    parent = analysis.parents.parent_of(stmt)
    block = next((getattr(parent, field) for field in ("body", "orelse", "finalbody")
                  if isinstance(getattr(parent, field, None), list) and stmt in getattr(parent, field)), None)
    if block is None or _assigns_attribute(stmt, attr):
        return []           # `self.params = step(self.params, g)`: rebound to the result at once
    found = []
    for later in block[block.index(stmt) + 1:]:
        found.extend((later, node) for node in _nodes_run_now(later)
                     if _self_attribute(node) and node.attr == attr and
                     (isinstance(node.ctx, ast.Load) or isinstance(later, ast.AugAssign) and node is later.target))
        if found or _assigns_attribute(later, attr):
            break
    return found


def _nodes_run_now(stmt):
    """The nodes of a statement, not those of the defs, lambdas and classes it makes."""
    todo = [stmt]
    while todo:
        node = todo.pop()
        yield node
        todo.extend(child for child in ast.iter_child_nodes(node) if not isinstance(child, SCOPE_NODES))


def _assigns_attribute(stmt, attr) -> bool:
    """Does the statement bind `self.attr` (`=`, an annotated assignment, one of the targets an
    assignment unpacks into: `self.params, self.opt_state, loss = step(...)`)?"""
    targets = list(stmt.targets) if isinstance(stmt, ast.Assign) else \
        [stmt.target] if isinstance(stmt, ast.AnnAssign) and stmt.value is not None else []
    while targets:
        target = targets.pop()
        if isinstance(target, (ast.Tuple, ast.List)):
            targets.extend(target.elts)
        elif isinstance(target, ast.Starred):
            targets.append(target.value)
        elif _self_attribute(target) and target.attr == attr:
            return True
    return False


_UPDATES = {"replace", "apply_gradients", "set", "add", "multiply", "divide", "min", "max", "power",
            "copy", "block_until_ready"}
# What a deleted array (or an object holding arrays) still answers: not a buffer of it.
_METADATA = {"shape", "dtype", "ndim", "size", "sharding", "weak_type", "aval"}
_ELEMENTWISE = ("jax.tree.map", "jax.tree_util.tree_map", "jax.tree_map", "optax.apply_updates",
                "jnp.where", "lax.stop_gradient", "jax.lax.stop_gradient")


def _passes_container(model, scope, stmt, arg) -> bool:
    """Is the argument a list or tuple of values (`xs = [a, b]` before `step(xs)`), so that
    iterating over the parameter gives its leaves, not the rows of one array?"""
    node = getattr(arg, "node", None)
    if isinstance(node, ast.Name):
        node = model.value(node.id, stmt, scope)
    return isinstance(node, (ast.List, ast.Tuple, ast.ListComp))


def _output_may_reuse(analysis, entry, param, container=None) -> bool:
    """Does the jitted function return something built elementwise from `param` (so that an
    output has its shape and dtype, and JAX takes over, and deletes, the donated buffer)? The
    body is read with its own module's names (a jitted step imported from another module).
    `container()`: does the call pass a list or tuple there, whose elements a comprehension over
    the parameter maps (`[x + 1 for x in xs]`)? Asked only when the body has such a comprehension."""
    if entry.home and os.path.abspath(entry.home) != os.path.abspath(analysis.path):
        analysis = analysis.other_module(entry.home)
        if analysis is None:
            return False
    node = entry.node
    containers = {param} if container is not None and any(
        isinstance(n, (ast.ListComp, ast.GeneratorExp)) and any(
            isinstance(g.iter, ast.Name) and g.iter.id == param for g in n.generators)
        for n in ast.walk(node)) and container() else set()
    if isinstance(node, ast.Lambda):
        return _shaped_like(analysis, node.body, {param}, containers)
    same = {param}
    statements = [s for s in ast.walk(node) if isinstance(s, ast.stmt)
                  and not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) or s is node]
    for _ in range(2):
        for stmt in statements:
            if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and stmt.value is not None:
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                parts = _matrix_parts(analysis, stmt.value, same)
                if isinstance(parts, tuple):    # `c, lower = cho_factor(a)`: the factor has a's shape
                    same.update(t.elts[i].id for t in targets if isinstance(t, (ast.Tuple, ast.List))
                                for i in parts if i < len(t.elts) and isinstance(t.elts[i], ast.Name))
                if _shaped_like(analysis, stmt.value, same, containers) or isinstance(stmt, ast.AugAssign) and \
                        isinstance(stmt.target, ast.Name) and stmt.target.id in same:
                    for target in targets:
                        same.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    return any(isinstance(stmt, ast.Return) and stmt.value is not None and
               _shaped_like(analysis, stmt.value, same, containers) for stmt in statements)


def _shaped_like(analysis, expr, same, containers=frozenset()) -> bool:
    if isinstance(expr, ast.Name):
        return expr.id in same
    if isinstance(expr, (ast.ListComp, ast.GeneratorExp)) and containers:
        # `[x + 1 for x in xs]` over a list or tuple passed in: each element maps a leaf
        leaves = {n.id for g in expr.generators if isinstance(g.iter, ast.Name) and g.iter.id in containers
                  and not g.ifs for n in ast.walk(g.target) if isinstance(n, ast.Name)}
        return bool(leaves) and _shaped_like(analysis, expr.elt, same | leaves)
    if isinstance(expr, ast.BinOp):
        return _shaped_like(analysis, expr.left, same, containers) or _shaped_like(analysis, expr.right, same, containers)
    if isinstance(expr, ast.UnaryOp):
        return _shaped_like(analysis, expr.operand, same)
    if isinstance(expr, (ast.Tuple, ast.List)):
        return any(_shaped_like(analysis, e, same, containers) for e in expr.elts)
    if isinstance(expr, ast.Dict):
        return any(v is not None and _shaped_like(analysis, v, same, containers) for v in expr.values)
    if isinstance(expr, ast.IfExp):
        return _shaped_like(analysis, expr.body, same, containers) or _shaped_like(analysis, expr.orelse, same, containers)
    if isinstance(expr, ast.Attribute) and expr.attr == "at":
        return _shaped_like(analysis, expr.value, same)
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id in same \
            and expr.attr not in _METADATA:
        return True         # `state.params`: a field (a leaf or a subtree) of the donated pytree
    if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Name) and expr.value.id in same \
            and isinstance(expr.slice, ast.Constant):
        return True         # `state["w"]`: a leaf (or subtree) of the donated pytree
    if isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Constant):
        parts = _matrix_parts(analysis, expr.value, same)
        if isinstance(parts, tuple) and expr.slice.value in parts:
            return True     # `jnp.linalg.qr(a)[0]`
    if isinstance(expr, ast.Call):
        func = expr.func
        qual = analysis.imports.resolve(func) or ""
        if qual in _ELEMENTWISE or api.FLOAT_RESULT.get(qual, ("",))[0] == "same":
            # a tree map, or a JAX function whose result has its argument's shape and dtype
            # (probed, FLOAT_RESULT: `jnp.tanh(w)`, `jax.nn.relu(h)`)
            return any(_shaped_like(analysis, a, same) for a in expr.args)
        if _matrix_parts(analysis, expr, same) is not None:
            return True     # `jnp.linalg.cholesky(a)`, or a tuple holding `cho_factor(a)`'s factor
        if isinstance(func, ast.Attribute) and func.attr in _UPDATES:
            return _shaped_like(analysis, func.value, same)
        if class_called(analysis, expr) is not None:
            # a pytree built from leaves of it (`TrainState(state.step + 1, params, momentum)`)
            return any(_shaped_like(analysis, a, same) for a in list(expr.args) + [k.value for k in expr.keywords])
    return False


def _matrix_parts(analysis, expr, same):
    """For a call of a JAX function that returns a square matrix argument's shape and dtype
    (probed, MATRIX_RESULT) on an argument built from the donated parameter: "same" when the
    result is such an array (`jnp.linalg.cholesky(a)`), the positions of such arrays in a tuple
    result (`cho_factor(a)` -> (0,)); else None."""
    if not isinstance(expr, ast.Call) or not expr.args or not _shaped_like(analysis, expr.args[0], same):
        return None
    return api.MATRIX_RESULT.get(analysis.imports.resolve(expr.func) or "")


# -- the fix ---------------------------------------------------------------------------------------

def _copy_fix(ctx, site, param, name) -> Fix:
    """Donate a copy and keep the caller's value: `jnp.copy(p)` for a value known to be an
    array, `jax.tree.map(jnp.copy, p)` for anything else (a pytree of arrays)."""
    analysis = ctx.analysis
    model = analysis.model
    arg = site.args[param].node
    value = model.value(name, model.statement_of(site.node), model.scope(site.scope))
    edits = []
    jnp = ctx.alias_for("jax.numpy")
    if jnp is None:
        jax_ref, edits = ctx.module_ref("jax")
        jnp = f"{jax_ref}.numpy"
    if value is not None and _is_array(analysis, value):
        copied = f"{jnp}.copy({name})"
    else:
        jax_ref, more = ctx.module_ref("jax")
        edits = edits or more
        copied = f"{jax_ref}.tree.map({jnp}.copy, {name})"
    start, end = ctx.text.span(arg)
    why = ("it copies the donated value before every call: the donation no longer saves memory, "
           "and the copy costs time and a second buffer")
    return Fix.unsafe(f"Donate a copy: `{copied}`", why, edits + [(start, end, copied)])


def _rebind_fix(ctx, site, name) -> Fix:
    """Only the next iteration reads the donated name: bind it to the call's result, as a loop
    that steps a value means (`new = step(p, g)` -> `p = new = step(p, g)`)."""
    model = ctx.analysis.model
    scope = model.scope(site.scope)
    stmt = model.statement_of(site.node)
    if scope.kind is not ScopeKind.MODULE and model.classify(name, scope) is not NameScope.LOCAL:
        raise NoFix(f"`{name}` is not a local variable here: binding it would make it one")
    if isinstance(stmt, ast.Expr) and stmt.value is site.node:
        at = ctx.text.offset(stmt.lineno, stmt.col_offset)
    elif isinstance(stmt, ast.Assign) and stmt.value is site.node \
            and all(isinstance(t, ast.Name) for t in stmt.targets):
        at = ctx.text.offset(stmt.targets[0].lineno, stmt.targets[0].col_offset)
    else:
        raise NoFix("only the next iteration reads the donated value, and the call's result is "
                    "used inside a larger expression or unpacked: which value the name should "
                    "take next is not mechanical")
    why = ("each iteration now passes the previous call's result instead of the original value, "
           "which changes what the loop computes")
    return Fix.unsafe(f"Rebind `{name}` to the result: `{name} = ...`", why, [(at, at, f"{name} = ")])


_ARRAY_MODULES = ("jnp.", "jax.random.", "jax.nn.", "lax.")  # as ImportMap.resolve spells them


def _is_array(analysis, expr) -> bool:
    """Is the expression surely one array (not a pytree): a jax.numpy/jax.random/lax call, an
    `.at[...]` update, or arithmetic with one of those?"""
    if isinstance(expr, ast.BinOp):
        return _is_array(analysis, expr.left) or _is_array(analysis, expr.right)
    if isinstance(expr, ast.UnaryOp):
        return _is_array(analysis, expr.operand)
    if isinstance(expr, ast.Call):
        func = expr.func
        qual = analysis.imports.resolve(func) or ""
        if qual.startswith(_ARRAY_MODULES) and qual not in ("jax.random.split", "jax.random.key",
                                                            "jax.random.PRNGKey"):
            return True
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Subscript) \
                and isinstance(func.value.value, ast.Attribute) and func.value.value.attr == "at":
            return True
    return False
