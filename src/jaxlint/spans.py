"""How far a finding reaches on its line, for carets under the source and editor ranges.

A finding carries only where its node starts (line, UTF-8 byte column, as `ast` counts). Editors
underline a range and `--show-source` draws carets, so both need an end: the largest syntax node
that starts exactly there and ends on the same line (`x[:n]` rather than `x`), else the rest of
the line (a `for` statement whose body follows). Columns out are characters of the line (str
indices), which the caller turns into whatever units it needs.
"""

from __future__ import annotations

import ast
import re
import warnings

from jaxlint.source import source_lines

_WORD = re.compile(r"\w+|\S")


class Spans:
    """The lines of one text and, parsed on first use, where each node starting on a line ends."""

    def __init__(self, text: str):
        self.text = text
        self.lines = source_lines(text)
        self._ends = None

    def char_col(self, line: int, byte_col: int) -> int:
        """A UTF-8 byte column of 1-based `line` as a character index into that line."""
        raw = self.line(line)
        return len(raw.encode("utf-8")[:max(byte_col, 0)].decode("utf-8", errors="ignore"))

    def line(self, line: int) -> str:
        return self.lines[line - 1] if 1 <= line <= len(self.lines) else ""

    def span(self, line: int, byte_col: int) -> tuple:
        """(start, end) character columns on 1-based `line` of the finding at `byte_col`."""
        raw = self.line(line)
        start = min(self.char_col(line, byte_col), len(raw))
        end_byte = self._node_ends().get((line, byte_col))
        if end_byte is not None:
            end = self.char_col(line, end_byte)
        else:
            body = raw.rstrip()
            end = len(body)
            if end <= start:            # nothing at or after the column: the word there, if any
                match = _WORD.match(raw, start)
                end = match.end() if match else start
        return start, max(end, start + (1 if start < len(raw) else 0))

    def _node_ends(self) -> dict:
        """(line, byte col) -> byte column where the largest one-line node starting there ends."""
        if self._ends is None:
            self._ends = {}
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    tree = ast.parse(self.text)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                return self._ends
            for node in ast.walk(tree):
                end_line = getattr(node, "end_lineno", None)
                if end_line is None or end_line != node.lineno:
                    continue
                key = (node.lineno, node.col_offset)
                if node.end_col_offset > self._ends.get(key, -1):
                    self._ends[key] = node.end_col_offset
        return self._ends


def of_reports(reports, wanted) -> dict:
    """{path: Spans} of the text each report's findings refer to (a notebook's joined cells),
    for the paths in `wanted`; a file that cannot be read again is left out."""
    from jaxlint.notebooks import NotebookError, extract
    from jaxlint.source import SourceError, decode, read_file
    out = {}
    for report in reports:
        if report.path not in wanted or report.path in out:
            continue
        try:
            data = report.data if report.data is not None else read_file(report.path)
            if report.cells is not None:
                extracted = extract(data)
                text = extracted[0] if extracted else ""
            else:
                text = decode(data)
        except (SourceError, NotebookError):
            continue
        out[report.path] = Spans(text)
    return out
