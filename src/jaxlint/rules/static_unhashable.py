"""JAX202 static-unhashable."""

import ast

from jaxlint.findings import Finding
from jaxlint.rules.base import Rule
from jaxlint.rules.static_args import unhashable_kind

_UNHASHABLE_ANNOTATIONS = {"list", "dict", "set", "List", "Dict", "Set", "typing.List", "typing.Dict",
                           "typing.Set", "np.ndarray", "numpy.ndarray", "jax.Array", "jnp.ndarray",
                           "Sequence", "typing.Sequence", "MutableSequence", "Mapping", "typing.Mapping"}


class StaticUnhashable(Rule):
    code = "JAX202"
    name = "static-unhashable"
    family = "static arguments"
    summary = "A list, dict, set or array is passed to a static parameter: jit cannot hash it."
    what = """
        Flags a call passing a list/dict/set display or comprehension, a NumPy or JAX array, or an
        instance of a non-frozen `@dataclass` to a static parameter (directly or through a
        variable), and static parameters annotated with such types.
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

    @staticmethod
    def fix_finding(ctx, finding):
        from jaxlint.fixer.fixes import fix_unhashable
        return fix_unhashable(ctx, finding)

    def check(self, analysis):
        for site in analysis.jit_calls():
            for param, arg in site.args.items():
                if param not in site.entry.static:
                    continue
                kind = unhashable_kind(analysis, site, arg.node)
                if kind:
                    yield Finding(
                        code=self.code, line=site.node.lineno, col=site.node.col_offset,
                        function=site.entry.name, param=param,
                        message=(f"static parameter `{param}` of jitted `{site.entry.name}` receives "
                                 f"{kind}: ValueError (Non-hashable static arguments are not "
                                 f"supported) at this call. Fix: pass a tuple / frozen dataclass, or "
                                 f"make `{param}` a traced argument"))
        for entry in analysis.entries:
            if not entry.compiled:
                continue
            for a in entry.args.posonlyargs + entry.args.args + entry.args.kwonlyargs:
                if a.arg in entry.static and a.annotation is not None:
                    text = ast.unparse(a.annotation).split("[")[0]
                    if text in _UNHASHABLE_ANNOTATIONS:
                        yield Finding(
                            code=self.code, line=a.lineno, col=a.col_offset, function=entry.name,
                            param=a.arg,
                            message=(f"static parameter `{a.arg}` of jitted `{entry.name}` is "
                                     f"annotated `{ast.unparse(a.annotation)}`, which is not hashable: "
                                     f"every call raises ValueError (Non-hashable static arguments). "
                                     f"Fix: take a tuple (or a frozen dataclass) instead"))
