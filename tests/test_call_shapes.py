"""The ways a call or a binding can be written that the text searches of JAX401 and JAX402 must
still find: a parenthesised callee, a statement after a semicolon, a chained or parenthesised
dtype binding, a walrus. Each source is a program (it runs something), linted alone."""
import textwrap

import pytest

from jaxlint.engine import lint_source

DRAW = """
    import jax

    def draw(key):
        return jax.random.normal(key, (3,))

    def run(key):
        a = jax.random.normal(key, (3,))
        b = {call}
        return a + b

    print(run(jax.random.key(0)))
"""


def _found(source: str) -> list:
    result = lint_source(textwrap.dedent(source), "shapes.py")
    assert result.internal_error is None, result.internal_error
    return [(f.code, f.line) for f in result.findings]


@pytest.mark.parametrize("call", ["draw(key)", "(draw)(key)", "(draw)(\n            key)"])
def test_a_drawing_function_is_found_however_its_callee_is_written(call):
    assert ("JAX401", 9) in _found(DRAW.format(call=call))


def test_a_drawing_function_given_a_fresh_key_is_not_a_reuse():
    source = DRAW.format(call="(draw)(jax.random.fold_in(key, 1))")
    assert [code for code, _ in _found(source) if code == "JAX401"] == []


@pytest.mark.parametrize("binding", [
    "DT = jnp.float64",
    "a = 1; DT = jnp.float64",
    "DT = jnp.float64;",
    "DT2 = DT = jnp.float64",
    "DT = (jnp.float64)",
    "DT: object = jnp.float64  # the model's dtype",
    'DT = "f8"',
])
def test_a_dtype_bound_to_a_variable_is_followed_however_the_binding_is_written(binding):
    source = f"import jax.numpy as jnp\n{binding}\nx = jnp.zeros(3, dtype=DT)\nprint(x)\n"
    assert _found(source) == [("JAX402", 3)]


def test_a_dtype_bound_by_a_walrus_is_followed():
    source = "import jax.numpy as jnp\nif (DT := jnp.float64):\n    x = jnp.zeros(3, dtype=DT)\nprint(1)\n"
    assert _found(source) == [("JAX402", 3)]


def test_a_variable_bound_to_something_else_on_a_dtype_line_is_not_a_dtype():
    source = ("import jax.numpy as jnp\nDT = jnp.zeros(3, dtype=jnp.float32); y = 'float64'\n"
              "x = jnp.zeros(3, dtype=DT.dtype)\nprint(x)\n")
    assert _found(source) == []
