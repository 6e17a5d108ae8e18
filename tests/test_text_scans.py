"""The cheap text scans that decide which modules are parsed at all: what a module's text calls
(`calls_in_text`), which top-level names it binds once (`module_constants`), and its top-level
imports (`top_level_imports`). Each is checked against a slow reference written plainly here, on
hand-picked texts and on random ones, since a scan that misses a name silently drops a finding
in another module."""

import random
import re

import pytest

from jaxlint.analysis.crossmodule import _read_constants, calls_in_text
from jaxlint.project import top_level_imports


def _reference_calls(text: str) -> tuple:
    """Walk the text by hand: at each `(`, skip whitespace backwards, take the longest run of
    word characters and dots before it, and keep it when it starts with a letter or `_` that
    does not follow a word character or a dot."""
    names, attrs = set(), {}
    for at, char in enumerate(text):
        if char != "(":
            continue
        end = at
        while end > 0 and text[end - 1].isspace():
            end -= 1
        start = end
        while start > 0 and (text[start - 1] == "." or re.match(r"\w", text[start - 1])):
            start -= 1
        chain = text[start:end]
        # the chain must begin with an ASCII letter or `_`; a leading digit or dot is no call name
        first = re.match(r"[A-Za-z_]", chain)
        if not chain or first is None:
            continue
        head, _, rest = chain.partition(".")
        if not rest:
            names.add(head)
        else:
            attrs.setdefault(head, set()).add(rest.split(".", 1)[0])
    return names, attrs


@pytest.mark.parametrize("text, names, attrs", [
    ("f(x)", {"f"}, {}),
    ("y = jax.jit(step)(x)", set(), {"jax": {"jit"}}),
    ("a.b.c (1)\n", set(), {"a": {"b"}}),
    ("step\n(x)", {"step"}, {}),
    ("1f(x)", set(), {}),                 # not a name: starts with a digit
    ("x.(y)", {"x"}, {}),                 # a cheap first look: a stray dot still names `x`
    ("obj[0].m(x)", set(), {}),           # the chain starts after `]`: `.m` is no name
    ("_private(x); é(y)", {"_private"}, {}),
    ("print(f(g(1)))", {"print", "f", "g"}, {}),
])
def test_calls_in_text_cases(text, names, attrs):
    assert calls_in_text(text) == (names, attrs)


def test_calls_in_text_matches_a_plain_walk_on_random_text():
    alphabet = "ab_1.( \n\té)x"
    rng = random.Random(7)
    for _ in range(20_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 16)))
        assert calls_in_text(text) == _reference_calls(text), repr(text)


def _write(tmp_path, text: str) -> str:
    path = tmp_path / "config.py"
    path.write_bytes(text.encode())
    return str(path)


def test_constants_are_the_names_bound_once_and_nowhere_else(tmp_path):
    path = _write(tmp_path, "\n".join([
        "import os",
        "LAYERS = [64, 32]",
        "RATE: float = 0.1",
        "TWICE = 1",
        "TWICE = 2",
        "INDENTED = 3",
        "DEFINED = 4",
        "IMPORTED = 5",
        "GLOBALED = 6",
        "LOOPED = 7",
        "COMPARED = 8",
        "ONLY_READ = 9",
        "if os.environ.get('X'):",
        "    INDENTED = 30",
        "def DEFINED():",
        "    global GLOBALED",
        "    from other import IMPORTED",
        "    for LOOPED in range(3):",
        "        pass",
        "    if COMPARED == 8:",
        "        return ONLY_READ",
        "",
    ]))
    found, digest = _read_constants(path)
    assert sorted(found) == ["COMPARED", "LAYERS", "ONLY_READ", "RATE"]
    assert [e.value for e in found["LAYERS"].elts] == [64, 32]
    assert found["LAYERS"].lineno == 2          # the module's line, not the chunk's
    assert digest


def test_a_loop_variable_counts_only_before_in(tmp_path):
    path = _write(tmp_path, "SIZE = 4\nSTEPS = 2\nfor i in range(SIZE):\n    pass\nfor STEPS in x:\n    pass\n")
    found, _ = _read_constants(path)
    assert sorted(found) == ["SIZE"]


def test_imports_in_docstrings_are_not_imports():
    data = b'"""Example:\n\nimport fake\n"""\nimport real\n\'\'\'\nfrom also_fake import x\n\'\'\'\nfrom pkg import (\n    a,\n    b)\n'
    body = top_level_imports(data)
    names = [alias.name for stmt in body for alias in stmt.names]
    assert names == ["real", "a", "b"]
