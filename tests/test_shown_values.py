"""What the file shows about a value (analysis/shown.py) and where batches come from
(analysis/batches.py): the answers the call-site rules build on, checked on small programs."""

import ast
import textwrap

import pytest

from jaxlint.analysis.batches import BatchSources
from jaxlint.analysis.file import Analysis
from jaxlint.analysis.shown import Ctx, Shown
from jaxlint.engine import lint_source


def analysed(source):
    source = textwrap.dedent(source)
    tree = ast.parse(source)
    return Analysis(tree, "case.py", None, source.splitlines()), tree


def values_at(source, name, func):
    """The values `name` can take at the end of def `func`."""
    analysis, tree = analysed(source)
    scope = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == func)
    found = Shown(analysis).values(ast.Name(id=name, ctx=ast.Load()), Ctx(scope, 10 ** 6))
    return set(found.known), found.complete


def test_a_parameter_takes_what_each_call_passes_and_its_default_where_left_out():
    source = """
        def f(n=8):
            return n

        def a():
            return f(20)

        def b():
            return f()
    """
    assert values_at(source, "n", "f") == ({20, 8}, True)


def test_arithmetic_a_caller_variable_and_a_module_constant():
    source = """
        STEPS = 5

        def f(n, m):
            k = n * 2 - 1
            return k

        def a():
            width = 3 + STEPS
            return f(width, m=1)
    """
    assert values_at(source, "k", "f") == ({15}, True)


def test_a_parameter_of_an_enclosing_function_reaches_the_nested_one():
    source = """
        def outer(size=4):
            def inner():
                return size
            return inner()

        def run():
            return outer(size=6), outer(2)
    """
    assert values_at(source, "size", "inner") == ({6, 2}, True)


def attribute_values_at(source, expr, func):
    analysis, tree = analysed(source)
    scope = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == func)
    found = Shown(analysis).values(ast.parse(expr, mode="eval").body, Ctx(scope, 10 ** 6))
    return set(found.known), found.complete


def test_an_attribute_of_a_config_object_takes_what_its_scope_assigns():
    source = """
        from types import SimpleNamespace

        def train(config):
            return config.batch_size

        cfg = SimpleNamespace(steps=3)
        cfg.batch_size = 128
        alias = cfg
        if cfg.steps > 1:
            cfg.batch_size = 256
        train(alias)
    """
    assert attribute_values_at(source, "config.batch_size", "train") == ({128, 256}, True)
    assert attribute_values_at(source, "config.steps", "train") == ({3}, True)
    assert attribute_values_at(source, "config.other", "train") == (set(), False)


def test_an_attribute_a_class_sets_itself_is_not_read_from_outside_stores():
    source = """
        class Config:
            def __init__(self):
                self.batch_size = 64

        class Bare:
            pass

        def train(config, other):
            return config.batch_size, other.batch_size

        cfg, bare = Config(), Bare()
        cfg.batch_size = 128
        bare.batch_size = 32
        train(cfg, bare)
    """
    assert attribute_values_at(source, "config.batch_size", "train") == (set(), False)
    assert attribute_values_at(source, "other.batch_size", "train") == ({32}, True)


def test_an_attribute_of_an_object_the_file_does_not_make_is_unknown():
    source = """
        import argparse

        def train(args):
            return args.batch_size

        def main(args):
            train(args)
    """
    assert attribute_values_at(source, "args.batch_size", "train") == (set(), False)


def test_a_value_the_file_does_not_show_is_unknown():
    source = """
        import os

        def f(n):
            return n

        def a():
            return f(int(os.environ["N"]))
    """
    known, complete = values_at(source, "n", "f")
    assert not complete and not known


def test_names_are_read_before_the_line_that_rebinds_them():
    source = """
        def f():
            ds = 1
            ds = ds + 1
            return ds
    """
    assert values_at(source, "ds", "f") == ({2}, True)


LOADER = """
    from torch.utils.data import DataLoader

    def make_loader(data, bs, drop_last=False):
        return DataLoader(data, batch_size=bs, drop_last=drop_last)

    def run(data):
        for xb in make_loader(data, 8{extra}):
            pass
"""


@pytest.mark.parametrize("extra, ragged", [("", True), (", drop_last=True", False), (", True", False),
                                           (", drop_last=False", True), (", drop_last=flag", False)])
def test_a_factory_passes_drop_last_through(extra, ragged):
    analysis, tree = analysed(LOADER.format(extra=extra))
    loop = next(n for n in ast.walk(tree) if isinstance(n, ast.For))
    found = BatchSources(analysis).ragged_loop(loop)
    assert (found is not None) == ragged
    if ragged:
        assert "DataLoader without drop_last=True" in found.source and "make_loader" in found.source


def test_a_flag_the_file_does_not_show_leaves_a_note():
    analysis, tree = analysed(LOADER.format(extra=", drop_last=flag"))
    sources = BatchSources(analysis)
    loop = next(n for n in ast.walk(tree) if isinstance(n, ast.For))
    assert sources.ragged_loop(loop) is None
    assert any("drop_last=drop_last" in note and "cannot be read" in note for note in sources.notes)


VERBOSE_CASES = {
    "JAX303": ("""
        import jax
        import numpy as np

        @jax.jit
        def step(w, xb):
            return w + xb.sum()

        def run(x, w, bs=16):
            for i in range(0, len(x), bs):
                if i + bs > len(x):
                    xb = x[-bs:]
                else:
                    xb = x[i:i + bs]
                w = step(w, xb)
            return w
    """, "JAX303 not reported for the loop at line 10: it handles its last batch itself (line 11)"),
    "JAX302": ("""
        from functools import partial
        import jax

        @partial(jax.jit, static_argnums=1)
        def f(x, n):
            for _ in range(n):
                x = x * 2
            return x

        def run(x):
            return f(x, 8)
    """, "JAX302 not reported at line 7: every value the file passes gives at most 8 iterations"),
    "JAX201": ("""
        from functools import partial
        import jax

        HEADS = {"a": 2, "b": 3}

        @partial(jax.jit, static_argnames="k")
        def f(x, k):
            return x[:k]

        def run(x, names):
            return [f(x, k=HEADS[name]) for name in names]
    """, "JAX201 not reported at line 12: static `k` of `f` changes in the loop at line 12, but takes "
         "few values: it is looked up in `HEADS`, a fixed table"),
}


@pytest.mark.parametrize("code", sorted(VERBOSE_CASES))
def test_a_finding_left_out_for_lack_of_evidence_says_why(code):
    source, note = VERBOSE_CASES[code]
    result = lint_source(textwrap.dedent(source), "case.py")
    assert code not in {f.code for f in result.findings}
    assert any(n.startswith(note) for n in result.notes), result.notes


def test_following_a_parameter_through_many_callers_stops_at_a_budget():
    """Each level calls the one below from 30 places: unbounded, the search would follow 30**4
    call chains back from the loop."""
    lines = ["import jax", "", "@jax.jit", "def step(x):", "    return x", "",
             "def level0(loader):", "    for xb in loader:", "        step(xb)", ""]
    for level in range(1, 6):
        lines += [f"def level{level}(loader):"] + [f"    level{level - 1}(loader)"] * 30 + [""]
    analysis, tree = analysed("\n".join(lines))
    sources = BatchSources(analysis)
    loop = next(n for n in ast.walk(tree) if isinstance(n, ast.For))
    assert sources.ragged_loop(loop) is None
    assert sources._budget <= 0                       # the walk ran into its bound and stopped
