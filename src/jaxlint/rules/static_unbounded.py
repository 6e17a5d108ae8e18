"""JAX201 static-unbounded."""

from jaxlint.analysis import calls
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
        of an array. Bounded values are not flagged: literals, module constants, small literal
        sets, a value looked up in a fixed table (a dict, or a list display filled from one), and
        the shape of an array that the same call passes (a new value comes with a new input
        shape, which compiles again anyway).
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
                        yield Finding(
                            code=self.code, line=site.node.lineno, col=site.node.col_offset,
                            function=site.entry.name, param=param,
                            message=(f"static parameter `{param}` of jitted `{site.entry.name}` "
                                     f"changes on every call"),
                            detail=(f"{reason[0].upper()}{reason[1:]}. Each new value traces and "
                                    f"compiles `{site.entry.name}` again. Fix: make `{param}` a traced "
                                    f"argument (remove it from static_argnums/static_argnames), or "
                                    f"bucket it to a few values"))
                        break
