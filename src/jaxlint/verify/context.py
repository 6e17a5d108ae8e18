"""What the parent knows about a file's source: line spans the verdicts compare against.

PARENT SIDE, standard library only. Everything is read from the file's AST; nothing is imported.
"""

from __future__ import annotations

import ast
import tokenize
from typing import Optional

_COMPOUND = (ast.If, ast.While, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith, ast.Try,
             ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Match)


def read_source(path: str) -> str:
    with tokenize.open(path) as handle:
        return handle.read()


class SourceContext:
    """Spans of statements, functions and loops of one parsed file."""

    def __init__(self, text: str):
        self.text = text
        self.lines = text.splitlines()
        try:
            self.tree: Optional[ast.Module] = ast.parse(text)
        except (SyntaxError, ValueError):
            self.tree = None
        self._functions: dict = {}
        if self.tree is not None:
            self._index(self.tree, [])

    def _index(self, node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = ".".join(prefix + [child.name])
                if not isinstance(child, ast.ClassDef):
                    self._functions.setdefault(name, child)
                self._index(child, prefix + [child.name])
            else:
                self._index(child, prefix)

    # -- lookups -------------------------------------------------------------------------------
    def function(self, qualname: str):
        """The def node for a qualified name (`Cls.method`, `outer.inner`), or None."""
        if not qualname:
            return None
        node = self._functions.get(qualname.replace(".<locals>", ""))
        if node is None:
            tail = qualname.split(".")[-1]
            matches = [n for q, n in self._functions.items() if q.split(".")[-1] == tail]
            node = matches[0] if len(matches) == 1 else None
        return node

    def is_method(self, qualname: str) -> bool:
        if self.tree is None or "." not in qualname:
            return False
        owner = qualname.split(".")[0]
        return any(isinstance(n, ast.ClassDef) and n.name == owner for n in self.tree.body)

    def statement_span(self, line: int) -> tuple:
        """Lines of the innermost statement containing `line`; for a compound statement only its
        header (`if` test, `for` target and iterable, decorators and signature of a def)."""
        best = None
        if self.tree is None:
            return (line, line)
        for node in ast.walk(self.tree):
            if not isinstance(node, ast.stmt):
                continue
            start, end = _header_span(node)
            if start <= line <= end and (best is None or end - start <= best[1] - best[0]):
                best = (start, end)
        return best or (line, line)

    def mark_line(self, line: int) -> int:
        """The first line of the statement that runs `line`: the innermost statement whose header
        holds it (a `def` under decorators: the `def` line), else the innermost statement holding
        it at all (a `case` pattern: its `match`). Markers go before that statement."""
        if self.tree is None:
            return line
        header = whole = None
        for node in ast.walk(self.tree):
            if not isinstance(node, ast.stmt):
                continue
            start, end = _header_span(node)
            if start <= line <= end and (header is None or end - start <= header[0]):
                header = (end - start, node.lineno)
            if node.lineno <= line <= (node.end_lineno or node.lineno) and \
                    (whole is None or (node.end_lineno or node.lineno) - node.lineno <= whole[0]):
                whole = ((node.end_lineno or node.lineno) - node.lineno, node.lineno)
        return (header or whole or (0, line))[1]

    def body_lines(self, qualname: str) -> tuple:
        """(first, last) line of a function's body, or None."""
        node = self.function(qualname)
        if node is None or not node.body:
            return None
        return (node.body[0].lineno, node.end_lineno)

    def function_at(self, line: int):
        """The innermost def containing `line` (decorators included), or None."""
        best = None
        for node in self._functions.values():
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            if start <= line <= node.end_lineno and (best is None or start >= best[0]):
                best = (start, node)
        return best[1] if best else None

    def aliases(self, short_name: str) -> set:
        """`short_name` and the names bound to an expression that mentions it
        (`step = jax.jit(_step, ...)`)."""
        names = {short_name}
        if self.tree is None or not short_name:
            return names
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Assign) and any(
                    isinstance(n, ast.Name) and n.id == short_name for n in ast.walk(node.value)):
                names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
                names |= {t.attr for t in node.targets if isinstance(t, ast.Attribute)}
        return names

    def calls_on_line(self, line: int, names: set) -> bool:
        """Whether the statement at `line` calls one of `names` (a plain name or an attribute)."""
        if self.tree is None:
            return False
        start, end = self.statement_span(line)
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Call) and start <= node.lineno <= end:
                func = node.func
                callee = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
                if callee in names:
                    return True
        return False

    def loop_body(self, line: int) -> Optional[tuple]:
        """(first, last) line of the body of the `for` loop whose header is on `line`."""
        if self.tree is None:
            return None
        for node in ast.walk(self.tree):
            if isinstance(node, (ast.For, ast.AsyncFor)) and \
                    node.lineno <= line <= max(node.lineno, node.body[0].lineno - 1):
                return (node.body[0].lineno, node.body[-1].end_lineno)
        return None


def _header_span(node: ast.stmt) -> tuple:
    start = node.lineno
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.decorator_list:
        start = min(d.lineno for d in node.decorator_list)
    if isinstance(node, _COMPOUND):
        if isinstance(node, ast.Match):
            first = node.cases[0].pattern.lineno if node.cases else None
        else:
            first = node.body[0].lineno if node.body else None
        if first is not None:
            return start, max(start, first - 1)
    return start, node.end_lineno or node.lineno
