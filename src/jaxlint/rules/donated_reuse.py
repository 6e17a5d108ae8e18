"""JAX403 donated-reuse."""

import ast

from jaxlint.findings import Finding
from jaxlint.rules.base import Rule


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
    fix = ("No automatic fix: whether to rebind the name, copy before the call or stop donating "
           "depends on what the later read needs.")

    def check(self, analysis):
        model = analysis.model
        for site in analysis.jit_calls():
            donated = site.entry.donated
            if not donated or site.starred:
                continue
            scope = model.scope(site.scope)
            stmt = model.statement_of(site.node)
            if stmt is None:
                continue
            for param in sorted(donated):
                if not _output_may_reuse(analysis, site.entry, param):
                    continue
                arg = site.args.get(param)
                if arg is None or not isinstance(arg.node, ast.Name):
                    continue
                name = arg.node.id
                reads = scope.reads_after(name, stmt)
                if not reads:
                    continue
                _, node = reads[0]
                call = ast.unparse(site.node) if len(ast.unparse(site.node)) <= 60 else f"{site.entry.name}(...)"
                yield Finding(
                    code=self.code, line=node.lineno, col=node.col_offset, function=site.entry.name,
                    param=param,
                    message=(f"`{name}` is read after it was donated to jitted `{site.entry.name}`"
                             + (f" as `{param}`" if param != name else "")),
                    detail=(f"`{name}` was donated to jitted `{site.entry.name}` (parameter `{param}`) "
                            f"by `{call}` at line {site.node.lineno} and is read here: the call "
                            f"deleted its buffers, so this raises RuntimeError (Array has been "
                            f"deleted; ValueError 'Buffer has been deleted or donated' from a cached "
                            f"call). Fix: rebind the name to the result (`{name} = "
                            f"{site.entry.name}(...)`), or read a copy taken before the call"))


_UPDATES = {"replace", "apply_gradients", "set", "add", "multiply", "divide", "min", "max", "power",
            "copy", "block_until_ready"}
_ELEMENTWISE = ("jax.tree.map", "jax.tree_util.tree_map", "jax.tree_map", "optax.apply_updates",
                "jnp.where", "lax.stop_gradient", "jax.lax.stop_gradient")


def _output_may_reuse(analysis, entry, param) -> bool:
    """Does the jitted function return something built elementwise from `param` (so that an
    output has its shape and dtype, and JAX takes over, and deletes, the donated buffer)?"""
    node = entry.node
    if isinstance(node, ast.Lambda):
        return _shaped_like(analysis, node.body, {param})
    same = {param}
    statements = [s for s in ast.walk(node) if isinstance(s, ast.stmt)
                  and not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) or s is node]
    for _ in range(2):
        for stmt in statements:
            if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and stmt.value is not None:
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                if _shaped_like(analysis, stmt.value, same) or isinstance(stmt, ast.AugAssign) and \
                        isinstance(stmt.target, ast.Name) and stmt.target.id in same:
                    for target in targets:
                        same.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    return any(isinstance(stmt, ast.Return) and stmt.value is not None and _shaped_like(analysis, stmt.value, same)
               for stmt in statements)


def _shaped_like(analysis, expr, same) -> bool:
    if isinstance(expr, ast.Name):
        return expr.id in same
    if isinstance(expr, ast.BinOp):
        return _shaped_like(analysis, expr.left, same) or _shaped_like(analysis, expr.right, same)
    if isinstance(expr, ast.UnaryOp):
        return _shaped_like(analysis, expr.operand, same)
    if isinstance(expr, (ast.Tuple, ast.List)):
        return any(_shaped_like(analysis, e, same) for e in expr.elts)
    if isinstance(expr, ast.Dict):
        return any(v is not None and _shaped_like(analysis, v, same) for v in expr.values)
    if isinstance(expr, ast.IfExp):
        return _shaped_like(analysis, expr.body, same) or _shaped_like(analysis, expr.orelse, same)
    if isinstance(expr, ast.Attribute) and expr.attr == "at":
        return _shaped_like(analysis, expr.value, same)
    if isinstance(expr, ast.Call):
        func = expr.func
        qual = analysis.imports.resolve(func) or ""
        if qual in _ELEMENTWISE:
            return any(_shaped_like(analysis, a, same) for a in expr.args)
        if isinstance(func, ast.Attribute) and func.attr in _UPDATES:
            return _shaped_like(analysis, func.value, same)
    return False
