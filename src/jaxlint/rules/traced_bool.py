"""JAX101 traced-bool."""

from jaxlint.rules.base import SinkRule, short_origin, short_place, trace_detail, static_fix
from jaxlint.rules.make_static import MAKE_STATIC_FIX, make_parameter_static


class TracedBool(SinkRule):
    code = "JAX101"
    name = "traced-bool"
    family = "trace-time failure"
    summary = "A traced value is converted to a Python bool (if, while, and/or/not, assert, max/min)."
    what = """
        Flags Python control flow on a value that is a tracer while JAX traces the function:
        `if`/`elif`/`while`/`assert` conditions, ternaries, `and`/`or`/`not`, comprehension `if`s,
        chained comparisons, `x in (1, 2)`, `bool(x)`, builtin `any`/`all`/`max`/`min` and `match`
        literal cases. A bare `if flag:` on a parameter is flagged when the parameter is known to
        hold a bool, number or array rather than a container: an annotation, a call passing one, or
        the function itself (it also does arithmetic with it or reads `.shape`/`.astype()`, or its
        name says it is a flag, like `use_relu` or `training`, and it is only tested). Tracing
        starts at `jax.jit` in every spelling (`pjit` too), `jax.make_jaxpr`, `jax.eval_shape`,
        `jax.checkpoint`, `shard_map` and the bodies of lax control flow and `vmap`, and reaches
        the helpers and methods they call (`self.helper(x)`, `obj.method(x)`, `Model.f(x)`, a bound
        method or a callable object handed to a transform) and the fields of a NamedTuple or
        dataclass carry. Not flagged: `jax.grad`/`vjp`/`jvp` without jit, where Python control flow
        on the primal value works, and a branch that never runs under a trace
        (`if isinstance(x, np.ndarray):` is False for a tracer).
    """
    why = """
        Under `jax.jit` (and in `lax.scan`/`cond`/`fori_loop`/`while_loop` bodies and `vmap`) the
        argument is an abstract tracer without a value, so Python cannot decide the branch. JAX
        raises `TracerBoolConversionError` on the first call, often deep into a run.
    """
    example = """
        import jax

        @jax.jit
        def clip(x, limit):
            if limit > 0:
                return x.clip(-limit, limit)
            return x

        clip(x, 3.0)
    """
    use_instead = """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def clip(x, limit):
            return jnp.where(limit > 0, x.clip(-limit, limit), x)
    """

    fix = MAKE_STATIC_FIX
    fix_finding = staticmethod(make_parameter_static)

    def message(self, sink):
        how = sink.detail.get("how", "condition")
        fix = static_fix(sink.value, sink.frame)
        alternatives = "use jnp.where / lax.cond / lax.select" + (f", or {fix}" if fix else "")
        return (f"Python {how} on traced {short_origin(sink.value)} in {short_place(sink.frame)}",
                trace_detail(sink.value, sink.frame, f"It reaches a Python {how}: "
                             f"TracerBoolConversionError at trace time", alternatives))
