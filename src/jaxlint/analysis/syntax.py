"""Syntax helpers every analysis module shares: fast walks of the tree, statement iteration,
assignment targets, and the line filter that lets walks skip what cannot matter.

Pure functions of the syntax tree and the source lines; nothing here knows about JAX.
"""

from __future__ import annotations

import ast
import bisect
import itertools
import operator
import re
from typing import Optional


def target_names(target):
    """The names an assignment target binds (`a, (b, *c) = ...` -> a, b, c)."""
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for elt in target.elts:
            yield from target_names(elt)
    elif isinstance(target, ast.Starred):
        yield from target_names(target.value)


def _child_bodies(stmt):
    for name in ("body", "orelse", "finalbody"):
        block = getattr(stmt, name, None)
        if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
            yield block
    for handler in getattr(stmt, "handlers", ()) or ():
        yield handler.body
    for case in getattr(stmt, "cases", ()) or ():
        yield case.body


_WORD = re.compile(r"\w+")


class LineFilter:
    """Which lines mention any of some words: lets walks skip statements that cannot matter.

    Walking every expression of a file costs more than parsing it; a regex over the lines is
    cheap, and most statements of a library never mention `jit` or a transform."""

    FEW_WORDS = 64      # up to this many words, search the text for each; beyond, tokenise lines

    def __init__(self, lines, words):
        self.hits = None
        if lines is not None and words:
            words = frozenset(words)
            if len(words) <= self.FEW_WORDS:
                self.hits = _lines_with_words(lines, words)
            else:
                # A line's identifiers against a set: linear in the words (an alternation of
                # 20,000 jitted names took 8 s to compile), but ~1 us a line.
                self.hits = [i for i, line in enumerate(lines, 1) if not words.isdisjoint(_WORD.findall(line))]

    def touches(self, node) -> bool:
        hits = self.hits
        if hits is None:
            return True
        try:
            start, end = node.lineno, node.end_lineno or node.lineno
        except AttributeError:
            return True
        decorators = getattr(node, "decorator_list", None)
        if decorators:
            start = min(start, min(dec.lineno for dec in decorators))
        i = bisect.bisect_left(hits, start)
        return i < len(hits) and hits[i] <= end


_joined = (None, "", None)   # (lines, "\n".join(lines), line start offsets): the last file's


def _lines_with_words(lines, words) -> list:
    """Sorted numbers of the lines where some word occurs as a whole identifier.

    `str.find` per word over the whole text runs in C; it is 3x faster than tokenising every
    line, which made this filter the largest single cost of the flake8 plugin. The joined text
    is kept for the next filter over the same lines (each file builds three)."""
    global _joined
    cached_lines, text, starts = _joined
    if cached_lines is not lines:
        text = "\n".join(lines)      # lines may or may not end in "\n": one more keeps words apart
        starts = None
        _joined = (lines, text, starts)
    size = len(text)
    found = set()
    for word in words:
        i = text.find(word)
        while i != -1:
            end = i + len(word)
            if (i == 0 or not _is_word_char(text[i - 1])) and (end >= size or not _is_word_char(text[end])):
                if starts is None:
                    # start of line k (0-based) = lengths of the lines before it + k newlines
                    starts = list(map(operator.add, itertools.accumulate(map(len, lines), initial=0),
                                      itertools.count()))
                    _joined = (lines, text, starts)
                found.add(bisect.bisect_right(starts, i))
            i = text.find(word, end)
    return sorted(found)


def _is_word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


def child_nodes(node) -> list:
    """`list(ast.iter_child_nodes(node))`, 2x faster (no nested generators), same order."""
    children = []
    for name in node._fields:
        try:
            value = getattr(node, name)
        except AttributeError:
            continue
        if isinstance(value, ast.AST):
            children.append(value)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, ast.AST):
                    children.append(item)
    return children


def walk(tree):
    """`ast.walk(tree)`, faster: the same nodes in the same breadth-first order."""
    todo = [tree]
    for node in todo:       # the list grows while it is read: breadth-first, like ast.walk
        todo.extend(child_nodes(node))
        yield node


def pruned_walk(tree, line_filter: LineFilter):
    """Every node inside the statements that touch a relevant line (like ast.walk, pruned)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        for child in child_nodes(node):
            if isinstance(child, ast.stmt) and not line_filter.touches(child):
                continue
            stack.append(child)


def iter_statements(body, line_filter: Optional["LineFilter"] = None):
    """Every statement, at any depth, without visiting expressions (with a filter: only those
    that touch one of its lines, and nothing inside a statement that touches none)."""
    stack = list(reversed(body))
    while stack:
        stmt = stack.pop()
        if line_filter is not None and not line_filter.touches(stmt):
            continue
        yield stmt
        for name in ("body", "orelse", "finalbody"):
            block = getattr(stmt, name, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                stack.extend(reversed(block))
        for handler in getattr(stmt, "handlers", ()) or ():
            stack.extend(reversed(handler.body))
        for case in getattr(stmt, "cases", ()) or ():
            stack.extend(reversed(case.body))
