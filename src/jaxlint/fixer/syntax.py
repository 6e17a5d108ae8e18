"""libcst helpers the fixes share: printing a node, adding items to a call or a display in the
layout it already has. Imported only when a fix is computed: linting never loads libcst.
"""

from __future__ import annotations

import libcst as cst

NO_SPACE = cst.SimpleWhitespace("")
ONE_SPACE = cst.SimpleWhitespace(" ")


def code_of(node) -> str:
    """The source code of a libcst node, as it would print in a module."""
    return cst.Module(body=[]).code_for_node(node)


def _is_multiline(ws) -> bool:
    return isinstance(ws, cst.ParenthesizedWhitespace)


def _clean(ws):
    """A line break copied from `ws` without its comment or blank lines."""
    if isinstance(ws, cst.ParenthesizedWhitespace):
        return ws.with_changes(first_line=cst.TrailingWhitespace(), empty_lines=[])
    return ws


def append_items(existing: list, added: list, open_ws, close_ws):
    """Append nodes that carry a `.comma` (Element, Arg) in the layout the existing ones use.

    Returns (items, whitespace before the closing bracket). One item per line stays one per
    line, with the comment of the old last line kept on that line; a trailing comma is kept;
    on one line the items are separated like the existing ones. For Args the whitespace before
    `)` lives on the last Arg, so `close_ws` is ignored and the last Arg carries it."""
    is_arg = isinstance((existing or added)[0], cst.Arg)
    if not existing:
        items = [n.with_changes(comma=cst.Comma(whitespace_after=ONE_SPACE)) for n in added[:-1]]
        return items + [added[-1]], close_ws
    last = existing[-1]
    if is_arg:
        close_ws = last.whitespace_after_arg
    had_trailing = isinstance(last.comma, cst.Comma)
    in_comma = had_trailing and _is_multiline(last.comma.whitespace_after)
    tail = last.comma.whitespace_after if in_comma else close_ws
    between = next((it.comma.whitespace_after for it in existing[:-1] if isinstance(it.comma, cst.Comma)
                    and _is_multiline(it.comma.whitespace_after)), None)
    if between is None and _is_multiline(open_ws):
        between = open_ws
    extra = {"whitespace_after_arg": NO_SPACE} if is_arg else {}
    if _is_multiline(tail) and between is not None:
        between = _clean(between)
        old_comma = cst.Comma(whitespace_before=last.comma.whitespace_before if had_trailing else NO_SPACE,
                              whitespace_after=between.with_changes(first_line=tail.first_line))
        items = list(existing[:-1]) + [last.with_changes(comma=old_comma, **extra)]
        items += [n.with_changes(comma=cst.Comma(whitespace_after=between)) for n in added[:-1]]
        final = added[-1]
        if in_comma:
            final = final.with_changes(comma=cst.Comma(whitespace_after=_clean(tail)))
        elif had_trailing:
            final, close_ws = final.with_changes(comma=cst.Comma()), _clean(tail)
        else:
            close_ws = _clean(tail)
    else:
        if len(existing) >= 2 and isinstance(existing[-2].comma, cst.Comma):
            comma = existing[-2].comma
            sep = comma.with_changes(whitespace_after=_clean(comma.whitespace_after))
        else:
            sep = cst.Comma(whitespace_after=ONE_SPACE)
        items = list(existing[:-1]) + [last.with_changes(comma=sep, **extra)]
        items += [n.with_changes(comma=sep) for n in added[:-1]]
        keep = had_trailing and (len(existing) >= 2 or is_arg)
        final = added[-1].with_changes(comma=last.comma if keep else cst.MaybeSentinel.DEFAULT)
    if is_arg:
        final = final.with_changes(whitespace_after_arg=NO_SPACE if in_comma else close_ws)
    return items + [final], close_ws


def has_comment(node) -> bool:
    """Does the node hold a comment (which rebuilding it from parts would drop)?"""
    found = []

    class Finder(cst.CSTVisitor):
        def visit_Comment(self, _node):
            found.append(True)

    node.visit(Finder())
    return bool(found)
