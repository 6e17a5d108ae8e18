"""Source text in, a parsed module (or a clear error) out.

Decoding follows Python's own rules (PEP 263 cookies, UTF-8 BOM), so any file CPython can import
decodes here. Parsing uses the stdlib `ast`: it is 11x cheaper than libcst and carries positions
for free; libcst is kept for the fixer, which needs a lossless tree (see docs/design.md).
"""

from __future__ import annotations

import ast
import contextlib
import gc
import io
import os
import re
import stat
import sys
import tokenize
import warnings
from dataclasses import dataclass
from typing import Optional

# Files that mention none of these (nor a configured jit wrapper: see markers) cannot contain a
# traced function: skip them unparsed.
RELEVANT_MARKERS = (b"jax", b"equinox", b"flax")
SKIP_NOTE = ("skipped: mentions neither jax, flax, equinox nor a configured jit wrapper "
             "(jit-decorators)")
_NEWLINE = re.compile(r"\r\n|\r|\n")
_TYPE_PARAMS = re.compile(r"\s*(?:(?:async\s+)?def|class)\s+\w+\s*\[|\s*type\s+\w+\s*[\[=]")


class SourceError(Exception):
    """The file cannot be analysed; the message says why, for the user."""

    def __init__(self, message: str, line: int = 1, col: int = 0):
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col


def markers(config=None) -> tuple:
    """What a file must mention to be analysed: JAX's libraries, and the module (or name) each
    configured jit wrapper is imported from: a file using `mylib.jit` imports `mylib`."""
    wrappers = getattr(config, "jit_decorators", None) or ()
    return RELEVANT_MARKERS + tuple(sorted({name.split(".")[0].encode() for name in wrappers}))


def mentions_jax(data: bytes, config=None) -> bool:
    return any(marker in data for marker in markers(config))


def decode(data: bytes) -> str:
    """Bytes to text the way the interpreter would, or SourceError."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:  # unknown or malformed encoding cookie
        raise SourceError(f"cannot decode: {exc}") from None
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        before = source_lines(data[:exc.start].decode("latin-1") + ".")   # one char per byte
        raise SourceError(f"cannot decode as {encoding}: byte 0x{data[exc.start]:02x}: {exc.reason}",
                          len(before), len(before[-1]) - 1) from None
    except LookupError as exc:
        raise SourceError(f"cannot decode as {encoding}: {exc}") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    return text


def read_file(path: str) -> bytes:
    """The bytes of a regular file. Anything else (a FIFO, whose read would block forever; a
    device such as /dev/zero, which never ends; a directory) is refused before it is read."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                raise SourceError("cannot read file: not a regular file")
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
        before = text[:text.index("\x00")]
        line = len(source_lines(before + "."))
        raise SourceError("source contains a NUL byte", line, len(source_lines(before + ".")[-1]) - 1)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences and the like
            tree = ast.parse(text, filename=filename)
    except SyntaxError as exc:
        line = exc.lineno or 1
        col = max((exc.offset or 1) - 1, 0)
        raise SourceError(f"syntax error: {exc.msg}{_newer_syntax_hint(exc)}", line, col) from None
    except (RecursionError, MemoryError):
        raise SourceError("source is nested too deeply to parse") from None
    except ValueError as exc:
        raise SourceError(f"cannot parse: {exc}") from None
    return ParsedModule(text=text, tree=tree, lines=source_lines(text))


def _newer_syntax_hint(exc: SyntaxError) -> str:
    """A note when the error looks like syntax newer than the running Python (PEP 695 type
    parameters, PEP 701 f-strings): the file may be fine, and only this Python too old for it."""
    if sys.version_info >= (3, 12):
        return ""
    if not (exc.msg or "").startswith("f-string") and not _TYPE_PARAMS.match(exc.text or ""):
        return ""
    return (f" (if this is Python 3.12+ syntax: jaxlint parses with the Python it runs on, "
            f"{sys.version_info.major}.{sys.version_info.minor}; run it under a newer one)")


def source_lines(text: str) -> list:
    r"""The lines as Python numbers them: split at \n, \r\n and \r only. `str.splitlines` also
    splits at form feeds, \x1c-\x1e, \x85 and \u2028, which shifts every later line (a
    `# noqa` would be read from the wrong line)."""
    lines = _NEWLINE.split(text) if "\r" in text else text.split("\n")    # split: 6x faster
    if lines[-1] == "":
        lines.pop()
    return lines


@contextlib.contextmanager
def paused_gc():
    """Run a block with the cyclic garbage collector off, as one file's parse and analysis.

    A syntax tree is tens of thousands of objects without reference cycles (nodes have no
    parent links), freed by reference counting. With the collector on, ast.parse alone spends
    ~20% of its time in collections that find nothing, and the analysis pays again for every
    generation-2 pass over the live tree. The few cycles the analysis makes are collected once
    the block ends, when the collector runs as usual."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def load(path: str, data: Optional[bytes] = None, config=None, force: bool = False) -> Optional[ParsedModule]:
    """Read, filter, decode and parse one file. None means: nothing JAX in it, skip (unless
    `force`: another module's trace calls into it)."""
    if data is None:
        data = read_file(path)
    if not force and not mentions_jax(data, config):
        return None
    return parse(decode(data), path)
