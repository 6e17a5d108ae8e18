"""One file in, sorted findings out: source -> parse -> analysis -> rules -> noqa -> findings.

The engine knows nothing about flake8, terminals or output formats. Errors are results: a file
that cannot be read or parsed yields a FileResult with `error`; a bug in jaxlint on one file
yields `internal_error`, and every other file is still linted.
"""

from __future__ import annotations

import ast
import re
import traceback
from typing import Optional

from jaxlint import __version__, deepstack
from jaxlint.analysis.crossmodule import calls_project_jit
from jaxlint.analysis.incoming import incoming_calls
from jaxlint.analysis.file import Analysis
from jaxlint.findings import FileResult, Finding
from jaxlint.rules import all_rules
from jaxlint.rules.base import apply_precedence
from jaxlint.source import ParsedModule, SourceError, load, mentions_jax, parse, paused_gc, read_file

ISSUE_URL = "https://github.com/jaxlint/jaxlint/issues"


# -- suppression ---------------------------------------------------------------------------------

_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)


def noqa_codes(line: str):
    """None: no noqa; empty set: blanket noqa; else the codes listed."""
    match = _NOQA.search(line)
    if match is None:
        return None
    codes = match.group("codes")
    if not codes:
        return set()
    return {c.upper() for c in re.split(r"[,\s]+", codes) if c}


# A whole file: flake8's own comment (matched as flake8 matches it: at the start of a line, codes
# or not), and jaxlint's, `# jaxlint: noqa` or `# jaxlint: noqa: JAX101,JAX202` on a line of its own.
_FLAKE8_FILE = re.compile(r"\s*# flake8[:=]\s*noqa", re.IGNORECASE)
_JAXLINT_FILE = re.compile(r"\s*#\s*jaxlint:\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]*(?:[,\s]+[A-Z]+[0-9]*)*))?"
                           r"\s*$", re.IGNORECASE)


def file_noqa(lines: list):
    """None: the file is not suppressed as a whole; an empty set: every code; else the code
    prefixes that `# jaxlint: noqa: CODES` lines suppress in the whole file."""
    codes = None
    if "noqa" not in "\n".join(lines).lower():
        return None             # one pass in C over the text instead of one call per line
    for line in lines:
        if "noqa" not in line.lower():
            continue
        if _FLAKE8_FILE.match(line):
            return set()
        match = _JAXLINT_FILE.match(line)
        if match:
            if not match.group("codes"):
                return set()
            codes = (codes or set()) | {c.upper() for c in re.split(r"[,\s]+", match.group("codes")) if c}
    return codes


def file_suppressed(finding: Finding, codes) -> bool:
    return codes is not None and (not codes or any(finding.code.startswith(c) for c in codes))


def suppressed(finding: Finding, lines: list) -> bool:
    if not 1 <= finding.line <= len(lines):
        return False
    codes = noqa_codes(lines[finding.line - 1])
    if codes is None:
        return False
    return not codes or any(finding.code.startswith(c) for c in codes)


# -- the pipeline -------------------------------------------------------------------------------

def analyse_tree(tree: ast.Module, path: str = "<unknown>", config=None, rules=None, lines=None,
                 notes: Optional[list] = None, project=None, externals=(),
                 outgoing: Optional[list] = None, depends: Optional[dict] = None) -> list:
    """Run every rule over one parsed module; findings deduplicated and sorted.

    `externals`: other modules' traced calls into this one (None: found by reading the files
    importing it, for a file linted alone);
    `lines` (the source lines) lets the analysis skip statements that cannot hold a jit site;
    `notes` collects what a user may want to know under --verbose (an exhausted budget)."""
    if externals is None:       # a file linted alone: the calls its importers' traces make into it
        externals = incoming_calls(project, path, config, depends) if project is not None else ()
    analysis = Analysis(tree, path, config, lines, project=project, externals=externals)
    if outgoing is not None:
        outgoing.extend(analysis.outgoing)
    if analysis.budget_exhausted and notes is not None:
        notes.append("analysis budget exhausted: functions after the budget ran out were not analysed")
    findings = []
    seen = set()
    rules = list(rules) if rules is not None else all_rules()
    try:
        for rule in rules:
            for finding in rule.check(analysis):
                key = (finding.line, finding.col, finding.code)
                if key not in seen:
                    seen.add(key)
                    findings.append(finding)
        if notes is not None:
            notes.extend(analysis.notes)
        if depends is not None:
            depends.update(analysis.all_depends())
    finally:
        analysis.release()
    findings = apply_precedence(findings, rules)
    findings.sort(key=Finding.sort_key)
    return findings


def lint_source(text: str, path: str = "<unknown>", config=None, rules=None,
                honour_noqa: bool = True, project=None) -> FileResult:
    """`project`: the project the file at `path` belongs to (calls of other modules' jitted
    functions are then checked too); None: the text alone."""
    result = FileResult(path=path)
    try:
        parsed = parse(text, path)
    except SourceError as exc:
        result.error, result.error_line, result.error_col = exc.message, exc.line, exc.col
        return result
    return _lint_parsed(parsed, result, config, rules, honour_noqa, project)


def lint_file(path: str, config=None, rules=None, data: Optional[bytes] = None,
              honour_noqa: bool = True, project=None, externals=()) -> FileResult:
    """`project` (project.Project): follow traces into the project's other modules (the calls
    are in the result's `outgoing`); `externals`: other modules' calls into this one."""
    with paused_gc():       # parse + analysis without cyclic GC passes: see source.paused_gc
        return _lint_file(path, config, rules, data, honour_noqa, project, externals)


def _lint_file(path, config, rules, data, honour_noqa, project=None, externals=()) -> FileResult:
    result = FileResult(path=path)
    try:
        if data is None:
            data = read_file(path)
        force = bool(externals) or (project is not None and not mentions_jax(data, config)
                                    and calls_project_jit(project, path, data, config, result.depends))
        parsed = load(path, data, config, force=force)
    except SourceError as exc:
        result.error, result.error_line, result.error_col = exc.message, exc.line, exc.col
        return result
    except Exception as exc:  # noqa: BLE001 - never let one file take the run down
        result.internal_error = internal_error_text(path, exc)
        return result
    if parsed is None:
        return result
    return _lint_parsed(parsed, result, config, rules, honour_noqa, project, externals)


def _lint_parsed(parsed: ParsedModule, result: FileResult, config, rules, honour_noqa, project=None,
                 externals=()) -> FileResult:
    try:
        findings = deepstack.call(analyse_tree, parsed.tree, result.path, config, rules, parsed.lines,
                                  result.notes, project, externals, result.outgoing, result.depends)
    except RecursionError:
        result.notes.append("nested too deeply to analyse; skipped")
        return result
    except Exception as exc:  # noqa: BLE001 - one file's internal error must not stop the others
        result.internal_error = internal_error_text(result.path, exc)
        return result
    if honour_noqa:
        whole = file_noqa(parsed.lines)
        findings = [f for f in findings
                    if not suppressed(f, parsed.lines) and not file_suppressed(f, whole)]
    result.findings = findings
    return result


def internal_error_text(path: str, exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" at {frames[-1].name}:{frames[-1].lineno}" if frames else ""
    detail = " ".join(str(exc).split())        # one line, whatever the exception's text holds
    if len(detail) > 200:
        detail = detail[:200] + "..."
    return (f"internal error in jaxlint {__version__} while analysing {path}: "
            f"{type(exc).__name__}: {detail}{where}. Please report it at {ISSUE_URL} with the file.")
