"""The semantic model against oracles and against the questions the rules ask of it.

Scopes: for every function, lambda and class of every fixture and of jaxlint's own source, the
names the model calls local, free and global are those the standard library's `symtable` (the
compiler's own symbol table) calls so.
"""

from __future__ import annotations

import ast
import pathlib
import symtable
import textwrap

import pytest

from jaxlint.analysis.syntax import Parents
from jaxlint.analysis.semantic import BindingKind, NameScope, SemanticModel

ROOT = pathlib.Path(__file__).resolve().parent.parent
FILES = sorted((ROOT / "tests" / "fixtures").rglob("*.py")) + sorted((ROOT / "src" / "jaxlint").rglob("*.py"))
_COMPREHENSIONS = {"listcomp", "setcomp", "dictcomp", "genexpr", "<listcomp>", "<setcomp>", "<dictcomp>",
                   "<genexpr>"}


def _tables(table):
    yield table
    for child in table.get_children():
        yield from _tables(child)


def _scope_nodes(tree):
    """(kind, name, line) -> node for every def, lambda and class."""
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            key = ("function", node.name, node.lineno)
        elif isinstance(node, ast.ClassDef):
            key = ("class", node.name, node.lineno)
        elif isinstance(node, ast.Lambda):
            key = ("function", "lambda", node.lineno)
        else:
            continue
        found[key] = None if key in found else node     # two on one line: symtable cannot tell them apart
    return found


def _classified(table) -> dict:
    out = {}
    for sym in table.get_symbols():
        if sym.is_free():
            out[sym.get_name()] = NameScope.FREE
        elif sym.is_global() or sym.is_declared_global():
            out[sym.get_name()] = NameScope.GLOBAL
        elif sym.is_local():
            out[sym.get_name()] = NameScope.LOCAL
    return out


def _compare(source: str, filename: str) -> list:
    tree = ast.parse(source)
    model = SemanticModel(tree, Parents(tree))
    nodes = _scope_nodes(tree)
    problems = []
    for table in _tables(symtable.symtable(source, filename, "exec")):
        kind = table.get_type()
        kind = getattr(kind, "value", kind)
        if kind not in ("function", "class") or table.get_name() in _COMPREHENSIONS:
            continue
        key = ("class" if kind == "class" else "function", table.get_name(), table.get_lineno())
        node = nodes.get(key)
        if node is None:
            continue        # two lambdas on one line: symtable cannot tell them apart
        scope = model.scope(node)
        expected = _classified(table)
        locals_expected = {n for n, c in expected.items() if c is NameScope.LOCAL}
        if kind == "function" and scope.local_names() != locals_expected:
            problems.append(f"{filename}:{table.get_lineno()} {table.get_name()}: locals "
                            f"{sorted(scope.local_names() ^ locals_expected)} differ")
        for name, want in expected.items():
            got = model.classify(name, scope)
            if got is not want:
                problems.append(f"{filename}:{table.get_lineno()} {table.get_name()}: `{name}` is {want.value} "
                                f"for symtable, {got.value} for the model")
    return problems


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_scopes_match_symtable(path):
    source = path.read_text(encoding="utf-8")
    assert _compare(source, str(path)) == []


def test_scopes_match_symtable_on_tricky_code():
    source = textwrap.dedent("""
        import os.path as osp, sys
        X = 1
        def outer(a, /, b=X, *args, c, **kw):
            global G
            G = a
            total = 0
            def inner():
                nonlocal total
                total += b
                return [y for y in args if (z := y)] and z
            class K:
                attr = total
                def m(self):
                    return attr_missing + total
            try:
                import json
            except ImportError as err:
                del c
            with open(osp.join("a")) as (fh):
                pass
            match kw:
                case {"k": [first, *rest]}:
                    pass
                case {**others}:
                    pass
            if (n := len(args)) > 0:
                pass
            f = lambda q, r=total: q + r + n
            for i, (j, k) in enumerate([]):
                pass
            v: int
            return inner, K, f, sys
    """)
    assert _compare(source, "<tricky>") == []


def _model(source):
    tree = ast.parse(textwrap.dedent(source))
    return tree, SemanticModel(tree, Parents(tree))


def _values(source, name, line, func=None):
    tree, model = _model(source)
    scope_node = next((n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == func), None)
    stmt = next(n for n in ast.walk(tree) if isinstance(n, ast.stmt) and n.lineno == line
                and not isinstance(n, ast.FunctionDef))
    found = model.values(name, stmt, model.scope(scope_node))
    return None if found is None else [ast.unparse(v) for v in found]


def test_a_branch_that_returns_does_not_reach_the_code_after_it():
    source = """
        def run(x, flag):
            shape = (2, 3)
            if flag:
                shape = [2, 3]
                return make(x, shape=tuple(shape))
            return make(x, shape=shape)
    """
    assert _values(source, "shape", 7, "run") == ["(2, 3)"]
    assert _values(source, "shape", 6, "run") == ["[2, 3]"]


def test_both_branches_reach_the_join():
    source = """
        def run(wide):
            if wide:
                shape = [2, 8]
            else:
                shape = [2, 3]
            use(shape)
    """
    assert _values(source, "shape", 7, "run") == ["[2, 8]", "[2, 3]"]


def test_loops_break_continue_and_try():
    source = """
        def run(xs):
            n = 0
            for x in xs:
                if x:
                    n = 1
                    continue
                n = 2
                if x > 1:
                    break
            use(n)
            try:
                m = 1
                m = 2
            except ValueError:
                use(m)
            while True:
                k = 1
                break
            use(k)
    """
    assert sorted(_values(source, "n", 11, "run")) == ["0", "1", "2"]
    assert _values(source, "m", 16, "run") is None          # maybe unbound in the handler
    assert _values(source, "k", 20, "run") == ["1"]         # `while True` leaves only by break


def test_enclosing_scopes_and_globals():
    source = """
        SIZES = (1, 2)
        def outer():
            size = 4
            def inner():
                return size, SIZES, len
            return inner
    """
    tree, model = _model(source)
    inner = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "inner")
    ret = inner.body[0]
    scope = model.scope(inner)
    assert [ast.unparse(v) for v in model.values("size", ret, scope)] == ["4"]
    assert [ast.unparse(v) for v in model.values("SIZES", ret, scope)] == ["(1, 2)"]
    assert model.values("len", ret, scope) is None
    assert model.classify("size", scope) is NameScope.FREE
    assert model.classify("SIZES", scope) is NameScope.GLOBAL


def test_binding_kinds_are_typed():
    tree, model = _model("""
        import numpy as np
        def f(a, *rest):
            b = a
            b += 1
            c, d = a, 2
            e, *g = rest
            for i in rest:
                pass
            with open(a) as fh:
                pass
            def h():
                pass
            class C:
                pass
            del d
    """)
    func = tree.body[1]
    kinds = {name: [b.kind for b in bs] for name, bs in model.scope(func).by_name.items()}
    assert kinds["a"] == [BindingKind.PARAMETER]
    assert kinds["b"] == [BindingKind.ASSIGNMENT, BindingKind.AUGMENTED]
    assert kinds["c"] == [BindingKind.ASSIGNMENT]
    assert kinds["d"] == [BindingKind.ASSIGNMENT, BindingKind.DELETION]
    assert kinds["e"] == [BindingKind.UNPACKED] and kinds["g"] == [BindingKind.UNPACKED]
    assert kinds["i"] == [BindingKind.LOOP_TARGET]
    assert kinds["fh"] == [BindingKind.WITH_TARGET]
    assert kinds["h"] == [BindingKind.FUNCTION] and kinds["C"] == [BindingKind.CLASS]
    assert [b.kind for b in model.module.by_name["np"]] == [BindingKind.IMPORT]
