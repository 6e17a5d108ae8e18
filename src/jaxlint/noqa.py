"""`jaxlint check --add-noqa`: suppress today's findings with `# noqa: CODE` comments, ruff's way
of adopting a linter on a large codebase, so that only new findings fail from then on.

Each line with findings gets one comment naming their codes; an existing `# noqa: CODES` on the
line gets the new codes merged into it, and any other comment is kept with the noqa after it.
A line that cannot end in a comment (inside a multi-line string, before a `\\` continuation) is
left alone, and so are notebooks (never rewritten). Files keep their encoding, BOM and line
endings: only the comments are inserted.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections import defaultdict

from jaxlint.engine import _NOQA
from jaxlint.source import SourceError, decode, read_file

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)?")


def add_noqa(reports) -> tuple:
    """Add the comments for every selected finding of `reports`; (directives added, files)."""
    from jaxlint.reporters import collect
    findings, _ = collect(reports)
    by_path = defaultdict(lambda: defaultdict(set))
    for item in findings:
        if item.cell is None and item.finding is not None:
            by_path[item.path][item.finding.line].add(item.code)
    added = files = 0
    for path, codes in by_path.items():
        try:
            data = read_file(path)
            text = decode(data)
        except SourceError:
            continue
        new, count = add_to_text(text, codes)
        if count:
            from jaxlint.fixer.apply import _write
            _write(path, data, new)
            added += count
            files += 1
    return added, files


def add_to_text(text: str, codes_by_line: dict) -> tuple:
    """(new text, lines changed): `codes_by_line` is {1-based line: {code, ...}}."""
    lines = [m.group(0) for m in _LINE.finditer(text)][:-1] or [text]
    unsafe = _lines_without_room(text)
    count = 0
    for number, codes in sorted(codes_by_line.items()):
        if not 1 <= number <= len(lines) or number in unsafe:
            continue
        line = lines[number - 1]
        body = line.rstrip("\r\n")
        ending = line[len(body):]
        if body.rstrip().endswith("\\"):
            continue
        merged = _merge(body, codes)
        if merged != body:
            lines[number - 1] = merged + ending
            count += 1
    return "".join(lines), count


def _merge(body: str, codes: set) -> str:
    match = _NOQA.search(body)
    if match is None:
        return f"{body.rstrip()}  # noqa: {', '.join(sorted(codes))}"
    if not match.group("codes"):
        return body                             # a bare noqa already covers every code
    present = [c for c in re.split(r"[,\s]+", match.group("codes")) if c]
    wanted = present + sorted(c for c in codes if c not in {p.upper() for p in present})
    return body[:match.start()] + f"# noqa: {', '.join(wanted)}" + body[match.end():]


def _lines_without_room(text: str) -> set:
    """Lines that end inside a token (a multi-line string, an f-string's text): a comment
    there would become part of the string."""
    unsafe = set()
    depth = 0
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            name = tokenize.tok_name[tok.type]
            if name == "FSTRING_START":
                depth += 1
                start = tok.start[0]
            elif name == "FSTRING_END":
                depth -= 1
                if depth == 0:
                    unsafe.update(range(start, tok.end[0]))
            elif tok.start[0] < tok.end[0] and name not in ("NL", "NEWLINE"):
                unsafe.update(range(tok.start[0], tok.end[0]))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        pass
    return unsafe
