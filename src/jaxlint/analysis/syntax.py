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

LOOPS = (ast.For, ast.AsyncFor, ast.While)
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def target_names(target):
    """The names an assignment target binds (`a, (b, *c) = ...` -> a, b, c)."""
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for elt in target.elts:
            yield from target_names(elt)
    elif isinstance(target, ast.Starred):
        yield from target_names(target.value)


def child_bodies(stmt):
    """The statement blocks directly inside a statement (a def's or class's body included)."""
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

    @classmethod
    def attributes(cls, lines, names) -> "LineFilter":
        """The lines where one of `names` follows a dot (`.append`, `. append`): for a search of
        method calls, which skips the far more frequent other mentions (`add` in `padding`)."""
        found = cls(None, ())
        if lines is not None and names:
            found.hits = _lines_with_attributes(lines, frozenset(names))
        return found

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


def joined_text(lines) -> str:
    """The lines as one text (a newline between each), shared with the line filters of the same
    lines: a search of the whole module for a few characters costs one pass in C."""
    global _joined
    if _joined[0] is not lines:
        _joined = (lines, "\n".join(lines), None)
    return _joined[1]


def _lines_with_words(lines, words) -> list:
    """Sorted numbers of the lines where some word occurs as a whole identifier.

    `str.find` per word over the whole text runs in C; it is 3x faster than tokenising every
    line, which made this filter the largest single cost of the flake8 plugin. The joined text
    is kept for the next filter over the same lines (each file builds three)."""
    global _joined
    text = joined_text(lines)     # lines may or may not end in "\n": one more keeps words apart
    starts = _joined[2]
    size = len(text)
    found = set()
    find = text.find
    for word in words:
        i = find(word)
        while i != -1:
            end = i + len(word)
            # a whole identifier: no word character just before or just after (inlined: this
            # loop runs for every occurrence, `grad` inside `gradients` included)
            before = text[i - 1] if i else " "
            after = text[end] if end < size else " "
            if not (before.isalnum() or before == "_" or after.isalnum() or after == "_"):
                if starts is None:
                    # start of line k (0-based) = lengths of the lines before it + k newlines
                    starts = list(map(operator.add, itertools.accumulate(map(len, lines), initial=0),
                                      itertools.count()))
                    _joined = (lines, text, starts)
                found.add(bisect.bisect_right(starts, i))
            i = find(word, end)
    return sorted(found)


_attribute_patterns: dict = {}      # frozenset of names -> compiled `.name` pattern


def _lines_with_attributes(lines, names) -> list:
    """Sorted numbers of the lines where one of `names` follows a dot, as a whole identifier
    (one regex scan in C: it jumps from dot to dot)."""
    global _joined
    pattern = _attribute_patterns.get(names)
    if pattern is None:
        pattern = _attribute_patterns[names] = re.compile(
            r"\.\s*(?:" + "|".join(re.escape(n) for n in sorted(names)) + r")(?!\w)")
    text = joined_text(lines)
    starts = _joined[2]
    found = set()
    for match in pattern.finditer(text):
        if starts is None:
            starts = list(map(operator.add, itertools.accumulate(map(len, lines), initial=0), itertools.count()))
            _joined = (lines, text, starts)
        found.add(bisect.bisect_right(starts, match.end() - 1))
    return sorted(found)


def child_nodes(node) -> list:
    """The child nodes of `node` in `ast.iter_child_nodes` order, without the context and
    operator markers (`Load`, `Add`, `Eq`: the `ctx`, `op` and `ops` fields, which no analysis
    walks to; a third of all nodes): a walk of the library corpus takes half the time. The
    fields that can hold nodes are listed once per node type."""
    fields = _CHILD_FIELDS.get(type(node))
    if fields is None:
        fields = _child_fields(type(node))
    children = []
    for name in fields:
        value = getattr(node, name, None)
        if isinstance(value, ast.AST):
            children.append(value)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, ast.AST):
                    children.append(item)
    return children


# Fields that never hold a node worth visiting: names and other plain values, and the markers.
_NO_CHILD_FIELDS = frozenset({"id", "attr", "name", "asname", "arg", "module", "level", "kind",
                              "type_comment", "conversion", "is_async", "simple", "tag", "str",
                              "ctx", "op", "ops"})
_CHILD_FIELDS: dict = {}     # node type -> the fields child_nodes reads


def _child_fields(kind) -> tuple:
    fields = tuple(f for f in getattr(kind, "_fields", ()) if f not in _NO_CHILD_FIELDS
                   and not (f == "value" and kind in (ast.Constant, ast.MatchSingleton)))
    _CHILD_FIELDS[kind] = fields
    return fields


def walk(tree):
    """`ast.walk(tree)` without the context and operator markers (see child_nodes), faster: the
    other nodes in the same breadth-first order."""
    todo = [tree]
    for node in todo:       # the list grows while it is read: breadth-first, like ast.walk
        todo.extend(child_nodes(node))
        yield node


def pruned_walk(tree, line_filter: LineFilter, expressions: bool = False):
    """Every node inside the statements that touch a relevant line (like ast.walk, pruned).
    `expressions`: prune expressions that touch none of those lines as well (for a search of
    nodes that start or end on such a line: a call named there, not its arguments below)."""
    stack = [tree]
    kinds = (ast.stmt, ast.expr) if expressions else ast.stmt
    hits = line_filter.hits
    while stack:
        node = stack.pop()
        yield node
        for child in relevant_children(node, hits):
            if isinstance(child, kinds) and not line_filter.touches(child):
                continue
            stack.append(child)


_BLOCKS = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef, ast.If, ast.For, ast.AsyncFor,
           ast.While, ast.With, ast.AsyncWith, ast.Try) + ((ast.TryStar,) if hasattr(ast, "TryStar") else ())


def relevant_children(node, hits) -> list:
    """The children of `node` (as child_nodes), without the statements of a long block that
    hold none of the lines `hits` (a LineFilter's; None: all). The rest still need
    `LineFilter.touches` (a short block's statements are not looked at here)."""
    children = child_nodes(node)
    if hits is not None and len(children) > _WIDE and isinstance(node, _BLOCKS):
        return _holding_hits(node, children, hits)
    return children


def _holding_hits(node, children, hits) -> list:
    """`children` without the statements that hold none of the lines `hits` (sorted): a module's,
    a class's or a long def's statements are found by bisection from each line, not tested one
    by one (most walks look at a few lines of a long module). The statements' spans are kept on
    the node (as `_jaxlint_spans`): every walk of the same module asks again."""
    known = getattr(node, "_jaxlint_spans", None)
    if known is None:
        spanned = [c for c in children if isinstance(c, ast.stmt)]
        starts = [statement_start(c)[0] for c in spanned]
        ends = [c.end_lineno or c.lineno for c in spanned]
        known = node._jaxlint_spans = (spanned, starts, ends)
    spanned, starts, ends = known
    if len(spanned) <= _WIDE:
        return children
    held = set()
    first = bisect.bisect_left(hits, starts[0]) if starts else len(hits)
    for line in itertools.islice(hits, first, None):
        i = bisect.bisect_right(starts, line) - 1
        if i < 0:
            continue
        if line > ends[-1]:
            break
        while i >= 0 and ends[i] >= line:     # statements sharing the line (`a = 1; b = 2`)
            held.add(i)
            i -= 1
    if len(held) == len(spanned):
        return children
    keep = {id(spanned[i]) for i in held}
    return [c for c in children if not isinstance(c, ast.stmt) or id(c) in keep]


def calls_by_callee_end(tree, lines, numbers, pattern, names=None, parents=None) -> list:
    """The calls whose callee expression ends where a match of `pattern` ends, over the lines
    `numbers` (1-based) of `lines` (`jax.random.normal(`, `self.sample(`, `normal(` imported; the
    callee's name last in the match), or where its first group ends (`(draw)(key)`), in source
    order; with `names`, only the matches whose first group is one of them (a fixed pattern, not
    one compiled for each set of names). With
    `parents` (a Parents of `tree`), the links of the nodes passed on the way are kept there: the
    loops and scopes around the calls are asked next.

    Most searches for the calls of some functions name them in the pattern; from each match, the
    walk descends only into the nodes whose span holds the match's end: a few nodes a call
    instead of every expression on its line (the drawing and leaking rules ask for thousands of
    calls on a large test module)."""
    ends = _match_ends(lines, numbers, pattern, names)
    found = [node for node in _holding(tree, ends, parents) if isinstance(node, ast.Call)
             and (node.func.end_lineno, node.func.end_col_offset) in ends]
    found.sort(key=lambda call: (call.lineno, call.col_offset))
    return found


def calls_around(tree, lines, numbers, pattern, parents=None, names=None) -> list:
    """The calls whose span holds the end of a match of `pattern` over the lines `numbers` of
    `lines` (the calls a word is written in: `jnp.zeros(3, dtype=jnp.float64)` around `float64`;
    with `names`, only the matches whose first group is one of them; without a pattern, the
    whole-word occurrences of `names`), in source order; found as calls_by_callee_end finds its
    calls."""
    ends = _match_ends(lines, numbers, pattern, names) if pattern is not None else _word_ends(lines, numbers, names)
    found = [node for node in _holding(tree, ends, parents) if isinstance(node, ast.Call)]
    found.sort(key=lambda call: (call.lineno, call.col_offset))
    return found


def _match_ends(lines, numbers, pattern, names=None) -> set:
    """(line, column) of the end of every match of `pattern` on the lines `numbers` (with
    `names`: whose first group is one of them), the column in UTF-8 bytes (as ast counts it)."""
    ends = set()
    for i in numbers:
        line = lines[i - 1]
        for match in pattern.finditer(line):
            if names is not None and match.group(1) not in names:
                continue
            for end in {match.end(), match.end(1)} if pattern.groups and match.start(1) != -1 else (match.end(),):
                ends.add((i, end if line.isascii() else len(line[:end].encode("utf-8"))))
    return ends


# A name called, alone or as an attribute, or through a transform's call (`f(`, `.f(`, `grad(f)(`)
CALLED_NAME = re.compile(r"\b([A-Za-z_]\w*)(?:\s*\))?(?=\s*\()")


def _word_ends(lines, numbers, words) -> set:
    """(line, column) of the end of every whole-word occurrence of one of `words` on the lines
    `numbers` (str.find per word: a few names on a few lines, no pattern to compile)."""
    ends = set()
    for i in numbers:
        line = lines[i - 1]
        for word in words:
            at = line.find(word)
            while at != -1:
                end = at + len(word)
                if not (at and (line[at - 1].isalnum() or line[at - 1] == "_")) \
                        and not (end < len(line) and (line[end].isalnum() or line[end] == "_")):
                    ends.add((i, end if line.isascii() else len(line[:end].encode("utf-8"))))
                at = line.find(word, end)
    return ends


def _holding(tree, positions, parents=None):
    """Every node whose span holds one of `positions` ((line, column) pairs), and every node
    without a position on the way (`arguments`, `comprehension`); their parent links are added
    to `parents` (a Parents of `tree`) when given."""
    if not positions:
        return
    known = parents._known if parents is not None and parents.tree is tree else {}
    wanted = sorted(positions)
    hit_lines = sorted({line for line, _ in wanted})
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        for child in relevant_children(node, hit_lines):
            start = getattr(child, "lineno", None)
            if start is None:
                known[id(child)] = node
                stack.append(child)         # no position: look inside
                continue
            if isinstance(child, ast.stmt):
                first, last = (statement_start(child)[0], 0), (child.end_lineno or start, 1 << 30)
            else:
                first, last = (start, child.col_offset), (child.end_lineno or start, child.end_col_offset or 0)
            k = bisect.bisect_left(wanted, first)
            if k < len(wanted) and wanted[k] <= last:
                known[id(child)] = node
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


class Parents:
    """Parent links, found on demand.

    Most files ask for the ancestors of a few nodes (jit sites and the calls of jitted functions),
    and a parent map of the whole module costs a walk of every node. So each question descends
    from the root through the children whose source span holds the node, and remembers the path.
    When descents have visited more nodes than one full walk would, or a node cannot be placed by
    its span (an expression inside a decorator lies outside its def's span), the whole map is
    built once and answers from then on."""

    def __init__(self, tree: ast.AST, descent_budget: int = 20_000):
        self.tree = tree
        self._known: dict = {}          # id(node) -> parent, for every node on a path found
        self._full: Optional[dict] = None
        self._budget = descent_budget   # child visits left before the whole map is cheaper
        self._wide_nodes: dict = {}     # id(node) -> its statements by start, for _wide

    @property
    def parent(self) -> dict:
        """id(node) -> parent node, for the whole module."""
        if self._full is None:
            full = {}
            todo = [self.tree]
            for node in todo:       # breadth-first like ast.walk, each node's children listed once
                for child in child_nodes(node):
                    full[id(child)] = node
                    todo.append(child)
            self._full = full
        return self._full

    def parent_of(self, node) -> Optional[ast.AST]:
        if self._full is not None:
            return self._full.get(id(node))
        if node is self.tree:
            return None
        key = id(node)
        if key in self._known:
            return self._known[key]
        path = self._descend(node) if self._budget > 0 else None
        if path is None:
            return self.parent.get(key)
        for parent, child in zip(path, path[1:]):
            self._known[id(child)] = parent
        return path[-2]

    def _descend(self, target) -> Optional[list]:
        """root ... target, following only children whose span contains the target's, or None."""
        span = _span(target)
        if span is None:
            return None
        path: list = []
        stack = [(self.tree, 0)]
        while stack:
            node, depth = stack.pop()
            del path[depth:]
            path.append(node)
            children = child_nodes(node)
            if len(children) > _WIDE:
                children = self._wide(node, children, span[0])
            self._budget -= len(children)
            if self._budget <= 0:
                return None
            for child in children:
                if child is target:
                    return path + [child]
            for child in reversed(children):
                inner = _span(child)
                if inner is None or (inner[0] <= span[0] and span[1] <= inner[1]):
                    stack.append((child, depth + 1))
        return None

    def _wide(self, node, children, start) -> list:
        """The children of a node with many (a module's, a class's or a long def's statements)
        that may hold a node starting at `start`: statements do not overlap, so the one that
        starts last at or before it, found by bisection, and the children without a position."""
        known = self._wide_nodes.get(id(node))
        if known is None:
            spanned = [c for c in children if isinstance(c, ast.stmt)]
            rest = [c for c in children if not isinstance(c, ast.stmt)]
            known = self._wide_nodes[id(node)] = ([statement_start(c) for c in spanned], spanned, rest)
        starts, spanned, rest = known
        held = statement_holding(spanned, starts, start)
        return rest + [held] if held is not None else rest

    def chain(self, node):
        """Ancestors of `node`, innermost first."""
        node = self.parent_of(node)
        while node is not None:
            yield node
            node = self.parent_of(node)

    def scope_of(self, node) -> Optional[ast.AST]:
        for anc in self.chain(node):
            if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                return anc
        return None

    def loops_of(self, node) -> list:
        """Loops (and comprehensions) around `node` within its own function, innermost last."""
        found = []
        child = node
        for anc in self.chain(node):
            if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                break
            if isinstance(anc, LOOPS) and child is not getattr(anc, "iter", None):
                if not (isinstance(anc, ast.While) and child is anc.test) and child not in anc.orelse:
                    found.append(anc)
            elif isinstance(anc, COMPREHENSIONS):
                found.append(anc)
            child = anc
        return list(reversed(found))


_WIDE = 16     # children beyond which a descent bisects a node's statements instead of trying each


def statement_start(stmt) -> tuple:
    """(line, column) where a statement starts, its decorators included (column -1 then)."""
    decorators = getattr(stmt, "decorator_list", None)
    if decorators:
        return min(stmt.lineno, *(d.lineno for d in decorators)), -1
    return stmt.lineno, stmt.col_offset


def statement_holding(body, starts, position):
    """The statement of `body` (`starts`: their statement_start, in order) that may hold what
    starts at `position` ((line, column)): statements do not overlap, so the last one starting at
    or before it; None before the first."""
    i = bisect.bisect_right(starts, position) - 1
    return body[i] if i >= 0 else None


def _span(node) -> Optional[tuple]:
    """((line, col), (end line, end col)) of a node, None for nodes without positions."""
    try:
        span = (node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset)
    except AttributeError:
        return None
    return None if None in span[1] else span


def text_of(node) -> str:
    """The source text of an expression ("" for a node that cannot be printed: a literal too long
    for str(), an odd node)."""
    try:
        return ast.unparse(node)
    except Exception:  # noqa: BLE001 - unparse of odd nodes
        return ""


def free_names(node) -> frozenset:
    """Names a lambda or def reads from outside itself, its decorators and defaults included."""
    loads, bound = set(), set()
    for sub in walk(node):
        if isinstance(sub, ast.Name):
            (loads if isinstance(sub.ctx, ast.Load) else bound).add(sub.id)
        elif isinstance(sub, ast.arg):
            bound.add(sub.arg)
        elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and sub is not node:
            bound.add(sub.name)
    outside = set()
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        for expr in node.decorator_list + node.args.defaults + [d for d in node.args.kw_defaults if d]:
            outside |= {n.id for n in walk(expr) if isinstance(n, ast.Name)}
    return frozenset((loads - bound) | outside)
