"""The shortcuts the analysis takes for speed give the answers the plain way gives.

Each shortcut (a text search before a walk, ancestors found on demand, a def's callers found
by a text search for its name) is checked against the straightforward computation on real
code: the fixtures and jaxlint's own sources.
"""

import ast
import pathlib
import random
import re

import pytest

from jaxlint.analysis.syntax import Parents
from jaxlint.analysis.dataflow import ModuleFlow, inspects_tracers
from jaxlint.analysis.module import FunctionNode, ModuleIndex, evaluate_literal
from jaxlint.analysis.syntax import CALLED_NAME, LineFilter, calls_around, calls_by_callee_end, walk
from jaxlint.analysis.names import ImportMap
from jaxlint.analysis.repetition import Repetition

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOURCES = sorted((ROOT / "tests" / "fixtures").rglob("*.py")) + sorted((ROOT / "src" / "jaxlint").rglob("*.py"))


def parsed(path):
    text = path.read_text(encoding="utf-8")
    return ast.parse(text), text.splitlines()


def sample(n, seed=0):
    return random.Random(seed).sample(SOURCES, min(n, len(SOURCES)))


# -- evaluate_literal ----------------------------------------------------------------------------

LITERALS = ["1", "-1", "+1.5", "-0.0", "1+2j", "-1-2j", "1.5-1j", "(1, [2, {3}], {'a': (4,)})", "set()",
            "b'x'", "None", "...", "(-1, +2j)", "-(1)", "{1: 2, 3: []}", "'s'", "True", "((),)",
            # not literals: the same ValueError / TypeError as ast.literal_eval
            "{**a}", "-True", "1+2", "1j-3", "x", "f()", "set(1)", "[1, 2][0]", "True+1j", "{[1]}",
            "{1: 2, **b}", "not 1", "~1", "-'s'", "1+(2j)", "(1+2j)+3j", "set(x=1)", "frozenset()"]


@pytest.mark.parametrize("source", LITERALS)
def test_evaluate_literal_agrees_with_ast_literal_eval(source):
    node = ast.parse(source, mode="eval").body

    def outcome(evaluate):
        try:
            return "value", evaluate(node)
        except (ValueError, TypeError) as exc:
            return "error", type(exc)

    expected, got = outcome(ast.literal_eval), outcome(evaluate_literal)
    assert got == expected
    if expected[0] == "value":
        assert repr(got[1]) == repr(expected[1])     # -0.0 vs 0.0, 1 vs True


# -- LineFilter ----------------------------------------------------------------------------------

def lines_with_words_slowly(lines, words):
    return [i for i, line in enumerate(lines, 1) if set(re.findall(r"\w+", line)) & set(words)]


@pytest.mark.parametrize("path", sample(40), ids=lambda p: p.name)
@pytest.mark.parametrize("newlines", [False, True], ids=["ast-lines", "flake8-lines"])
def test_line_filter_finds_the_lines_a_tokeniser_finds(path, newlines):
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=newlines)
    words = {"jit", "vmap", "import", "def", "x", "self", "return", "scan", "map", "_"}
    assert LineFilter(lines, words).hits == lines_with_words_slowly(lines, words)
    assert LineFilter(lines, {"no_such_word_anywhere"}).hits == []


def test_line_filter_matches_whole_words_only_and_at_the_text_edges():
    lines = ["jit", "jitted = my_jit(x)", "x.jit(f)", "jit_", "é jit", "(jit)"]
    assert LineFilter(lines, {"jit"}).hits == [1, 3, 5, 6]
    assert LineFilter([line + "\n" for line in lines], {"jit"}).hits == [1, 3, 5, 6]


# -- calls found from a text search ---------------------------------------------------------------

def callee_end(call):
    return call.func.end_lineno, call.func.end_col_offset


def position(lines, line, column):
    """The ast column (UTF-8 bytes) of a character column of a line."""
    return line, len(lines[line - 1][:column].encode("utf-8"))


@pytest.mark.parametrize("path", sample(40, seed=5), ids=lambda p: p.name)
def test_calls_by_callee_end_are_the_calls_a_walk_finds(path):
    tree, lines = parsed(path)
    calls = [n for n in walk(tree) if isinstance(n, ast.Call)]
    names = {name for call in calls for name in [getattr(call.func, "id", getattr(call.func, "attr", None))] if name}
    chosen = set(random.Random(6).sample(sorted(names), min(8, len(names))))
    # every call of a chosen name (`f(`, `.f(`, the `f)(` of a transform's result)
    numbers = range(1, len(lines) + 1)
    parents = Parents(tree)
    found = calls_by_callee_end(tree, lines, numbers, CALLED_NAME, chosen, parents)
    ends = {position(lines, i, end) for i in numbers for m in CALLED_NAME.finditer(lines[i - 1])
            if m.group(1) in chosen for end in (m.end(), m.end(1))}
    expected = sorted((c for c in calls if callee_end(c) in ends), key=lambda c: (c.lineno, c.col_offset))
    assert found == expected
    assert all(isinstance(c.func, (ast.Name, ast.Attribute, ast.Call)) for c in found)
    # and the links kept on the way are the parent map's
    full = Parents(tree).parent
    for call in found:
        assert list(parents.chain(call)) == list(_chain(full, call))
    # the calls around a chosen name, wherever it stands in them
    around = calls_around(tree, lines, numbers, None, None, chosen)
    assert set(map(id, found)) <= set(map(id, around))


def _chain(full, node):
    node = full.get(id(node))
    while node is not None:
        yield node
        node = full.get(id(node))


@pytest.mark.parametrize("path", sample(40, seed=7), ids=lambda p: p.name)
def test_calls_around_a_word_are_the_calls_whose_span_holds_it(path):
    tree, lines = parsed(path)
    words = re.compile(r"\b(?:self|x|None|i)\b")
    numbers = range(1, len(lines) + 1)
    ends = {position(lines, i, m.end()) for i in numbers for m in words.finditer(lines[i - 1])}
    expected = sorted((c for c in walk(tree) if isinstance(c, ast.Call) and any(
        (c.lineno, c.col_offset) <= end <= (c.end_lineno, c.end_col_offset) for end in ends)),
        key=lambda c: (c.lineno, c.col_offset))
    assert calls_around(tree, lines, numbers, words) == expected
    # the same words as a set, found by str.find instead of a pattern
    assert calls_around(tree, lines, numbers, None, None, {"self", "x", "None", "i"}) == expected


def test_calls_by_callee_end_cases():
    source = ("import jax\nk = jax.random.normal(key, (2,))\nv = jax.value_and_grad(loss)(p, key)\n"
              "@deco(sample(key))\ndef f(x=draw(key)):\n    return [self.sample(k) for k in ks]\n"
              "s = 'é'; t = sample(key); u = (draw)(key)\nw = (mod\n     .sample(key))\n")
    tree, lines = ast.parse(source), source.splitlines()
    numbers = range(1, len(lines) + 1)
    found = calls_by_callee_end(tree, lines, numbers, CALLED_NAME, {"sample", "loss", "draw"})
    assert [ast.unparse(c) for c in found] == ["jax.value_and_grad(loss)(p, key)", "sample(key)", "draw(key)",
                                              "self.sample(k)", "sample(key)", "draw(key)", "mod.sample(key)"]
    around = calls_around(tree, lines, numbers, None, None, {"mod"})
    assert [ast.unparse(c) for c in around] == ["mod.sample(key)"]
    found = calls_by_callee_end(tree, lines, numbers, re.compile(r"\bjax\s*\.\s*random\s*\.\s*(\w+)"))
    assert [ast.unparse(c) for c in found] == ["jax.random.normal(key, (2,))"]


# -- Parents -------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", sample(30, seed=1), ids=lambda p: p.name)
def test_ancestors_found_on_demand_are_the_parent_map(path):
    tree, _ = parsed(path)
    full = Parents(tree).parent
    lazy = Parents(tree)
    nodes = list(walk(tree))
    for node in random.Random(2).sample(nodes, min(60, len(nodes))):
        assert lazy.parent_of(node) is full.get(id(node))


def test_a_node_outside_its_def_span_is_still_placed():
    tree = ast.parse("def deco(f):\n    return f\n\n@deco(lambda: g(1))\ndef h():\n    pass\n")
    call = next(n for n in walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "g")
    lazy = Parents(tree)
    chain = list(lazy.chain(call))
    assert isinstance(chain[0], ast.Lambda) and isinstance(chain[2], ast.FunctionDef) and chain[-1] is tree


def test_a_descent_through_many_statements_finds_every_node():
    # wide bodies are bisected by position: decorators before their def, two statements on
    # one line, a class and a def with many statements, handlers and cases beside a body
    body = "\n".join(f"a{i} = f({i}); b{i} = g(a{i})" for i in range(20))
    methods = "\n".join(f"    @deco({i})\n    def m{i}(self, x=h({i})):\n        return x + {i}" for i in range(20))
    tail = "\n".join(f"    y{i} = k({i})" for i in range(20))
    source = (f"{body}\n\n@deco(lambda: q(1))\ndef top(x):\n{tail}\n    try:\n        pass\n"
              f"    except E as e:\n        r(e)\n    match x:\n        case 1:\n            s(x)\n"
              f"\nclass C:\n{methods}\n")
    tree = ast.parse(source)
    full = Parents(tree).parent
    lazy = Parents(tree)
    for node in walk(tree):
        assert lazy.parent_of(node) is full.get(id(node)), ast.dump(node)[:60]
    # without decorators (which lie outside their def's span), descents alone answer
    plain = ast.parse(source.replace("@deco(lambda: q(1))\n", "").replace("    @deco", "    # deco"))
    lazy = Parents(plain)
    nodes = [n for n in walk(plain) if hasattr(n, "end_col_offset")]
    full = Parents(plain).parent
    for node in nodes:
        assert lazy.parent_of(node) is full.get(id(node)), ast.dump(node)[:60]
    assert lazy._full is None


def test_many_questions_switch_to_one_parent_map():
    tree = ast.parse("\n".join(f"x{i} = f({i})" for i in range(3000)))
    lazy = Parents(tree, descent_budget=5_000)
    calls = [n for n in walk(tree) if isinstance(n, ast.Call)]
    for call in calls:
        assert isinstance(lazy.parent_of(call), ast.Assign)
    assert lazy._full is not None


# -- Repetition ----------------------------------------------------------------------------------

@pytest.mark.parametrize("path", sample(30, seed=3), ids=lambda p: p.name)
def test_repetition_found_through_pruned_walks_equals_the_unpruned_search(path):
    tree, lines = parsed(path)
    pruned = Repetition(tree, Parents(tree), ModuleIndex(tree, ImportMap(tree, lines), lines), lines)
    plain_index = ModuleIndex(tree, ImportMap(tree))
    plain = Repetition(tree, Parents(tree), plain_index, None)
    for info, plain_info in zip(pruned.index.functions, plain_index.functions):
        assert [w.reason for w in pruned.witnesses(info)] == [w.reason for w in plain.witnesses(plain_info)], \
            info.qualname


# -- ImportMap, ModuleIndex, inspects_tracers: with the line filters and without ------------------

@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_filtered_index_equals_the_full_index(path):
    tree, lines = parsed(path)
    full_imports, fast_imports = ImportMap(tree), ImportMap(tree, lines)
    assert fast_imports.aliases == full_imports.aliases
    full, fast = ModuleIndex(tree, full_imports), ModuleIndex(tree, fast_imports, lines)
    assert [(f.qualname, id(f.node)) for f in fast.functions] == [(f.qualname, id(f.node)) for f in full.functions]
    assert {n: c.node for n, c in fast.classes.items()} == {n: c.node for n, c in full.classes.items()}
    assert fast.registered_pytree_classes() == full.registered_pytree_classes()
    assert fast.static_fields == full.static_fields and fast.module_names == full.module_names
    assert repr(fast.constants) == repr(full.constants)
    flow = ModuleFlow(fast, None, {}, {}, None, lines)
    for node in walk(tree):
        if isinstance(node, FunctionNode + (ast.Lambda,)):
            assert flow.inspects_tracers(node) == inspects_tracers(node, flow.module_level_read)


REGISTRATIONS = '''
import jax
from jax.tree_util import register_pytree_node as reg

class A: pass
class B: pass
class C: pass
class D: pass

def setup():
    x = 1
    if x:
        jax.tree_util.register_pytree_node(A, lambda a: ((), None), lambda _, c: A())
    reg(B, lambda b: ((), None), lambda _, c: B())
    jax.tree_util.register_static(C)
    print(D)

    def nested():
        class E: pass
        return E
'''


def test_a_registration_inside_a_function_body_is_still_seen():
    tree, lines = ast.parse(REGISTRATIONS), REGISTRATIONS.splitlines()
    fast = ModuleIndex(tree, ImportMap(tree, lines), lines)
    assert fast.registered_pytree_classes() == {"A", "B", "C"}
    assert [f.qualname for f in fast.functions] == ["setup", "setup.nested"]
    assert "E" in fast.classes


# -- one def cut out of a module's text ------------------------------------------------------------

@pytest.mark.parametrize("path", sample(60, seed=7), ids=lambda p: p.name)
def test_one_def_cut_from_the_text_is_the_block_every_def_cut_gives(path):
    from jaxlint.analysis.crossmodule import top_def_block, top_def_blocks
    data = path.read_bytes()
    blocks = top_def_blocks(data)
    # every module-level def, and names that are only called or only nested defs
    names = set(blocks) | {n.id for n in walk(ast.parse(data)) if isinstance(n, ast.Name)}
    for name in sorted(names):
        assert top_def_block(data, name) == blocks.get(name), name


def test_one_def_cut_cases():
    from jaxlint.analysis.crossmodule import top_def_block
    data = (b"def f(x):\n    return g(x)\n# a comment\n    \ndef g(\n    y,\n):\n    '''g\n'''\n    return y\n"
            b"class C:\n    def f(self):\n        pass\nasync def h():\n    pass\ndef f_2():\n    f()\n"
            b"def f(z):\n    pass")
    assert top_def_block(data, "f") == b"def f(z):\n    pass"          # the last def, at the end
    assert top_def_block(data, "g") == b"def g(\n    y,\n):\n    '''g\n"   # ends at a column-0 line
    assert top_def_block(data, "h") == b"async def h():\n    pass\n"
    assert top_def_block(data, "C") is None and top_def_block(data, "f_") is None


@pytest.mark.parametrize("path", sample(80, seed=13), ids=lambda p: p.name)
def test_a_global_statement_found_from_its_word_is_the_one_a_line_pattern_finds(path):
    from jaxlint.analysis.crossmodule import _OUTER_STATEMENT, _declares_outer
    data = path.read_bytes()
    assert _declares_outer(data) == bool(_OUTER_STATEMENT.search(data))


def test_a_global_statement_cases():
    from jaxlint.analysis.crossmodule import _declares_outer
    assert _declares_outer(b"def f():\n    global KEY\n") and _declares_outer(b"def f():\n\tnonlocal n, m\n")
    assert not _declares_outer(b"n = global_device_count()\n# global KEY\nx = 'global y'\n")
    assert not _declares_outer(b"def f():\n    globals()\n    nonlocal_thing = 1\n")
