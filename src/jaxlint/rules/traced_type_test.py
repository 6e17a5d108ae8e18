"""JAX106 traced-type-test."""

from jaxlint.rules.base import SinkRule, describe_origin, describe_place, static_fix


class TracedTypeTest(SinkRule):
    code = "JAX106"
    name = "traced-type-test"
    family = "trace-time failure"
    summary = "isinstance(x, int/float/bool) on a traced value is silently False under jit."
    sink_kinds = ("typetest",)
    what = """
        Flags `isinstance(v, int | float | bool | complex)` and `match v: case int():` when `v` is
        a tracer.
    """
    why = """
        Nothing fails: a tracer is not an `int`, so the test is False under jit and True when the
        same code runs eagerly with a Python number. The other branch runs silently and the
        results differ between jit and eager.
    """
    example = """
        import jax

        @jax.jit
        def smooth(labels, eps):
            if isinstance(eps, float) and eps > 0:
                labels = labels * (1 - eps) + eps / labels.shape[-1]
            return labels
    """
    use_instead = """
        import jax

        @jax.jit
        def smooth(labels, eps):
            return labels * (1 - eps) + eps / labels.shape[-1]
    """

    fix = ("Unsafe: `isinstance(n, int)` becomes `jnp.issubdtype(jnp.asarray(n).dtype, "
           "jnp.integer)` (float: jnp.floating, bool: jnp.bool_, complex: "
           "jnp.complexfloating). Unsafe because eager code changes too: arrays and NumPy "
           "scalars now pass the test, and a Python bool is no longer an int. `match` class "
           "patterns are not fixed.")

    @staticmethod
    def fix_finding(ctx, finding):
        from jaxlint.fixer.fixes import fix_type_test
        return fix_type_test(ctx, finding)

    def message(self, sink):
        types = sink.detail.get("types", "int")
        fix = static_fix(sink.value, sink.frame)
        remedy = ("test the dtype (jnp.issubdtype(x.dtype, jnp.integer)) or drop the test"
                  + (f"; or {fix}" if fix else ""))
        return (f"{describe_origin(sink.value)} in {describe_place(sink.frame)}: the type "
                f"test against {types} is always False for a tracer (True when run eagerly), so jit "
                f"silently takes the other branch. Fix: {remedy}")
