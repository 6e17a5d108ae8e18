"""JAX306 dtype-drift."""

from jaxlint.analysis.call_order import DTYPE, signature_changes
from jaxlint.analysis.signatures import describe, path_text
from jaxlint.findings import Finding
from jaxlint.rules.base import Rule


class DtypeDrift(Rule):
    code = "JAX306"
    yields_to = ("JAX304",)       # the spelling of the call is the first difference JAX sees
    name = "dtype-drift"
    family = "recompilation"
    summary = "The same traced parameter of a jitted function gets another dtype, or a Python scalar then an array."
    what = """
        Flags the call that passes a traced parameter a dtype, or a weak type, that no earlier
        call of the same jitted function in the same function body passed: `jnp.array([1, 2])`
        then `jnp.array([1., 2.])`, `.astype(jnp.float16)` of what was float32, `2` then `2.0`,
        `1` then `True`, or a Python float (weakly typed) at one call and `jnp.float32(x)` /
        `np.float32(x)` / a float32 array (strongly typed) at another. Also a call in a loop whose
        argument is bound to one kind before the loop and rebound to another inside it.
        NumPy float64 and float32 arrays are not flagged: with x64 off (the default) JAX turns
        float64 into float32 and compiles once. Calls in different functions, or in branches that
        cannot both run, are not compared.
    """
    why = """
        The dtype of every argument, and whether it is weakly typed (a Python scalar), are part
        of jit's cache key: the second kind traces and compiles the function again, and the two
        versions may even compute in different precisions. Nothing fails; the program compiles
        twice where once would do.
    """
    example = """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def scale(x, s):
            return x * s

        def run(x, lr):
            a = scale(x, 0.1)
            b = scale(x, jnp.float32(lr))
            return a, b
    """
    use_instead = """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def scale(x, s):
            return x * s

        def run(x, lr):
            a = scale(x, jnp.float32(0.1))
            b = scale(x, jnp.float32(lr))
            return a, b
    """
    fix = "No automatic fix: the dtype a call should pass is the author's choice."

    def check(self, analysis):
        changes = [c for c in signature_changes(analysis) if c.kind == DTYPE]
        if not changes:
            return
        for change in changes:
            site = change.site
            where = (site.node.lineno, site.node.col_offset)
            name = site.entry.name
            shown = path_text(change.param, change.path)
            source = f" ({change.now})" if change.now else ""
            yield Finding(
                code=self.code, line=where[0], col=where[1], function=name, param=change.param,
                message=f"jitted `{name}` gets `{shown}` with a new dtype, so it compiles again",
                detail=(f"`{shown}` is {describe(change.new)}{source} here, but "
                        f"{describe(change.old)} {change.before}: a new dtype or weak type, so "
                        f"`{name}` is traced and compiled again. Fix: pass one dtype at every call "
                        f"(e.g. wrap Python scalars in `jnp.float32(...)`, or `.astype()` to one type)"))
