"""JAX102 traced-to-python."""

from jaxlint.rules.base import SinkRule, short_origin, short_place, trace_detail, static_fix, used_as_array
from jaxlint.rules.make_static import MAKE_STATIC_FIX, make_parameter_static


class TracedToPython(SinkRule):
    code = "JAX102"
    name = "traced-to-python"
    family = "trace-time failure"
    summary = "A traced value is converted to a concrete Python or NumPy value."
    what = """
        Flags `int()`/`float()`/`complex()`, `.item()`, `.tolist()`, `math.*`, NumPy functions that
        convert their argument (`np.asarray`, `np.exp`, ...), `operator.index`, `range(n)`,
        indexing a Python list/tuple/str or a NumPy array (`TABLE[n]`) or repeating a list
        (`[0] * n`), numeric `%`/f-string formatting, `hash()` and dict keys, when the value is a
        tracer. Under `jax.grad`, `value_and_grad`, `vjp`, `jvp` or `linearize` without jit, the
        conversions that fail there: `float()`, `complex()`, `math.*`, `.tolist()`, NumPy
        conversions, numeric formatting and hashing of a differentiated value.
    """
    why = """
        A tracer has no value while JAX traces the function. JAX raises
        `ConcretizationTypeError`, `TracerIntegerConversionError`, `TracerArrayConversionError`
        or a plain `TypeError` at trace time. Under autodiff alone the primal value is concrete,
        so `int(x)`, `x.item()` and `if x > 0` work there, but `float(x)` still raises.
    """
    example = """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def window(x, n):
            steps = int(n)
            return jnp.convolve(x, jnp.ones(steps) / steps)
    """
    use_instead = """
        from functools import partial
        import jax
        import jax.numpy as jnp

        @partial(jax.jit, static_argnames=("n",))
        def window(x, n):
            return jnp.convolve(x, jnp.ones(n) / n)
    """

    fix = MAKE_STATIC_FIX
    fix_finding = staticmethod(make_parameter_static)

    def message(self, sink):
        how = sink.detail.get("how", "conversion")
        fix = static_fix(sink.value, sink.frame)
        remedy = fix or "keep the computation in jnp (jnp.asarray, jnp.* functions) or use jax.debug.print"
        if used_as_array(sink.value):
            name = sorted(sink.value.params)[0]
            remedy = (f"keep it traced (use the jnp value instead of {how}); `{name}` is an array, "
                      f"which cannot be static (unhashable): if a Python number is needed, compute "
                      f"it outside jit and pass it as a separate static argument")
        return (f"traced {short_origin(sink.value)} converted to a Python value ({how}) in "
                f"{short_place(sink.frame)}",
                trace_detail(sink.value, sink.frame, f"It is converted to a Python value by {how}: "
                             f"this fails at trace time (ConcretizationTypeError / "
                             f"TracerIntegerConversionError)", remedy))
