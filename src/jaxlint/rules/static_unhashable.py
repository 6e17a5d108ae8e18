"""JAX202 static-unhashable."""

import ast

from jaxlint.analysis import calls
from jaxlint.analysis.shown import Ctx
from jaxlint.findings import Finding, Fix, NoFix
from jaxlint.rules.base import Rule
from jaxlint.rules.static_args import unhashable_kind

# Annotations whose every value is unhashable. `Sequence` and `Mapping` are not among them: a
# tuple is a Sequence, so the calls decide (a call passing a list is reported where it is made).
_UNHASHABLE_ANNOTATIONS = {"list", "dict", "set", "List", "Dict", "Set", "typing.List", "typing.Dict",
                           "typing.Set", "np.ndarray", "numpy.ndarray", "jax.Array", "jnp.ndarray",
                           "MutableSequence", "typing.MutableSequence", "MutableMapping",
                           "typing.MutableMapping"}


class StaticUnhashable(Rule):
    code = "JAX202"
    name = "static-unhashable"
    family = "static arguments"
    summary = "A list, dict, set or array is passed to a static parameter: jit cannot hash it."
    what = """
        Flags a call passing a list/dict/set display or comprehension, a NumPy or JAX array, or an
        instance of a non-frozen `@dataclass` to a static parameter (directly or through a
        variable), and static parameters annotated with such types, unless a call in the file
        passes that parameter a hashable value (a tuple for a `list[int]`: the annotation is looser
        than the values, and a call passing a list is reported where it is made). `Sequence[...]`
        and `Mapping[...]` annotations are not flagged by themselves: a tuple is a Sequence.
    """
    why = """
        Static arguments are dictionary keys of jit's cache, so they must be hashable. JAX raises
        `ValueError: Non-hashable static arguments are not supported` at the call.
    """
    example = """
        from functools import partial
        import jax

        @partial(jax.jit, static_argnames=("sizes",))
        def forward(params, x, sizes):
            return x

        forward(None, 1.0, sizes=[8, 32, 1])
    """
    use_instead = """
        from functools import partial
        import jax

        @partial(jax.jit, static_argnames=("sizes",))
        def forward(params, x, sizes):
            return x

        forward(None, 1.0, sizes=(8, 32, 1))
    """
    fix = ("Unsafe: a list display or list comprehension passed to a static parameter becomes "
           "a tuple; unsafe because the callee then sees a tuple, not a list. Lists bound "
           "to a variable, dicts, sets and arrays are not fixed.")

    def check(self, analysis):
        for site in analysis.jit_calls():
            for param, arg in site.args.items():
                if param not in site.entry.static:
                    continue
                kind = unhashable_kind(analysis, site, arg.node)
                via = ""
                if not kind and isinstance(arg.node, ast.Name):
                    kind, via = _passed_through(analysis.shown, site, arg.node)
                if kind:
                    yield Finding(
                        code=self.code, line=site.node.lineno, col=site.node.col_offset,
                        function=site.entry.name, param=param,
                        message=(f"static parameter `{param}` of jitted `{site.entry.name}` gets an "
                                 f"unhashable value"),
                        detail=(f"`{param}` receives {kind}{via}: ValueError (Non-hashable static "
                                f"arguments are not supported) at this call. Fix: pass a tuple / "
                                f"frozen dataclass, or make `{param}` a traced argument"))
        for entry in analysis.entries:
            if not entry.compiled:
                continue
            for a in entry.args.posonlyargs + entry.args.args + entry.args.kwonlyargs:
                if a.arg in entry.static and a.annotation is not None:
                    text = ast.unparse(a.annotation).split("[")[0]
                    if text in _UNHASHABLE_ANNOTATIONS:
                        lines = _hashable_calls(analysis, entry, a.arg)
                        if lines:
                            analysis.notes.append(
                                f"JAX202 not reported at line {a.lineno}: `{a.arg}` is annotated "
                                f"`{ast.unparse(a.annotation)}`, but the call{'s' if len(lines) > 1 else ''} "
                                f"at line{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines))} "
                                f"pass{'' if len(lines) > 1 else 'es'} a hashable value")
                            continue
                        yield Finding(
                            code=self.code, line=a.lineno, col=a.col_offset, function=entry.name,
                            param=a.arg,
                            message=(f"static parameter `{a.arg}` of jitted `{entry.name}` has an "
                                     f"unhashable type"),
                            detail=(f"`{a.arg}` is annotated `{ast.unparse(a.annotation)}`, which is "
                                    f"not hashable: every call raises ValueError (Non-hashable static "
                                    f"arguments). Fix: take a tuple (or a frozen dataclass) instead"))

    @staticmethod
    def fix_finding(ctx, finding) -> Fix:
        """A list display passed to a static parameter -> a tuple display."""
        import libcst as cst

        from jaxlint.fixer.syntax import code_of

        call, site = ctx.jit_call_at(finding)
        edits, params = [], []
        for param, arg in site.args.items():
            if param not in site.entry.static or not unhashable_kind(ctx.analysis, site, arg.node):
                continue
            if not _list_display(arg.node):
                raise NoFix(f"`{param}` receives a value that is not a list display")
            value = cst.parse_expression(ctx.text.segment(arg.node))
            start, end = ctx.text.span(arg.node)
            edits.append((start, end, code_of(_as_tuple(value))))
            params.append(param)
        if not edits:
            raise NoFix("no list display passed to a static parameter")
        names = ", ".join(f"`{p}`" for p in params)
        why = "the callee receives a tuple instead of a list (list methods, `==` with lists and `+` differ)"
        return Fix.unsafe(f"Pass a tuple to static {names}", why, edits)


_DISPLAYS = {ast.List: "a list", ast.ListComp: "a list", ast.Dict: "a dict", ast.DictComp: "a dict",
             ast.Set: "a set", ast.SetComp: "a set"}


def _passed_through(shown, site, name) -> tuple:
    """A parameter of the calling function handed on as the static argument: ('a list', ' (from
    `x_limits`, which the call at line 35 passes a list)') when a call of that function in the
    file passes a list, dict or set display (directly or through a local name)."""
    ctx = Ctx(site.scope, site.node.lineno)
    if shown.owner_of_parameter(name.id, ctx) is not site.scope or site.scope is None:
        return None, ""
    for expr, where in shown.parameter_values(name.id, ctx):
        for _ in range(3):
            if not isinstance(expr, ast.Name):
                break
            found = shown.lookup(expr.id, where)
            if found is None:
                break
            expr, where = found
        kind = _DISPLAYS.get(type(expr))
        if kind:
            return kind, f" (`{name.id}` is {kind} at line {expr.lineno})"
    return None, ""


def _hashable_calls(analysis, entry, param) -> list:
    """The lines of the file's calls of `entry` that pass `param` a value known to be hashable (a
    tuple display, `tuple(...)`, a constant; the default when left out). Then the annotation is
    looser than the values: a call that passes a list is reported where it is made."""
    lines = []
    default = calls.defaults_of(entry).get(param)
    for call, skips_self in analysis.call_sites.get(id(entry), []):
        site = calls.map_call(call, entry, skips_self)
        if site.starred:
            continue
        arg = site.args.get(param)
        node = arg.node if arg is not None else default
        if node is not None and _hashable(analysis, site, node):
            lines.append(call.lineno)
    return lines


def _hashable(analysis, site, node, depth=0) -> bool:
    value = analysis.expression_of(node, site.node, site.scope) if depth < 4 else None
    if isinstance(value, ast.Constant):
        return True
    if isinstance(value, ast.Tuple):       # unknown elements: a display inside is what breaks it
        return not any(type(e) in _DISPLAYS for e in value.elts)
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) \
        and value.func.id in ("tuple", "frozenset") and value.func.id not in analysis.index.module_names


# -- the fix's helpers ---------------------------------------------------------------------------

def _list_display(node) -> bool:
    """A list display or comprehension, or a tuple display holding one."""
    if isinstance(node, (ast.List, ast.ListComp)):
        return True
    if isinstance(node, ast.Tuple):
        return any(_list_display(e) for e in node.elts)
    return False


def _as_tuple(node):
    """Lists (and lists inside tuples and lists) to tuples; a list comprehension to tuple(...)."""
    import libcst as cst

    if isinstance(node, cst.ListComp):
        gen = cst.GeneratorExp(elt=node.elt, for_in=node.for_in, lpar=[], rpar=[])
        return cst.Call(func=cst.Name("tuple"), args=[cst.Arg(gen)],
                        whitespace_before_args=node.lbracket.whitespace_after,
                        lpar=node.lpar, rpar=node.rpar)
    if isinstance(node, (cst.List, cst.Tuple)):
        elements = [el.with_changes(value=_as_tuple(el.value)) for el in node.elements]
        if isinstance(node, cst.Tuple):
            return node.with_changes(elements=elements)
        if len(elements) == 1 and not isinstance(elements[0].comma, cst.Comma) \
                and not isinstance(elements[0], cst.StarredElement):
            elements[0] = elements[0].with_changes(comma=cst.Comma())
        opening = cst.LeftParen(whitespace_after=node.lbracket.whitespace_after)
        closing = cst.RightParen(whitespace_before=node.rbracket.whitespace_before)
        return cst.Tuple(elements=elements, lpar=list(node.lpar) + [opening],
                         rpar=[closing] + list(node.rpar))
    return node
