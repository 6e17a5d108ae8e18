"""What every rule shares: its documentation, its examples, and how it words a finding.

A rule is a small class with its code, a name, documentation in four parts (what it does, why
it is bad, an example, what to use instead), a `check(analysis)` that yields findings and, when
it has an automatic fix, that fix (`fix_finding`) with its documentation (`fix`). The examples
are code: the test suite lints them, so the documentation cannot drift from the rule.
"""

from __future__ import annotations

import os
import textwrap
from typing import Iterable

from jaxlint.findings import Finding


class Rule:
    code: str = ""
    name: str = ""
    family: str = ""            # "trace-time failure" | "static arguments" | "recompilation"
    summary: str = ""           # one line
    what: str = ""
    why: str = ""
    example: str = ""           # flagged code
    use_instead: str = ""       # the fixed code
    fix: str = ""               # "safe" / "unsafe" / "" and why (filled by rules that have one)
    # The fix itself, for rules that have one: a staticmethod `fix_finding(ctx, finding) -> Fix`
    # (ctx is a jaxlint.fixer.Context) that raises NoFix when this finding has none here. Only
    # the fixer calls it, so what it needs beyond linting (libcst, jaxlint.fixer) it imports itself.
    fix_finding = None
    # Precedence, declared here and applied once by the engine: this rule's finding is dropped
    # where a finding of one of these codes stands at the same place ("place": the same line and
    # column, i.e. the same call; "line": anywhere on the same line).
    yields_to: tuple = ()
    yields_at: str = "place"
    # ... and where a finding of one of these codes is about the same jitted function and
    # parameter (its `entry`, or its `function` when it has none, and its `param`): a call whose
    # trace fails there never compiles, so what this rule predicts of it does not happen.
    yields_to_param: tuple = ()
    # ... and where a finding of one of these codes stands inside this finding's lines (its
    # line to its end_line: the body of a loop).
    yields_inside: tuple = ()

    def check(self, analysis) -> Iterable[Finding]:
        raise NotImplementedError

    @classmethod
    def documentation(cls) -> str:
        """The rule's documentation as Markdown: the one source for `jaxlint rule` and docs/."""
        parts = [f"## {cls.code} {cls.name}", "", cls.summary, "",
                 "### What it does", "", textwrap.dedent(cls.what).strip(), "",
                 "### Why is this bad", "", textwrap.dedent(cls.why).strip(), "",
                 "### Example", "", "```python", textwrap.dedent(cls.example).strip(), "```", "",
                 "### Use instead", "", "```python", textwrap.dedent(cls.use_instead).strip(), "```", ""]
        parts += ["### Fix", "", textwrap.dedent(cls.fix).strip() if cls.fix else "No automatic fix.", ""]
        return "\n".join(parts)


def apply_precedence(findings: list, rules) -> list:
    """Drop each finding that yields (Rule.yields_to) to another one at its place or line,
    (Rule.yields_inside) to one inside its lines, or (Rule.yields_to_param) to one about its
    function's parameter."""
    by_code = {rule.code: rule for rule in rules}
    at_line: dict = {}
    at_place: dict = {}
    at_param: dict = {}
    for f in findings:
        at_line.setdefault(f.line, set()).add(f.code)
        at_place.setdefault((f.line, f.col), set()).add(f.code)
        if f.param:
            at_param.setdefault((f.entry or f.function, f.param), set()).add(f.code)
    kept = []
    for f in findings:
        rule = by_code.get(f.code)
        if rule is not None and rule.yields_to:
            here = at_line[f.line] if rule.yields_at == "line" else at_place[(f.line, f.col)]
            if here.intersection(rule.yields_to):
                continue
        if rule is not None and rule.yields_inside and f.end_line > f.line and any(
                f.line < g.line <= f.end_line and g.code in rule.yields_inside for g in findings):
            continue
        if rule is not None and rule.yields_to_param and f.param and \
                at_param.get((f.entry or f.function, f.param), set()).intersection(rule.yields_to_param):
            continue
        kept.append(f)
    return kept


# -- wording shared by the trace-time rules ---------------------------------------------------------

def describe_origin(value) -> str:
    """`traced parameter `n` (n -> m)`, or `the traced result of jnp.ceil()`."""
    if value.params:
        names = sorted(value.params)
        who = (f"traced parameter `{names[0]}`" if len(names) == 1 else
               "traced parameters " + ", ".join(f"`{n}`" for n in names))
        if len(value.path) > 1:
            return f"{who} (via {' -> '.join(value.path)})"
        return who
    if value.text and value.text.startswith("global `"):
        name = value.text[len("global "):]
        return (f"the traced result of indexing the module-level JAX array {name} (a JAX operation "
                f"inside jit is staged, even on a constant array; a NumPy array would stay concrete)")
    if value.text and value.text.startswith("jitted `"):
        return (f"the traced result of {value.text} (a jitted function called inside a trace is "
                f"staged: it returns tracers, even from static arguments)")
    if value.text and value.text.endswith(")"):
        return f"the traced result of `{value.text}` (jnp/lax results are tracers under jit, even from Python values)"
    if len(value.path) > 1:
        return f"a traced value (via {' -> '.join(value.path)})"
    if value.path:
        return f"traced `{value.path[0]}`"
    return "a traced value"


def describe_place(frame) -> str:
    """`jitted function `f`` or `helper `g` (called from jitted `f` at line 12)`."""
    kind = frame.entry_kind
    if frame.origin:        # another module's trace: the chain names files and lines
        hops = [f"{_file(frame.origin)} `{frame.entry}`"]
        for hop in frame.chain:
            where = f"{_file(hop[3])}:{hop[1]}" if len(hop) > 3 and hop[3] else f"line {hop[1]}"
            hops.append(f"`{hop[0]}` ({where})")
        return f"`{frame.function}`, reached from {kind} " + " -> ".join(hops)
    if not frame.chain:
        return f"{kind} `{frame.entry}`"
    hops = " <- ".join(f"`{hop[0]}` (line {hop[1]})" for hop in reversed(frame.chain))
    return f"`{frame.function}`, reached from {kind} `{frame.entry}` via {hops}"


def short_origin(value) -> str:
    """The traced value in a few words, for a finding's lead: `` `n` ``, `` `lo`, `x` ``, or
    `` `jnp.ceil()` result ``; describe_origin says how it got there."""
    if value.params:
        return ", ".join(f"`{name}`" for name in sorted(value.params))
    text = value.text or ""
    if text.startswith("global `"):
        return f"element of {text}"
    if text.startswith("jitted `"):
        return f"result of {text}"
    if text.endswith(")"):
        return f"`{text}` result"
    if value.path:
        return f"`{value.path[0]}`"
    return "value"


def short_kind(kind: str) -> str:
    """`jitted function` -> `jitted`; other kinds (`lax.scan body`) as they are."""
    return "jitted" if kind == "jitted function" else kind


def short_place(frame) -> str:
    """Where a trace-time finding is, for its lead: `jitted `f`` or `` `g` (under jitted `f`)``;
    describe_place gives the whole call chain."""
    entry = f"{short_kind(frame.entry_kind)} `{frame.entry}`"
    if frame.function == frame.entry and not frame.chain and not frame.origin:
        return entry
    if frame.function.startswith(f"{frame.entry}.") and not frame.origin:
        entry = short_kind(frame.entry_kind)     # a function nested in the entry: named in full
    return f"`{frame.function}` (under {entry})"


def trace_detail(value, frame, consequence: str, fix: str) -> str:
    """A trace-time finding's detail: the path of the value, what JAX does, the fix."""
    origin = describe_origin(value)
    return f"{origin[0].upper()}{origin[1:]} in {describe_place(frame)}. {consequence}. Fix: {fix}"


def _file(path: str) -> str:
    return os.path.basename(path)


def static_fix(value, frame) -> str:
    """The usual remedy: make the originating jit parameter static. Not offered when it would
    not work: the value went through a JAX operation (`jnp.ceil(n)`, `x.max()`), whose result
    is a tracer under jit even from a static argument, or the parameter is used as an array or
    every call passes it one, which JAX refuses as a static argument (arrays are unhashable)."""
    if len(value.params) == 1 and frame.entry_kind.startswith("jit") and not stays_traced(value) \
            and not value.params & getattr(frame, "arrays", frozenset()):
        name = next(iter(value.params))
        where = f" at the jit of `{frame.entry}` in {_file(frame.origin)}" if frame.origin else ""
        return f"mark `{name}` static{where} (static_argnames=({name!r},))"
    return ""


def stays_traced(value) -> bool:
    """Whether the value came out of a jnp/lax call or an array method on the way from its
    parameter: that result is staged under jit whatever the parameter is."""
    return any(step.endswith("()") for step in value.path[1:])


def used_as_array(value) -> bool:
    """Whether the parameter had an array method called on it (`x.max()`, `jnp.abs(x).sum()`):
    evidence that it is an array, which cannot be a static argument."""
    return bool(value.params) and any(step.startswith(".") and step.endswith("()")
                                      for step in value.path[1:])


def finding_at(rule, node, message, frame, value, detail: str = "") -> Finding:
    return Finding(code=rule.code, line=node.lineno, col=node.col_offset, message=message,
                   detail=detail,
                   function=frame.function, entry=frame.entry,
                   param=",".join(sorted(value.params)) if value is not None else "",
                   entry_kind=frame.entry_kind, path=tuple(value.path) if value is not None else (),
                   chain=tuple((hop[0], hop[1], hop[3] if len(hop) > 3 and hop[3] else "")
                               for hop in frame.chain))


# Which code reports each kind of sink the dataflow records: one table, read by the trace-time
# rules and by the make-static fix (which gathers the parameters behind one finding's sinks).
SINK_CODES = {"bool": "JAX101", "convert": "JAX102", "shape": "JAX103", "static-arg": "JAX103",
              "slice": "JAX104", "datadep": "JAX105", "typetest": "JAX106", "print": "JAX107",
              "leak": "JAX109"}


def sink_kinds_of(code: str) -> tuple:
    return tuple(kind for kind, owner in SINK_CODES.items() if owner == code)


class SinkRule(Rule):
    """A trace-time rule: turns the dataflow's sinks of its kinds (SINK_CODES) into findings."""

    @property
    def sink_kinds(self) -> tuple:
        return sink_kinds_of(self.code)

    def check(self, analysis):
        for sink in analysis.sinks:
            if sink.kind in self.sink_kinds:
                worded = self.message(sink)
                if worded:
                    lead, detail = worded
                    yield finding_at(self, sink.node, lead, sink.frame, sink.value, detail)

    def message(self, sink) -> tuple:
        """(lead, detail): one short sentence naming the problem, and the rest (trace_detail)."""
        raise NotImplementedError
