"""What to run for one file, and which runs can decide which finding.

PARENT SIDE, standard library only. A file's job is its module import (always) plus a list of
units, each a piece of code the child evaluates:

- `example`: a `# jaxlint-example:` directive (unless directives are ignored);
- `call` / `test` / `main`: the program's own code reaching a finding (`programs.py`);
- `guessed`: a function of the file that reaches a finding, called with guessed arguments;
- `synth`: the traced function itself traced on guessed arguments (no compile).

Guessed units are planned only for findings no example and no program code reaches. Units are
staged first (`jax.make_jaxpr` around them: no XLA compile) unless a finding they serve needs
real values (a JAX106 test whose branches share a line: its results are compared).
"""

from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass
from typing import Optional

from jaxlint.verify import programs, synth
from jaxlint.verify.checks import ERROR_CODES, Judge, clip, recompile_kinds, short_name
from jaxlint.verify.context import SourceContext, read_source
from jaxlint.verify.directives import parse_examples, parse_expected_compiles

NEEDS_A_CALL = {
    "JAX106": "JAX106 compares a real call under jit and eagerly, and no code of the file makes one",
    "JAX202": "the error is raised by a call in your code, and none could be run",
    "JAX203": "the error is raised where jax.jit is applied, and no code of the file reaches it",
}
TRACE_TIME = ERROR_CODES | {"JAX106", "JAX107", "JAX302"}
CALL_SITE_CODES = {"JAX202", "JAX203"}
MAX_GUESSED_DRIVERS = 2


@dataclass
class Plan:
    path: str
    ctx: SourceContext
    findings: list
    units: list
    finding_units: dict              # finding index -> [unit index]
    no_unit_reason: dict             # finding index -> why nothing can run it
    hints: dict                      # finding index -> what would let a run decide it
    expected: dict
    job: Optional[dict]
    notes: list
    lint_error: str = ""
    error: Optional[dict] = None     # {"code", "line", "col", "message"} for a file that cannot be linted
    content: bytes = b""             # what was verified (the verdict store is keyed by its hash)


def note(kind: str, text: str) -> dict:
    return {"kind": kind, "text": text}


def module_name(index: int, path: str) -> str:
    stem = re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0])
    return f"_jaxlint_verify_{index}_{stem}"


def anchor_of(finding, index: programs.ProgramIndex) -> Optional[str]:
    """The def whose execution exercises the finding: the traced function for trace-time rules,
    the function holding the flagged call for the others (None: module level; MAIN: the main
    block)."""
    if finding.code in TRACE_TIME:
        return index.normalise(finding.entry or finding.function)
    return index.container_at(finding.line)


class _Units:
    def __init__(self):
        self.units, self.by_key = [], {}

    def add(self, unit: dict) -> int:
        # a directive that calls what a program unit would call is that unit (run once)
        kind = "call" if unit["kind"] in ("example", "call") else unit["kind"]
        key = (kind, unit.get("expr"), None if kind == "call" else unit.get("line"))
        if key not in self.by_key:
            self.by_key[key] = len(self.units)
            self.units.append(unit)
        return self.by_key[key]


def plan_file(number: int, path: str, compare_eager: bool = False, lint=None, directives: bool = True,
              main: bool = False, budget: float = 10.0) -> Plan:
    from jaxlint.engine import lint_file

    notes = []
    try:
        text = read_source(path)
        with open(path, "rb") as handle:
            content = handle.read()
    except (OSError, SyntaxError, UnicodeDecodeError) as exc:
        return Plan(path, SourceContext(""), [], [], {}, {}, {}, {}, None, notes, f"cannot read: {exc}",
                    {"code": "E902", "line": 1, "col": 1, "message": f"cannot read file: {exc}"})
    ctx = SourceContext(text)
    result = (lint or lint_file)(path)
    if result.error or result.internal_error:
        message = result.error or result.internal_error
        code = "E999" if result.error else "JAX000"
        return Plan(path, ctx, [], [], {}, {}, {}, {}, None, notes, message,
                    {"code": code, "line": getattr(result, "error_line", 1) or 1,
                     "col": (getattr(result, "error_col", 0) or 0) + 1, "message": message}, content)
    findings = list(result.findings)
    index = programs.ProgramIndex(ctx)
    units = _Units()
    examples = []
    if directives:
        for example in parse_examples(text):
            if example.error:
                notes.append(note("problem", f"line {example.line}: {example.error}"))
            else:
                examples.append(units.add({"kind": "example", "line": example.line, "expr": example.expr,
                                           "basis": "example",
                                           "label": f"example at line {example.line} (`{clip(example.expr)}`)"}))
    finding_units, no_unit_reason, hints = {}, {}, {}
    for i, finding in enumerate(findings):
        chosen = list(examples)
        anchor = anchor_of(finding, index)
        in_main = anchor == programs.MAIN or (anchor is None and _in_main(finding.line, index))
        program_units = _program_units(finding, anchor, index, units, main)
        chosen += program_units
        if anchor and anchor != programs.MAIN:
            reach = index.reach(anchor)
        else:
            reach = programs.Reach(module=anchor is None and not in_main, main=in_main)
        if reach.main and not main:
            hints[i] = "the `if __name__ == \"__main__\":` block reaches it: `--main` runs it"
        if not examples and not program_units and not reach.module:
            guessed, reason = _guessed_units(finding, anchor, index, ctx, units)
            chosen += guessed
            if not guessed:
                no_unit_reason[i] = NEEDS_A_CALL.get(finding.code, reason)
        finding_units[i] = chosen
    unit_list = units.units
    _finish_units(unit_list, finding_units, findings, ctx, compare_eager)
    codes = {f.code for f in findings}
    lines = _mark_lines(findings, ctx)
    probes = {"second_run": "JAX107" in codes, "jaxpr": "JAX302" in codes,
              "key_reuse": "JAX401" in codes,
              "coverage": bool(lines),
              "eager_functions": sorted({"*"} if compare_eager else {
                  short for f in findings if f.code == "JAX106"
                  for short in _entry_names(f, index)}),
              "repeat_functions": sorted({short for f in findings if f.code == "JAX107"
                                          for short in _entry_names(f, index)})}
    job = None
    if unit_list or findings:
        job = {"id": number, "path": os.path.abspath(path), "module": module_name(number, path),
               "units": unit_list, "probes": probes, "budget": budget, "marks": lines}
    return Plan(path, ctx, findings, unit_list, finding_units, no_unit_reason, hints,
                parse_expected_compiles(text), job, notes, content=content)


def _mark_lines(findings, ctx) -> list:
    """Statements whose running the verdicts need to know about: each flagged statement, the
    branches of a JAX106 test, the body of a JAX108 method and of a JAX302 loop."""
    judge = Judge(ctx, "")
    lines = set()
    for finding in findings:
        lines.add(ctx.mark_line(finding.line))
        if finding.code == "JAX106":
            lines.update(ctx.mark_line(a) for a, _ in judge.branches(finding.line) or [])
        elif finding.code == "JAX108":
            body = ctx.body_lines(finding.function)
            if body:
                lines.add(ctx.mark_line(body[0]))
        elif finding.code == "JAX302":
            body = ctx.loop_body(finding.line)
            if body:
                lines.add(ctx.mark_line(body[0]))
    return sorted(lines)


def _entry_names(finding, index) -> set:
    """Qualified names (without `<locals>`) the instrumented entry function may carry."""
    name = (finding.entry or finding.function or "").replace(".<locals>", "")
    out = {name}
    resolved = index.normalise(name)
    if resolved:
        out.add(resolved)
    return {n for n in out if n}


def _program_units(finding, anchor, index, units, main) -> list:
    """Units of the program's own code that reach the anchor."""
    chosen = []
    if anchor == programs.MAIN or (anchor is None and _in_main(finding.line, index)):
        if main:
            for block in index.main_blocks:
                chosen.append(_main_unit(block, units))
        return chosen
    if anchor is None:
        return chosen                 # module level: the import runs it
    reach = index.reach(anchor)
    for qualname, expr in index.tests():
        if qualname in reach.depth:
            chosen.append(units.add({"kind": "call", "expr": expr, "line": index.defs[qualname].lineno,
                                     "basis": "program", "label": f"test `{expr}` of the file"}))
    if main and reach.main:
        for block in index.main_blocks:
            chosen.append(_main_unit(block, units))
    drivers = 0
    for qualname in sorted(reach.depth, key=lambda q: (reach.depth[q], q)):
        if drivers >= programs.MAX_DRIVERS:
            break
        node = index.defs[qualname]
        kind = index.kind[qualname]
        if node.name.startswith("test") or (index.is_main_code(qualname) and not main):
            continue
        if isinstance(node, ast.AsyncFunctionDef):
            continue
        if kind == "function" and not programs.required_params(node):
            expr, how = f"{node.name}()", ""
        elif kind == "method" and not programs.required_params(node, skip_self=True) \
                and not _is_static_or_class(node):
            instance = index.instance(qualname.split(".")[0])
            if instance is None:
                continue
            expr, how = f"{instance[0]}.{node.name}()", f" on an instance {instance[1]}"
        else:
            continue
        drivers += 1
        chosen.append(units.add({"kind": "call", "expr": expr, "line": node.lineno, "basis": "program",
                                 "label": f"`{clip(expr, 70)}` of the file{how}"}))
    return chosen


def _is_static_or_class(node) -> bool:
    return any(isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod") for d in node.decorator_list)


def _in_main(line, index) -> bool:
    return any(block.lineno <= line <= block.end_lineno for block in index.main_blocks)


def _main_unit(block, units) -> int:
    return units.add({"kind": "main", "line": block.lineno, "basis": "program",
                      "label": f"main block (line {block.lineno})"})


def _guessed_units(finding, anchor, index, ctx, units) -> tuple:
    """Guessed calls for a finding nothing else reaches: the calling code with guessed arguments
    (the values it makes itself stay the program's), then the traced function itself."""
    chosen, reason = [], ""
    if anchor and anchor != programs.MAIN:
        reach = index.reach(anchor)
        tried = 0
        for qualname in sorted(reach.depth, key=lambda q: (reach.depth[q], q)):
            if tried >= MAX_GUESSED_DRIVERS:
                break
            kind = index.kind[qualname]
            node = index.defs[qualname]
            direct = reach.depth[qualname] == 0 and finding.code in TRACE_TIME
            if kind == "nested" or isinstance(node, ast.AsyncFunctionDef) or _is_static_or_class(node):
                continue
            if direct and finding.code not in ("JAX106", "JAX108") and kind == "function":
                continue                      # the traced function itself: traced below, not run
            if kind == "method":
                instance = index.instance(qualname.split(".")[0]) or _guessed_instance(index, ctx, qualname)
                if instance is None:
                    reason = reason or f"`{qualname}` is a method and no instance of its class can be built"
                    continue
                target, skip_self = f"{instance[0]}.{index.jitted_attribute(qualname)}", True
                on = f" on an instance {instance[1]}"
            else:
                target, skip_self, on = node.name, False, ""
            calls = synth.guessed_calls(target, node, ctx, skip_self=skip_self)
            if calls:
                tried += 1
            for expr, guessed in calls:
                tainted, by_callee = programs.tainted_calls(index, node, set(guessed))
                if direct:
                    by_callee[qualname] = [programs.ALL]     # the guess is the function's own arguments
                shown = ", ".join(f"`{g}`" for g in guessed) or "no argument"
                chosen.append(units.add({"kind": "guessed", "expr": expr, "line": node.lineno, "basis": "guessed",
                                         "target": qualname, "tainted": tainted, "tainted_callees": by_callee,
                                         "label": f"`{qualname}` called with guessed {shown}{on}"}))
    if finding.code in ERROR_CODES | {"JAX107", "JAX302"} and finding.code not in CALL_SITE_CODES:
        target = finding.entry or finding.function
        wanted = tuple(p for p in (finding.param or "").split(",") if p)
        exprs, why = synth.synthesize(ctx, target, wanted) if target else ([], "no traced function")
        loop_params = _loop_params(finding, ctx, target) if finding.code == "JAX302" else []
        node = ctx.function(target) if target else None
        params = _always_traced_params(node) if node else []
        for expr in exprs:
            chosen.append(units.add({"kind": "synth", "line": 1, "expr": expr, "target": target,
                                     "basis": "guessed", "loop_params": loop_params, "params": params,
                                     "label": f"`{target}` traced on guessed inputs `{clip(expr, 90)}`"}))
        if not exprs:
            reason = reason or f"no inputs could be built: {why}"
    return chosen, reason or "no code of the file reaches it and no inputs could be built"


def _always_traced_params(node) -> list:
    """Parameters that hold an array or number whatever the program passes: not those with a
    default of None (a program may leave them None, an empty pytree that is never a tracer)."""
    args = node.args
    positional = args.posonlyargs + args.args
    defaults = dict(zip([a.arg for a in positional[len(positional) - len(args.defaults):]], args.defaults))
    defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
    return [a.arg for a in positional + args.kwonlyargs
            if not (isinstance(defaults.get(a.arg), ast.Constant) and defaults[a.arg].value is None)]


def _guessed_instance(index, ctx, qualname):
    """(expression, how) for an instance of the method's class with guessed constructor
    arguments (its `__init__`, inherited within the file, or its dataclass fields), or None."""
    cls = qualname.split(".")[0]
    init, unknown = index.init_of(cls)
    if unknown:
        return None
    if init is not None:
        calls = synth.guessed_calls(cls, init, ctx, skip_self=True, limit=1)
        if not calls:
            return None
        expr, guessed = calls[0]
    else:
        fields = index.dataclass_fields(cls)
        if not fields:
            return None
        guessed = [name for name, _ in fields]
        pieces = [f"{name}={synth.guess_from_annotation(annotation) or '1.5'}" for name, annotation in fields]
        expr = f"__jaxlint_guess__({cls}, {', '.join(pieces)})"
    return expr, f"built with guessed {', '.join(f'`{g}`' for g in guessed) or 'nothing'}"


def _loop_params(finding, ctx, target) -> list:
    """Parameters of the traced function the flagged loop's trip count depends on."""
    node = ctx.function(target)
    if node is None or ctx.tree is None:
        return []
    params = {a.arg for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs}
    for loop in ast.walk(node):
        if isinstance(loop, (ast.For, ast.AsyncFor)) and loop.lineno == finding.line:
            return sorted({n.id for n in ast.walk(loop.iter) if isinstance(n, ast.Name)} & params)
    return []


REAL_RUN_CODES = {"JAX109", "JAX401", "JAX402", "JAX403"}


def _finish_units(units, finding_units, findings, ctx, compare_eager):
    """Per unit: staged or real, the flagged lines a staged run must see inside a jitted call,
    and when a long run may stop (what its recompilation findings need has been seen)."""
    judge = Judge(ctx, "")
    served: dict = {}
    for i, indexes in finding_units.items():
        for k in indexes:
            served.setdefault(k, []).append(findings[i])
    for k, unit in enumerate(units):
        mine = served.get(k, [])
        # a leaked tracer or a reused key shows only when the program runs for real: under one
        # staging trace the leaked value is still alive and every key consumption is traced
        real = compare_eager or any(f.code == "JAX106" and judge.branches(f.line) is None for f in mine) \
            or any(f.code in REAL_RUN_CODES for f in mine)
        unit["stage"] = not real
        interest = sorted({ctx.statement_span(f.line) for f in mine
                           if f.code in TRACE_TIME and f.code not in CALL_SITE_CODES | {"JAX108", "JAX302"}})
        if interest and unit["kind"] != "synth":      # .trace() runs no jitted call to look inside
            unit["interest"] = [list(s) for s in interest]
        prints = sorted({ctx.statement_span(f.line) for f in mine if f.code == "JAX107"})
        if prints:
            unit["prints"] = [list(s) for s in prints]
        if mine and all(recompile_kinds(f.code) is not None for f in mine) and unit["kind"] != "example":
            unit["watch"] = [{"name": short_name(f.function), "span": list(ctx.statement_span(f.line)),
                              "need": 3 if f.code == "JAX201" else 2} for f in mine]
