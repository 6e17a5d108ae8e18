"""JAX301 jit-per-call."""

import ast

from jaxlint.findings import Finding
from jaxlint.rules.base import Rule


class JitPerCall(Rule):
    code = "JAX301"
    name = "jit-per-call"
    family = "recompilation"
    summary = "jax.jit applied to a new function object every time the code runs: compiles every time."
    what = """
        Flags `jax.jit` (also `pmap`, `eqx.filter_jit`) applied to a lambda, a nested function, a
        `functools.partial` or a `jax.grad(...)` result built on the spot, when that code runs
        repeatedly: in a loop or comprehension, or in a function called in a loop, a method or a
        step function. `jax.jit(module_level_function)` in a loop is cached by JAX and is fine.
    """
    why = """
        jit's cache is keyed on the function object. A new lambda, closure or partial is a new
        key even when its code is identical, so every call traces and compiles from scratch.
    """
    example = """
        import jax

        def sweep(w, rates):
            for lr in rates:
                step = jax.jit(lambda w: w - lr * w)
                w = step(w)
            return w
    """
    use_instead = """
        import jax

        @jax.jit
        def step(w, lr):
            return w - lr * w

        def sweep(w, rates):
            for lr in rates:
                w = step(w, lr)
            return w
    """

    fix = ("No automatic fix: hoisting the jit out of the loop or function changes which values "
           "the jitted function closes over.")

    def check(self, analysis):
        traced_defs = {id(e.func.node) for e in analysis.entries if e.func is not None}
        traced_defs |= {id(e.lam) for e in analysis.entries if e.lam is not None}
        for entry in analysis.entries:
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
            anchor = entry.func.node if entry.via_decorator else site
            scope = analysis.parents.scope_of(anchor)
            while isinstance(scope, ast.Lambda):
                scope = analysis.parents.scope_of(scope)
            if scope is not None and id(scope) in traced_defs:
                continue      # a jit inside a traced function is inlined, not compiled per call
            why = analysis.runs_repeatedly(anchor)
            if not why:
                continue
            yield Finding(
                code=self.code, line=site.lineno, col=site.col_offset, function=entry.name,
                message=(f"jax.jit is applied to {what}, {why}: a new function object each time, so "
                         f"every call traces and compiles again. Fix: define the function once at "
                         f"module level (pass changing values as arguments) and jit it once"))
