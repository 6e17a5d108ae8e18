"""The advice in a trace-time finding (its detail) is advice that works: "mark `x` static" only where a
static argument would remove the failure. JAX refuses an array as a static argument (it cannot
be hashed), and a jnp result is a tracer under jit even from a static argument."""

import json
import textwrap

import pytest

from console import run

pytestmark = pytest.mark.slow     # the console script, a second per test

ARRAY_PARAMETER = textwrap.dedent("""\
    import jax
    import jax.numpy as jnp


    @jax.jit
    def normalise(x):
        scale = float(jnp.abs(x).max())
        return x / scale
""")

PYTHON_NUMBER = textwrap.dedent("""\
    import jax
    import jax.numpy as jnp


    @jax.jit
    def window(x, n):
        steps = int(n)
        return jnp.convolve(x, jnp.ones(steps) / steps)
""")

THROUGH_JNP = textwrap.dedent("""\
    import jax
    import jax.numpy as jnp


    @jax.jit
    def padded(x, n):
        return x * int(jnp.ceil(n))
""")


def jax102(tmp_path, source):
    path = tmp_path / "model.py"
    path.write_text(source)
    proc = run("check", "--no-cache", "--format", "json", path, cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    found, = [f for f in json.loads(proc.stdout)["findings"] if f["code"] == "JAX102"]
    return f"{found['message']}. {found['detail']}"     # the advice is in the detail


def test_an_array_parameter_is_not_advised_to_be_static(tmp_path):
    message = jax102(tmp_path, ARRAY_PARAMETER)
    assert "Traced parameter `x`" in message
    assert "mark `x` static" not in message and "static_argnames" not in message
    assert "`x` is an array, which cannot be static (unhashable)" in message
    assert "keep it traced" in message and "separate static argument" in message


def test_a_value_out_of_a_jnp_call_is_not_advised_to_be_static(tmp_path):
    """`int(jnp.ceil(n))` fails under jit with `n` static too (checked with JAX 0.10.2)."""
    message = jax102(tmp_path, THROUGH_JNP)
    assert "mark `n` static" not in message
    assert "keep the computation in jnp" in message


def test_a_python_number_parameter_is_still_advised_to_be_static(tmp_path):
    message = jax102(tmp_path, PYTHON_NUMBER)
    assert "mark `n` static (static_argnames=('n',))" in message
