"""JAX107 trace-time-print."""

from jaxlint.rules.base import SinkRule, describe_origin, describe_place


class TraceTimePrint(SinkRule):
    code = "JAX107"
    name = "trace-time-print"
    family = "trace-time failure"
    summary = "print() of a traced value runs once, at trace time, and prints a tracer."
    sink_kinds = ("print",)
    what = "Flags `print(...)` whose arguments show a traced value (directly, in an f-string or %-format)."
    why = """
        `print` is Python: it runs while JAX traces the function, shows `Traced<float32[]>`
        instead of a number, and never runs again on cached calls.
    """
    example = """
        import jax

        @jax.jit
        def step(params, grads):
            print("grad", grads)
            return params - 0.1 * grads
    """
    use_instead = """
        import jax

        @jax.jit
        def step(params, grads):
            jax.debug.print("grad {g}", g=grads)
            return params - 0.1 * grads
    """

    fix = ("Unsafe: `print(...)` becomes `jax.debug.print(...)` with an equivalent format "
           "string (`print(\"loss\", loss)` -> `jax.debug.print(\"loss {}\", loss)`; "
           "f-string fields become `{}` placeholders). Unsafe because the output changes "
           "timing: it prints on every call, when the compiled code runs, not once while "
           "tracing.")

    @staticmethod
    def fix_finding(ctx, finding):
        from jaxlint.fixer.fixes import fix_print
        return fix_print(ctx, finding)

    def message(self, sink):
        return (f"print() shows {describe_origin(sink.value)}, traced in {describe_place(sink.frame)}: "
                f"it prints a tracer once while tracing and nothing on later (cached) calls. "
                f"Fix: jax.debug.print(\"... {{}}\", value)")
