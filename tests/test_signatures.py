"""The abstract signatures JAX305-JAX307 read from code, checked against what JAX itself sees,
and the reaching-binding questions they rest on."""

from __future__ import annotations

import ast
import textwrap

import pytest

from jaxlint.analysis.semantic import ReachKind, Scope, ScopeKind
from jaxlint.analysis.signature_reader import reader_for
from jaxlint.analysis.signatures import MORE, Leaf, Tree, dtype_difference, poly_value, structure_difference
from jaxlint.engine import Analysis

# Argument expressions whose dtype, weak type and (constant) shape the reader must know.
KNOWN = [
    "1", "-2", "1.0", "True", "1j", "jnp.array(1.0)", "jnp.array(1)", "jnp.array(True)", "jnp.asarray(2.5)",
    "jnp.array([1, 2])", "jnp.array([1.0, 2.0])", "jnp.array([1, 2.0])", "jnp.array([[1, 2], [3, 4]])",
    "jnp.array([1, 2], dtype=jnp.float32)", "jnp.array(1, dtype=float)", "np.array(2.0)", "np.array([1, 2])",
    "np.array([1.0, 2.0])", "np.float32(1.0)", "np.float64(1.0)", "np.int64(3)", "jnp.float32(2.0)",
    "jnp.int32(2)", "jnp.bfloat16(1.0)", "np.zeros(3)", "np.zeros((2, 3), np.float32)", "np.arange(4)",
    "jnp.zeros(3)", "jnp.ones((2, 3), dtype=jnp.int32)", "jnp.empty((4,), jnp.float16)", "jnp.full((2,), 1)",
    "jnp.full((2,), 1.0)", "jnp.full((2, 2), 1.0, dtype=jnp.bfloat16)", "jnp.arange(5)", "jnp.arange(5.0)",
    "jnp.arange(2, 7)", "jnp.linspace(0.0, 1.0, 7)", "jnp.eye(3)", "jnp.eye(2, 4)", "jnp.zeros(3).astype(jnp.int8)",
    "jnp.ones(3).astype(jnp.float16)", "jnp.zeros((4, 6)).reshape(3, -1)", "jnp.zeros((4, 6)).reshape((8, 3))",
    "jnp.pad(jnp.ones(3), (1, 2))", "jnp.pad(jnp.ones((2, 3)), ((0, 1), (2, 0)))",
    "jnp.stack([jnp.ones(2), jnp.ones(2)])", "jnp.concatenate([jnp.ones(2), jnp.ones(3)])",
    "jnp.ones(3) * 2.0", "jnp.ones(3) * 2", "jnp.arange(3) + 1", "jnp.arange(8) % 3", "jnp.arange(8) // 2",
    "jnp.ones(3) % 2", "jnp.ones(3) // 2.0", "jnp.arange(4, dtype=jnp.uint8) % 3", "jnp.float32(2.0) * 3", "jnp.ones((2, 3)).T",
    "jnp.ones((5, 3))[1:4]", "jnp.ones((5, 3))[:, 0]", "jnp.ones((5, 3))[2]", "jnp.ones((5, 3))[-2:]",
    "jnp.ones(5)[None]", "jax.random.normal(jax.random.PRNGKey(0), (2, 3))",
    "jax.random.uniform(jax.random.PRNGKey(0), (4,))", "jax.random.randint(jax.random.PRNGKey(0), (3,), 0, 5)",
    "jax.random.bernoulli(jax.random.PRNGKey(0), 0.5, (2,))", "float(3)", "int(2.5)", "bool(1)", "2 / 1",
    "3 // 2", "True + True",
    # one-array functions, typed by the probed table (FLOAT_RESULT)
    "jnp.mean(jnp.ones(4))", "jnp.mean(jnp.full((3,), 0.5))", "jnp.tanh(jnp.full((3,), 0.5))",
    "jnp.exp(jnp.ones((2, 3)))", "jnp.ones((2, 3)).sum()", "jax.nn.relu(jnp.linspace(0.0, 1.0, 4))",
    "jnp.full((2,), -1.0).max()", "jnp.sort(jnp.ones(5))",
]


def _module(expr: str) -> str:
    return textwrap.dedent(f"""
        import jax
        import jax.numpy as jnp
        import numpy as np

        @jax.jit
        def f(a):
            return a

        def run():
            return f({expr})
        """)


def _read(source: str):
    tree = ast.parse(source)
    analysis = Analysis(tree, "<test>", None, source.splitlines())
    [site] = [s for s in analysis.jit_calls()
              if s.scope is not None and s.scope.name == "run" and s.entry.name == "f"]
    reader = reader_for(analysis, site.scope)
    return reader.sig_at(site.args["a"].node, site.node), reader


@pytest.mark.parametrize("expr", KNOWN)
def test_reader_knows_what_jax_sees(expr):
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    import numpy as np
    sig, _ = _read(_module(expr))
    aval = jax.jit(lambda a: a).trace(eval(expr, {"jax": jax, "jnp": jnp, "np": np})).in_avals[0][0]
    assert isinstance(sig, Leaf), (expr, sig)
    assert sig.dtype == str(aval.dtype), (expr, sig, aval)
    assert sig.weak is bool(aval.weak_type), (expr, sig, aval)
    shape = tuple(poly_value(d) for d in sig.shape if d is not MORE and d is not None)
    assert len(shape) == len(sig.shape) and shape == aval.shape, (expr, sig.shape, aval.shape)


def test_an_explicit_dtype_makes_a_strong_array_of_unknown_data():
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    sig, _ = _read(_module("jnp.asarray(x * 0.5, dtype=jnp.float32)").replace("def run():", "def run(x=None):"))
    assert isinstance(sig, Leaf) and (sig.dtype, sig.weak) == ("float32", False), sig
    for x in (2, 2.0, jnp.full((2,), 3)):
        aval = jax.jit(lambda a: a).trace(jnp.asarray(x * 0.5, dtype=jnp.float32)).in_avals[0][0]
        assert (str(aval.dtype), aval.weak_type) == ("float32", False), x


# Strongly typed whatever their unknown operand: a reduction, arithmetic with a strong array.
@pytest.mark.parametrize("expr", ["jnp.mean(x)", "jnp.ones(3).sum() * x", "jnp.mean(x) + 1.0", "x - jnp.float32(1.0)",
                                  "0.9 * jnp.mean(x) + 0.1 * x", "jnp.minimum(x, jnp.float32(3.0))",
                                  "jnp.where(x > 1, jnp.float32(1.0), x)"])
def test_reader_knows_a_strong_result_of_unknown_dtype(expr):
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    source = _module(expr).replace("def run():", "def run(x=None):")
    sig, _ = _read(source)
    assert isinstance(sig, Leaf) and sig.weak is False and sig.dtype is None, (expr, sig)
    for x in (2, 2.0, jnp.full((2,), 3), jnp.ones(2, jnp.bfloat16)):     # what JAX says, whatever x is
        value = eval(expr, {"jnp": jnp, "x": x})
        assert not jax.jit(lambda a: a).trace(value).in_avals[0][0].weak_type, (expr, x)


@pytest.mark.parametrize("expr", ["jnp.ones(3) * x", "jnp.arange(3) * 2.0", "jnp.asarray(x)", "x + 1",
                                  "jnp.mean(jnp.arange(3))", "jnp.exp(1.0)", "jnp.mean(jnp.ones(4), axis=0)",
                                  "jnp.max(x) + 1.0", "jnp.sum(x) * 0.5",
                                  "jnp.zeros_like(jnp.array(1.0))", "helper(x)", "jitted(x)", "branchy(1)"])
def test_reader_leaves_unknown_what_it_cannot_tell(expr):
    helpers = ("def helper(v):\n    return v\n\n@jax.jit\ndef jitted(v):\n    return v\n\n"
               "def branchy(v):\n    if v:\n        return v\n    return 1.0\n\n")
    source = _module(expr).replace("def run():", helpers + "def run(x=None):")
    sig, _ = _read(source)
    assert not (isinstance(sig, Leaf) and sig.dtype and sig.weak is not None), (expr, sig)


# What a call of a function of the module returns, read in the function with its parameters bound
# to the arguments: each checked against what JAX sees when the module's code runs.
HELPERS = """
def same(v):
    return v

def scaled(v):
    return v * jnp.float32(0.5)

def pair(v, w=2):
    return v, jnp.zeros(w)

@jax.jit
def jitted(p, m):
    m = 0.9 * m + p
    return p - m, m
"""


@pytest.mark.parametrize("expr", ["same(1.0)", "same(jnp.ones(3, jnp.int8))", "scaled(1.0)", "scaled(2)",
                                  "pair(1.0)[1]", "jitted(jnp.ones(2), jnp.ones(2))[1]", "jitted(1.0, 2.0)[0]"])
def test_reader_follows_the_module_functions(expr):
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    source = _module(expr).replace("def run():", textwrap.dedent(HELPERS) + "\ndef run():")
    sig, _ = _read(source)
    space = {"jax": jax, "jnp": jnp}
    exec(textwrap.dedent(HELPERS), space)
    aval = jax.jit(lambda a: a).trace(eval(expr, space)).in_avals[0][0]
    assert isinstance(sig, Leaf), (expr, sig)
    assert sig.weak is bool(aval.weak_type), (expr, sig, aval)
    assert sig.dtype is None or sig.dtype == str(aval.dtype), (expr, sig, aval)
    if expr.startswith(("same", "scaled")):
        assert sig.dtype == str(aval.dtype), (expr, sig, aval)


def test_structures_and_their_differences():
    tup, _ = _read(_module("(jnp.ones(2), 1.0)"))
    lst, _ = _read(_module("[jnp.ones(2), 1.0]"))
    other, _ = _read(_module("(jnp.ones(2), jnp.float32(1.0))"))
    keys, _ = _read(_module('{"b": 1, "a": jnp.ones(2)}'))
    same_keys, _ = _read(_module('dict(a=jnp.zeros(3), b=2)'))
    none, _ = _read(_module("None"))
    assert isinstance(tup, Tree) and tup.kind == "tuple" and len(tup.children) == 2
    assert structure_difference(tup, lst)[0] == ()
    assert structure_difference(tup, other) is None and dtype_difference(tup, other)[0] == (1,)
    assert keys.keys == ("a", "b") and structure_difference(keys, same_keys) is None
    assert dtype_difference(keys, same_keys) is None          # int32 weak in both; shapes do not count
    assert structure_difference(none, tup)[0] == () and structure_difference(tup, keys)[0] == ()


def test_shapes_are_polynomials_over_loop_variables():
    source = textwrap.dedent("""
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(a):
            return a

        def run(x, bs):
            for i in range(0, 64, bs):
                f(x[i:i + bs])
                f(jnp.zeros((i + 1, 3)))
                f(jnp.pad(x, (0, 128 - len(x))))
    """)
    tree = ast.parse(source)
    analysis = Analysis(tree, "<test>", None, source.splitlines())
    sites = [s for s in analysis.jit_calls() if s.scope is not None]
    reader = reader_for(analysis, sites[0].scope)
    window, grown, padded = (reader.sig_at(s.args["a"].node, s.node) for s in sites)
    assert window.shape[0] == ((("bs",), 1),)              # (i + bs) - i
    assert not reader.varying_atoms(window, sites[0].loops)
    [(_, index, atom)] = reader.varying_atoms(grown, sites[1].loops)
    assert index == 0 and atom.kind == "loop" and atom.text == "i" and atom.values is None   # range(.., bs)
    assert poly_value(padded.shape[0]) == 128 and not reader.varying_atoms(padded, sites[2].loops)


def _bindings(source):
    tree = ast.parse(textwrap.dedent(source))
    func = tree.body[0]
    uses = {}
    for node in ast.walk(func):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "use":
            uses[node.lineno] = node
    bindings = Scope(ScopeKind.FUNCTION, func, func.body, None)
    parents = {}
    for node in ast.walk(func):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node

    def reach(line):
        call = uses[line]
        stmt = call
        while not isinstance(stmt, ast.stmt):
            stmt = parents[id(stmt)]
        name = call.args[0]
        return bindings.reach(name.id, name, stmt)
    return reach


def test_reaching_bindings():
    reach = _bindings("""
        def g(flag, xs):
            a = 1
            use(a)
            if flag:
                a = 2
            use(a)
            n = 0
            for x in xs:
                use(x)
                use(n)
                n += 1
            s = 0.1
            while flag:
                use(s)
                s = s * 2
            t = 1
            for _ in xs:
                use(t)
                t = 2.0
            acc = []
            for x in xs:
                acc = []
                acc.append(x)
                use(acc)
            use(param)
    """)
    assert reach(4).kind is ReachKind.BOUND and reach(4).binding.line == 3
    assert reach(7).kind is ReachKind.AMBIGUOUS                     # rebound in one branch only
    assert reach(10).kind is ReachKind.LOOPVAR
    assert reach(11).kind is ReachKind.SELF and reach(11).binding.line == 8
    assert reach(15).kind is ReachKind.SELF
    carried = reach(19)
    assert carried.kind is ReachKind.CARRIED and carried.binding.line == 17 and carried.later[0].line == 20
    assert reach(25).kind is ReachKind.BOUND and reach(25).binding.line == 23
    assert reach(26).kind is ReachKind.UNBOUND
