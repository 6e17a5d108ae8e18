"""JAX304 call-signature-drift."""

import ast

from jaxlint.analysis import calls
from jaxlint.analysis.module import positional_params
from jaxlint.analysis.shown import Ctx
from jaxlint.findings import Finding, Fix, NoFix
from jaxlint.rules.base import Rule
from jaxlint.rules.static_args import NOT_LITERAL, literal_value


class CallSignatureDrift(Rule):
    code = "JAX304"
    name = "call-signature-drift"
    family = "recompilation"
    summary = "One jitted function called with different spellings of the same arguments."
    # Passing a number default makes it a traced input: when the function's trace fails on that
    # parameter (`range(num_iterations)`), the call raises instead of compiling again, and the
    # trace-time finding says why.
    yields_to_param = ("JAX101", "JAX102", "JAX103", "JAX104", "JAX105", "JAX106", "JAX108")
    what = """
        Flags the call that introduces a new spelling of a jitted function's call: an argument
        passed positionally at one call and by keyword at another, a default left out at one call
        and passed (with the same value) at another, or `1` / `1.0` / `True` for one static
        parameter. A call that repeats a spelling already seen is not flagged (that spelling is
        compiled once), nor is keyword order. Calls that cannot share a cache entry are not
        compared: calls in two different test functions (each test builds its own inputs), and
        calls that pass an argument arrays of different literal shapes (`jnp.ones((4, 8))` and
        `jnp.ones((2, 16))`), which compile separately anyway.
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
           "keyword as there, a default left out or passed as there), with the later calls "
           "that repeat its spelling, when no other argument has to move; unsafe when argument "
           "expressions would be evaluated in another order. `1` vs `1.0` vs `True` is not "
           "fixed (the type would change).")

    def check(self, analysis):
        by_entry = {}
        for site in analysis.jit_calls():
            if not site.starred and not site.entry.outer:    # a decorator over the jit respells the call
                by_entry.setdefault(id(site.entry), []).append(site)
        for sites in by_entry.values():
            yield from self._check_entry(analysis, sites)

    def _check_entry(self, analysis, sites):
        entry = sites[0].entry
        defaults = calls.defaults_of(entry)
        earlier = []         # (group, spelling, facts) of the calls before this one
        for site in sites:
            group = _flow_of(analysis, site)
            comparable = [(spelling, facts) for g, spelling, facts in earlier if _comparable(g, group)]
            facts = self._facts(analysis, site, defaults, entry)
            spelling = _spelling(facts)
            reasons = self._reasons(site, facts, [f for _, f in comparable], defaults)
            earlier.append((group, spelling, facts))
            if not reasons or any(spelling == seen for seen, _ in comparable):
                continue     # a spelling already compiled once: no new cache entry here
            # the one parameter whose being passed (traced) or left out makes every difference
            traced = {param for param, kind, _ in reasons if kind == "traced"}
            param = traced.pop() if len(traced) == 1 and all(k == "traced" for _, k, _ in reasons) else ""
            yield Finding(
                code=self.code, line=site.node.lineno, col=site.node.col_offset,
                function=entry.name, param=param,
                message=(f"jitted `{entry.name}` is called with a second spelling of its arguments"
                         + (f" (`{param}` passed at one call, left out at another)" if param else "")),
                detail=(f"{'; '.join(text for _, _, text in reasons)}. jit caches each spelling separately: one more "
                        f"trace and compile. Fix: spell every call the same way"))

    @staticmethod
    def _facts(analysis, site, defaults, entry) -> dict:
        """How one call spells each argument: param -> (how, passes the default's value, static type)."""
        facts = {"line": site.node.lineno, "args": {}, "omitted": set()}
        for param, arg in site.args.items():
            value = literal_value(analysis, arg.node)
            if value is NOT_LITERAL and isinstance(arg.node, ast.Name):
                value = _shown_value(analysis, site, arg.node)
            is_default = ""       # "default": passes the default's value; "traced": a traced
            if param in defaults and value is not NOT_LITERAL:     # parameter passed at all
                default = literal_value(analysis, defaults[param])
                if default is not NOT_LITERAL and type(default) is type(value) and default == value:
                    is_default = "default"
            if param in defaults and not is_default and param not in entry.static and not entry.filtering \
                    and type(literal_value(analysis, defaults[param])) in (int, float):
                # a number default: left out it is a constant of the program, passed it is an
                # input, whatever its value (a None default marks an optional input: two programs)
                is_default = "traced"
            kind = type(value).__name__ if param in entry.static and type(value) in (int, float, bool) else None
            facts["args"][param] = (arg.how, is_default, kind)
        facts["omitted"] = {param for param in defaults if param not in site.args}
        return facts

    @staticmethod
    def _reasons(site, facts, before, defaults) -> list:
        """How this call's spelling differs from the first spelling of the same values before it:
        (parameter, kind, text), kind "traced" for a number default passed at one call only."""
        reasons = []
        for param, (how, is_default, kind) in facts["args"].items():
            first = next(((f["args"][param][0], f["line"]) for f in before if param in f["args"]), None)
            if first is not None and first[0] != how:
                reasons.append((param, "how", f"`{param}` is passed {_spelled(how)} here but "
                                               f"{_spelled(first[0])} at line {first[1]}"))
            if is_default:
                omitted = next((f["line"] for f in before if param in f["omitted"]), None)
                if omitted is not None and is_default == "default":
                    reasons.append((param, "default", f"the default of `{param}` is passed explicitly "
                                                      f"here but left out at line {omitted}"))
                elif omitted is not None:
                    reasons.append((param, "traced", f"traced `{param}` is passed here but left out "
                                                     f"(its default used) at line {omitted}"))
            if kind is not None:
                other = next(((f["args"][param][2], f["line"]) for f in before
                              if param in f["args"] and f["args"][param][2] is not None), None)
                if other is not None and other[0] != kind:
                    reasons.append((param, "type", f"static `{param}` is a {kind} here but a {other[0]} "
                                                   f"at line {other[1]} (equal values, distinct cache entries)"))
        for param in sorted(facts["omitted"], key=list(defaults).index):
            passed = next(((f["line"], f["args"][param][1]) for f in before
                           if param in f["args"] and f["args"][param][1]), None)
            if passed is not None:
                reasons.append((param, "default", f"`{param}` is left out here but passed with its default "
                                                  f"value at line {passed[0]}") if passed[1] == "default" else
                               (param, "traced", f"traced `{param}` is left out here but passed at line {passed[0]}"))
        return reasons

    @staticmethod
    def fix_finding(ctx, finding) -> Fix:
        """Spell the call like the first call of the function: each argument positional or by
        keyword, and each default left out or passed, as there. The later calls that repeat this
        call's spelling (not findings themselves: that spelling was compiled here) are respelled
        with it, or fixing this one would make the next of them the new second spelling."""
        call, site = ctx.jit_call_at(finding)
        if site.starred:
            raise NoFix("the call passes *args or **kwargs")
        if not ctx.call_is_unambiguous(call):
            raise NoFix("the called name is bound more than once in this file")
        sites = [s for s in ctx.analysis.jit_calls() if not s.starred and s.entry is site.entry]
        targets = [site] + _repeats_of(ctx.analysis, sites, site)
        edits, why = [], ""
        description = ""
        for target in targets:
            edit, changes, unsafe = _respelled(ctx, sites, target)
            edits.append(edit)
            why = why or unsafe
            if target is site:
                description = f"Spell the call like the first call of `{site.entry.name}`: {', '.join(changes)}"
        if len(targets) > 1:
            lines = ", ".join(str(t.node.lineno) for t in targets[1:])
            description += f" (and the calls spelled the same way at line{'s' if len(targets) > 2 else ''} {lines})"
        if why:
            description += f" (unsafe: {why})"
        return Fix(description=description, safe=not why, edits=tuple(edits), why_unsafe=why)


def _repeats_of(analysis, sites, site) -> list:
    """The later calls of the same function that repeat `site`'s spelling and can share its cache entry."""
    defaults = calls.defaults_of(site.entry)
    group = _flow_of(analysis, site)
    spelling = _spelling(CallSignatureDrift._facts(analysis, site, defaults, site.entry))
    found, after = [], False
    for other in sites:
        if other is site:
            after = True
            continue
        if after and _comparable(group, _flow_of(analysis, other)) and _spelling(
                CallSignatureDrift._facts(analysis, other, defaults, other.entry)) == spelling:
            found.append(other)
    return found


def _respelled(ctx, sites, site) -> tuple:
    """((start, end, new text), the changes made, why it is unsafe or "") for one call."""
    import libcst as cst

    from jaxlint.fixer.syntax import NO_SPACE, ONE_SPACE, code_of, has_comment

    call = site.node
    group = _flow_of(ctx.analysis, site)
    entry = site.entry
    defaults = calls.defaults_of(entry)
    first_how, default_first = {}, {}
    for other in sites:
        if not _comparable(group, _flow_of(ctx.analysis, other)):
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
    return (start, end, text), changes, "" if safe else why




def _shown_value(analysis, site, name):
    """The one value every path the file shows gives `name` (a wrapper's parameter whose callers
    all leave it at its default None), else NOT_LITERAL."""
    values = analysis.shown.values(name, Ctx(site.scope, name.lineno))
    if values.complete and len(values.known) == 1:
        return next(iter(values.known))
    return NOT_LITERAL


def _spelling(facts) -> tuple:
    """What jit's cache key sees of a call's spelling: which arguments are passed how, which
    defaults are left out, and the Python type of static literals."""
    return (frozenset((p, how, kind) for p, (how, _, kind) in facts["args"].items()),
            frozenset(facts["omitted"]))


def _flow_of(analysis, site):
    """What decides whether two calls can share a cache entry: the test function a call sits in
    (each test runs on its own inputs; None elsewhere), and the shapes of the arrays it builds
    with literal sizes (`jnp.ones((4, 8))`)."""
    scope = site.scope
    outer = None
    while scope is not None:
        if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
            outer = scope
        scope = analysis.parents.scope_of(scope)
    test = id(outer) if outer is not None and outer.name.startswith("test") else None
    return test, _literal_shapes(analysis, site)


def _comparable(a, b) -> bool:
    """Two calls can share a cache entry unless they sit in two different test functions, or
    pass one argument arrays of two different literal shapes (a new compile either way)."""
    (test_a, shapes_a), (test_b, shapes_b) = a, b
    if test_a is not None and test_b is not None and test_a != test_b:
        return False
    return not any(shapes_b.get(param, shape) != shape for param, shape in shapes_a.items())


_SHAPE_FIRST = {"jnp.zeros", "jnp.ones", "jnp.empty", "jnp.full", "np.zeros", "np.ones", "np.empty", "np.full"}
_SHAPE_SECOND = {"jax.random.normal", "jax.random.uniform", "jax.random.randint", "jax.random.bernoulli"}


def _literal_shapes(analysis, site) -> dict:
    """param -> shape, for the traced arguments built right there (or in a name bound to one) by
    `jnp.zeros/ones/full/empty`, `np.*` of the same, `jnp.arange(n)` or `jax.random.normal(key,
    shape)` with a literal shape."""
    shapes = {}
    for param, arg in site.args.items():
        if param in site.entry.static:
            continue
        value = analysis.expression_of(arg.node, site.node, site.scope)
        if not isinstance(value, ast.Call) or value.keywords and not value.args:
            continue
        name = analysis.imports.resolve(value.func) or ""
        shape_node = None
        if name in _SHAPE_FIRST and value.args:
            shape_node = value.args[0]
        elif name in _SHAPE_SECOND and len(value.args) > 1:
            shape_node = value.args[1]
        elif name in ("jnp.arange", "np.arange") and len(value.args) == 1:
            shape_node = value.args[0]
        if shape_node is None:
            continue
        shape = literal_value(analysis, shape_node)
        if isinstance(shape, int) and not isinstance(shape, bool):
            shape = (shape,)
        if isinstance(shape, tuple) and all(isinstance(d, int) and not isinstance(d, bool) for d in shape):
            shapes[param] = shape
    return shapes


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
