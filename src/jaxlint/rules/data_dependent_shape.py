"""JAX105 data-dependent-shape."""

from jaxlint.rules.base import SinkRule, short_origin, short_place, trace_detail


class DataDependentShape(SinkRule):
    code = "JAX105"
    name = "data-dependent-shape"
    family = "trace-time failure"
    summary = "The output shape depends on traced values (boolean masks, nonzero, unique...)."
    what = """
        Flags boolean-mask indexing `x[x > 0]` and `x.at[mask]`, and `jnp.nonzero`, one-argument
        `jnp.where`, `argwhere`, `flatnonzero`, `unique`, `union1d`/`intersect1d`/`setdiff1d`,
        `compress`, `extract` and `bincount` without `size=`/`length=`, and `jax.ops.segment_sum`
        (`_max`, `_min`, `_prod`) without `num_segments`, on traced values.
    """
    why = """
        How many elements survive depends on the data, so the result has no static shape.
        JAX raises `NonConcreteBooleanIndexError` or `ConcretizationTypeError` at trace time.
    """
    example = """
        import jax

        @jax.jit
        def positive_mean(x):
            return x[x > 0].mean()
    """
    use_instead = """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def positive_mean(x):
            return jnp.mean(x, where=x > 0)
    """

    fix = ("No automatic fix: the static bound (`size=`) or the masked rewrite depends on the "
           "data, which only the author knows.")

    def message(self, sink):
        api = sink.detail.get("api")
        origin = short_origin(sink.value)
        place = short_place(sink.frame)
        if api:
            size = sink.detail.get("size")
            fix = f"pass {size}= (a static upper bound)" if size else "avoid it under jit"
            if api.startswith("jnp.where"):
                fix = "use three-argument jnp.where(cond, x, y), or jnp.nonzero(..., size=k)"
            return (f"traced {origin} goes to {api} in {place}: data-dependent shape",
                    trace_detail(sink.value, sink.frame, f"It goes to {api}, which makes the output "
                                 f"shape depend on its values: ConcretizationTypeError at trace time",
                                 fix))
        return (f"boolean mask from traced {origin} indexes an array in {place}",
                trace_detail(sink.value, sink.frame, "A boolean mask from it indexes an array: the "
                             "result's shape depends on the data (NonConcreteBooleanIndexError)",
                             "jnp.where(mask, x, 0), reductions with where=mask, or "
                             "jnp.nonzero(mask, size=k)"))
