"""JAX304 call-signature-drift."""

from jaxlint.analysis import calls
from jaxlint.findings import Finding
from jaxlint.rules.base import Rule
from jaxlint.rules.static_args import NOT_LITERAL, literal_value


class CallSignatureDrift(Rule):
    code = "JAX304"
    name = "call-signature-drift"
    family = "recompilation"
    summary = "One jitted function called with different spellings of the same arguments."
    what = """
        Flags the call that introduces a second spelling of a jitted function's call: an argument
        passed positionally at one call and by keyword at another, a default left out at one call
        and passed (with the same value) at another, or `1` / `1.0` / `True` for one static
        parameter. Keyword order does not matter and is not flagged.
    """
    why = """
        jit caches on the call's structure: positional and keyword arguments are different pytree
        paths, an omitted default is not an argument at all, and `1`, `1.0` and `True` are equal
        but distinct static values. Each spelling traces and compiles the function once more.
    """
    example = """
        from functools import partial
        import jax

        @partial(jax.jit, static_argnames=("heads",))
        def attend(x, heads):
            return x

        def train(x):
            return attend(x, 4)

        def evaluate(x):
            return attend(x, heads=4)
    """
    use_instead = """
        from functools import partial
        import jax

        @partial(jax.jit, static_argnames=("heads",))
        def attend(x, heads):
            return x

        def train(x):
            return attend(x, heads=4)

        def evaluate(x):
            return attend(x, heads=4)
    """

    fix = ("Safe: the call is spelled like the first call (each argument positional or by "
           "keyword as there, a default left out or passed as there) when no other "
           "argument has to move; unsafe when argument expressions would be evaluated "
           "in another order. `1` vs `1.0` vs `True` is not fixed (the type would change).")

    @staticmethod
    def fix_finding(ctx, finding):
        from jaxlint.fixer.fixes import fix_drift
        return fix_drift(ctx, finding)

    def check(self, analysis):
        by_entry = {}
        for site in analysis.jit_calls():
            if not site.starred:
                by_entry.setdefault(id(site.entry), []).append(site)
        for sites in by_entry.values():
            yield from self._check_entry(analysis, sites)

    def _check_entry(self, analysis, sites):
        entry = sites[0].entry
        defaults = calls.defaults_of(entry)
        how_seen = {}        # param -> (how, line)
        omitted_seen = {}    # param -> line where the default was left out
        passed_default = {}  # param -> line where the default value was passed explicitly
        type_seen = {}       # static param -> (type name, line)
        for site in sites:
            reasons = []
            for param, arg in site.args.items():
                first = how_seen.setdefault(param, (arg.how, site.node.lineno))
                if first[0] != arg.how:
                    reasons.append(f"`{param}` is passed {_spelled(arg.how)} here but {_spelled(first[0])} "
                                   f"at line {first[1]}")
                value = literal_value(analysis, arg.node)
                if param in defaults and value is not NOT_LITERAL:
                    default = literal_value(analysis, defaults[param])
                    if default is not NOT_LITERAL and type(default) is type(value) and default == value:
                        passed_default.setdefault(param, site.node.lineno)
                        if param in omitted_seen:
                            reasons.append(f"the default of `{param}` is passed explicitly here but left "
                                           f"out at line {omitted_seen[param]}")
                if param in entry.static and type(value) in (int, float, bool):
                    kind = type(value).__name__
                    first_type = type_seen.setdefault(param, (kind, site.node.lineno))
                    if first_type[0] != kind:
                        reasons.append(f"static `{param}` is a {kind} here but a {first_type[0]} at line "
                                       f"{first_type[1]} (equal values, distinct cache entries)")
            for param in defaults:
                if param not in site.args:
                    omitted_seen.setdefault(param, site.node.lineno)
                    if param in passed_default:
                        reasons.append(f"`{param}` is left out here but passed with its default value at "
                                       f"line {passed_default[param]}")
            if reasons:
                yield Finding(
                    code=self.code, line=site.node.lineno, col=site.node.col_offset,
                    function=entry.name,
                    message=(f"jitted `{entry.name}` is called with a second spelling: {'; '.join(reasons)}. "
                             f"jit caches each spelling separately: one more trace and compile. "
                             f"Fix: spell every call the same way"))


def _spelled(how: str) -> str:
    return "by keyword" if how == "keyword" else "positionally"
