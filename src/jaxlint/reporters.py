"""Output formats: text for people, JSON for scripts, SARIF for code scanning, GitHub annotations.

Every format reads the same flattened items, so a finding (and a notebook's cell location) means
the same thing everywhere. The JSON layout is a public interface: see "JSON output" in the
README; add fields freely, never rename or remove one without bumping SCHEMA_VERSION.
"""

from __future__ import annotations

import json
import os
import textwrap
from collections import Counter
from dataclasses import dataclass
from typing import Optional

from jaxlint import __version__
from jaxlint.findings import Finding

SCHEMA_VERSION = 1
FORMATS = ("text", "json", "sarif", "github")
DOCS_URL = "https://github.com/jaxlint/jaxlint/blob/main/docs/rules.md"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


@dataclass(frozen=True)
class Item:
    """A finding or a file error at a place. `line` is 1-based (within the cell for notebooks:
    `cell` is the 1-based cell number), `column` 1-based."""

    path: str
    line: int
    column: int
    code: str
    message: str
    cell: Optional[int] = None
    cell_id: str = ""
    finding: Optional[Finding] = None
    detail: str = ""            # the finding's detail (Finding.detail), cells named as in `message`

    @property
    def location(self) -> str:
        if self.line == 0:              # no position: a file that cannot be read (E902)
            return self.path
        cell = f"cell_{self.cell}:" if self.cell is not None else ""
        return f"{self.path}:{cell}{self.line}:{self.column}"


def collect(reports):
    """FileReports -> (findings, errors), findings filtered by each file's selection."""
    findings, errors = [], []
    for report in reports:
        res, cells = report.result, report.cells
        where = (lambda line: cells.locate(line)) if cells else (lambda line: (None, "", line))
        if report.io_error:
            errors.append(Item(report.path, 0, 1, "E902", report.io_error))
        if res.error:
            cell, cell_id, line = where(res.error_line)
            message = cells.relabel(res.error) if cells else res.error
            errors.append(Item(report.path, line, res.error_col + 1, "E999", message, cell, cell_id))
        if res.internal_error:
            errors.append(Item(report.path, 1, 1, "JAX000", res.internal_error))
        for f in res.findings:
            if report.config.enabled(f.code, report.path):
                cell, cell_id, line = where(f.line)
                message = cells.relabel(f.message) if cells else f.message
                detail = cells.relabel(f.detail) if cells and f.detail else f.detail
                findings.append(Item(report.path, line, f.col + 1, f.code, message, cell,
                                     cell_id, f, detail))
    return findings, errors


def rule(code: str):
    """The rule class for a code, or None. Imported late: the plain text report needs no rule
    metadata, and importing every rule is most of a warm run's start-up."""
    from jaxlint.rules import BY_CODE
    return BY_CODE.get(code)


def all_rules() -> tuple:
    from jaxlint.rules import RULES
    return RULES


def docs_url(code: str) -> str:
    """The rule's section of docs/rules.md (the reference for an unknown code)."""
    found = rule(code)
    return f"{DOCS_URL}#{found.code.lower()}-{found.name}" if found else DOCS_URL


def rule_name(code: str) -> str:
    found = rule(code)
    return found.name if found else ""


def statistics(findings) -> list:
    """[(count, code, name, fixable)], most frequent first."""
    counts = Counter(item.code for item in findings)
    fixable = {item.code for item in findings if item.finding and item.finding.fix}
    return sorted(((n, code, rule_name(code), code in fixable) for code, n in counts.items()),
                  key=lambda row: (-row[0], row[1]))


# -- text -----------------------------------------------------------------------------------------

def text(findings, errors, colour: bool = False, sources: Optional[dict] = None) -> str:
    """`path:line:col: CODE message` per item; with `sources` ({path: spans.Spans}), the
    offending line follows each, a caret under what the finding points at, the finding's detail
    (the path of the value, what JAX does, the fix) and its automatic fix."""
    bold, red, reset = ("\x1b[1m", "\x1b[1;31m", "\x1b[0m") if colour else ("", "", "")
    out = []
    for item in [e for e in errors if e.code == "E999"] + list(findings):
        out.append(f"{bold}{item.location}{reset}: {red}{item.code}{reset} {item.message}\n")
        if sources is not None:
            spans = sources.get(item.path)
            excerpt = _excerpt(item, spans, red, reset) if spans is not None else ""
            out.append(excerpt or (_detail_lines(item.detail, "") + "\n" if item.detail else ""))
    return "".join(out)


def _detail_lines(detail: str, pad: str) -> str:
    """A finding's detail under its source line, wrapped: ` = note: ...` then indented lines."""
    head, rest = f" {pad} = note: ", f" {pad}         "
    lines = textwrap.wrap(detail, width=max(100 - len(head), 40), break_long_words=False,
                          break_on_hyphens=False)
    return "".join((head if i == 0 else rest) + line + "\n" for i, line in enumerate(lines))


def _excerpt(item: Item, spans, red: str, reset: str) -> str:
    """The source line of `item` with a gutter and carets, and its fix when it has one. The line
    is the analysed text's (a notebook's joined cells); its number is the one printed above."""
    if item.finding is not None:
        line, byte_col = item.finding.line, item.finding.col
    elif item.cell is None:
        line, byte_col = item.line, item.column - 1
    else:
        return ""
    raw = spans.line(line)
    if not raw and not 1 <= line <= len(spans.lines):
        return ""
    start, end = spans.span(line, byte_col)
    raw = raw.rstrip("\r\n")
    number = str(item.line)
    pad = " " * len(number)
    under = "".join(c if c == "\t" else " " for c in raw[:start]) + "^" * max(end - start, 1)
    lines = [f" {pad} |", f" {number} | {raw}", f" {pad} | {red}{under}{reset}"]
    if item.detail:
        lines += _detail_lines(item.detail, pad).splitlines()
    fix = item.finding.fix if item.finding is not None else None
    if fix is not None:
        lines.append(f" {pad} = fix ({'safe' if fix.safe else 'unsafe, --unsafe-fixes'}): "
                     f"{_short(fix)}")
    return "".join(line + "\n" for line in lines) + "\n"


def _short(fix) -> str:
    """A fix's description without the `(unsafe: why)` its safety label already says."""
    tail = f" (unsafe: {fix.why_unsafe})"
    return fix.description[:-len(tail)] if fix.why_unsafe and fix.description.endswith(tail) \
        else fix.description


def fixable_line(findings, unchecked: int = 0) -> str:
    """`[*] 2 fixable with --fix (1 more with --unsafe-fixes).`, or "" when none is; and how
    many findings were not checked for a fix (files with too many: see runner.CHECK_LIMIT)."""
    safe = sum(1 for f in findings if f.finding and f.finding.fix and f.finding.fix.safe)
    unsafe = sum(1 for f in findings if f.finding and f.finding.fix and not f.finding.fix.safe)
    if safe and unsafe:
        text = f"[*] {safe} fixable with --fix ({unsafe} more with --fix --unsafe-fixes)."
    elif safe:
        text = f"[*] {safe} fixable with --fix."
    elif unsafe:
        text = f"{unsafe} fixable with --fix --unsafe-fixes (unsafe fixes: review them)."
    else:
        text = ""
    if unchecked:
        text += (" " if text else "") + (
            f"{unchecked} finding{'s' * (unchecked != 1)} in files with many findings not "
            f"checked for a fix (--diff shows what --fix would do).")
    return text


def fixes_listing(applied, findings, would: bool = False) -> str:
    """--show-fixes: the fixes applied or that would be (`applied`: [(path, Finding, Fix)]), or,
    when nothing was fixed (`applied` None), the fixes the findings have."""
    if applied is not None:
        n = len(applied)
        head = f"{'Would fix' if would else 'Fixed'} {n} finding{'s' * (n != 1)}"
        rows = [f"  {path}:{f.line}:{f.col + 1}: {f.code} {fix.description}"
                for path, f, fix in applied]
    else:
        items = [i for i in findings if i.finding is not None and i.finding.fix is not None]
        head = f"{len(items)} fix{'es' * (len(items) != 1)} available"
        rows = [f"  {i.location}: {i.code} ({'safe' if i.finding.fix.safe else 'unsafe'}) "
                f"{_short(i.finding.fix)}" for i in items]
    return head + (":\n" if rows else ".\n") + "".join(row + "\n" for row in rows)


def text_statistics(findings) -> str:
    return "".join(f"{n:>6}  {code}  {'[*] ' if fix else ''}{name}\n"
                   for n, code, name, fix in statistics(findings))


# -- JSON -----------------------------------------------------------------------------------------

def _json_item(item: Item) -> dict:
    out = {"path": item.path, "line": item.line, "column": item.column, "cell": item.cell,
           "cell_id": item.cell_id or None, "code": item.code, "message": item.message}
    f = item.finding
    if f is not None:
        out["detail"] = item.detail or None
        found = rule(f.code)
        out.update(name=rule_name(f.code), family=found.family if found else "",
                   function=f.function or None, param=f.param or None,
                   fix={"description": f.fix.description, "safe": f.fix.safe} if f.fix else None)
        out.update(_facts(f))
    return out


def _facts(f) -> dict:
    """The facts behind a finding, as the analysis recorded them (absent ones left out)."""
    facts = {"entry": f.entry or None, "entry_kind": f.entry_kind or None,
             "value_path": list(f.path) or None,
             "chain": [dict(function=hop[0], line=hop[1], **({"file": hop[2]} if len(hop) > 2 and hop[2] else {}))
                       for hop in f.chain] or None}
    return {key: value for key, value in facts.items() if value is not None}


def json_report(findings, errors, files: int) -> str:
    doc = {"schema_version": SCHEMA_VERSION, "jaxlint_version": __version__,
           "files_checked": files, "findings": [_json_item(f) for f in findings],
           "errors": [_json_item(e) for e in errors]}
    return json.dumps(doc, indent=2) + "\n"


def json_statistics(findings) -> str:
    rows = [{"code": code, "name": name, "count": n, "fixable": fix}
            for n, code, name, fix in statistics(findings)]
    return json.dumps(rows, indent=2) + "\n"


# -- SARIF 2.1.0 ----------------------------------------------------------------------------------

def _level(code: str) -> str:
    found = rule(code)
    return "error" if found is None or found.family == "trace-time failure" else "warning"


def sarif_rule(cls) -> dict:
    doc = cls.documentation()
    return {"id": cls.code, "name": cls.name,
            "shortDescription": {"text": cls.summary},
            "fullDescription": {"text": " ".join(textwrap.dedent(cls.what).split())},
            "help": {"text": doc, "markdown": doc},
            "helpUri": docs_url(cls.code),
            "defaultConfiguration": {"level": _level(cls.code)},
            "properties": {"tags": [cls.family], "fixable": _fixable(cls)}}


def _fixable(cls) -> bool:
    from jaxlint.ruledocs import fixable
    return fixable(cls)


def _uri(path: str):
    """(uri, base id): relative to the working directory when inside it, else absolute."""
    from pathlib import Path        # SARIF only: 3 ms of imports that other formats skip
    full = os.path.abspath(path)
    cwd = os.getcwd()
    if full.startswith(cwd.rstrip(os.sep) + os.sep):
        return Path(os.path.relpath(full, cwd)).as_posix(), "%SRCROOT%"
    return Path(full).as_uri(), None


def _sarif_location(item: Item) -> dict:
    uri, base = _uri(item.path)
    artifact = {"uri": uri, **({"uriBaseId": base} if base else {})}
    physical = {"artifactLocation": artifact,
                "region": {"startLine": max(item.line, 1), "startColumn": max(item.column, 1)}}
    location = {"physicalLocation": physical}
    if item.cell is not None:
        location["logicalLocations"] = [{"name": f"cell_{item.cell}", "kind": "module",
                                         "fullyQualifiedName": f"{uri}:cell_{item.cell}"}]
        location["properties"] = {"cell": item.cell, "cellId": item.cell_id or None}
    return location


def sarif_report(findings, errors) -> str:
    from pathlib import Path
    index = {cls.code: i for i, cls in enumerate(all_rules())}
    results = []
    for item in findings:
        prefix = f"cell_{item.cell}: " if item.cell is not None else ""
        message = {"text": prefix + item.message}
        if item.detail:     # the one-line text stays as it is; viewers that render Markdown show both
            message["markdown"] = f"{prefix}{item.message}\n\n{item.detail}"
        result = {"ruleId": item.code, "level": _level(item.code), "message": message,
                  "locations": [_sarif_location(item)]}
        if item.code in index:
            result["ruleIndex"] = index[item.code]
        results.append(result)
    notes = [{"level": "error", "message": {"text": f"{e.code} {e.message}"},
              "locations": [_sarif_location(e)], "descriptor": {"id": e.code}} for e in errors]
    run = {"tool": {"driver": {"name": "jaxlint", "version": __version__,
                               "informationUri": DOCS_URL.split("/blob/")[0],
                               "rules": [sarif_rule(cls) for cls in all_rules()]}},
           "originalUriBaseIds": {"%SRCROOT%": {"uri": Path(os.getcwd()).as_uri() + "/"}},
           "invocations": [{"executionSuccessful": not errors,
                            "toolExecutionNotifications": notes}],
           "results": results}
    doc = {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}
    return json.dumps(doc, indent=2) + "\n"


# -- GitHub workflow commands -----------------------------------------------------------------------

def _escape(text: str, prop: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if prop else text


def github(findings, errors) -> str:
    """`::error file=...,line=...,col=...,title=JAX101::message`, one per line. A notebook's
    raw-JSON line numbers mean nothing, so its annotations name the cell in the message and
    attach to the file."""
    lines = []
    for item in list(errors) + list(findings):
        props = [f"file={_escape(item.path, True)}"]
        message = f"{item.message}\n\n{item.detail}" if item.detail else item.message
        if item.cell is not None:
            message = f"cell_{item.cell}:{item.line}:{item.column}: {message}"
        elif item.line >= 1:
            props += [f"line={item.line}", f"col={item.column}"]
        props.append(f"title={_escape(item.code, True)}")
        lines.append(f"::{_level(item.code)} {','.join(props)}::{_escape(message)}\n")
    return "".join(lines)
