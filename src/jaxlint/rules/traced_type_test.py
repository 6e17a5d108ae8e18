"""JAX106 traced-type-test."""

import ast

from jaxlint.findings import Fix, NoFix
from jaxlint.rules.base import SinkRule, short_origin, short_place, trace_detail, static_fix

# isinstance() types -> the jnp dtype classes that test the same thing of an array's dtype.
_TYPE_DTYPES = {
    "int": ("integer",), "float": ("floating",), "bool": ("bool_",),
    "complex": ("complexfloating",),
    "numbers.Integral": ("integer", "bool_"),
    "numbers.Real": ("integer", "bool_", "floating"),
    "numbers.Complex": ("integer", "bool_", "floating", "complexfloating"),
    "numbers.Number": ("integer", "bool_", "floating", "complexfloating"),
}


class TracedTypeTest(SinkRule):
    code = "JAX106"
    name = "traced-type-test"
    family = "trace-time failure"
    summary = "isinstance(x, int/float/bool) on a traced value is silently False under jit."
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

    def message(self, sink):
        types = sink.detail.get("types", "int")
        fix = static_fix(sink.value, sink.frame)
        remedy = ("test the dtype (jnp.issubdtype(x.dtype, jnp.integer)) or drop the test"
                  + (f"; or {fix}" if fix else ""))
        return (f"type test against {types} on traced {short_origin(sink.value)} in "
                f"{short_place(sink.frame)}",
                trace_detail(sink.value, sink.frame, f"The type test against {types} is always "
                             f"False for a tracer (True when run eagerly), so jit silently takes "
                             f"the other branch", remedy))

    @staticmethod
    def fix_finding(ctx, finding) -> Fix:
        """`isinstance(n, int)` -> `jnp.issubdtype(jnp.asarray(n).dtype, jnp.integer)`."""
        call = ctx.call_at(finding, lambda node: isinstance(node.func, ast.Name)
                           and node.func.id == "isinstance")
        if not (len(call.args) == 2 and not call.keywords):
            raise NoFix("not an isinstance() call")
        subject, types = call.args
        names = types.elts if isinstance(types, ast.Tuple) else [types]
        dtypes = []
        for node in names:
            name = ctx.analysis.imports.resolve(node) or (node.id if isinstance(node, ast.Name) else "")
            if name not in _TYPE_DTYPES:
                raise NoFix(f"no dtype class for {ast.unparse(node)}")
            dtypes += [d for d in _TYPE_DTYPES[name] if d not in dtypes]
        if len(dtypes) > 1 and not isinstance(subject, (ast.Name, ast.Attribute)):
            raise NoFix("the tested expression would be evaluated more than once")
        local = ctx.alias_for("jax.numpy")
        edits = []
        if local is None:
            jax_local = ctx.alias_for("jax")
            if jax_local is not None:
                local = f"{jax_local}.numpy"
            else:
                local, edits = ctx.module_ref("jax.numpy", "jnp")
        value = ctx.text.segment(subject)
        if "\n" in value or "\r" in value:
            value = f"({value})"
        tests = [f"{local}.issubdtype({local}.asarray({value}).dtype, {local}.{d})" for d in dtypes]
        replacement = tests[0] if len(tests) == 1 else "(" + " or ".join(tests) + ")"
        start, end = ctx.text.span(call)
        why = ("outside jit the dtype test answers for arrays and NumPy scalars too, and a Python bool "
               "is no longer an int: code run eagerly can take the other branch")
        return Fix.unsafe(f"Test the dtype instead: `{replacement}`", why, edits + [(start, end, replacement)])
