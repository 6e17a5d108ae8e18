"""JAX104 traced-slice."""

from jaxlint.analysis.api_tables import SLICE_SIZE_ERRORS
from jaxlint.rules.base import SinkRule, short_origin, short_place, trace_detail, static_fix
from jaxlint.rules.make_static import MAKE_STATIC_FIX, make_parameter_static


class TracedSlice(SinkRule):
    code = "JAX104"
    name = "traced-slice"
    family = "trace-time failure"
    summary = "A traced value is a slice bound or a slice size: the result's shape would be dynamic."
    what = """
        Flags `x[:n]`, `x[i:i + k]`, `x.at[n:]`, `lax.slice` limits and the sizes of
        `lax.dynamic_slice` / `lax.dynamic_slice_in_dim` when the bound is a tracer.
    """
    why = """
        The length of a slice is the shape of its result, and shapes must be static. JAX raises
        `IndexError: Slice entries must be static integers` at trace time; a traced size of
        `lax.dynamic_slice`/`lax.slice` raises TypeError, of `lax.dynamic_slice_in_dim`/
        `lax.slice_in_dim` TracerIntegerConversionError.
    """
    example = """
        import jax

        @jax.jit
        def window(x, start):
            return x[start:start + 4]
    """
    use_instead = """
        import jax
        from jax import lax

        @jax.jit
        def window(x, start):
            return lax.dynamic_slice(x, (start,), (4,))
    """

    fix = MAKE_STATIC_FIX
    fix_finding = staticmethod(make_parameter_static)

    def message(self, sink):
        fix = static_fix(sink.value, sink.frame)
        remedy = ("use lax.dynamic_slice(x, (start,), (size,)) with a static size, or mask with "
                  "jnp.where" + (f"; or {fix}" if fix else ""))
        api = sink.detail.get("api")
        where = f"the size of {api}" if api else "a slice bound"
        lead = f"{api} size" if api else "slice bound"
        error = SLICE_SIZE_ERRORS.get(str(api).rstrip("()"), "") if api else ""
        error = error or "IndexError (Slice entries must be static integers)"
        return (f"{lead} {short_origin(sink.value)} is traced in {short_place(sink.frame)}",
                trace_detail(sink.value, sink.frame, f"It is {where}: {error} at trace time", remedy))
