"""`jaxlint verify --run`: run a real program and explain every recompilation it made.

PARENT SIDE: starts `runharness` in a subprocess (the program's output goes to the terminal as
usual), reads back the recorded traces and compiles, groups them per jitted function, names each
recompilation's cause (`recompiles.py`), and cross-references the static findings of the files
involved: a recompilation a finding predicted, and one no finding predicted (a rule jaxlint is
missing).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from typing import Optional

from jaxlint.engine import lint_file
from jaxlint.verify import recompiles as rc
from jaxlint.verify.checks import recompile_kinds
from jaxlint.verify.context import SourceContext, read_source
from jaxlint.verify.supervisor import quiet_fork_warning, worker_env


@dataclass
class CauseReport:
    cause: rc.Cause
    source: str = ""                                   # the call line's text
    predicted_by: list = field(default_factory=list)   # findings


@dataclass
class FunctionReport:
    stats: rc.FunctionStats
    causes: list = field(default_factory=list)        # CauseReport
    nested_in: str = ""

    @property
    def compiles(self) -> int:
        """XLA compiles seen, or traces when the program only traced (no compile events)."""
        return self.stats.compiles or len([r for r in self.stats.records if r.get("parent") is None])


@dataclass
class RunReport:
    target: str
    script: Optional[str]
    exit: int
    error: Optional[str]
    wall_s: float
    functions: list = field(default_factory=list)      # FunctionReport
    unpredicted: list = field(default_factory=list)    # CauseReport with no finding
    unobserved: list = field(default_factory=list)     # findings with no matching recompilation
    findings: list = field(default_factory=list)
    problem: str = ""                                  # the harness failed (timeout, crash)
    stdout: str = ""                                   # the program's output, with capture=True
    stderr: str = ""

    def max_compiles(self) -> int:
        return max((f.compiles for f in self.functions), default=0)


def _package_root() -> str:
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_program(target: str, args=(), module: bool = False, timeout: Optional[float] = None,
                memory_mb: Optional[int] = None, cwd: Optional[str] = None, capture: bool = False,
                stdout_to_stderr: bool = False) -> RunReport:
    """Run `target` (a script, or a module with module=True) with `args` and report its
    recompilations. RUNS the program. `capture=True` captures its output instead of letting it
    through (tests); `stdout_to_stderr=True` sends what it prints to our stderr, keeping our
    stdout for the report."""
    with tempfile.TemporaryDirectory(prefix="jaxlint-run-") as tmp:
        out = os.path.join(tmp, "record.json")
        command = [sys.executable, "-m", "jaxlint.verify.runharness", "--out", out]
        command += (["--memory-mb", str(int(memory_mb))] if memory_mb else [])
        command += (["--module"] if module else []) + [target] + list(args)
        env = dict(os.environ)
        env["PYTHONPATH"] = _package_root() + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        if memory_mb and "MALLOC_ARENA_MAX" not in env:
            env["MALLOC_ARENA_MAX"] = worker_env()["MALLOC_ARENA_MAX"]

        pipe = subprocess.PIPE if capture else None
        out_stream = pipe
        if not capture and stdout_to_stderr:
            try:
                out_stream = sys.stderr.fileno()
            except (AttributeError, OSError, ValueError):     # a stderr without a descriptor
                out_stream = 2
        # no Python runs between fork and exec (the harness sets its own memory limit), so this
        # is safe even from a process where JAX already started its threads
        with quiet_fork_warning():
            proc = subprocess.Popen(command, cwd=cwd, env=env, start_new_session=True,
                                    stdout=out_stream, stderr=pipe)
        problem = ""
        try:
            output = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            problem = f"the program was stopped after the {timeout:g} s time limit"
            _stop(proc)
            output = proc.communicate()
        except KeyboardInterrupt:           # stop the program, still report what it compiled
            problem = "the program was interrupted (Ctrl-C)"
            _stop(proc)
            output = proc.communicate()
        try:                                # what the program started and left running goes too
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            with open(out) as handle:
                payload = json.load(handle)
        except (OSError, ValueError):
            payload = {"records": [], "exit": proc.returncode, "error": None, "wall_s": 0.0, "script": None}
            problem = problem or f"the program ended without a record (exit status {proc.returncode})"
    report = RunReport(target, payload.get("script"), int(payload.get("exit") or 0), payload.get("error"),
                       float(payload.get("wall_s") or 0.0), problem=problem)
    if proc.returncode and not report.exit:
        report.exit = proc.returncode if proc.returncode > 0 else 128 - proc.returncode
    if capture:
        report.stdout = (output[0] or b"").decode("utf-8", "replace")
        report.stderr = (output[1] or b"").decode("utf-8", "replace")
    build(report, payload.get("records", []))
    return report


def _stop(proc):
    for sig, wait in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def _is_project_file(path: Optional[str]) -> bool:
    if not path or path.startswith("<") or not os.path.exists(path):
        return False
    return "site-packages" not in path and "dist-packages" not in path


def build(report: RunReport, records: list) -> RunReport:
    """Group, explain and cross-reference the recorded traces."""
    everything = records
    records = [r for r in records if r.get("def_file")]      # no definition site: JAX's own helpers
    groups = rc.group(records)
    files = {g.def_file for g in groups} | {r.get("call_file") for r in records}
    if report.script:
        files.add(report.script)
    files = sorted({os.path.realpath(f) for f in files if _is_project_file(f)})
    contexts, findings = {}, []
    for path in files:
        result = lint_file(path)
        findings.extend((path, f) for f in result.findings if recompile_kinds(f.code) is not None)
        try:
            contexts[path] = SourceContext(read_source(path))
        except (OSError, SyntaxError, UnicodeDecodeError):
            pass
    report.findings = [f for _, f in findings]
    used = set()
    for stats in groups:
        fr = FunctionReport(stats)
        parents = {r.get("parent") for r in stats.records}
        if parents and None not in parents:
            first = min(parents)
            outer = everything[first] if first < len(everything) else {}
            fr.nested_in = outer.get("qualname") or outer.get("name") or "?"
        for cause in rc.summarise(stats):
            cr = CauseReport(cause, _line_text(contexts, cause.call_file, cause.call_line))
            for n, (path, finding) in enumerate(findings):
                if cause.kind in recompile_kinds(finding.code) and _predicts(finding, path, cause, stats, contexts):
                    cr.predicted_by.append(finding)
                    used.add(n)
            if not cr.predicted_by:
                report.unpredicted.append(cr)
            fr.causes.append(cr)
        report.functions.append(fr)
    report.unobserved = [(path, f) for n, (path, f) in enumerate(findings) if n not in used]
    return report


def _predicts(finding, path, cause: rc.Cause, stats: rc.FunctionStats, contexts) -> bool:
    ctx = contexts.get(path)
    if cause.call_file and os.path.realpath(cause.call_file) == path and cause.call_line is not None:
        start, end = ctx.statement_span(finding.line) if ctx else (finding.line, finding.line)
        if start <= cause.call_line <= end:
            return True
    if stats.def_file and os.path.realpath(stats.def_file) == path and stats.def_line == finding.line:
        return True
    # jax.jit(fresh function) on one line, called on another (JAX301)
    if finding.code == "JAX301" and stats.def_file and os.path.realpath(stats.def_file) == path:
        name = (finding.function or "").split(".")[-1]
        return bool(name) and name == stats.name
    return False


def _line_text(contexts, path, line) -> str:
    if not path or not line:
        return ""
    ctx = contexts.get(os.path.realpath(path))
    if ctx is None or not 1 <= line <= len(ctx.lines):
        return ""
    return ctx.lines[line - 1].strip()


# -- output ----------------------------------------------------------------------------------------

def _where(path, line) -> str:
    if not path:
        return "?"
    try:
        shown = os.path.relpath(path)
    except ValueError:
        shown = path
    if shown.startswith(".."):
        shown = path
    return f"{shown}:{line}" if line else shown


def format_text(report: RunReport) -> str:
    out = []
    status = f"exit {report.exit}" + (f", {report.error}" if report.error else "")
    out.append(f"jaxlint verify --run {report.target}: {status}, {report.wall_s:.1f} s")
    if report.problem:
        out.append(f"  problem: {report.problem}")
    shown = [f for f in report.functions if not f.nested_in or f.causes]
    if not shown:
        out.append("  no jitted function of the program was traced")
    for fr in shown:
        s = fr.stats
        line = (f"  {s.qualname} ({_where(s.def_file, s.def_line)}): {s.traces} trace"
                f"{'s' if s.traces != 1 else ''}, {fr.compiles} compile{'s' if fr.compiles != 1 else ''}, "
                f"compile time {s.compile_s:.2f} s, trace time {s.trace_s:.2f} s")
        if fr.nested_in:
            line += f" (traced inside `{fr.nested_in}`)"
        out.append(line)
        for cr in fr.causes:
            out.append(f"    recompiled: {cr.cause.text}")
            if cr.source:
                out.append(f"      {cr.cause.call_line:>5} | {cr.source}")
            if cr.predicted_by:
                for f in cr.predicted_by:
                    out.append(f"      predicted by {f.code} at line {f.line}")
            else:
                out.append("      no static finding predicted this recompilation (a rule jaxlint is missing)")
    if report.unobserved:
        out.append("  static findings with no matching recompilation in this run:")
        for path, f in report.unobserved:
            out.append(f"    {_where(path, f.line)}: {f.code} {f.message.splitlines()[0][:120]}")
    total = sum(len(fr.causes) for fr in report.functions)
    recompiles = sum(c.cause.count for fr in report.functions for c in fr.causes)
    predicted = sum(c.cause.count for fr in report.functions for c in fr.causes if c.predicted_by)
    n = len(report.functions)
    out.append(f"summary: {n} traced function{'s' * (n != 1)}, {recompiles} recompilation"
               f"{'s' * (recompiles != 1)} from {total} cause{'s' * (total != 1)}, {predicted} predicted "
               f"by static findings, {recompiles - predicted} not")
    return "\n".join(out)


def to_json(report: RunReport) -> dict:
    def finding(f):
        return {"code": f.code, "line": f.line, "col": f.col, "message": f.message, "detail": f.detail,
                "function": f.function}

    return {
        "target": report.target, "script": report.script, "exit": report.exit, "error": report.error,
        "wall_s": report.wall_s, "problem": report.problem,
        "functions": [{
            "function": fr.stats.qualname, "file": fr.stats.def_file, "line": fr.stats.def_line,
            "traces": fr.stats.traces, "compiles": fr.compiles, "compile_s": round(fr.stats.compile_s, 4),
            "trace_s": round(fr.stats.trace_s, 4), "nested_in": fr.nested_in,
            "recompilations": [{
                "cause": cr.cause.kind, "argument": cr.cause.param, "count": cr.cause.count,
                "file": cr.cause.call_file, "line": cr.cause.call_line, "text": cr.cause.text,
                "source": cr.source, "predicted_by": [finding(f) for f in cr.predicted_by],
            } for cr in fr.causes],
        } for fr in report.functions],
        "unobserved_findings": [dict(finding(f), file=path) for path, f in report.unobserved],
    }
