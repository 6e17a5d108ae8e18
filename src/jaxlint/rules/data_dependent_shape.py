"""JAX105 data-dependent-shape."""

from jaxlint.rules.base import SinkRule, describe_origin, describe_place


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
        origin = describe_origin(sink.value)
        place = describe_place(sink.frame)
        if api:
            size = sink.detail.get("size")
            fix = f"pass {size}= (a static upper bound)" if size else "avoid it under jit"
            if api.startswith("jnp.where"):
                fix = "use three-argument jnp.where(cond, x, y), or jnp.nonzero(..., size=k)"
            return (f"{origin} in {place} goes to {api}, which makes the output shape depend on its "
                    f"values: ConcretizationTypeError at trace time. Fix: {fix}")
        return (f"boolean mask from {origin} indexes an array in {place}: the result's shape depends "
                f"on the data (NonConcreteBooleanIndexError). Fix: jnp.where(mask, x, 0), "
                f"reductions with where=mask, or jnp.nonzero(mask, size=k)")
