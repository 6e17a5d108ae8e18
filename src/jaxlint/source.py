"""Source text in, a parsed module (or a clear error) out.

Decoding follows Python's own rules (PEP 263 cookies, UTF-8 BOM), so any file CPython can import
decodes here. Parsing uses the stdlib `ast`: it is 11x cheaper than libcst and carries positions
for free; libcst is kept for the fixer, which needs a lossless tree (see docs/design.md).
"""

from __future__ import annotations

import ast
import io
import tokenize
import warnings
from dataclasses import dataclass
from typing import Optional

# Files that mention none of these cannot contain a traced function: skip them unparsed.
RELEVANT_MARKERS = (b"jax", b"equinox", b"flax")


class SourceError(Exception):
    """The file cannot be analysed; the message says why, for the user."""

    def __init__(self, message: str, line: int = 1, col: int = 0):
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col


def mentions_jax(data: bytes) -> bool:
    return any(marker in data for marker in RELEVANT_MARKERS)


def decode(data: bytes) -> str:
    """Bytes to text the way the interpreter would, or SourceError."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:  # unknown or malformed encoding cookie
        raise SourceError(f"cannot decode: {exc}") from None
    try:
        text = data.decode(encoding)
    except (UnicodeDecodeError, LookupError) as exc:
        raise SourceError(f"cannot decode as {encoding}: {exc}") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    return text


def read_file(path: str) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError as exc:
        raise SourceError(f"cannot read file: {exc.strerror or exc}") from None


@dataclass
class ParsedModule:
    text: str
    tree: ast.Module
    lines: list


def parse(text: str, filename: str = "<unknown>") -> ParsedModule:
    """Parse text into an `ast.Module`; every failure becomes a SourceError with a position."""
    if "\x00" in text:
        raise SourceError("source contains a NUL byte")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences and the like
            tree = ast.parse(text, filename=filename)
    except SyntaxError as exc:
        line = exc.lineno or 1
        col = max((exc.offset or 1) - 1, 0)
        raise SourceError(f"syntax error: {exc.msg}", line, col) from None
    except (RecursionError, MemoryError):
        raise SourceError("source is nested too deeply to parse") from None
    except ValueError as exc:
        raise SourceError(f"cannot parse: {exc}") from None
    return ParsedModule(text=text, tree=tree, lines=text.splitlines())


def load(path: str, data: Optional[bytes] = None) -> Optional[ParsedModule]:
    """Read, filter, decode and parse one file. None means: nothing JAX in it, skip."""
    if data is None:
        data = read_file(path)
    if not mentions_jax(data):
        return None
    return parse(decode(data), path)
