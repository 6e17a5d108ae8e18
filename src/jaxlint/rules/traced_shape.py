"""JAX103 traced-shape."""

from jaxlint.rules.base import SinkRule, short_origin, short_place, trace_detail, static_fix
from jaxlint.rules.make_static import MAKE_STATIC_FIX, make_parameter_static


class TracedShape(SinkRule):
    code = "JAX103"
    name = "traced-shape"
    family = "trace-time failure"
    summary = "A traced value is used as a shape, size, length, count or axis of a JAX API."
    what = """
        Flags a traced value passed where JAX needs a Python integer: shapes (`jnp.zeros(n)`,
        `x.reshape(n, -1)`, `random.normal(key, (n,))`), sizes and counts (`jnp.arange(n)`,
        `jnp.linspace(a, b, n)`, `one_hot(y, n)`, `jnp.tile(x, n)`, `lax.scan(length=n)`), axes
        (`jnp.sum(x, axis=n)`), and another jitted function's static parameter. Values JAX gives
        back as Python numbers are not tracers: `x.shape`, `lax.psum(1, axis)` and
        `lax.axis_size(axis)` (the axis size), `jax.device_count()`, `jax.process_count()`.
    """
    why = """
        Array shapes are part of the compiled program and must be known at trace time. JAX raises
        `TypeError: Shapes must be 1D sequences of concrete values of integer type`,
        `ConcretizationTypeError`, `TracerIntegerConversionError` or
        `ValueError: Non-hashable static arguments are not supported`.
    """
    example = """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def init_state(x, hidden):
            return jnp.zeros((x.shape[0], hidden))
    """
    use_instead = """
        from functools import partial
        import jax
        import jax.numpy as jnp

        @partial(jax.jit, static_argnames=("hidden",))
        def init_state(x, hidden):
            return jnp.zeros((x.shape[0], hidden))
    """

    fix = MAKE_STATIC_FIX
    fix_finding = staticmethod(make_parameter_static)

    def message(self, sink):
        fix = static_fix(sink.value, sink.frame) or "derive it from a static value such as x.shape"
        origin = short_origin(sink.value)
        place = short_place(sink.frame)
        if sink.kind == "static-arg":
            target = f"static parameter `{sink.detail['param']}` of jitted `{sink.detail['callee']}`"
            return (f"traced {origin} passed to {target} in {place}",
                    trace_detail(sink.value, sink.frame, f"It is passed to {target}: ValueError "
                                 f"(Non-hashable static arguments) at trace time", fix))
        target = f"`{sink.detail.get('arg')}` of {sink.detail.get('api')}"
        return (f"traced {origin} used as {target} in {place}",
                trace_detail(sink.value, sink.frame, f"It is used as {target}, which must be a "
                             f"concrete integer: the shape would depend on a runtime value "
                             f"(TypeError/ConcretizationTypeError at trace time)", fix))
