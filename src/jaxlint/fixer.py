"""Autofix: rewrite the code for findings that have a mechanical fix (`jaxlint check --fix`).

A fix is computed from one finding and a fresh analysis of the file's current text (the jit
sites, their static arguments and the calls of each jitted function), never from the message.
It is a list of text edits: the span of one syntax node (a decorator, a call, a list display)
is parsed with libcst, changed as a tree and printed back, so the code inside the span keeps its
layout and comments, and everything outside it is left byte for byte as it was; an import, when
one is needed, is one inserted line.

Every fix is checked before it is kept: the edited text is linted again, and the fix is applied
only when its finding is gone and no finding appears that was not there before (a finding is
identified by its code and its position, carried through the edits). Fixes are applied one at a
time, re-analysing after each, until none is left; so fixes never conflict, and a second run
changes nothing.

Safe fixes keep what the program computes; unsafe ones (`--unsafe-fixes`) can change behaviour
in a way the user should review, and their description says how.
"""

from __future__ import annotations

import ast
import codecs
import difflib
import io
import os
import re
import sys
import tempfile
import tokenize
from collections import Counter
from dataclasses import dataclass, field
from typing import Optional

import libcst as cst

from jaxlint import deepstack
from jaxlint.analysis import calls
from jaxlint.analysis.module import param_names, positional_params
from jaxlint.findings import Finding, Fix

STATIC_CODES = ("JAX101", "JAX102", "JAX103", "JAX104")
FIXABLE_CODES = frozenset(STATIC_CODES + ("JAX106", "JAX107", "JAX202", "JAX304"))
MAX_FIXES_PER_FILE = 500

# isinstance() types -> the jnp dtype classes that test the same thing of an array's dtype.
_TYPE_DTYPES = {
    "int": ("integer",), "float": ("floating",), "bool": ("bool_",),
    "complex": ("complexfloating",),
    "numbers.Integral": ("integer", "bool_"),
    "numbers.Real": ("integer", "bool_", "floating"),
    "numbers.Complex": ("integer", "bool_", "floating", "complexfloating"),
    "numbers.Number": ("integer", "bool_", "floating", "complexfloating"),
}
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
_NO_WS = cst.SimpleWhitespace("")
_ONE_SPACE = cst.SimpleWhitespace(" ")


class NoFix(Exception):
    """This finding has no fix here; the message says why (for debugging and tests)."""


# -- text positions ------------------------------------------------------------------------------

class Text:
    """Source text with ast positions (1-based line, UTF-8 byte column) turned into offsets."""

    def __init__(self, text: str):
        self.text = text
        self.starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]
        match = re.search(r"\r\n|\r|\n", text)
        self.newline = match.group() if match else "\n"

    def offset(self, line: int, col: int) -> int:
        if line > len(self.starts):
            return len(self.text)
        start = self.starts[line - 1]
        end = self.starts[line] if line < len(self.starts) else len(self.text)
        prefix = self.text[start:end].encode("utf-8")[:col].decode("utf-8", errors="ignore")
        return start + len(prefix)

    def line_start(self, line: int) -> int:
        return self.starts[line - 1] if line <= len(self.starts) else len(self.text)

    def span(self, node) -> tuple:
        return (self.offset(node.lineno, node.col_offset),
                self.offset(node.end_lineno, node.end_col_offset))

    def segment(self, node) -> str:
        start, end = self.span(node)
        return self.text[start:end]


def apply_edits(text: str, edits) -> str:
    """Apply non-overlapping (start, end, replacement) edits; raises ValueError on overlap."""
    out, pos = [], 0
    for start, end, replacement in sorted(edits, key=lambda e: (e[0], e[1])):
        if start < pos:
            raise ValueError("overlapping edits")
        out.append(text[pos:start])
        out.append(replacement)
        pos = end
    out.append(text[pos:])
    return "".join(out)


def map_offset(offset: int, edits, after: bool = False) -> int:
    """Where `offset` of the old text lands in the new one (`after=False`), or where an offset of
    the new text came from, both expressed in new-text coordinates: a position inside an edited
    span maps to the start of the edit, so a finding on the edited code keeps one identity."""
    delta = 0
    for start, end, replacement in sorted(edits, key=lambda e: (e[0], e[1])):
        new_start = start + delta
        if after:
            if offset < new_start:
                return offset
            if offset < new_start + len(replacement) or (start == end == offset - delta):
                return new_start
        else:
            if offset < start:
                return offset + delta
            if offset < end or start == end == offset:
                return new_start
        delta += len(replacement) - (end - start)
    return offset if after else offset + delta


# -- libcst helpers ------------------------------------------------------------------------------

def _code(node) -> str:
    return cst.Module(body=[]).code_for_node(node)


def _is_multiline(ws) -> bool:
    return isinstance(ws, cst.ParenthesizedWhitespace)


def _clean(ws):
    """A line break copied from `ws` without its comment or blank lines."""
    if isinstance(ws, cst.ParenthesizedWhitespace):
        return ws.with_changes(first_line=cst.TrailingWhitespace(), empty_lines=[])
    return ws


def _append_items(existing: list, added: list, open_ws, close_ws):
    """Append nodes that carry a `.comma` (Element, Arg) in the layout the existing ones use.

    Returns (items, whitespace before the closing bracket). One item per line stays one per
    line, with the comment of the old last line kept on that line; a trailing comma is kept;
    on one line the items are separated like the existing ones. For Args the whitespace before
    `)` lives on the last Arg, so `close_ws` is ignored and the last Arg carries it."""
    is_arg = isinstance((existing or added)[0], cst.Arg)
    if not existing:
        items = [n.with_changes(comma=cst.Comma(whitespace_after=_ONE_SPACE)) for n in added[:-1]]
        return items + [added[-1]], close_ws
    last = existing[-1]
    if is_arg:
        close_ws = last.whitespace_after_arg
    had_trailing = isinstance(last.comma, cst.Comma)
    in_comma = had_trailing and _is_multiline(last.comma.whitespace_after)
    tail = last.comma.whitespace_after if in_comma else close_ws
    between = next((it.comma.whitespace_after for it in existing[:-1] if isinstance(it.comma, cst.Comma)
                    and _is_multiline(it.comma.whitespace_after)), None)
    if between is None and _is_multiline(open_ws):
        between = open_ws
    extra = {"whitespace_after_arg": _NO_WS} if is_arg else {}
    if _is_multiline(tail) and between is not None:
        between = _clean(between)
        old_comma = cst.Comma(whitespace_before=last.comma.whitespace_before if had_trailing else _NO_WS,
                              whitespace_after=between.with_changes(first_line=tail.first_line))
        items = list(existing[:-1]) + [last.with_changes(comma=old_comma, **extra)]
        items += [n.with_changes(comma=cst.Comma(whitespace_after=between)) for n in added[:-1]]
        final = added[-1]
        if in_comma:
            final = final.with_changes(comma=cst.Comma(whitespace_after=_clean(tail)))
        elif had_trailing:
            final, close_ws = final.with_changes(comma=cst.Comma()), _clean(tail)
        else:
            close_ws = _clean(tail)
    else:
        if len(existing) >= 2 and isinstance(existing[-2].comma, cst.Comma):
            comma = existing[-2].comma
            sep = comma.with_changes(whitespace_after=_clean(comma.whitespace_after))
        else:
            sep = cst.Comma(whitespace_after=_ONE_SPACE)
        items = list(existing[:-1]) + [last.with_changes(comma=sep, **extra)]
        items += [n.with_changes(comma=sep) for n in added[:-1]]
        keep = had_trailing and (len(existing) >= 2 or is_arg)
        final = added[-1].with_changes(comma=last.comma if keep else cst.MaybeSentinel.DEFAULT)
    if is_arg:
        final = final.with_changes(whitespace_after_arg=_NO_WS if in_comma else close_ws)
    return items + [final], close_ws


def _string(value: str, quote: str) -> str:
    """A Python string literal for `value` written with `quote`."""
    out = []
    for ch in value:
        if ch == "\\":
            out.append("\\\\")
        elif ch == quote:
            out.append("\\" + quote)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif not ch.isprintable():
            out.append(repr(ch)[1:-1])
        else:
            out.append(ch)
    return quote + "".join(out) + quote


def _quote_of(literal: str) -> Optional[str]:
    body = literal.lstrip("rRbBuUfF")
    return body[0] if body[:1] in ("'", '"') else None


def preferred_quote(text: str) -> str:
    """The quote most string literals of the file use (double when undecided)."""
    counts = Counter()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.STRING:
                quote = _quote_of(tok.string)
                if quote and not tok.string.lstrip("rRbBuUfF").startswith(quote * 3):
                    counts[quote] += 1
    except (tokenize.TokenError, SyntaxError, IndentationError):
        pass
    return "'" if counts["'"] > counts['"'] else '"'


# -- the fix context: one analysed version of one file -------------------------------------------

class Context:
    """A file's text, its ast and its Analysis, with the lookups the fixes share."""

    def __init__(self, text: str, path: str, config=None):
        from jaxlint.analysis.file import Analysis
        self.text = Text(text)
        self.path = path
        self.config = config
        self.tree = ast.parse(text)
        lines = text.splitlines()
        self.analysis = deepstack.call(Analysis, self.tree, path, config, lines)
        self.index = self.analysis.index
        self.parents = self.analysis.parents
        self._by_pos = None
        self._quote = None
        self.top_aliases = {}        # local name -> dotted name, for unconditional top-level imports
        for stmt in self.tree.body:
            if isinstance(stmt, ast.Import):
                for alias in stmt.names:
                    if alias.asname:
                        self.top_aliases[alias.asname] = alias.name
                    else:
                        top = alias.name.split(".")[0]
                        self.top_aliases.setdefault(top, top)
            elif isinstance(stmt, ast.ImportFrom) and stmt.module and not stmt.level:
                for alias in stmt.names:
                    if alias.name != "*":
                        self.top_aliases[alias.asname or alias.name] = f"{stmt.module}.{alias.name}"

    @property
    def quote(self) -> str:
        if self._quote is None:
            self._quote = preferred_quote(self.text.text)
        return self._quote

    def nodes_at(self, line: int, col: int) -> list:
        if self._by_pos is None:
            self._by_pos = {}
            for node in ast.walk(self.tree):
                if hasattr(node, "lineno") and hasattr(node, "col_offset"):
                    self._by_pos.setdefault((node.lineno, node.col_offset), []).append(node)
        return self._by_pos.get((line, col), [])

    def call_at(self, finding: Finding, accept=lambda call: True) -> ast.Call:
        """The call the finding points at (`f(x).mean()`: both calls start there; `accept` picks)."""
        for node in self.nodes_at(finding.line, finding.col):
            if isinstance(node, ast.Call) and accept(node):
                return node
        raise NoFix("no such call at the finding's position")

    def jit_call_at(self, finding: Finding):
        """(call node, CallSite) of the jitted function's call the finding points at."""
        sites = {id(s.node): s for s in self.analysis.jit_calls()}
        call = self.call_at(finding, lambda node: id(node) in sites)
        return call, sites[id(call)]

    def bindings(self, name: str) -> int:
        """How many times `name` is bound anywhere in the file (defs, assignments, parameters,
        imports): a call `name(...)` surely means one function only when this is 1."""
        if not hasattr(self, "_bindings"):
            counts = Counter()
            for node in ast.walk(self.tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    counts[node.name] += 1
                elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                    counts[node.id] += 1
                elif isinstance(node, ast.arg):
                    counts[node.arg] += 1
                elif isinstance(node, ast.alias):
                    counts[(node.asname or node.name).split(".")[0]] += 1
            self._bindings = counts
        return self._bindings[name]

    def call_is_unambiguous(self, call: ast.Call) -> bool:
        func = call.func
        if isinstance(func, ast.Name):
            return self.bindings(func.id) == 1
        return True         # `jax.jit(f)(...)`; `obj.m(...)` only matches when one def is named m

    def bound_at_module(self, name: str) -> bool:
        return name in self.index.module_names or name in self.top_aliases

    def alias_for(self, dotted: str) -> Optional[str]:
        for local, target in self.top_aliases.items():
            if target == dotted:
                return local
        return None

    # -- imports --------------------------------------------------------------------------------
    def module_ref(self, module: str, asname: Optional[str] = None):
        """(expression naming `module`, edits adding its import if the file lacks it)."""
        local = self.alias_for(module)
        if local is not None:
            return local, []
        name = asname or module.split(".")[0]
        if self.bound_at_module(name):
            raise NoFix(f"`{name}` is already bound to something else in this module")
        if asname is None and "." in module:
            raise NoFix("submodule imports without an alias are not added")
        return name, [self.insert_import(module, asname)]

    def partial_ref(self):
        """(how to spell functools.partial here, edits to import it if needed)."""
        local = self.alias_for("functools.partial")
        if local is not None:
            return local, []
        local = self.alias_for("functools")
        if local is not None:
            return f"{local}.partial", []
        from_functools = next((s for s in self.tree.body if isinstance(s, ast.ImportFrom)
                               and s.module == "functools" and not s.level
                               and all(a.name != "*" for a in s.names)), None)
        if from_functools is not None and not self.bound_at_module("partial"):
            return "partial", [self._extend_from_import(from_functools, "partial")]
        if self.bound_at_module("functools"):
            raise NoFix("`functools` is bound to something else in this module")
        return "functools.partial", [self.insert_import("functools")]

    def _extend_from_import(self, stmt: ast.ImportFrom, name: str):
        later = [a for a in stmt.names if a.name.lower() > name.lower()]
        if later:
            at = self.text.offset(later[0].lineno, later[0].col_offset)
            return (at, at, f"{name}, ")
        last = stmt.names[-1]
        at = self.text.offset(last.end_lineno, last.end_col_offset)
        return (at, at, f", {name}")

    def insert_import(self, module: str, asname: Optional[str] = None):
        """An edit adding `import module [as asname]` where an isort-style file would have it:
        among the plain imports of its section (standard library or not) in name order."""
        nl = self.text.newline
        line = f"import {module}" + (f" as {asname}" if asname else "")
        body = self.tree.body
        first = 0
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            first = 1
        while first < len(body) and isinstance(body[first], ast.ImportFrom) \
                and body[first].module == "__future__":
            first += 1
        imports = [s for s in body[first:] if isinstance(s, (ast.Import, ast.ImportFrom))]
        stdlib = getattr(sys, "stdlib_module_names", frozenset())

        def is_std(stmt) -> bool:
            if isinstance(stmt, ast.ImportFrom):
                return not stmt.level and (stmt.module or "").split(".")[0] in stdlib
            return stmt.names[0].name.split(".")[0] in stdlib

        want_std = module.split(".")[0] in stdlib
        section = [s for s in imports if is_std(s) == want_std]
        plain = [s for s in section if isinstance(s, ast.Import)]
        if plain:
            later = [s for s in plain if s.names[0].name.lower() > module.lower()]
            if later:
                return self._before(later[0], line + nl)
            return self._after(plain[-1], line + nl)
        if section:
            return self._before(section[0], line + nl)
        if imports:
            if want_std:
                return self._before(imports[0], line + nl + nl)
            std = [s for s in imports if is_std(s)]
            if std:
                return self._after(std[-1], nl + line + nl)
            return self._before(imports[0], line + nl)
        if first < len(body):
            return self._before(body[first], line + nl + nl)
        at = len(self.text.text)
        lead = "" if not self.text.text or self.text.text.endswith(("\n", "\r")) else nl
        return (at, at, lead + line + nl)

    def _before(self, stmt, insertion: str):
        at = self.text.line_start(stmt.lineno)
        return (at, at, insertion)

    def _after(self, stmt, insertion: str):
        if stmt.end_lineno < len(self.text.starts):
            at = self.text.line_start(stmt.end_lineno + 1)
            return (at, at, insertion)
        at = len(self.text.text)
        return (at, at, self.text.newline + insertion.rstrip("\r\n"))


# -- JAX101-JAX104: make the parameter static ----------------------------------------------------

def fix_static(ctx: Context, finding: Finding) -> Fix:
    params = [p for p in finding.param.split(",") if p]
    params += [p for p in _params_at_node(ctx, finding) if p not in params]
    if not params or not finding.entry:
        raise NoFix("the finding names no parameter of a jitted function")
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
        for param in params:
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


def _params_at_node(ctx: Context, finding: Finding) -> list:
    """Every parameter of the same jitted function that reaches the finding's node: the engine
    reports one finding per node, but `x[start:end]` may need both `start` and `width` static."""
    from jaxlint.rules import BY_CODE
    kinds = getattr(BY_CODE.get(finding.code), "sink_kinds", ())
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


def _incompatible_use(ctx: Context, entry, param: str, literals: Optional[list], depth: int = 0) -> str:
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
    return _uses_problem(ctx, func, param, literals, depth)


def _uses_problem(ctx, func, param, literals, depth) -> str:
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
            problem = _helper_problem(ctx, parent, node, own, depth)
            if problem:
                return problem
    return ""


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


def _helper_problem(ctx, call, name_node, literals, depth) -> str:
    """Follow the value into a same-file function it is passed to."""
    if depth >= 3 or not isinstance(call.func, ast.Name):
        return ""
    info = ctx.index.top_functions.get(call.func.id)
    if info is None or call.func.id in ctx.top_aliases:
        return ""
    positional = positional_params(info.node.args)
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
        args = info.node.args

    return _incompatible_use(ctx, _Helper, target, literals, depth + 1)


def _call_values(ctx: Context, entry, param: str):
    """([literal values the calls pass], '') when every call in the file passes a literal or
    bounded value; (values or None, why the fix is unsafe) otherwise. Raises NoFix when a call
    passes something a static argument cannot be (a list, a dict, an array)."""
    from jaxlint.rules.static_args import NOT_LITERAL, literal_value, resolve_value, unhashable_kind
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
            resolved = resolve_value(analysis, site, node) if arg is not None else None
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
        why = calls.varying_names(loop, ctx.analysis.scope_facts(site.scope).value_before)
        if calls.expr_varies(node, why):
            return True
    return False


def _bounded_loop_value(ctx, site, node) -> bool:
    """A loop variable over a small literal set (`for act in ("relu", "gelu")`): bounded."""
    if not isinstance(node, ast.Name):
        return False
    for loop in site.loops:
        why = calls.varying_names(loop, ctx.analysis.scope_facts(site.scope).value_before)
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


def _static_site_edits(ctx: Context, entry, params, nums_kw, names_kw) -> list:
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
            keyword = f"{names_kw}={_tuple_text([_string(p, quote) for p in params])}"
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
            additions.append((names_kw, _tuple_text([_string(p, quote) for p in params])))
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
            additions.append((names_kw, _tuple_text([_string(p, quote) for p in existing + params])))
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
                     equal=cst.AssignEqual(whitespace_before=_NO_WS, whitespace_after=_NO_WS))
             for kw, value in additions]
    if added:
        new_args, _ = _append_items(new_args, added, call.whitespace_before_args, None)
    start, end = ctx.text.span(site)
    return [(start, end, _code(call.with_changes(args=new_args)))]


def _extend_value(value, extra: list, quote: str):
    """Add names (str) or numbers (int) to a static_argnames/static_argnums value, in its own
    spelling: a tuple or list gains elements; a single name or number becomes a tuple."""
    def literal(item):
        if isinstance(item, int):
            return cst.Integer(str(item))
        return cst.SimpleString(_string(item, element_quote))

    element_quote = quote
    if isinstance(value, (cst.Tuple, cst.List)):
        for el in value.elements:
            if isinstance(el.value, cst.SimpleString):
                element_quote = _quote_of(el.value.value) or quote
                break
        if any(isinstance(el, cst.StarredElement) for el in value.elements):
            raise NoFix("starred static argument list")
        if isinstance(value, cst.Tuple) and not value.lpar:
            raise NoFix("unparenthesised tuple")
        new_elements = [cst.Element(literal(x)) for x in extra]
        if isinstance(value, cst.List):
            elements, close = _append_items(list(value.elements), new_elements,
                                            value.lbracket.whitespace_after, value.rbracket.whitespace_before)
            return value.with_changes(elements=elements,
                                      rbracket=value.rbracket.with_changes(whitespace_before=close))
        elements, close = _append_items(list(value.elements), new_elements,
                                        value.lpar[0].whitespace_after, value.rpar[-1].whitespace_before)
        rpar = list(value.rpar[:-1]) + [value.rpar[-1].with_changes(whitespace_before=close)]
        return value.with_changes(elements=elements, rpar=rpar)
    if isinstance(value, (cst.SimpleString, cst.Integer)):
        if isinstance(value, cst.SimpleString):
            element_quote = _quote_of(value.value) or quote
        first = cst.Element(value.with_changes(lpar=[], rpar=[]))
        elements, _ = _append_items([first], [cst.Element(literal(x)) for x in extra], _NO_WS, _NO_WS)
        return cst.Tuple(elements=elements, lpar=[cst.LeftParen()] if not value.lpar else value.lpar,
                         rpar=[cst.RightParen()] if not value.rpar else value.rpar)
    raise NoFix("the static arguments are not written as a literal")


# -- JAX106: isinstance(n, int) on a tracer -> a dtype test --------------------------------------

def fix_type_test(ctx: Context, finding: Finding) -> Fix:
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
    return Fix(description=f"Test the dtype instead: `{replacement}` (unsafe: {why})", safe=False,
               edits=tuple(edits + [(start, end, replacement)]), why_unsafe=why)


# -- JAX107: print() of a tracer -> jax.debug.print ----------------------------------------------

def fix_print(ctx: Context, finding: Finding) -> Fix:
    call = ctx.call_at(finding, lambda node: isinstance(node.func, ast.Name) and node.func.id == "print")
    if ctx.bound_at_module("print"):
        raise NoFix("not the builtin print()")
    node = cst.parse_expression(ctx.text.segment(call))
    if _has_comment(node):
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
    text = f"{jax_ref}.debug.print({_string(fmt, quote or ctx.quote)}, {', '.join(arguments)})"
    start, end = ctx.text.span(call)
    why = ("jax.debug.print prints when the compiled code runs (on every call, possibly out of "
           "order with other output), where print() printed once while tracing")
    return Fix(description=f"Print at run time: `{text}` (unsafe: {why})", safe=False,
               edits=tuple(edits + [(start, end, text)]), why_unsafe=why)


def _has_comment(node) -> bool:
    found = []

    class Finder(cst.CSTVisitor):
        def visit_Comment(self, _node):
            found.append(True)

    node.visit(Finder())
    return bool(found)


def _plain_string_value(node) -> Optional[str]:
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)) and not node.lpar:
        try:
            value = node.evaluated_value
        except Exception:  # noqa: BLE001 - libcst raises for odd literals
            return None
        return value if isinstance(value, str) else None
    return None


def _format_piece(node):
    """(format-string text, [argument code], quote) for one print() argument."""
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
    return "{}", [_code(node)], None


def _first_quote(node) -> Optional[str]:
    while isinstance(node, cst.ConcatenatedString):
        node = node.left
    if isinstance(node, cst.SimpleString):
        return _quote_of(node.value)
    if isinstance(node, cst.FormattedString):
        return _quote_of(node.start)
    return None


def _fstring_piece(node: cst.FormattedString):
    prefix = node.start.rstrip("'\"").lower().replace("f", "")
    quote = _quote_of(node.start)
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
        args.append(_code(part.expression))
    return text, args, quote


# -- JAX202: a list passed to a static parameter -> a tuple --------------------------------------

def fix_unhashable(ctx: Context, finding: Finding) -> Fix:
    from jaxlint.rules.static_args import unhashable_kind
    call, site = ctx.jit_call_at(finding)
    edits, params = [], []
    for param, arg in site.args.items():
        if param not in site.entry.static or not unhashable_kind(ctx.analysis, site, arg.node):
            continue
        if not _list_display(arg.node):
            raise NoFix(f"`{param}` receives a value that is not a list display")
        value = cst.parse_expression(ctx.text.segment(arg.node))
        start, end = ctx.text.span(arg.node)
        edits.append((start, end, _code(_as_tuple(value))))
        params.append(param)
    if not edits:
        raise NoFix("no list display passed to a static parameter")
    names = ", ".join(f"`{p}`" for p in params)
    why = "the callee receives a tuple instead of a list (list methods, `==` with lists and `+` differ)"
    return Fix(description=f"Pass a tuple to static {names} (unsafe: {why})", safe=False,
               edits=tuple(edits), why_unsafe=why)


def _list_display(node) -> bool:
    if isinstance(node, (ast.List, ast.ListComp)):
        return True
    if isinstance(node, ast.Tuple):
        return any(_list_display(e) for e in node.elts)
    return False


def _as_tuple(node):
    """Lists (and lists inside tuples and lists) to tuples; a list comprehension to tuple(...)."""
    if isinstance(node, cst.ListComp):
        gen = cst.GeneratorExp(elt=node.elt, for_in=node.for_in, lpar=[], rpar=[])
        return cst.Call(func=cst.Name("tuple"), args=[cst.Arg(gen)],
                        whitespace_before_args=node.lbracket.whitespace_after,
                        lpar=node.lpar, rpar=node.rpar)
    if isinstance(node, (cst.List, cst.Tuple)):
        elements = []
        for el in node.elements:
            if isinstance(el, cst.StarredElement):
                elements.append(el.with_changes(value=_as_tuple(el.value)))
            else:
                elements.append(el.with_changes(value=_as_tuple(el.value)))
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


# -- JAX304: spell the call as the first call did ------------------------------------------------

def fix_drift(ctx: Context, finding: Finding) -> Fix:
    from jaxlint.rules.static_args import NOT_LITERAL, literal_value
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
    if not isinstance(node, cst.Call) or _has_comment(node):
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
                whitespace_before=_NO_WS, whitespace_after=_NO_WS)) if arg.keyword is None else arg
        else:
            arg = arg.with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT)
        new_args.append(arg)
    old = list(node.args)
    separators = [a.comma for a in old[:-1]] or [cst.Comma(whitespace_after=_ONE_SPACE)]
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
    text = _code(node.with_changes(args=new_args))
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


def _same_literal(a, b, missing) -> bool:
    return a is not missing and b is not missing and type(a) is type(b) and a == b


def _pure(node) -> bool:
    return isinstance(node, (cst.Name, cst.SimpleString, cst.Integer, cst.Float, cst.Imaginary)) or (
        isinstance(node, cst.Attribute) and _pure(node.value))


FIXERS = {code: fix_static for code in STATIC_CODES}
FIXERS.update({"JAX106": fix_type_test, "JAX107": fix_print, "JAX202": fix_unhashable,
               "JAX304": fix_drift})


def compute_fix(ctx: Context, finding: Finding) -> Optional[Fix]:
    """The fix for one finding, unchecked; None when there is none."""
    fixer = FIXERS.get(finding.code)
    if fixer is None:
        return None
    try:
        return fixer(ctx, finding)
    except (NoFix, cst.ParserSyntaxError, ValueError, StopIteration, KeyError, IndexError):
        return None


# -- checking and applying -----------------------------------------------------------------------

@dataclass
class Outcome:
    """What fixing one file's text did."""

    path: str
    before: str
    after: str
    initial: list                                   # findings before fixing
    remaining: list                                 # findings after fixing
    applied: list = field(default_factory=list)     # [(finding, Fix)]
    hidden_unsafe: int = 0                          # remaining findings with an unsafe fix

    @property
    def fixed(self) -> int:
        return len(self.initial) - len(self.remaining)

    @property
    def changed(self) -> bool:
        return self.before != self.after


def _lint(text: str, path: str, config):
    from jaxlint.engine import lint_source
    result = lint_source(text, path, config)
    if result.error or result.internal_error:
        return None
    return result.findings


def _keys(findings, text: Text, edits=None, after=False) -> Counter:
    keys = Counter()
    for f in findings:
        offset = text.offset(f.line, f.col)
        if edits:
            offset = map_offset(offset, edits, after=after)
        keys[(f.code, offset)] += 1
    return keys


@dataclass
class Check:
    ok: bool
    text: str = ""
    findings: list = field(default_factory=list)
    leftover: Optional[Finding] = None      # the finding the fix should have removed, still there


def check_fix(text: str, path: str, config, findings, finding, fix) -> Check:
    """Apply `fix` and lint again: ok when `finding` is gone and no other finding appeared."""
    try:
        new_text = apply_edits(text, fix.edits)
    except ValueError:
        return Check(False)
    new_findings = _lint(new_text, path, config)
    if new_findings is None:
        return Check(False)
    old, new = Text(text), Text(new_text)
    before = _keys(findings, old, fix.edits)
    after = _keys(new_findings, new, fix.edits, after=True)
    target = (finding.code, map_offset(old.offset(finding.line, finding.col), fix.edits))
    leftover = next((f for f in new_findings if f.code == finding.code and map_offset(
        new.offset(f.line, f.col), fix.edits, after=True) == target[1]), None)
    ok = after[target] < before[target] and not any(after[k] > before[k] for k in after)
    return Check(ok, new_text, new_findings, leftover)


def checked_fix(ctx: Context, findings, finding, fix: Optional[Fix] = None):
    """(fix, Check) for a fix of `finding` that passes check_fix, else None.

    The engine reports one finding per node, naming the parameters of the first traced value
    it met there; when making those static leaves the node traced through another parameter
    (`x[start:end]` with `end = start + width`), the fix is retried with that one added."""
    text = ctx.text.text
    fix = fix or compute_fix(ctx, finding)
    for _ in range(3):
        if fix is None:
            return None
        check = check_fix(text, ctx.path, ctx.config, findings, finding, fix)
        if check.ok:
            return fix, check
        known = set(finding.param.split(","))
        more = set(check.leftover.param.split(",")) - known if check.leftover is not None else set()
        if finding.code not in STATIC_CODES or not more - {""}:
            return None
        finding = Finding(**{**finding.__dict__, "param": ",".join(sorted(known | more - {""}))})
        fix = compute_fix(ctx, finding)
    return None


def fix_source(text: str, path: str = "<unknown>", config=None, unsafe: bool = False,
               describe_remaining: bool = True) -> Outcome:
    """Apply every checked fix (safe ones; unsafe ones too with `unsafe`) to one file's text."""
    findings = _lint(text, path, config)
    if findings is None:
        return Outcome(path, text, text, [], [])
    outcome = Outcome(path, text, text, list(findings), list(findings))
    failed = set()           # (code, offset): fixes that failed their check on the current text
    for _ in range(MAX_FIXES_PER_FILE):
        current = Text(text)
        candidates = [f for f in findings if f.code in FIXABLE_CODES and _enabled(config, f, path)
                      and (f.code, current.offset(f.line, f.col)) not in failed]
        if not candidates:
            break
        try:
            ctx = Context(text, path, config)
        except (SyntaxError, ValueError, RecursionError):
            break
        applied = None
        for finding in candidates:
            fix = compute_fix(ctx, finding)
            if fix is None or not (fix.safe or unsafe):
                continue
            got = checked_fix(ctx, findings, finding, fix)
            if got is None or not (got[0].safe or unsafe):
                failed.add((finding.code, current.offset(finding.line, finding.col)))
                continue
            applied = (finding,) + got
            break
        if applied is None:
            break
        finding, fix, check = applied
        text, findings = check.text, check.findings
        failed = set()       # the text changed: a fix that failed may work now (JAX304 order)
        outcome.applied.append((finding, fix))
    outcome.after, outcome.remaining = text, list(findings)
    if describe_remaining:
        outcome.remaining = _describe(text, path, config, findings, outcome)
    return outcome


def _describe(text, path, config, findings, outcome) -> list:
    """The remaining findings, each carrying its (checked) fix when it has one."""
    fixable = [f for f in findings if f.code in FIXABLE_CODES and _enabled(config, f, path)]
    if not fixable:
        return list(findings)
    try:
        ctx = Context(text, path, config)
    except (SyntaxError, ValueError, RecursionError):
        return list(findings)
    out = []
    for finding in findings:
        got = checked_fix(ctx, findings, finding) if finding in fixable else None
        if got is not None:
            finding = Finding(**{**finding.__dict__, "fix": got[0]})
            if not got[0].safe:
                outcome.hidden_unsafe += 1
        out.append(finding)
    return out


def _enabled(config, finding, path) -> bool:
    return config is None or config.enabled(finding.code, path)


# -- files and the command line ------------------------------------------------------------------

@dataclass
class Summary:
    fixed: int = 0
    remaining: int = 0
    files_changed: int = 0
    hidden_unsafe: int = 0          # unsafe fixes not applied (no --unsafe-fixes)
    diff: str = ""

    def line(self, diff: bool = False, unsafe: bool = False) -> str:
        def s(n):
            return "s" * (n != 1)

        if diff:
            text = (f"Would fix {self.fixed} finding{s(self.fixed)} in {self.files_changed} "
                    f"file{s(self.files_changed)} ({self.remaining} remaining).")
        else:
            total = self.fixed + self.remaining
            text = (f"Found {total} finding{s(total)} ({self.fixed} fixed, {self.remaining} "
                    f"remaining)." if total else "No findings.")
        if self.hidden_unsafe and not unsafe:
            text += (f" {self.hidden_unsafe} more fix{'es' * (self.hidden_unsafe != 1)} "
                     f"available with --unsafe-fixes.")
        return text


def fix_file(path: str, config=None, unsafe: bool = False, write: bool = True) -> Optional[Outcome]:
    """Fix one file on disk (or only compute the result with write=False). None: not fixable
    (a notebook, unreadable or undecodable)."""
    from jaxlint.source import SourceError, decode, read_file
    if path.endswith(".ipynb"):
        return None
    try:
        data = read_file(path)
        text = decode(data)
    except SourceError:
        return None
    outcome = deepstack.call(fix_source, text, path, config, unsafe)
    if write and outcome.changed:
        _write(path, data, outcome.after)
    return outcome


def _write(path: str, data: bytes, text: str) -> None:
    """Write back in the file's own encoding (BOM included), atomically, keeping its mode."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    if data.startswith(codecs.BOM_UTF8):
        encoding = "utf-8-sig"
    payload = text.encode(encoding)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".jaxlint-fix-", suffix=".py")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
        try:
            os.chmod(tmp, os.stat(path).st_mode & 0o7777)
        except OSError:
            pass
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def unified_diff(outcome: Outcome) -> str:
    return "".join(difflib.unified_diff(
        outcome.before.splitlines(keepends=True), outcome.after.splitlines(keepends=True),
        fromfile=outcome.path, tofile=outcome.path))


def fix_reports(reports, unsafe: bool = False, write: bool = True) -> Summary:
    """Fix the files behind `jaxlint check` reports; each report's result becomes the findings
    left in its (fixed) file. With write=False nothing is written and `diff` holds the changes."""
    summary = Summary()
    diffs = []
    for report in reports:
        result = report.result
        if report.io_error or result.error or result.internal_error or report.cells is not None:
            continue
        if not any(f.code in FIXABLE_CODES and report.config.enabled(f.code, report.path)
                   for f in result.findings):
            continue
        outcome = fix_file(report.path, report.config, unsafe=unsafe, write=write)
        if outcome is None:
            continue
        summary.hidden_unsafe += outcome.hidden_unsafe
        summary.fixed += _count_enabled(report, outcome.initial) - _count_enabled(report, outcome.remaining)
        if outcome.changed:
            summary.files_changed += 1
            diffs.append(unified_diff(outcome))
        result.findings = outcome.remaining
    for report in reports:
        summary.remaining += _count_enabled(report, report.result.findings)
    summary.diff = "".join(diffs)
    return summary


def _count_enabled(report, findings) -> int:
    return sum(report.config.enabled(f.code, report.path) for f in findings)
