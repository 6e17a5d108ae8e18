"""Checking fixes by linting again, and applying them: to one file's text, to files on disk, and
for the reports of `jaxlint check`.

Every fix is checked before it is kept: the edited text is linted again, and the fix is applied
only when its finding is gone and no finding appears that was not there before (a finding is
identified by its code and its position, carried through the edits). Fixes are applied one at a
time, re-analysing after each, until none is left; so fixes never conflict, and a second run
changes nothing.
"""

from __future__ import annotations

import codecs
import difflib
import io
import tokenize
from collections import Counter
from dataclasses import dataclass, field
from typing import Optional

import libcst as cst

from jaxlint import deepstack
from jaxlint.atomic import write_atomically
from jaxlint.findings import Finding, Fix, NoFix
from jaxlint.fixer.context import Context
from jaxlint.fixer.edits import Text, apply_edits, map_offset
from jaxlint.rules import BY_CODE, RULES
from jaxlint.rules.make_static import make_parameter_static

FIXABLE_CODES = frozenset(rule.code for rule in RULES if rule.fix_finding is not None)
# The rules fixed by making a parameter static: a fix that leaves the finding traced through
# another parameter is retried with that one added (see checked_fix).
STATIC_CODES = tuple(rule.code for rule in RULES if rule.fix_finding is make_parameter_static)
MAX_FIXES_PER_FILE = 500


def compute_fix(ctx: Context, finding: Finding) -> Optional[Fix]:
    """The fix for one finding, unchecked; None when there is none."""
    rule = BY_CODE.get(finding.code)
    if rule is None or rule.fix_finding is None:
        return None
    try:
        return rule.fix_finding(ctx, finding)
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
    from jaxlint.project import project_of
    result = lint_source(text, path, config, project=project_of(path, config))
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
    """The remaining findings, each carrying its (checked) fix when it has one; the unsafe ones
    not applied are counted on `outcome`."""
    described = checked_fixes(text, path, config, findings=findings)
    outcome.hidden_unsafe += sum(after is not before and not after.fix.safe
                                 for before, after in zip(findings, described))
    return described


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
    applied: list = field(default_factory=list)     # [(path, Finding, Fix)], for --show-fixes

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
    write_atomically(path, payload, prefix=".jaxlint-fix-", suffix=".py", keep_mode=True)


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
        summary.applied.extend((report.path, finding, fix) for finding, fix in outcome.applied)
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


def checked_fixes(text: str, path: str = "<unknown>", config=None, findings=None,
                  only=None) -> list:
    """`findings` of `text` (linted here when None), each carrying its checked fix, safe or
    unsafe, when it has one; nothing is applied. `only` limits the work to those findings: each
    check lints the file again, so an editor asks for the findings under the cursor. What an
    editor offers as quick fixes and what the summary counts as fixable."""
    if findings is None:
        findings = _lint(text, path, config)
        if findings is None:
            return []
    wanted = {f for f in (findings if only is None else only)
              if f.code in FIXABLE_CODES and _enabled(config, f, path)}
    if not wanted:
        return list(findings)
    try:
        ctx = Context(text, path, config)
    except (SyntaxError, ValueError, RecursionError):
        return list(findings)
    out = []
    for finding in findings:
        got = checked_fix(ctx, findings, finding) if finding in wanted else None
        out.append(Finding(**{**finding.__dict__, "fix": got[0]}) if got is not None else finding)
    return out
