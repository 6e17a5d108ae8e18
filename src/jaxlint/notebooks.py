"""Jupyter notebooks: the Python of the code cells, joined into one module, with a map back.

Cells are joined in order (a notebook is one namespace, so a jitted function in cell 2 and its
call in cell 5 are analysed together). IPython-only lines (`%magic`, `!shell`, `obj?`) become
`pass` at the same indentation, so line numbers and block structure survive; a cell magic that
is not Python (`%%bash`, `%%writefile`) blanks its whole cell. Nothing here raises on a bad
notebook except NotebookError, whose message says what is wrong.
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass

# Cell magics whose body is still Python: only their first line is IPython syntax.
PYTHON_CELL_MAGICS = {"time", "timeit", "capture", "prun", "debug", "skip"}
_HELP = re.compile(r"^\??[\w.]+(\(\))?\?{1,2}$|^\?{1,2}[\w.]+$")
_MAGIC_ASSIGN = re.compile(r"^[\w.,\s\[\]()]+=\s*[%!]")


# `line 12`, `lines 3, 5 and 9` in a message: lines of the joined module.
_LINE_MENTION = re.compile(r"\b(lines?) (\d+(?:(?:, and |, | and )\d+)*)\b")
_LINE_NUMBER = re.compile(r"\d+")


class NotebookError(Exception):
    """The file is not a notebook we can read; the message says why."""


@dataclass(frozen=True)
class CellMap:
    """Where each code cell starts in the joined module (1-based lines), its 1-based position
    among all the notebook's cells (what a user counts), and its nbformat id when it has one."""

    starts: tuple
    numbers: tuple
    ids: tuple

    def locate(self, line: int):
        """Joined-module line -> (cell number, cell id, line within the cell)."""
        if not self.starts:
            return None, "", line
        i = max(bisect.bisect_right(self.starts, line) - 1, 0)
        return self.numbers[i], self.ids[i], line - self.starts[i] + 1

    def relabel(self, message: str) -> str:
        """A message with each `line N` of the joined module written `cell_K:M`, as the user sees
        the notebook: `(line 12)` -> `(cell_3:4)`, `lines 3 and 9` -> `cell_2:1 and cell_3:1`."""
        if not self.starts or "line" not in message:
            return message

        def cell_line(number: str) -> str:
            cell, _, line = self.locate(int(number))
            return f"cell_{cell}:{line}"

        def replace(match) -> str:
            return _LINE_NUMBER.sub(lambda m: cell_line(m.group(0)), match.group(2))

        return _LINE_MENTION.sub(replace, message)

    def to_json(self) -> list:
        return [list(self.starts), list(self.numbers), list(self.ids)]

    @classmethod
    def from_json(cls, data) -> "CellMap":
        starts, numbers, ids = data
        if not (len(starts) == len(numbers) == len(ids)):
            raise ValueError("cell map columns differ in length")
        return cls(tuple(int(s) for s in starts), tuple(int(n) for n in numbers),
                   tuple(str(i) for i in ids))


def read(data: bytes) -> dict:
    try:
        nb = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise NotebookError(f"not a notebook: not UTF-8 ({exc.reason} at byte {exc.start})") from None
    except ValueError as exc:
        raise NotebookError(f"not a notebook: invalid JSON ({exc})") from None
    except RecursionError:
        raise NotebookError("not a notebook: JSON nested too deeply") from None
    if not isinstance(nb, dict):
        raise NotebookError("not a notebook: the top level is not a JSON object")
    if "cells" not in nb:
        if "worksheets" in nb:
            raise NotebookError("nbformat 3 notebooks are not supported; convert with "
                                "`jupyter nbconvert --to notebook`")
        raise NotebookError("not a notebook: no 'cells' list")
    if not isinstance(nb["cells"], list):
        raise NotebookError("not a notebook: 'cells' is not a list")
    return nb


def is_python(nb: dict) -> bool:
    """False only when the notebook says its kernel is another language (R, Julia...)."""
    meta = nb.get("metadata") if isinstance(nb.get("metadata"), dict) else {}
    for key, field in (("kernelspec", "language"), ("language_info", "name")):
        section = meta.get(key)
        if isinstance(section, dict) and isinstance(section.get(field), str):
            return section[field].lower() in ("python", "python3", "ipython")
    return True


def cell_source(cell, number: int) -> str:
    if not isinstance(cell, dict):
        raise NotebookError(f"cell {number} is not a JSON object")
    source = cell.get("source", "")
    if isinstance(source, list) and all(isinstance(s, str) for s in source):
        return "".join(source)
    if isinstance(source, str):
        return source
    raise NotebookError(f"cell {number}: 'source' is neither a string nor a list of strings")


def python_lines(source: str) -> list:
    """The cell's lines with IPython syntax replaced by `pass` (same count, same indentation)."""
    lines = source.splitlines()
    if lines and lines[0].lstrip().startswith("%%"):
        name = lines[0].lstrip()[2:].split(maxsplit=1)[0] if lines[0].strip() != "%%" else ""
        if name not in PYTHON_CELL_MAGICS:
            return [""] * len(lines)
        lines[0] = ""
    out = []
    for line in lines:
        stripped = line.strip()
        indent = line[:len(line) - len(line.lstrip())]
        if stripped[:1] in ("%", "!") or _HELP.match(stripped) or _MAGIC_ASSIGN.match(stripped):
            out.append(indent + "pass")
        else:
            out.append(line)
    return out


def extract(data: bytes):
    """Notebook bytes -> (joined Python text, CellMap), or None for a non-Python notebook."""
    nb = read(data)
    if not is_python(nb):
        return None
    lines, starts, numbers, ids = [], [], [], []
    for number, cell in enumerate(nb["cells"], start=1):
        source = cell_source(cell, number)
        if cell.get("cell_type") != "code":
            continue
        body = python_lines(source)
        if not body:
            continue
        starts.append(len(lines) + 1)
        numbers.append(number)
        ids.append(cell.get("id") if isinstance(cell.get("id"), str) else "")
        lines.extend(body)
    return "\n".join(lines) + "\n", CellMap(tuple(starts), tuple(numbers), tuple(ids))


def lint_notebook(path: str, data: bytes, config=None):
    """(FileResult, CellMap or None). A malformed notebook is a FileResult error, never a crash."""
    from jaxlint.engine import lint_source
    from jaxlint.findings import FileResult
    from jaxlint.source import SKIP_NOTE, markers
    try:
        extracted = extract(data)
    except NotebookError as exc:
        return FileResult(path=path, error=str(exc)), None
    if extracted is None:
        return FileResult(path=path, notes=["not a Python notebook; skipped"]), None
    text, cells = extracted
    if not any(m.decode() in text for m in markers(config)):
        return FileResult(path=path, notes=[SKIP_NOTE]), cells
    return lint_source(text, path, config=config), cells
