"""Text edits and the positions they are made at, and string literals written like the file's.

No libcst here: an edit is `(start, end, replacement)` on the text; a fix is a list of them.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections import Counter
from typing import Optional


class Text:
    """Source text with ast positions (1-based line, UTF-8 byte column) turned into offsets."""

    def __init__(self, text: str):
        self.text = text
        self.starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]
        match = re.search(r"\r\n|\r|\n", text)
        self.newline = match.group() if match else "\n"

    def offset(self, line: int, col: int) -> int:
        if line > len(self.starts):
            return len(self.text)
        start = self.starts[line - 1]
        end = self.starts[line] if line < len(self.starts) else len(self.text)
        prefix = self.text[start:end].encode("utf-8")[:col].decode("utf-8", errors="ignore")
        return start + len(prefix)

    def line_start(self, line: int) -> int:
        return self.starts[line - 1] if line <= len(self.starts) else len(self.text)

    def span(self, node) -> tuple:
        return (self.offset(node.lineno, node.col_offset),
                self.offset(node.end_lineno, node.end_col_offset))

    def segment(self, node) -> str:
        start, end = self.span(node)
        return self.text[start:end]


def apply_edits(text: str, edits) -> str:
    """Apply non-overlapping (start, end, replacement) edits; raises ValueError on overlap."""
    out, pos = [], 0
    for start, end, replacement in sorted(edits, key=lambda e: (e[0], e[1])):
        if start < pos:
            raise ValueError("overlapping edits")
        out.append(text[pos:start])
        out.append(replacement)
        pos = end
    out.append(text[pos:])
    return "".join(out)


def map_offset(offset: int, edits, after: bool = False) -> int:
    """Where `offset` of the old text lands in the new one (`after=False`), or where an offset of
    the new text came from, both expressed in new-text coordinates: a position inside an edited
    span maps to the start of the edit, so a finding on the edited code keeps one identity."""
    delta = 0
    for start, end, replacement in sorted(edits, key=lambda e: (e[0], e[1])):
        new_start = start + delta
        if after:
            if offset < new_start:
                return offset
            if offset < new_start + len(replacement) or (start == end == offset - delta):
                return new_start
        else:
            if offset < start:
                return offset + delta
            if offset < end or start == end == offset:
                return new_start
        delta += len(replacement) - (end - start)
    return offset if after else offset + delta


def string_literal(value: str, quote: str) -> str:
    """A Python string literal for `value` written with `quote`."""
    out = []
    for ch in value:
        if ch == "\\":
            out.append("\\\\")
        elif ch == quote:
            out.append("\\" + quote)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif not ch.isprintable():
            out.append(repr(ch)[1:-1])
        else:
            out.append(ch)
    return quote + "".join(out) + quote


def quote_of(literal: str) -> Optional[str]:
    """The quote character of a string literal's source (`'` or `"`), None if it is not one."""
    body = literal.lstrip("rRbBuUfF")
    return body[0] if body[:1] in ("'", '"') else None


def preferred_quote(text: str) -> str:
    """The quote most string literals of the file use (double when undecided)."""
    counts = Counter()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.STRING:
                quote = quote_of(tok.string)
                if quote and not tok.string.lstrip("rRbBuUfF").startswith(quote * 3):
                    counts[quote] += 1
    except (tokenize.TokenError, SyntaxError, IndentationError):
        pass
    return "'" if counts["'"] > counts['"'] else '"'
