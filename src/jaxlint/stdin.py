"""`jaxlint check -`: lint what an editor holds in a buffer, read from standard input.

`--stdin-filename PATH` says where the text would live, and everything that depends on the file
follows from it as if the file were on disk: the name in messages, the `[tool.jaxlint]` found
above PATH, per-file-ignores and excludes (an excluded PATH is not linted), notebook handling
for `.ipynb`, and the cache. Without it the text is named `-` and configured from the working
directory. With `--fix` the (fixed) source is written to standard output, byte for byte the
input when nothing changed, so an editor can always replace its buffer with it.
"""

from __future__ import annotations

import codecs
import io
import os
import tokenize
from dataclasses import dataclass
from typing import Optional

from jaxlint.config import ConfigFinder
from jaxlint.runner import FileReport, lint_data
from jaxlint.source import SourceError, decode

NAME = "-"


def read(stream) -> bytes:
    """All of standard input as bytes (decoded later exactly as a file would be)."""
    buffer = getattr(stream, "buffer", stream)
    data = buffer.read()
    return data.encode("utf-8") if isinstance(data, str) else data


def targets(path: Optional[str], finder: ConfigFinder) -> list:
    """[(name, Config)] for the text, or [] when its file would be excluded."""
    name = path or NAME
    config = finder.for_path(name if path else os.path.join(os.getcwd(), "stdin.py"))
    if path and config.excluded(path):
        return []
    return [(name, config)]


def lint(data: bytes, targets_, cache=None) -> list:
    """[FileReport] for the text: one, or none when excluded."""
    return [lint_data(name, data, config, cache) for name, config in targets_]


@dataclass
class Fixed:
    """What `--fix`/`--diff` did to the text: the fixer's Summary plus the bytes to print."""

    summary: object                 # fixer.Summary, `applied` included
    output: bytes                   # the source to write to stdout (the input when unchanged)


def fix(reports: list, data: bytes, unsafe: bool = False) -> Fixed:
    """Apply the checked fixes to the text of `reports` (none: excluded) and say what changed.
    A notebook, or text that cannot be decoded or parsed, comes back unchanged."""
    from jaxlint import fixer
    summary = fixer.Summary()
    output = data
    report: Optional[FileReport] = reports[0] if reports else None
    if report is not None and _fixable(report):
        text = decode(data)
        from jaxlint import deepstack
        outcome = deepstack.call(fixer.fix_source, text, report.path, report.config, unsafe)
        summary.hidden_unsafe = outcome.hidden_unsafe
        summary.fixed = _count(report, outcome.initial) - _count(report, outcome.remaining)
        if outcome.changed:
            summary.files_changed = 1
            summary.diff = fixer.unified_diff(outcome)
            output = encode_like(outcome.after, data)
        summary.applied = [(report.path, finding, fx) for finding, fx in outcome.applied]
        report.result.findings = outcome.remaining
    if report is not None:
        summary.remaining = _count(report, report.result.findings)
    return Fixed(summary, output)


def _fixable(report: FileReport) -> bool:
    result = report.result
    if report.io_error or result.error or result.internal_error or report.cells is not None:
        return False
    try:
        decode(report.data or b"")
    except SourceError:
        return False
    return bool(result.findings)


def _count(report: FileReport, findings) -> int:
    return sum(report.config.enabled(f.code, report.path) for f in findings)


def encode_like(text: str, original: bytes) -> bytes:
    """`text` in the encoding `original` was in (its cookie; a UTF-8 BOM kept)."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(original).readline)
    if original.startswith(codecs.BOM_UTF8):
        encoding = "utf-8-sig"
    return text.encode(encoding)
