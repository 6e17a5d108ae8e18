"""`verify_paths`: lint files, evaluate their examples in child processes, judge every finding.

PARENT SIDE: plans one job per file (examples from `# jaxlint-example:` directives, or inputs
synthesized from the source), runs the jobs through the zygote (`supervisor.py`), and turns the
observations into verdicts (`verdicts.py`).
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass, field
from typing import Optional

from jaxlint.engine import lint_file
from jaxlint.verify import recompiles as rc
from jaxlint.verify import supervisor, synth
from jaxlint.verify.context import SourceContext, read_source
from jaxlint.verify.directives import parse_examples, parse_expected_compiles
from jaxlint.verify.verdicts import (CONFIRMED, INCONCLUSIVE, NOT_REPRODUCED, ERROR_CODES, FindingVerdict,
                                     Judge, error_words, is_memory_error, judge_finding)

DEFAULT_TIMEOUT = 60.0
DEFAULT_MEMORY_MB = 2048
EXCLUDED_DIRS = {".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", "build", "dist", "__pycache__",
                 ".mypy_cache", ".pytest_cache", ".ruff_cache", "node_modules", ".eggs", "site-packages"}


@dataclass
class FileVerdicts:
    """The verifier's answer for one file."""

    path: str
    findings: list = field(default_factory=list)      # FindingVerdict, in finding order
    examples: list = field(default_factory=list)      # one dict per evaluated unit
    notes: list = field(default_factory=list)         # {"kind", "text"}: unexplained events, problems
    status: str = "ok"        # ok | skipped | no-examples | import-error | timeout | crashed | memory | lint-error
    seconds: float = 0.0
    compiles: dict = field(default_factory=dict)      # function name -> compiles seen in the examples
    expected_compiles: dict = field(default_factory=dict)
    functions: list = field(default_factory=list)     # recompiles.FunctionStats seen in the examples

    def counts(self) -> dict:
        out = {CONFIRMED: 0, NOT_REPRODUCED: 0, INCONCLUSIVE: 0}
        for v in self.findings:
            out[v.verdict] += 1
        return out


@dataclass
class _Plan:
    path: str
    ctx: SourceContext
    findings: list
    units: list
    finding_units: dict              # finding index -> [unit index]
    no_unit_reason: dict             # finding index -> why no unit
    expected: dict
    job: Optional[dict]
    notes: list
    lint_error: str = ""


def iter_python_files(paths):
    for path in paths:
        if os.path.isdir(path):
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if d not in EXCLUDED_DIRS and not d.endswith(".egg-info"))
                for name in sorted(files):
                    if name.endswith(".py"):
                        yield os.path.join(root, name)
        else:
            yield path


STAGEABLE = {"JAX201", "JAX204", "JAX301", "JAX302", "JAX303", "JAX304"}
NEEDS_A_CALL = {
    "JAX106": "JAX106 compares the results of a real call under jit and eagerly; add an example",
    "JAX202": "the error is raised by a call in your code; add an example that makes it, or use `--run`",
    "JAX203": "the error is raised where jax.jit is applied; add an example that reaches it",
}


def _note(kind: str, text: str) -> dict:
    return {"kind": kind, "text": text}


def _module_name(index: int, path: str) -> str:
    stem = re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0])
    return f"_jaxlint_verify_{index}_{stem}"


def plan_file(index: int, path: str, compare_eager: bool = False, lint=None) -> _Plan:
    notes = []
    try:
        text = read_source(path)
    except (OSError, SyntaxError, UnicodeDecodeError) as exc:
        return _Plan(path, SourceContext(""), [], [], {}, {}, {}, None, notes, f"cannot read: {exc}")
    ctx = SourceContext(text)
    result = (lint or lint_file)(path)
    if result.error or result.internal_error:
        return _Plan(path, ctx, [], [], {}, {}, {}, None, notes, result.error or result.internal_error)
    findings = list(result.findings)
    units = []
    for example in parse_examples(text):
        if example.error:
            notes.append(_note("problem", f"line {example.line}: {example.error}"))
        else:
            units.append({"kind": "example", "line": example.line, "expr": example.expr})
    finding_units, no_unit_reason = {}, {}
    if units:
        for i in range(len(findings)):
            finding_units[i] = list(range(len(units)))
    else:
        made = {}
        for i, finding in enumerate(findings):
            if finding.code in NEEDS_A_CALL:
                no_unit_reason[i] = f"no `# jaxlint-example:` in the file: {NEEDS_A_CALL[finding.code]}"
                continue
            if finding.code not in ERROR_CODES and finding.code not in ("JAX107", "JAX302"):
                continue
            target = finding.entry or finding.function
            wanted = tuple(p for p in (finding.param or "").split(",") if p)
            key = (target, wanted)
            if key not in made:
                exprs, reason = synth.synthesize(ctx, target, wanted) if target else ([], "no traced function")
                made[key] = ([], reason)
                for expr in exprs:
                    made[key][0].append(len(units))
                    units.append({"kind": "synth", "line": 1, "expr": expr, "target": target})
            finding_units[i], reason = made[key]
            if not finding_units[i]:
                no_unit_reason[i] = (f"no `# jaxlint-example:` in the file, and no inputs could be built: "
                                     f"{reason}")
    codes = {f.code for f in findings}
    # line coverage (about 30% slower evaluation) only serves verdicts: skip it without findings
    probes = {"second_run": "JAX107" in codes, "eager": compare_eager or "JAX106" in codes,
              "jaxpr": "JAX302" in codes, "coverage": bool(findings),
              # recompilation rules need traces, not compiled code: stage the example with
              # make_jaxpr (no XLA compile; an unrolled graph is exactly what compiles slowly) and
              # run it for real only when it cannot be staged (it needs concrete values)
              "stage_first": bool(codes) and codes <= STAGEABLE}
    job = None
    if units or "JAX203" in codes:
        job = {"id": index, "path": os.path.abspath(path), "module": _module_name(index, path),
               "units": units, "probes": probes}
    return _Plan(path, ctx, findings, units, finding_units, no_unit_reason,
                 parse_expected_compiles(text), job, notes)


def _stop_reason(outcome, plan: _Plan, memory_mb: int) -> tuple:
    """(status, reason) for a child that did not finish normally, else ("ok", "")."""
    exit_ = outcome.exit or {}
    done = any(e.get("event") == "done" for e in outcome.events)
    starts = outcome.of("unit_start")
    where = "while importing the module"
    if starts:
        unit = plan.units[starts[-1]["unit"]]
        where = (f"while evaluating the example at line {unit['line']}" if unit["kind"] == "example"
                 else f"while evaluating `{unit['expr'][:80]}`")
    internal = outcome.of("internal")
    if internal:
        if internal[-1].get("memory"):
            return "memory", f"exceeded the memory limit ({memory_mb} MB) {where}"
        last = (internal[-1].get("error") or "").strip().splitlines()[-1:] or ["?"]
        return "crashed", f"internal error in the verifier {where}: {last[0]}"
    status = exit_.get("status")
    if status == "timeout":
        return "timeout", f"timed out after {exit_.get('limit', 0):g} s {where}"
    if status == "signal":
        tail = (exit_.get("log_tail") or "").strip().splitlines()[-1:]
        hint = (f" (a native crash, or the {memory_mb} MB memory limit)"
                if exit_.get("signal") in ("SIGKILL", "SIGABRT", "SIGSEGV", "SIGBUS") else "")
        return "crashed", (f"the child process was killed by {exit_.get('signal')}{hint} {where}"
                           + (f": {tail[0][:160]}" if tail else ""))
    if status == "lost":
        return "crashed", exit_.get("detail", "the verifier worker stopped")
    if not done:
        return "crashed", f"the child process exited (code {exit_.get('code')}) {where} before finishing"
    return "ok", ""


def judge_file(plan: _Plan, outcome, memory_mb: int = DEFAULT_MEMORY_MB) -> FileVerdicts:
    fv = FileVerdicts(plan.path, notes=list(plan.notes), expected_compiles=dict(plan.expected))
    if plan.lint_error:
        fv.status = "lint-error"
        fv.notes.append(_note("problem", plan.lint_error))
        return fv
    judge = Judge(plan.ctx, os.path.abspath(plan.path))
    if outcome is None:
        fv.status = "skipped" if not plan.findings else "no-examples"
        for i, finding in enumerate(plan.findings):
            fv.findings.append(judge_finding(judge, finding, [], {}, "", None, plan.no_unit_reason.get(i, "")))
        return fv
    fv.seconds = float(outcome.exit.get("seconds") or 0.0)
    status, stop = _stop_reason(outcome, plan, memory_mb)
    fv.status = status
    imported = outcome.of("import")
    import_error = None
    if imported and not imported[0].get("ok"):
        import_error = imported[0].get("error") or {}
        if is_memory_error(import_error):
            fv.status, stop = "memory", f"importing the module exceeded the memory limit ({memory_mb} MB): " \
                                        f"{error_words(import_error)}"
            import_error = None
        else:
            fv.status = "import-error"
    elif not imported and not stop:
        stop = "the module was never imported"
    observations = {e["unit"]: e for e in outcome.of("unit")}
    for i, finding in enumerate(plan.findings):
        indexes = plan.finding_units.get(i, [])
        units = [plan.units[k] for k in indexes]
        obs = {n: observations[k] for n, k in enumerate(indexes) if k in observations}
        if fv.status == "memory" and import_error is None and not observations:
            fv.findings.append(FindingVerdict(finding, INCONCLUSIVE, stop))
            continue
        fv.findings.append(judge_finding(judge, finding, units, obs, stop, import_error,
                                         plan.no_unit_reason.get(i, "")))
    if stop and not plan.findings:
        fv.notes.append(_note("problem", stop))
    _describe_units(fv, plan, observations, judge)
    return fv


def _describe_units(fv: FileVerdicts, plan: _Plan, observations: dict, judge: Judge):
    """Per-example summaries, and the events no finding explains (possible missed rules)."""
    finding_lines = {(f.line, f.code) for f in plan.findings}
    records = []
    for index, unit in enumerate(plan.units):
        obs = observations.get(index)
        entry = {"kind": unit["kind"], "line": unit["line"], "expr": unit["expr"],
                 "evaluated": obs is not None}
        if obs is None:
            fv.examples.append(entry)
            continue
        err = obs.get("error")
        entry.update(ok=bool(obs.get("ok")), seconds=obs.get("seconds"),
                     error=({"type": err.get("type"), "line": err.get("line"), "message": err.get("message", "")[:500]}
                            if err else None))
        if "eager" in obs:
            entry["jit_equals_eager"] = obs["eager"].get("same")
        if unit["kind"] != "example":
            fv.examples.append(entry)
            continue
        explained = {}
        for finding in plan.findings:
            state, _, evidence = judge.check(finding, unit, obs)
            if state == "confirmed":
                explained[finding.code] = evidence
        label = f"the example at line {unit['line']}"
        if err and not any(code in ERROR_CODES for code in explained):
            fv.notes.append(_note("error", f"{label} raised {error_words(err)}, and no finding explains it "
                                           f"(a missed rule, or an example that does not work)"))
        for line, text in obs.get("writes", []):
            if line and "Tracer" in text and (line, "JAX107") not in finding_lines:
                fv.notes.append(_note("tracer", f"{label} printed a tracer from line {line} "
                                                f"(`{text.strip()[:60]}`), and no JAX107 finding is there"))
                break
        eager = obs.get("eager")
        if eager and eager.get("same") is False and "JAX106" not in explained:
            fv.notes.append(_note("eager", f"{label} gives a different result under jit than under "
                                           f"jax.disable_jit() ({eager['detail']}), and no JAX106 finding "
                                           f"explains it"))
        in_file = judge.in_file(obs.get("traces", []))
        records.extend(in_file)
        predicted = {e.get("function") for e in explained.values() if e.get("function")}
        unit_stats = rc.group(in_file)
        entry["compiles"] = {s.qualname: s.traces for s in unit_stats}
        for stats in unit_stats:
            if rc.top_level(stats) and stats.qualname not in predicted:
                causes = "; ".join(c.text for c in rc.summarise(stats))
                fv.notes.append(_note("recompile", f"{label}: `{stats.qualname}` (line {stats.def_line}) "
                                                   f"compiled {stats.traces} times and no finding predicted "
                                                   f"it: {causes}"))
        fv.examples.append(entry)
    fv.functions = rc.group(records)
    for stats in fv.functions:
        fv.compiles[stats.name] = fv.compiles.get(stats.name, 0) + stats.traces
    for name, expected in fv.expected_compiles.items():
        seen = fv.compiles.get(name, 0)
        if seen != expected:
            fv.notes.append(_note("expected-compiles", f"expected {expected} compiles of `{name}`, saw {seen}"))


def verify_paths(paths, timeout: float = DEFAULT_TIMEOUT, memory_mb: int = DEFAULT_MEMORY_MB,
                 jobs: Optional[int] = None, compare_eager=False, progress=None,
                 files_per_process: int = 1, lint=None) -> list:
    """Verify every finding in `paths` (files or folders). RUNS the files' code in child
    processes (one per file; `files_per_process` > 1 shares a child among that many files, see
    supervisor.run_jobs). `compare_eager` (a bool, or a function of the path) also runs every
    example under jax.disable_jit() and compares. `progress(done, total, path)` is called as
    files finish. `lint(path)` -> FileResult gives the findings (default: the engine's)."""
    files = list(iter_python_files(paths))
    eager = compare_eager if callable(compare_eager) else (lambda _path: bool(compare_eager))
    plans = [plan_file(i, path, eager(path), lint) for i, path in enumerate(files)]
    job_list = [p.job for p in plans if p.job is not None]
    total = len(job_list)
    done = [0]

    def on_exit(outcome):
        done[0] += 1
        if progress is not None:
            progress(done[0], total, outcome.job["path"])

    workers = jobs or max(1, min(os.cpu_count() or 1, total or 1))
    outcomes = {}
    if job_list:
        with tempfile.TemporaryDirectory(prefix="jaxlint-verify-") as cache_dir:
            for job in job_list:
                job["cache_dir"] = cache_dir
            outcomes = supervisor.run_jobs(job_list, workers, timeout, memory_mb, on_exit,
                                           per_process=files_per_process)
    return [judge_file(p, outcomes.get(p.job["id"]) if p.job else None, memory_mb) for p in plans]
