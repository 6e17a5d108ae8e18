"""JAX304 call-signature-drift."""

from jaxlint.analysis import calls
from jaxlint.analysis.module import positional_params
from jaxlint.findings import Finding, Fix, NoFix
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

    @staticmethod
    def fix_finding(ctx, finding) -> Fix:
        """Spell the call like the first call of the function: each argument positional or by
        keyword, and each default left out or passed, as there."""
        import libcst as cst

        from jaxlint.fixer.syntax import NO_SPACE, ONE_SPACE, code_of, has_comment

        call, site = ctx.jit_call_at(finding)
        if site.starred:
            raise NoFix("the call passes *args or **kwargs")
        if not ctx.call_is_unambiguous(call):
            raise NoFix("the called name is bound more than once in this file")
        sites = [s for s in ctx.analysis.jit_calls() if not s.starred]
        entry = site.entry
        defaults = calls.defaults_of(entry)
        first_how, default_first = {}, {}
        for other in sites:
            if other.entry is not entry:
                continue
            for param, arg in other.args.items():
                first_how.setdefault(param, arg.how)
            for param, default in defaults.items():
                if param not in other.args:
                    default_first.setdefault(param, "omitted")
                elif _same_literal(literal_value(ctx.analysis, other.args[param].node),
                                   literal_value(ctx.analysis, default), NOT_LITERAL):
                    default_first.setdefault(param, "passed")
            if other is site:
                break
        skips_self = any(c is call and skips for c, skips in ctx.analysis.call_sites.get(id(entry), []))
        positional = [p for p in positional_params(entry.args) if p not in entry.bound]
        if skips_self:
            positional = positional[1:]
        wanted = {}      # param -> (how, ast node or None, default code)
        for param, arg in site.args.items():
            if param.startswith("*"):
                raise NoFix("arguments in *args")
            if default_first.get(param) == "omitted" and _same_literal(
                    literal_value(ctx.analysis, arg.node), literal_value(ctx.analysis, defaults[param]),
                    NOT_LITERAL):
                continue
            wanted[param] = (first_how.get(param, arg.how), arg.node, None)
        for param in defaults:
            if param not in site.args and default_first.get(param) == "passed":
                wanted[param] = (first_how.get(param, "keyword"), None, ctx.text.segment(defaults[param]))
        by_position = sorted((p for p in wanted if wanted[p][0] == "positional"),
                             key=lambda p: positional.index(p) if p in positional else 10 ** 6)
        if by_position != positional[:len(by_position)]:
            raise NoFix("the first spelling cannot be reproduced without reordering other arguments")
        node = cst.parse_expression(ctx.text.segment(call))
        if not isinstance(node, cst.Call) or has_comment(node):
            raise NoFix("the call holds a comment")
        cst_args = {}
        for i, arg in enumerate(a for a in node.args if a.keyword is None):
            if i >= len(positional) or arg.star:
                raise NoFix("an argument lands in *args")
            cst_args[positional[i]] = arg
        for arg in node.args:
            if arg.keyword is not None:
                cst_args[arg.keyword.value] = arg
        keyword_order = [a.keyword.value for a in node.args if a.keyword is not None]
        new_keywords = [p for p in keyword_order if p in wanted and wanted[p][0] == "keyword"]
        new_keywords += [p for p in list(positional) + list(defaults)
                         if p in wanted and wanted[p][0] == "keyword" and p not in new_keywords]
        order = by_position + list(dict.fromkeys(new_keywords))
        new_args = []
        for param in order:
            how, _, default_code = wanted[param]
            arg = cst_args.get(param) or cst.Arg(value=cst.parse_expression(default_code))
            if how == "keyword":
                arg = arg.with_changes(keyword=cst.Name(param), equal=cst.AssignEqual(
                    whitespace_before=NO_SPACE, whitespace_after=NO_SPACE)) if arg.keyword is None else arg
            else:
                arg = arg.with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT)
            new_args.append(arg)
        old = list(node.args)
        separators = [a.comma for a in old[:-1]] or [cst.Comma(whitespace_after=ONE_SPACE)]
        trailing = old[-1].comma if old else cst.MaybeSentinel.DEFAULT
        for i, arg in enumerate(new_args):
            comma = trailing if i == len(new_args) - 1 else separators[min(i, len(separators) - 1)]
            new_args[i] = arg.with_changes(comma=comma)
        before = [id(a.value) for a in old]
        after = [id(a.value) for a in new_args if any(a.value is o.value for o in old)]
        kept = [v for v in before if v in after]
        reordered = kept != after
        if reordered and not all(_pure(a.value) for a in old):
            safe, why = False, "the arguments would be evaluated in a different order"
        else:
            safe, why = True, ""
        text = code_of(node.with_changes(args=new_args))
        start, end = ctx.text.span(call)
        changes = []
        for param, arg in site.args.items():
            if param not in wanted:
                changes.append(f"leave out `{param}` (its default)")
            elif wanted[param][0] != arg.how:
                how = "by keyword" if wanted[param][0] == "keyword" else "positionally"
                changes.append(f"pass `{param}` {how}")
        changes += [f"pass the default `{p}` explicitly" for p in wanted if p not in site.args]
        description = f"Spell the call like the first call of `{entry.name}`: {', '.join(changes)}"
        if why:
            description += f" (unsafe: {why})"
        return Fix(description=description, safe=safe, edits=((start, end, text),), why_unsafe=why)


def _spelled(how: str) -> str:
    return "by keyword" if how == "keyword" else "positionally"


# -- the fix's helpers ---------------------------------------------------------------------------

def _same_literal(a, b, missing) -> bool:
    """Two literal values of one type and equal: the same spelling of a static argument."""
    return a is not missing and b is not missing and type(a) is type(b) and a == b


def _pure(node) -> bool:
    """A name, literal or attribute chain: evaluating it earlier or later changes nothing."""
    import libcst as cst

    return isinstance(node, (cst.Name, cst.SimpleString, cst.Integer, cst.Float, cst.Imaginary)) or (
        isinstance(node, cst.Attribute) and _pure(node.value))
