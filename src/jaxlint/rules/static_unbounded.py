"""JAX201 static-unbounded."""

import ast

from jaxlint.analysis import calls
from jaxlint.analysis.shown import text_of
from jaxlint.findings import Finding
from jaxlint.rules.base import Rule
from jaxlint.rules.bounded import Bounded


class StaticUnbounded(Rule):
    code = "JAX201"
    name = "static-unbounded"
    family = "static arguments"
    summary = "A static argument takes a new value on every call: one trace and XLA compile each."
    what = """
        Flags a call of a jitted function whose static parameter receives a value that changes
        from call to call: a loop variable or anything computed from it, an `enumerate` index, a
        counter updated in the loop, `len()`/`.shape` of per-iteration data, `float()`/`.item()`
        of an array; also when the jitted call sits in a helper that passes its own parameter on
        (`evaluate(h)` -> `rollout(x, h)`) and a loop calls the helper with such a value (names,
        constants and arithmetic are followed). Bounded values are not flagged: literals, module
        constants, small literal sets, a value looked up in a fixed table (a dict, or a list
        display filled from one), and the shape of an array that the same call passes (a new
        value comes with a new input shape, which compiles again anyway).
    """
    why = """
        The values of static arguments are part of jit's cache key. Every distinct value traces
        the function again and runs a full XLA compile (100-200 ms on CPU, seconds for large
        models). Nothing fails: the program is just slow, and memory grows with the cache.
    """
    example = """
        from functools import partial
        import jax

        @partial(jax.jit, static_argnames=("step",))
        def update(params, grads, step):
            return params - 0.1 / (1 + step) * grads

        def train(params, grads):
            for step in range(1000):
                params = update(params, grads, step)
            return params
    """
    use_instead = """
        import jax

        @jax.jit
        def update(params, grads, step):
            return params - 0.1 / (1 + step) * grads

        def train(params, grads):
            for step in range(1000):
                params = update(params, grads, step)
            return params
    """

    fix = ("No automatic fix: removing the parameter from the static arguments can turn this "
           "into a trace-time failure (JAX101-JAX104), and bucketing needs the author's "
           "choice of values.")

    def check(self, analysis):
        varying_cache = {}
        for site in analysis.jit_calls():
            for param, arg in site.args.items():
                if param not in site.entry.static:
                    continue
                for loop in reversed(site.loops):
                    if id(loop) not in varying_cache:
                        varying_cache[id(loop)] = calls.varying_names(loop, analysis.resolver(site.scope))
                    reason = calls.expr_varies(arg.node, varying_cache[id(loop)])
                    if reason:
                        bounded = Bounded(analysis, analysis.shown, site, loop, varying_cache[id(loop)]).reason(arg.node)
                        if bounded:
                            analysis.notes.append(
                                f"JAX201 not reported at line {site.node.lineno}: static `{param}` of "
                                f"`{site.entry.name}` changes in the loop at line {loop.lineno}, but "
                                f"takes few values: {bounded}")
                            break
                        yield self._finding(site, param, f"{reason[0].upper()}{reason[1:]}")
                        break
                else:
                    found = _through_callers(analysis, site, arg.node)
                    if found is not None:
                        helper, passed, call, reason = found
                        yield self._finding(
                            site, param, f"`{param}` is the parameter `{arg.node.id}` of `{helper}`, which "
                                         f"line {call.lineno} calls with `{text_of(passed)}`: {reason}",
                            f" of `{helper}`")

    def _finding(self, site, param, why, through="") -> Finding:
        return Finding(
            code=self.code, line=site.node.lineno, col=site.node.col_offset,
            function=site.entry.name, param=param,
            message=(f"static parameter `{param}` of jitted `{site.entry.name}` "
                     f"changes on every call{through}"),
            detail=(f"{why}. Each new value traces and compiles `{site.entry.name}` again. Fix: make "
                    f"`{param}` a traced argument (remove it from static_argnums/static_argnames), "
                    f"or bucket it to a few values"))


# A value passed to a helper that the analysis can follow as it varies: names, constants and
# arithmetic (`step + 1`). A lookup (`TABLE[name]`), a call or an attribute (`x.shape[0]`) may be
# bounded in ways the helper's call does not show (one value per table entry, per input shape).
_COUNTER_NODES = (ast.Name, ast.Constant, ast.BinOp, ast.UnaryOp, ast.operator, ast.unaryop, ast.expr_context)


def _through_callers(analysis, site, node):
    """(helper name, passed expression, call, why) when the static argument is a parameter of
    the helper around the jitted call and a call of the helper in a loop of the file passes it a
    value that changes at every iteration (and is not bounded there); else None."""
    if not isinstance(node, ast.Name):
        return None
    for helper, call, scope, loops, passed in analysis.loop_callers_passing(site, node.id):
        if not all(isinstance(sub, _COUNTER_NODES) for sub in ast.walk(passed)):
            continue
        for loop in reversed(loops):
            why = calls.varying_names(loop, analysis.resolver(scope))
            reason = calls.expr_varies(passed, why)
            if reason:
                if Bounded(analysis, analysis.shown, site, loop, why).reason(passed):
                    break       # few values (a loop over a fixed table's entries...)
                return helper.name, passed, call, reason
    return None
