"""`verify_paths`: lint files, run the code that reaches each finding in child processes, judge.

PARENT SIDE: plans one job per file (`plan.py`: the file's examples, the program's own code,
guessed calls), runs the jobs through the zygote (`supervisor.py`), and turns the observations
into verdicts (`verdicts.py`).
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from typing import Optional

from jaxlint.verify import recompiles as rc
from jaxlint.verify import supervisor
from jaxlint.verify.plan import Plan, note, plan_file
from jaxlint.verify.checks import LATE_ERROR_CODES, short_name
from jaxlint.verify.verdicts import (CONFIRMED, ERROR_CODES, GUESSED, INCONCLUSIVE, NOT_REPRODUCED,
                                     FindingVerdict, Judge, error_words, is_memory_error, judge_finding,
                                     recompile_kinds)

DEFAULT_TIMEOUT = 60.0
DEFAULT_MEMORY_MB = 2048
EXCLUDED_DIRS = {".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", "build", "dist", "__pycache__",
                 ".mypy_cache", ".pytest_cache", ".ruff_cache", "node_modules", ".eggs", "site-packages"}
IMPORT_UNIT = {"kind": "import", "basis": "program", "label": "importing the module"}


@dataclass
class FileVerdicts:
    """The verifier's answer for one file."""

    path: str
    findings: list = field(default_factory=list)      # FindingVerdict, in finding order
    examples: list = field(default_factory=list)      # one dict per evaluated unit
    notes: list = field(default_factory=list)         # {"kind", "text"}: unexplained events, problems
    status: str = "ok"        # ok | skipped | no-examples | import-error | timeout | crashed | memory | lint-error
    seconds: float = 0.0                              # wall time of the child, JAX already imported
    cpu_seconds: float = 0.0                          # its CPU time (steady on a loaded machine)
    compiles: dict = field(default_factory=dict)      # function name -> compiles seen in the examples
    expected_compiles: dict = field(default_factory=dict)
    functions: list = field(default_factory=list)     # recompiles.FunctionStats seen in the examples
    error: Optional[dict] = None                      # {"code", "line", "col", "message"}: not verified
    content: bytes = field(default=b"", repr=False)   # the bytes verified (keys the verdict store)

    def counts(self) -> dict:
        out = {CONFIRMED: 0, GUESSED: 0, NOT_REPRODUCED: 0, INCONCLUSIVE: 0}
        for v in self.findings:
            out[v.verdict] += 1
        return out


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


def _stop_reason(outcome, plan: Plan, memory_mb: int) -> tuple:
    """(status, reason) for a child that did not finish normally, else ("ok", "")."""
    exit_ = outcome.exit or {}
    done = any(e.get("event") == "done" for e in outcome.events)
    starts = outcome.of("unit_start")
    where = "while importing the module"
    if starts:
        where = f"while running the {Judge.unit_label(plan.units[starts[-1]['unit']])}"
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


def judge_file(plan: Plan, outcome, memory_mb: int = DEFAULT_MEMORY_MB) -> FileVerdicts:
    fv = FileVerdicts(plan.path, notes=list(plan.notes), expected_compiles=dict(plan.expected),
                      content=plan.content)
    if plan.lint_error:
        fv.status = "lint-error"
        fv.error = plan.error
        return fv
    judge = Judge(plan.ctx, os.path.abspath(plan.path))
    if outcome is None:
        fv.status = "skipped" if not plan.findings else "no-examples"
        for i, finding in enumerate(plan.findings):
            fv.findings.append(_hinted(judge_finding(judge, finding, [], "", None, plan.no_unit_reason.get(i, "")),
                                       plan.hints.get(i)))
        return fv
    fv.seconds = float(outcome.exit.get("seconds") or 0.0)
    fv.cpu_seconds = float(outcome.exit.get("cpu") or 0.0)
    status, stop = _stop_reason(outcome, plan, memory_mb)
    fv.status = status
    imports, observations, lost = _collect(outcome)
    import_error = None
    if imports and not imports[0].get("ok"):
        import_error = imports[0].get("error") or {}
        if is_memory_error(import_error):
            fv.status, stop = "memory", f"importing the module exceeded the memory limit ({memory_mb} MB): " \
                                        f"{error_words(import_error)}"
            import_error = None
        else:
            fv.status = "import-error"
    elif not imports and not stop:
        stop = "the module was never imported"
    for index, event in lost.items():
        unit = plan.units[index]
        if event.get("status") == "timeout":
            text = f"the {Judge.unit_label(unit)} timed out after {event.get('limit', 0):g} s"
        else:
            text = f"the {Judge.unit_label(unit)} killed its process ({event.get('signal') or event.get('status')})"
        fv.notes.append(note("problem", text + "; the file's other runs went on in a fresh process"))
    for i, finding in enumerate(plan.findings):
        runs = [(IMPORT_UNIT, imports[0])] if imports and imports[0].get("ok") else []
        runs += [(plan.units[k], observations.get(k)) for k in plan.finding_units.get(i, [])]
        reason = stop or "; ".join(n["text"] for n in fv.notes if n["kind"] == "problem"
                                   and any(f"the {Judge.unit_label(plan.units[k])}" in n["text"]
                                           for k in plan.finding_units.get(i, [])))
        if fv.status == "memory" and import_error is None and not observations:
            fv.findings.append(FindingVerdict(finding, INCONCLUSIVE, stop))
            continue
        fv.findings.append(_hinted(judge_finding(judge, finding, runs, reason, import_error,
                                                 plan.no_unit_reason.get(i, "")), plan.hints.get(i)))
    if stop:
        # said even when earlier runs confirmed findings: a crash must not go unnoticed
        fv.notes.append(note("problem", stop))
    _describe_units(fv, plan, observations, judge)
    return fv


def _hinted(verdict: FindingVerdict, hint) -> FindingVerdict:
    """A verdict that did not settle the finding, or settled it only on guessed inputs, with what
    would run the program's own (`--main`)."""
    if hint and verdict.basis != "program" and (verdict.verdict != CONFIRMED or verdict.basis == "guessed"):
        verdict.reason = f"{verdict.reason} ({hint})"
    return verdict


def _collect(outcome) -> tuple:
    """(import observations, {unit: observation}, {unit: lost event}) with, on each unit's
    observation, the traces and jitted calls its process made before it (`_prior_traces`,
    `_prior_calls`): whether a call compiles again depends on what ran earlier."""
    imports, observations, lost = [], {}, {}
    traces, calls = [], []
    for event in outcome.events:
        kind = event.get("event")
        if kind == "import":
            imports.append(event)
            traces = list(event.get("traces", []))        # a fresh process (a resumed job)
            calls = list(event.get("calls", []))
        elif kind == "unit":
            event["_prior_traces"], event["_prior_calls"] = list(traces), list(calls)
            observations[event["unit"]] = event
            traces += event.get("traces", [])
            calls += event.get("calls", [])
        elif kind == "unit_lost":
            lost[event["unit"]] = event
    return imports, observations, lost


def _describe_units(fv: FileVerdicts, plan: Plan, observations: dict, judge: Judge):
    """Per-unit summaries, and the events no finding explains (possible missed rules)."""
    finding_lines = {(f.line, f.code) for f in plan.findings}
    records, example_records = [], []
    for index, unit in enumerate(plan.units):
        obs = observations.get(index)
        entry = {"kind": unit["kind"], "basis": unit.get("basis"), "line": unit.get("line"),
                 "expr": unit.get("expr", ""), "label": Judge.unit_label(unit), "evaluated": obs is not None}
        if obs is None:
            fv.examples.append(entry)
            continue
        err = obs.get("error")
        entry.update(ok=bool(obs.get("ok")), seconds=obs.get("seconds"), staged=bool(obs.get("staged")),
                     error=({"type": err.get("type"), "line": err.get("line"), "message": err.get("message", "")[:500]}
                            if err else None))
        if obs.get("stopped"):
            entry["stopped"] = obs["stopped"]
        if obs.get("why_real"):
            entry["why_real"] = obs["why_real"]
        eager = [c["eager"] for c in obs.get("calls", []) if c.get("eager") and "same" in c["eager"]]
        if eager and all(e.get("same") is not None for e in eager):
            entry["jit_equals_eager"] = all(e["same"] for e in eager)
        if unit.get("basis") == "guessed":
            fv.examples.append(entry)
            continue
        explained, predicted, failed = {}, set(), set()
        for finding in plan.findings:
            state, _, evidence = judge.check(finding, unit, obs)
            if state == "confirmed":
                explained[finding.code] = evidence
                if finding.code in ERROR_CODES:     # its last trace raised the predicted error
                    failed.add(short_name(finding.entry or finding.function))
            if state in ("confirmed", "weak") and recompile_kinds(finding.code) is not None:
                predicted.add(short_name(finding.function))
        label = f"the {Judge.unit_label(unit)}"
        if err and not any(code in ERROR_CODES or code in LATE_ERROR_CODES for code in explained):
            fv.notes.append(note("error", f"{label} raised {error_words(err)}, and no finding explains it "
                                          f"(a missed rule, or an example that does not work)"))
        writes = obs.get("writes", [])
        if obs.get("staged"):       # staged: only what jitted calls printed is the program's
            writes = [w for c in obs.get("calls", []) if c.get("writes") for w in writes[c["writes"][0]:c["writes"][1]]]
        for line, text in writes:
            if line and "Tracer" in text and (line, "JAX107") not in finding_lines:
                fv.notes.append(note("tracer", f"{label} printed a tracer from line {line} "
                                               f"(`{text.strip()[:60]}`), and no JAX107 finding is there"))
                break
        for call in obs.get("calls", []):
            eager_result = call.get("eager") or {}
            if eager_result.get("same") is False and "JAX106" not in explained:
                fv.notes.append(note("eager", f"{label}: `{call['function']}` gives a different result under "
                                              f"jit than under jax.disable_jit() ({eager_result['detail']}), and no "
                                              f"JAX106 finding explains it"))
                break
        in_file = judge.in_file(obs.get("traces", []))
        records.extend(in_file)
        if unit["kind"] == "example":
            example_records.extend(in_file)
        predicted |= {short_name(e.get("function")) for e in explained.values() if e.get("function")}
        unit_stats = rc.group(in_file)
        entry["compiles"] = {s.qualname: s.traces for s in unit_stats}
        for stats in unit_stats:
            if short_name(stats.qualname) in failed and stats.traces <= 2:
                continue            # one trace, then one that raised: no second program
            if rc.top_level(stats) and short_name(stats.qualname) not in predicted:
                causes = "; ".join(c.text for c in rc.summarise(stats))
                fv.notes.append(note("recompile", f"{label}: `{stats.qualname}` (line {stats.def_line}) "
                                                  f"compiled {stats.traces} times and no finding predicted "
                                                  f"it: {causes}"))
        fv.examples.append(entry)
    # the fixtures' `# expected compiles:` are about their examples; without examples, every run
    fv.functions = rc.group(example_records if any(u["kind"] == "example" for u in plan.units) else records)
    for stats in fv.functions:
        fv.compiles[stats.name] = fv.compiles.get(stats.name, 0) + stats.traces
    for name, expected in fv.expected_compiles.items():
        seen = fv.compiles.get(name, 0)
        if seen != expected:
            fv.notes.append(note("expected-compiles", f"expected {expected} compiles of `{name}`, saw {seen}"))


def verify_paths(paths, timeout: float = DEFAULT_TIMEOUT, memory_mb: int = DEFAULT_MEMORY_MB,
                 jobs: Optional[int] = None, compare_eager=False, progress=None,
                 files_per_process: int = 1, lint=None, directives: bool = True, main: bool = False) -> list:
    """Verify every finding in `paths` (files or folders). RUNS the files' code in child
    processes (one per file; `files_per_process` > 1 shares a child among that many files, see
    supervisor.run_jobs). `compare_eager` (a bool, or a function of the path) also runs every
    jitted call under jax.disable_jit() and compares. `directives=False` ignores the files'
    `# jaxlint-example:` lines; `main=True` lets the `if __name__ == "__main__":` blocks run.
    `progress(done, total, path)` is called as files finish. `lint(path)` -> FileResult gives
    the findings (default: the engine's)."""
    files = list(iter_python_files(paths))
    eager = compare_eager if callable(compare_eager) else (lambda _path: bool(compare_eager))
    # a unit's soft budget: its next jitted call after that ends it (a long training loop)
    budget = max(1.0, timeout / 2)
    plans = [plan_file(i, path, eager(path), lint, directives=directives, main=main, budget=budget)
             for i, path in enumerate(files)]
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
