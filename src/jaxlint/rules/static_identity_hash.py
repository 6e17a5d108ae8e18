"""JAX204 static-identity-hash."""

from jaxlint.findings import Finding
from jaxlint.rules.base import Rule
from jaxlint.rules.static_args import identity_hashed_kind, static_receiver


class StaticIdentityHash(Rule):
    code = "JAX204"
    name = "static-identity-hash"
    family = "static arguments"
    summary = "A new lambda, partial or plain object is passed to a static parameter on every call."
    what = """
        Flags a call passing a freshly built object that is hashed by identity (a lambda, a
        `functools.partial`, an instance of a class without `__eq__`/`__hash__`, a
        `@dataclass(eq=False)`, an optax transformation or schedule) to a static parameter, where
        that object is created again and again: inside a loop, or in a function that runs
        repeatedly; also when a conditional expression chooses between such objects
        (`Greedy() if greedy else TopK(5)`). A jitted method with a static `self` (`static_argnums=0`) called on a new
        instance each time (`Integrator(dt).step(q, p)`) is the same case.
    """
    why = """
        jit's cache compares static arguments by hash and equality. Two lambdas with the same
        body, or two instances with the same fields, are different keys: every call traces and
        compiles again, silently.
    """
    example = """
        from functools import partial
        import jax

        @partial(jax.jit, static_argnames=("act",))
        def layer(x, act):
            return act(x)

        def run(xs):
            return [layer(x, act=lambda h: h * 0.1) for x in xs]
    """
    use_instead = """
        from functools import partial
        import jax

        @partial(jax.jit, static_argnames=("act",))
        def layer(x, act):
            return act(x)

        def leaky(h):
            return h * 0.1

        def run(xs):
            return [layer(x, act=leaky) for x in xs]
    """

    fix = ("No automatic fix: hoisting the lambda, partial or object out of the loop moves "
           "code whose captured values the author must check.")

    def check(self, analysis):
        for site in analysis.jit_calls():
            passed = [(param, arg.node) for param, arg in site.args.items() if param in site.entry.static]
            receiver = static_receiver(site)
            if receiver is not None:
                passed.insert(0, receiver)      # the object a method with a static `self` runs on
            for param, node in passed:
                found = identity_hashed_kind(analysis, site, node)
                if not found:
                    continue
                kind, created = found
                why = analysis.runs_repeatedly(created)
                if not why:
                    continue
                yield Finding(
                    code=self.code, line=site.node.lineno, col=site.node.col_offset,
                    function=site.entry.name, param=param,
                    message=(f"static parameter `{param}` of jitted `{site.entry.name}` gets a new "
                             f"object, hashed by identity"),
                    detail=(f"`{param}` receives {kind} created at line {created.lineno}, {why}: jit "
                            f"hashes it by identity, so every new object traces and compiles again. "
                            f"Fix: create it once (module level or before the loop) and reuse it, or "
                            f"give the class value-based __eq__/__hash__ (e.g. a frozen dataclass)"))
