"""JAX109 trace-leak."""

from jaxlint.rules.base import SinkRule, short_origin, short_place, trace_detail


class TraceLeak(SinkRule):
    code = "JAX109"
    name = "trace-leak"
    family = "trace-time failure"
    summary = "A traced value stored into state from outside the traced function."
    what = """
        Flags a traced value appended to a list that the traced code did not
        create (a module-level one, an enclosing function's that is not traced, one held by a
        static `self` or a module-level object), or assigned to a `global`/`nonlocal` name (also
        by unpacking: `key, sub = split(key)`); directly or in a helper the trace calls; stores by
        subscript or attribute only into a module-level container or object, or into `self.attr`
        when the module reads `.attr` only on objects (`box.cache` after the call), never on
        `self` (a Pallas ref or a cache on `self` read back in the same trace looks the same as a
        leak, so they are not flagged). Containers built inside the trace,
        `jax.debug.callback`, and stored Python values (a trace counter, a shape) are not
        flagged.
    """
    why = """
        The store is Python: it runs once, while JAX traces the function, and never on the
        cached calls that follow, so the state holds a tracer of the first trace and no later
        values. A JAX operation on what it holds after the trace raises
        `UnexpectedTracerError` (`float()` of it raises `ConcretizationTypeError`).
    """
    example = """
        import jax
        import jax.numpy as jnp

        history = []

        @jax.jit
        def step(params, x):
            loss = jnp.mean((x @ params) ** 2)
            history.append(loss)
            return params - 0.1 * loss
    """
    use_instead = """
        import jax
        import jax.numpy as jnp

        history = []

        @jax.jit
        def step(params, x):
            loss = jnp.mean((x @ params) ** 2)
            return params - 0.1 * loss, loss

        def fit(params, x):
            params, loss = step(params, x)
            history.append(loss)
            return params
    """
    fix = "No automatic fix: return the value from the traced function, or log it with jax.debug.callback."

    def message(self, sink):
        into = sink.detail.get("into", "")
        how = sink.detail.get("how", "")
        what = f"`{into}` (a `global`/`nonlocal` name)" if how == "global" else \
            f"`{into}`, state from outside the trace, by {how}" if how != "assignment" else \
            f"`{into}`, state from outside the trace"
        held = " in a function closing over it" if sink.detail.get("closure") else ""
        return (f"traced {short_origin(sink.value)} is stored into `{into}`{held} in "
                f"{short_place(sink.frame)}",
                trace_detail(sink.value, sink.frame, f"It is stored into {what}{held}: the store runs "
                             f"once, while tracing, and keeps a tracer (a JAX operation on it "
                             f"afterwards raises UnexpectedTracerError; later calls store nothing)",
                             "return the value from the traced function, or use jax.debug.callback"))
