"""JAX107 trace-time-print."""

import ast
from typing import Optional

from jaxlint.findings import Fix, NoFix
from jaxlint.rules.base import SinkRule, short_origin, short_place, trace_detail


class TraceTimePrint(SinkRule):
    code = "JAX107"
    # the error on that line stops the trace before the print matters
    yields_to = ("JAX101", "JAX102", "JAX103", "JAX104", "JAX105", "JAX106", "JAX108")
    yields_at = "line"
    name = "trace-time-print"
    family = "trace-time failure"
    summary = "print() of a traced value runs once, at trace time, and prints a tracer."
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

    def message(self, sink):
        return (f"print() shows traced {short_origin(sink.value)} in {short_place(sink.frame)}",
                trace_detail(sink.value, sink.frame, "print() prints a tracer once while tracing "
                             "and nothing on later (cached) calls",
                             "jax.debug.print(\"... {}\", value)"))

    @staticmethod
    def fix_finding(ctx, finding) -> Fix:
        """`print("loss", loss)` -> `jax.debug.print("loss {}", loss)`."""
        import libcst as cst

        from jaxlint.fixer.edits import string_literal
        from jaxlint.fixer.syntax import has_comment

        call = ctx.call_at(finding, lambda node: isinstance(node.func, ast.Name) and node.func.id == "print")
        if ctx.bound_at_module("print"):
            raise NoFix("not the builtin print()")
        node = cst.parse_expression(ctx.text.segment(call))
        if has_comment(node):
            raise NoFix("the print() call holds a comment that the rewrite would drop")
        sep, quote = " ", None
        pieces, arguments = [], []
        for arg in node.args:
            if arg.star:
                raise NoFix("print(*args) cannot be rewritten")
            if arg.keyword is not None:
                key = arg.keyword.value
                literal = _plain_string_value(arg.value)
                if key == "sep" and literal is not None:
                    sep = literal
                elif key == "end" and literal == "\n":
                    pass
                else:
                    raise NoFix(f"print(..., {key}=...) has no jax.debug.print equivalent")
                continue
            piece, args, q = _format_piece(arg.value)
            quote = quote or q
            pieces.append(piece)
            arguments += args
        if not arguments:
            raise NoFix("nothing to format")
        fmt = sep.replace("{", "{{").replace("}", "}}").join(pieces)
        jax_ref, edits = ctx.module_ref("jax")
        text = f"{jax_ref}.debug.print({string_literal(fmt, quote or ctx.quote)}, {', '.join(arguments)})"
        start, end = ctx.text.span(call)
        why = ("jax.debug.print prints when the compiled code runs (on every call, possibly out of "
               "order with other output), where print() printed once while tracing")
        return Fix.unsafe(f"Print at run time: `{text}`", why, edits + [(start, end, text)])


# -- the fix's helpers ---------------------------------------------------------------------------

def _plain_string_value(node) -> Optional[str]:
    """The text of a plain (not f-) string literal, None for anything else."""
    import libcst as cst

    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)) and not node.lpar:
        try:
            value = node.evaluated_value
        except Exception:  # noqa: BLE001 - libcst raises for odd literals
            return None
        return value if isinstance(value, str) else None
    return None


def _format_piece(node):
    """(format-string text, [argument code], quote) for one print() argument."""
    import libcst as cst

    from jaxlint.fixer.syntax import code_of

    literal = _plain_string_value(node)
    if literal is not None:
        return literal.replace("{", "{{").replace("}", "}}"), [], _first_quote(node)
    if isinstance(node, cst.FormattedString) and not node.lpar:
        return _fstring_piece(node)
    if isinstance(node, cst.ConcatenatedString) and not node.lpar:
        text, args, quote = "", [], None
        for part in (node.left, node.right):
            piece, part_args, q = _format_piece(part)
            text += piece
            args += part_args
            quote = quote or q
        return text, args, quote
    return "{}", [code_of(node)], None


def _first_quote(node) -> Optional[str]:
    """The quote of the first literal of `node`: the rewritten format string uses it."""
    import libcst as cst

    from jaxlint.fixer.edits import quote_of

    while isinstance(node, cst.ConcatenatedString):
        node = node.left
    if isinstance(node, cst.SimpleString):
        return quote_of(node.value)
    if isinstance(node, cst.FormattedString):
        return quote_of(node.start)
    return None


def _fstring_piece(node):
    """(format-string text, [argument code], quote) for an f-string: fields become `{}`."""
    import libcst as cst

    from jaxlint.fixer.edits import quote_of
    from jaxlint.fixer.syntax import code_of

    prefix = node.start.rstrip("'\"").lower().replace("f", "")
    quote = quote_of(node.start)
    closer = node.end
    text, args = "", []
    for part in node.parts:
        if isinstance(part, cst.FormattedStringText):
            try:
                text += ast.literal_eval(prefix + closer + part.value + closer)
            except (ValueError, SyntaxError):
                raise NoFix("cannot read the f-string's text") from None
            continue
        if part.equal is not None:
            raise NoFix("f-string `=` specifier")
        spec = ""
        if part.format_spec is not None:
            for sub in part.format_spec:
                if not isinstance(sub, cst.FormattedStringText):
                    raise NoFix("nested replacement field in a format spec")
                spec += sub.value
        conversion = f"!{part.conversion}" if part.conversion else ""
        text += "{" + conversion + (f":{spec}" if spec else "") + "}"
        args.append(code_of(part.expression))
    return text, args, quote
