"""Repetition as the code shows it (analysis/repetition.py) and the JAX301 decisions built on it.

The runtime side (JAX compiles exactly what the fixtures say) is tests/test_verify.py; here the
static answers are checked on small programs, including the Flax / Equinox module cases that
cannot run without those libraries.
"""

import ast
import textwrap

from jaxlint.analysis.syntax import Parents
from jaxlint.analysis.module import ModuleIndex
from jaxlint.analysis.names import ImportMap
from jaxlint.analysis.repetition import LITERAL, LOOP, Repetition, scope_key
from jaxlint.engine import lint_source

PROGRAM = '''
import functools
import jax

def leaf():
    pass

def middle(x):
    leaf()

def outer(xs):
    for x in xs:
        middle(x)

def train_step():
    pass

def lonely():
    leaf2()

def leaf2():
    pass

@functools.lru_cache
def cached():
    pass

def loop_cached():
    while True:
        cached()

class Model:
    def __init__(self, cfg):
        self.cfg = cfg

    def __call__(self, x):
        pass

    def predict(self, x):
        pass

def drive(cfgs, batches):
    for cfg in cfgs:
        m = Model(cfg)
    model = Model(1)
    for b in batches:
        model(b)
        model.predict(b)

def first():
    def _helper():
        pass
    _helper()

def second(items):
    def _helper():
        pass
    for item in items:
        _helper()

def shadowed(leaf, items):
    for item in items:
        leaf()

@jax.jit
def traced_step(x):
    return only_traced(x)

def only_traced(x):
    return x

def recursive(n):
    if n:
        recursive(n - 1)

def sweep():
    for flag in (False, True):
        middle(flag)
'''


def _repetition(source):
    tree = ast.parse(source)
    lines = source.splitlines()
    index = ModuleIndex(tree, ImportMap(tree, lines), lines)
    traced = {id(info.node) for info in index.functions if info.name == "traced_step"}
    return Repetition(tree, Parents(tree), index, lines, traced), index


def _defs(index):
    return {info.qualname: info for info in index.functions}


def test_only_defs_a_loop_reaches_are_repeated():
    rep, index = _repetition(PROGRAM)
    repeated = {name for name, info in _defs(index).items() if rep.witnesses(info)}
    assert repeated == {"middle", "leaf", "Model.__init__", "Model.__call__", "Model.predict",
                        "second._helper"}


def test_witness_reasons_name_the_loop_and_the_calls():
    rep, index = _repetition(PROGRAM)
    defs = _defs(index)
    assert rep.witnesses(defs["middle"])[0].reason == "`middle` is called in the loop at line 12 (line 13)"
    assert rep.witnesses(defs["leaf"])[0].reason == \
        "`leaf` is called from `middle` (line 9), which runs in the loop at line 12"


def test_traced_callers_are_recorded_not_witnesses():
    rep, index = _repetition(PROGRAM)
    info = _defs(index)["only_traced"]
    assert rep.witnesses(info) == []
    assert "traced_step" in rep.traced_callers[id(info.node)]


def test_what_changes_is_followed_into_the_callee():
    rep, index = _repetition(PROGRAM)
    defs = _defs(index)
    kinds = [w.varying[scope_key(defs["middle"])].get("x") for w in rep.witnesses(defs["middle"])]
    assert kinds == [LOOP, LITERAL]      # `for x in xs`, then the literal sweep `for flag in (False, True)`
    init = rep.witnesses(defs["Model.__init__"])
    assert init[0].varying[scope_key(defs["Model.__init__"])] == {"cfg": LOOP, "self": LOOP}
    call = rep.witnesses(defs["Model.__call__"])
    assert len(call) == 1 and "self" not in call[0].varying[scope_key(defs["Model.__call__"])]


def test_pruned_search_matches_the_unpruned_one():
    rep, index = _repetition(PROGRAM)
    tree = ast.parse(PROGRAM)
    plain_index = ModuleIndex(tree, ImportMap(tree))
    traced = {id(info.node) for info in plain_index.functions if info.name == "traced_step"}
    plain = Repetition(tree, Parents(tree), plain_index, None, traced)
    for (name, info), plain_info in zip(_defs(index).items(), plain_index.functions):
        assert [w.reason for w in rep.witnesses(info)] == [w.reason for w in plain.witnesses(plain_info)], name


# -- JAX301 decisions, with the note left for --verbose ----------------------------------------------

def _lint(source):
    result = lint_source(textwrap.dedent(source), "case.py")
    return [f for f in result.findings if f.code == "JAX301"], [n for n in result.notes if "JAX301" in n]


def test_flax_module_method_reached_from_call_is_inlined():
    findings, notes = _lint('''
        import jax
        from flax import linen as nn

        class Attention(nn.Module):
            def __call__(self, x):
                return self.kernel(x)

            def kernel(self, x):
                @jax.jit
                def wrapped(v):
                    return v * 2
                return wrapped(x)

        def run(model, params, batches):
            for b in batches:
                model.apply(params, b)
                model.kernel(b)
    ''')
    assert findings == []
    assert len(notes) == 1 and "a module method reached from `__call__`" in notes[0]


def test_equinox_module_method_outside_call_is_not_inlined():
    findings, _ = _lint('''
        import equinox as eqx
        import jax

        class Probe(eqx.Module):
            def __call__(self, x):
                return x

            def fit(self, batches):
                for b in batches:
                    jax.jit(lambda v: v + 1)(b)
    ''')
    assert [f.line for f in findings] == [11]


def test_notes_say_why_each_silence():
    _, notes = _lint('''
        import jax

        def make_step(lr):
            return jax.jit(lambda w: w - lr)

        def unused(xs):
            @jax.jit
            def f(v):
                return v
            return xs

        def loop(xs):
            for x in xs:
                unused(x)
                jax.jit(lambda v: v[:x])(xs)
    ''')
    assert "JAX301 not reported at line 5: no repeated caller of `make_step` found" in notes
    assert any(n.startswith("JAX301 not reported at line 8: the jitted function is never called") for n in notes)
    assert any(n.startswith("JAX301 not reported at line 16: the jitted function is built from `x`") for n in notes)


def test_object_created_in_a_loop_compiles_its_init_lambda_again():
    findings, _ = _lint('''
        import jax

        class Runner:
            def __init__(self, name, width):
                self.name = name
                self.step = jax.jit(lambda x: x * 2)
                self.scaled = jax.jit(lambda x: x * width)
                self.cropped = jax.jit(lambda x: x[:width])

        def run(specs, x):
            for name, width in specs:
                runner = Runner(name, width)
                runner.step(x)
                runner.scaled(x)
                runner.cropped(x)
    ''')
    # line 8 bakes `width` in as array data (an argument would compile once); line 9 uses it as a
    # slice bound, so each runner's program differs
    assert [f.line for f in findings] == [7, 8]


def test_a_def_changes_only_with_what_it_captures_not_its_parameter_names():
    findings, _ = _lint('''
        import jax
        import jax.numpy as jnp

        def loss(w, x):
            return jnp.sum((w * x) ** 2)

        def update(w, x):
            return w - 0.1 * jax.jit(jax.grad(loss))(w, x)

        if __name__ == "__main__":
            w = jnp.ones(3)
            for x in [jnp.ones(3)] * 4:
                w = update(w, x)
    ''')
    assert [f.line for f in findings] == [9]


def test_a_changing_value_used_only_as_array_data_is_a_constant_of_the_same_program():
    findings, notes = _lint('''
        import jax
        import jax.numpy as jnp

        def loss(p, batch):
            x, y = batch
            return jnp.mean((x @ p - y) ** 2)

        def train(p, loader, models):
            for batch in loader:
                p = jax.jit(lambda q: q - 0.1 * jax.grad(loss)(q, batch))(p)
            for lr in (0.1, 0.01):
                p = jax.jit(lambda q: q * (1 - lr))(p)
            for model in models:
                jax.jit(lambda q: model.apply(q))(p)
            for n in (2, 3):
                jax.jit(lambda q: q + jnp.zeros(n))(p)
            for k in (1, 2):
                jax.jit(lambda q: q if k > 1 else -q)(p)
    ''')
    # a batch through a helper that unpacks it, a rate in arithmetic: the same program each time
    assert [f.line for f in findings] == [11, 13]
    assert "pass `batch` as an argument" in findings[0].detail
    # a model's method, a shape, a Python branch: a different program each time
    for line, name in ((15, "model"), (17, "n"), (19, "k")):
        assert any(n.startswith(f"JAX301 not reported at line {line}: the jitted function is built from `{name}`")
                   for n in notes), line
