"""JAX302 unrolled-loop."""

from jaxlint.analysis import values as vals
from jaxlint.findings import Finding
from jaxlint.rules.base import Rule


class UnrolledLoop(Rule):
    code = "JAX302"
    name = "unrolled-loop"
    family = "recompilation"
    summary = "A Python for-loop over a static range inside a traced function is unrolled."
    what = """
        Flags a Python `for` over `range(n)` inside a traced function when `n` is a static
        parameter or a constant at or above a threshold (default 16, `unrolled-loop-threshold`).
    """
    why = """
        JAX traces Python loops by running them: the body is copied into the program once per
        iteration. Compile time and program size grow with `n`, and every new static `n` is a new
        compile.
    """
    example = """
        import jax

        @jax.jit
        def simulate(x):
            for _ in range(1000):
                x = x - 0.01 * x
            return x
    """
    use_instead = """
        import jax
        from jax import lax

        @jax.jit
        def simulate(x):
            return lax.fori_loop(0, 1000, lambda i, x: x - 0.01 * x, x)
    """

    fix = ("No automatic fix: a lax.fori_loop or lax.scan rewrite needs a loop body with fixed "
           "shapes, which is a redesign.")

    def check(self, analysis):
        threshold = analysis.unrolled_loop_threshold
        for sink in analysis.sinks:
            if sink.kind != "loop":
                continue
            stop = sink.value
            bounds = sink.detail.get("bounds", [])
            reason = None
            if stop.state == vals.STATIC and stop.text.startswith("static:"):
                if not sink.frame.entry_kind.startswith("jit") or sink.frame.chain:
                    continue
                reason = f"`{stop.text[7:]}` is a static parameter: the loop length is a compile-time constant"
            elif stop.state == vals.STATIC and isinstance(stop.const, int) and not isinstance(stop.const, bool):
                start = bounds[0].const if len(bounds) > 1 and isinstance(bounds[0].const, int) else 0
                step = bounds[2].const if len(bounds) > 2 and isinstance(bounds[2].const, int) else 1
                count = max(0, -((start - stop.const) // step)) if step else 0   # len(range()) overflows
                if count < threshold:
                    continue
                reason = f"it runs {count} iterations (threshold {threshold})"
            if reason is None:
                continue
            yield Finding(
                code=self.code, line=sink.node.lineno, col=sink.node.col_offset,
                function=sink.frame.function,
                message=(f"Python for-loop over range() in traced `{sink.frame.function}` is unrolled: "
                         f"{reason}, and compile time grows with the iteration count. "
                         f"Fix: lax.fori_loop or lax.scan"))
