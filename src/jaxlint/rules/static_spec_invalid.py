"""JAX203 static-spec-invalid."""

from jaxlint.findings import Finding
from jaxlint.rules.base import Rule


class StaticSpecInvalid(Rule):
    code = "JAX203"
    name = "static-spec-invalid"
    family = "static arguments"
    summary = "static_argnums/static_argnames that jax.jit rejects (or negative indices that shift)."
    what = """
        Flags `static_argnums` beyond the positional parameters or pointing at a keyword-only one,
        and `static_argnames` naming no parameter or a positional-only one (`*args`/`**kwargs`
        make these legal, as in JAX). Negative `static_argnums` are flagged as a warning.
    """
    why = """
        `jax.jit` raises `ValueError: Jitted function has static_argnums=...` or `invalid argnames`
        when it is applied, which for a decorator means at import. A negative index is resolved
        against the arguments of each call: passing one by keyword makes a different parameter
        static.
    """
    example = """
        from functools import partial
        import jax

        @partial(jax.jit, static_argnums=(2,))
        def rollout(state, horizon):
            return state
    """
    use_instead = """
        from functools import partial
        import jax

        @partial(jax.jit, static_argnames=("horizon",))
        def rollout(state, horizon):
            return state
    """

    fix = ("No automatic fix: which parameter the static arguments meant to name is a guess.")

    def check(self, analysis):
        for entry in analysis.entries:
            for problem, detail, is_error in entry.spec_problems:
                site = entry.site
                prefix = "" if is_error else "warning: "
                yield Finding(code=self.code, line=site.lineno, col=site.col_offset,
                              function=entry.name, message=prefix + problem, detail=detail)
