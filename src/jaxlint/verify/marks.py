"""Which of the statements the findings name ran, and whether JAX was tracing when they did.

CHILD SIDE. The file is compiled with a call `__jaxlint_mark__(LINE)` placed before each
statement the parent asks about, at that statement's own line, so tracebacks, line numbers and
everything else the program does stay as they are. A global line tracer (`sys.settrace`) would
tell the same, but it runs on every Python call, and JAX's tracing makes many: it tripled the
cost of a traced call. The markers cost one call each, only where a finding points.

The verdicts use this to tell "JAX traced the flagged line and nothing happened" (a finding not
reproduced) from "the run never got there" (inconclusive), and which branch a JAX106 test took
under jit and eagerly.
"""

from __future__ import annotations

import ast

NAME = "__jaxlint_mark__"
_ACTIVE: list = []          # the Marks objects recording right now (one per unit, plus segments)
SPANS: dict = {}            # marked line -> (first, last) line of that statement's header


def current_trace():
    """JAX's current trace object (None when this JAX version's internals are not known here)."""
    try:
        from jax._src import core
        return core.trace_ctx.trace
    except Exception:  # noqa: BLE001
        return None


def _trace_probe(marks):
    """A function telling whether JAX is tracing right now (not evaluating eagerly), the
    verifier's own staging trace aside, or None when this JAX version's internals are not the ones
    known here."""
    try:
        from jax._src import core
        context, eager = core.trace_ctx, core.EvalTrace
        type(context.trace)
    except Exception:  # noqa: BLE001
        return None
    return lambda: type(context.trace) is not eager and context.trace is not marks.staging


class Marks:
    """The marked lines run while active, those run while JAX was tracing, and, for a segment
    pushed around one call, the lines that call ran."""

    def __init__(self):
        self.lines: set = set()
        self.traced: set = set()
        self.segments: list = []
        self.staging = None                 # the staging trace: running under it is running eagerly
        self.last: dict = {}                # marked line -> whether its latest run was traced
        self.counts: dict = {}              # marked line -> times it ran under a trace
        self._tracing = _trace_probe(self)

    def hit(self, line: int):
        self.lines.add(line)
        for segment in self.segments:
            segment.add(line)
        traced = self._tracing is not None and self._tracing()
        self.last[line] = traced
        if traced:
            self.traced.add(line)
            self.counts[line] = self.counts.get(line, 0) + 1

    def ran_traced(self, line) -> bool:
        """Whether the marked statement holding `line` last ran under a trace of the program."""
        for mark, (start, end) in SPANS.items():
            if start <= (line or 0) <= end and self.last.get(mark):
                return True
        return False

    def push(self) -> set:
        segment: set = set()
        self.segments.append(segment)
        return segment

    def pop(self, segment) -> set:
        if segment in self.segments:
            self.segments.remove(segment)
        return segment

    def traced_lines(self):
        return sorted(self.traced) if self._tracing is not None else None

    def __enter__(self):
        _ACTIVE.append(self)
        return self

    def __exit__(self, *exc):
        if self in _ACTIVE:
            _ACTIVE.remove(self)
        return False


def mark(line: int):
    """What the compiled markers call."""
    for marks in _ACTIVE:
        marks.hit(line)


class _Insert(ast.NodeTransformer):
    def __init__(self, lines):
        self.lines = set(lines)

    def _body(self, statements):
        out = []
        for stmt in statements:
            if stmt.lineno in self.lines and not (isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__"):
                body = getattr(stmt, "body", None)
                last = body[0].lineno - 1 if isinstance(body, list) and body and body[0].lineno > stmt.lineno \
                    else (stmt.end_lineno or stmt.lineno)
                SPANS[stmt.lineno] = (stmt.lineno, last)
                call = ast.Expr(ast.Call(ast.Name(NAME, ast.Load()), [ast.Constant(stmt.lineno)], []))
                out.append(ast.copy_location(call, stmt))
            out.append(self.visit(stmt))
        return out

    def generic_visit(self, node):
        for name in ("body", "orelse", "finalbody"):
            value = getattr(node, name, None)
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                setattr(node, name, self._body(value))
        for name, value in ast.iter_fields(node):
            if name in ("body", "orelse", "finalbody"):
                continue
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.AST):
                        self.visit(item)
            elif isinstance(value, ast.AST):
                self.visit(value)
        return node


def insert(tree, lines):
    """`tree` with a marker before every statement starting on one of `lines` (in place)."""
    if lines:
        _Insert(lines).visit(tree)
        ast.fix_missing_locations(tree)
    return tree
