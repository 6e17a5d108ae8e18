"""The fix JAX101-JAX104 share: make the traced parameter static at its jit site.

The four rules name this module's fix and its documentation. Like every fix, it imports libcst
and the fixer's helpers where it uses them, so importing the rules for linting loads neither.
"""

from __future__ import annotations

import ast
import re
from typing import Optional

from jaxlint.analysis import api_tables as api
from jaxlint.analysis import calls
from jaxlint.analysis.module import param_names, positional_params
from jaxlint.findings import Fix, NoFix
from jaxlint.rules.base import sink_kinds_of
from jaxlint.rules.static_args import NOT_LITERAL, literal_value, unhashable_kind

# The `fix` documentation of the four rules.
MAKE_STATIC_FIX = ("Sometimes (safe or unsafe): when the jit site is in the same file and the parameter is "
                   "used only where a Python value works, the parameter is made static: `@jax.jit` "
                   "becomes `@functools.partial(jax.jit, static_argnames=(\"n\",))`, and an existing "
                   "static_argnames/static_argnums is extended in its own spelling. Safe when every call "
                   "in the file passes a literal or a constant; otherwise unsafe: each new value of a "
                   "static argument compiles the function again (JAX201). No fix when the value would "
                   "stay traced (it comes out of a jnp call) or the parameter is used as an array.")

# Builtins that turn a Python number into a Python number: values derived through them from a
# static parameter stay Python values.
_NUMBER_BUILTINS = {"int", "float", "abs", "round", "min", "max", "bool", "complex"}
# Builtins whose answer differs between a tracer and a Python value: a parameter that reaches
# them cannot be made static without changing what the code does.
_TYPE_INSPECTORS = {"isinstance", "hasattr", "type", "getattr", "callable", "id", "issubclass"}
# Builtins that iterate their argument or take its length: evidence of a sequence or an array.
_SEQUENCE_BUILTINS = {"len", "zip", "enumerate", "list", "tuple", "sorted", "reversed", "iter",
                      "sum", "map", "filter", "any", "all", "set", "dict", "next"}
_ARRAY_ANNOTATION = re.compile(r"Array|ndarray|Float\[|Int\[|Bool\[|Shaped\[|Num\[|Real\[|"
                               r"Integer\[|Inexact\[|Complex\[|UInt\[|Key\[|Tracer")
_SUPPORTED_JITS = ("jax.jit", "nnx.jit")


def make_parameter_static(ctx, finding) -> Fix:
    """Make the finding's parameters (and the others that reach its node) static at every jit
    site of the function in this file."""
    params = [p for p in finding.param.split(",") if p]
    params += [p for p in _params_at_node(ctx, finding) if p not in params]
    if not params or not finding.entry:
        raise NoFix("the finding names no parameter of a jitted function")
    if any(len(hop) > 2 and hop[2] for hop in finding.chain):
        raise NoFix("the jit is in another module: its static arguments are edited there")
    if any(step.rstrip("()") in api.DIFF_WRAPPERS for step in finding.path):
        raise NoFix("the value is a derivative: what is differentiated is data that changes with "
                    "every step, not a static argument")
    entries = [e for e in ctx.analysis.entries if e.is_jit and e.compiled and e.name == finding.entry]
    if entries:     # in signature order
        order = param_names(entries[0].args)
        params.sort(key=lambda p: order.index(p) if p in order else len(order))
    targets = [e for e in entries if all(p in param_names(e.args) and p not in e.static
                                         and p not in e.bound for p in params)]
    if not targets:
        raise NoFix(f"no jit site of `{finding.entry}` with {params} traced in this file")
    if len(targets) > 1 and any(e.func is None for e in targets):
        raise NoFix("several lambdas share the name")
    edits, unsafe_reasons = [], []
    for entry in targets:
        nums_kw, names_kw = ctx.analysis.finder.jit_wrappers.get(entry.wrapper, (None, None))
        if entry.wrapper not in _SUPPORTED_JITS and entry.wrapper not in ctx.analysis.finder.extra_wrappers:
            raise NoFix(f"{entry.wrapper} has no static_argnames")
        if entry.filtering or entry.spec.unresolved or entry.spec_problems:
            raise NoFix("the jit site's static arguments are not plain literals")
        passed_arrays = ctx.analysis.arrays_passed(entry)
        for param in params:
            if param in passed_arrays:
                raise NoFix(f"every call passes `{param}` an array, which jit refuses as a static "
                            f"argument (arrays are unhashable)")
            literals, reason = _call_values(ctx, entry, param)
            if reason:
                unsafe_reasons.append(reason)
            problem = _incompatible_use(ctx, entry, param, literals)
            if problem:
                raise NoFix(problem)
        edits += _static_site_edits(ctx, entry, params, nums_kw, names_kw)
    names = ", ".join(f"`{p}`" for p in params)
    description = (f"Make {names} static: add {'it' if len(params) == 1 else 'them'} to the static "
                   f"arguments of the jit of `{finding.entry}`")
    why = "; ".join(dict.fromkeys(unsafe_reasons))
    if why:
        description += f" (unsafe: {why})"
    return Fix(description=description, safe=not why, edits=tuple(dict.fromkeys(edits)), why_unsafe=why)


def _params_at_node(ctx, finding) -> list:
    """Every parameter of the same jitted function that reaches the finding's node: the engine
    reports one finding per node, but `x[start:end]` may need both `start` and `width` static."""
    kinds = sink_kinds_of(finding.code)
    found = []
    for sink in ctx.analysis.sinks:
        node = sink.node
        if sink.kind in kinds and sink.frame.entry == finding.entry and sink.value is not None \
                and getattr(node, "lineno", None) == finding.line \
                and getattr(node, "col_offset", None) == finding.col:
            found += sorted(sink.value.params)
    return list(dict.fromkeys(found))


def _tuple_text(items: list) -> str:
    return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"


def _incompatible_use(ctx, entry, param: str, literals: Optional[list], depth: int = 0) -> str:
    """Why `param` cannot simply become a Python value in `entry`'s function, or ''.

    Arithmetic, comparisons, calls, shapes and slices all accept a Python value; what does not is
    treating it as an array (`n.shape`, `n.astype(...)`, `n.at[...]`), iterating or indexing it
    when the calls do not show a sequence, and type inspection (`isinstance(n, jax.Array)`), whose
    answer would change. Values computed from it with Python arithmetic are followed, and so are
    same-file helpers it is passed to."""
    func = entry.func.node if entry.func is not None else entry.lam
    args = func.args
    for a in args.posonlyargs + args.args + args.kwonlyargs:
        if a.arg == param and a.annotation is not None:
            text = ast.unparse(a.annotation)
            if _ARRAY_ANNOTATION.search(text):
                return f"`{param}` is annotated `{text}`: it is meant to be an array"
    return _uses_problem(ctx, func, param, literals, depth, _owner_of(entry))


def _uses_problem(ctx, func, param, literals, depth, owner=None) -> str:
    body = func.body if isinstance(func.body, list) else [func.body]
    parents = {}
    nodes = []
    for stmt in body:
        for node in ast.walk(stmt):
            nodes.append(node)
            for child in ast.iter_child_nodes(node):
                parents[id(child)] = node
    derived = {param}
    for _ in range(3):
        for node in nodes:
            if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if _python_arithmetic(node.value, derived):
                    derived |= {t.id for t in targets if isinstance(t, ast.Name)}
    for node in nodes:
        if not (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in derived):
            continue
        parent = parents.get(id(node))
        own = literals if node.id == param else None
        if isinstance(parent, ast.Attribute) and parent.value is node:
            if not (own and all(hasattr(v, parent.attr) for v in own)):
                return f"`{node.id}.{parent.attr}` (line {node.lineno}) needs an array, not a Python value"
        elif isinstance(parent, ast.Subscript) and parent.value is node or \
                isinstance(parent, (ast.For, ast.comprehension)) and parent.iter is node or \
                isinstance(parent, ast.Starred) or _unpacked(parent, node) or \
                isinstance(parent, ast.Call) and node in parent.args and _iterates(ctx, parent):
            if not (own and all(isinstance(v, (tuple, str, bytes)) for v in own)):
                return (f"`{node.id}` is indexed or iterated (line {node.lineno}) and the calls do not "
                        f"show it to be a tuple")
        elif isinstance(parent, ast.Call) and (node in parent.args or
                                               any(kw.value is node for kw in parent.keywords)):
            callee = parent.func
            if isinstance(callee, ast.Name) and callee.id in _TYPE_INSPECTORS \
                    and callee.id not in ctx.index.module_names:
                return f"`{callee.id}({node.id}, ...)` (line {node.lineno}) would answer differently"
            problem = _helper_problem(ctx, parent, node, own, depth, owner=owner)
            if problem:
                return problem
    return ""


def _owner_of(entry):
    """The class whose methods `self.m`/`cls.m` name in a jitted function or lambda: its own,
    or that of the method it is defined in."""
    info = entry.func if entry.func is not None else getattr(entry, "scope", None)
    while info is not None:
        if info.cls is not None:
            return info.cls
        info = info.parent
    return None


def _unpacked(parent, node) -> bool:
    """`a, b = n`: the value is a sequence (or an array unpacked along its first axis)."""
    return isinstance(parent, ast.Assign) and parent.value is node and \
        any(isinstance(t, (ast.Tuple, ast.List)) for t in parent.targets)


def _iterates(ctx, call) -> bool:
    return isinstance(call.func, ast.Name) and call.func.id in _SEQUENCE_BUILTINS \
        and call.func.id not in ctx.index.module_names


def _python_arithmetic(value, names) -> bool:
    """Does `value` compute a Python value from `names` (no arrays, no attribute access)?"""
    uses = False
    for node in ast.walk(value):
        if isinstance(node, ast.Name) and node.id in names:
            uses = True
        elif isinstance(node, ast.Call):
            if not (isinstance(node.func, ast.Name) and node.func.id in _NUMBER_BUILTINS):
                return False
        elif isinstance(node, (ast.Attribute, ast.Subscript, ast.Lambda, ast.NamedExpr, ast.List,
                               ast.Tuple, ast.Dict, ast.Set, ast.ListComp, ast.SetComp,
                               ast.DictComp, ast.GeneratorExp)):
            return False        # a container holds the value; it is not the value
    return uses


def _method_called(ctx, call, owner):
    """(def, parameters Python binds before the arguments) for `self.m(...)`, `cls.m(...)`,
    `obj.m(...)` and `Model.m(...)` when the class is in this file; None otherwise."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)):
        return None
    base = func.value.id
    via_instance = True
    if base in ("self", "cls") and owner is not None:
        cls, via_instance = owner, base == "self"
    elif base in ctx.index.top_classes:
        cls, via_instance = ctx.index.top_classes[base], False
    elif base in ctx.index.instances:
        cls = ctx.index.instances[base]
    else:
        return None
    info = ctx.index.lookup_method(cls, func.attr)
    if info is None:
        return None
    kind = info.method_kind
    skip = 1 if kind == "class" or kind == "instance" and via_instance else 0
    return info, skip


def _helper_problem(ctx, call, name_node, literals, depth, owner=None) -> str:
    """Follow the value into a same-file function or method it is passed to."""
    if depth >= 3:
        return ""
    method = _method_called(ctx, call, owner)
    if method is not None:
        info, skip = method
    elif isinstance(call.func, ast.Name):
        info, skip = ctx.index.top_functions.get(call.func.id), 0
        if info is None or call.func.id in ctx.top_aliases:
            return ""
    else:
        return ""
    positional = positional_params(info.node.args)[skip:]
    target = None
    for i, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            return f"`{name_node.id}` is passed to `{info.name}` after *args (line {call.lineno})"
        if arg is name_node:
            target = positional[i] if i < len(positional) else None
            if target is None:
                return f"`{name_node.id}` lands in *args of `{info.name}` (line {call.lineno})"
    for kw in call.keywords:
        if kw.value is name_node:
            target = kw.arg
    if target is None:
        return f"`{name_node.id}` is passed to `{info.name}` by **kwargs (line {call.lineno})"
    if target not in param_names(info.node.args):
        return ""

    class _Helper:
        func = info
        lam = None
        scope = None
        args = info.node.args

    return _incompatible_use(ctx, _Helper, target, literals, depth + 1)


def _call_values(ctx, entry, param: str):
    """([literal values the calls pass], '') when every call in the file passes a literal or
    bounded value; (values or None, why the fix is unsafe) otherwise. Raises NoFix when a call
    passes something a static argument cannot be (a list, a dict, an array)."""
    analysis = ctx.analysis
    sites = analysis.call_sites.get(id(entry), [])
    name = entry.name
    values, unknown = [], []
    referenced = _non_call_references(ctx, entry)
    if referenced:
        unknown.append(f"`{name}` is also used as a value (line {referenced}), so not every call is "
                       f"visible")
    if not sites:
        return None, (f"no call of `{name}` in this file shows which values `{param}` takes: each "
                      f"new value would compile `{name}` again (JAX201)")
    defaults = calls.defaults_of(entry)
    for call, skips_self in sites:
        if not ctx.call_is_unambiguous(call):
            unknown.append(f"`{ctx.text.segment(call.func)}` names more than one thing in this file, "
                           f"so its calls cannot all be attributed to `{name}`")
            values = None
            continue
        site = calls.map_call(call, entry, skips_self)
        site.scope = ctx.parents.scope_of(call)
        site.loops = ctx.parents.loops_of(call)
        if site.starred:
            unknown.append(f"the call at line {call.lineno} passes *args/**kwargs")
            values = None
            continue
        arg = site.args.get(param)
        node = arg.node if arg is not None else defaults.get(param)
        if node is None:
            continue
        value = literal_value(analysis, node)
        if value is NOT_LITERAL:
            kind = unhashable_kind(analysis, site, node) if arg is not None else None
            if kind:
                raise NoFix(f"the call at line {call.lineno} passes {kind}, which a static argument "
                            f"cannot be")
            resolved = analysis.expression_of(node, site.node, site.scope) if arg is not None else None
            if resolved is not None and resolved is not node:
                value = literal_value(analysis, resolved)
            if value is not NOT_LITERAL and _varies(ctx, site, node):
                value = NOT_LITERAL
            if value is NOT_LITERAL:
                if _bounded_loop_value(ctx, site, node):
                    values = None       # bounded, but which values is not known here
                    continue
                unknown.append(f"the call at line {call.lineno} passes `{ctx.text.segment(node)}`, "
                               f"which may take a new value on each call: each value would compile "
                               f"`{name}` again (JAX201)")
                values = None
                continue
        try:
            hash(value)
        except TypeError:
            raise NoFix(f"the call at line {call.lineno} passes an unhashable {type(value).__name__}") \
                from None
        if values is not None:
            values.append(value)
    return values, "; ".join(unknown)


def _varies(ctx, site, node) -> bool:
    for loop in site.loops:
        why = calls.varying_names(loop, ctx.analysis.resolver(site.scope))
        if calls.expr_varies(node, why):
            return True
    return False


def _bounded_loop_value(ctx, site, node) -> bool:
    """A loop variable over a small literal set (`for act in ("relu", "gelu")`): bounded."""
    if not isinstance(node, ast.Name):
        return False
    for loop in site.loops:
        why = calls.varying_names(loop, ctx.analysis.resolver(site.scope))
        reason = why.get(node.id)
        if reason is not None:
            if reason.startswith(calls.BOUNDED):
                return True
            # `for n in SIZES` with SIZES a module constant of a few literals
            iterable = getattr(loop, "iter", None)
            constant = ctx.index.constants.get(iterable.id) if isinstance(iterable, ast.Name) else None
            return isinstance(loop, ast.For) and isinstance(loop.target, ast.Name) \
                and loop.target.id == node.id and isinstance(constant, (tuple, list, frozenset)) \
                and len(constant) <= 16
    return False


def _non_call_references(ctx, entry) -> int:
    """The line of a use of the jitted function other than calling it (0 if none)."""
    names = entry.call_names
    if not names:
        return 0
    site = entry.site
    for node in ast.walk(ctx.tree):
        if isinstance(node, ast.Name) and node.id in names and isinstance(node.ctx, ast.Load):
            parent = ctx.parents.parent.get(id(node))
            if isinstance(parent, ast.Call) and parent.func is node:
                continue
            if parent is site or (isinstance(site, ast.Call) and node in site.args):
                continue
            return node.lineno
    return 0


def _static_site_edits(ctx, entry, params, nums_kw, names_kw) -> list:
    """The edits of one jit site: a decorator becomes a partial with the static keyword; a call
    gains the keyword or has its value extended."""
    import libcst as cst

    from jaxlint.fixer.edits import string_literal
    from jaxlint.fixer.syntax import NO_SPACE, append_items, code_of

    site = entry.site
    positional = [p for p in positional_params(entry.args) if p not in entry.bound]
    indices = [positional.index(p) if p in positional else None for p in params]
    spec = entry.spec
    quote = ctx.quote
    if isinstance(site, (ast.Name, ast.Attribute)):
        if not entry.via_decorator:
            raise NoFix("unexpected jit site")
        partial, edits = ctx.partial_ref()
        if names_kw:
            keyword = f"{names_kw}={_tuple_text([string_literal(p, quote) for p in params])}"
        elif nums_kw and None not in indices:
            keyword = f"{nums_kw}={_tuple_text([str(i) for i in indices])}"
        else:
            raise NoFix("the wrapper has no keyword for static arguments")
        start, end = ctx.text.span(site)
        return edits + [(start, end, f"{partial}({ctx.text.segment(site)}, {keyword})")]
    if not isinstance(site, ast.Call):
        raise NoFix("unexpected jit site")
    call = cst.parse_expression(ctx.text.segment(site))
    if not isinstance(call, cst.Call):
        raise NoFix("the jit site is not a call")
    changes = {}       # keyword -> new value node
    additions = []     # (keyword, value code)
    positional_ok = None not in indices
    if spec.argnames_node is None and spec.argnums_node is None:
        if names_kw:
            additions.append((names_kw, _tuple_text([string_literal(p, quote) for p in params])))
        elif nums_kw and positional_ok:
            additions.append((nums_kw, _tuple_text([str(i) for i in indices])))
        else:
            raise NoFix("the wrapper has no keyword for static arguments")
    elif spec.argnums_node is None:
        changes[names_kw] = params
    elif spec.argnames_node is None:
        if positional_ok:
            changes[nums_kw] = indices
        elif names_kw and all(0 <= n < len(positional) for n in spec.argnums):
            existing = [positional[n] for n in spec.argnums]
            additions.append((names_kw, _tuple_text([string_literal(p, quote) for p in existing + params])))
        else:
            raise NoFix("a keyword-only parameter cannot join static_argnums")
    else:
        changes[names_kw] = params
        if positional_ok:
            changes[nums_kw] = indices
    new_args = []
    for arg in call.args:
        key = arg.keyword.value if arg.keyword is not None else None
        if key in changes:
            arg = arg.with_changes(value=_extend_value(arg.value, changes.pop(key), quote))
        new_args.append(arg)
    if changes:
        raise NoFix("the static argument keyword was not found at the jit site")
    added = [cst.Arg(keyword=cst.Name(kw), value=cst.parse_expression(value),
                     equal=cst.AssignEqual(whitespace_before=NO_SPACE, whitespace_after=NO_SPACE))
             for kw, value in additions]
    if added:
        new_args, _ = append_items(new_args, added, call.whitespace_before_args, None)
    start, end = ctx.text.span(site)
    return [(start, end, code_of(call.with_changes(args=new_args)))]


def _extend_value(value, extra: list, quote: str):
    """Add names (str) or numbers (int) to a static_argnames/static_argnums value, in its own
    spelling: a tuple or list gains elements; a single name or number becomes a tuple."""
    import libcst as cst

    from jaxlint.fixer.edits import quote_of, string_literal
    from jaxlint.fixer.syntax import NO_SPACE, append_items

    def literal(item):
        if isinstance(item, int):
            return cst.Integer(str(item))
        return cst.SimpleString(string_literal(item, element_quote))

    element_quote = quote
    if isinstance(value, (cst.Tuple, cst.List)):
        for el in value.elements:
            if isinstance(el.value, cst.SimpleString):
                element_quote = quote_of(el.value.value) or quote
                break
        if any(isinstance(el, cst.StarredElement) for el in value.elements):
            raise NoFix("starred static argument list")
        if isinstance(value, cst.Tuple) and not value.lpar:
            raise NoFix("unparenthesised tuple")
        new_elements = [cst.Element(literal(x)) for x in extra]
        if isinstance(value, cst.List):
            elements, close = append_items(list(value.elements), new_elements,
                                           value.lbracket.whitespace_after, value.rbracket.whitespace_before)
            return value.with_changes(elements=elements,
                                      rbracket=value.rbracket.with_changes(whitespace_before=close))
        elements, close = append_items(list(value.elements), new_elements,
                                       value.lpar[0].whitespace_after, value.rpar[-1].whitespace_before)
        rpar = list(value.rpar[:-1]) + [value.rpar[-1].with_changes(whitespace_before=close)]
        return value.with_changes(elements=elements, rpar=rpar)
    if isinstance(value, (cst.SimpleString, cst.Integer)):
        if isinstance(value, cst.SimpleString):
            element_quote = quote_of(value.value) or quote
        first = cst.Element(value.with_changes(lpar=[], rpar=[]))
        elements, _ = append_items([first], [cst.Element(literal(x)) for x in extra], NO_SPACE, NO_SPACE)
        return cst.Tuple(elements=elements, lpar=[cst.LeftParen()] if not value.lpar else value.lpar,
                         rpar=[cst.RightParen()] if not value.rpar else value.rpar)
    raise NoFix("the static arguments are not written as a literal")
