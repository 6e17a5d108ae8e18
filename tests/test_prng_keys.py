"""JAX401 where fixtures cannot reach: module-level code (a script drawing at import) and
functions that check that draws reproduce."""
import subprocess
import sys
import textwrap

import pytest

from jaxlint.engine import lint_source

SCRIPT = textwrap.dedent("""
    import jax

    jax.config.update("jax_debug_key_reuse", True)
    key = jax.random.key(0)
    xs = jax.random.uniform(key, (100,))
    ys = jax.random.uniform(key, (100,))
    print(float(((xs ** 2 + ys ** 2) <= 1.0).mean() * 4))
""")


def _found(source: str) -> list:
    result = lint_source(source, "keys.py")
    assert result.internal_error is None, result.internal_error
    return [(f.code, f.line) for f in result.findings]


def test_identical_draws_in_a_script_are_reported():
    assert _found(SCRIPT) == [("JAX401", 7)]


@pytest.mark.slow
def test_identical_draws_in_a_script_are_what_jax_rejects(tmp_path):
    path = tmp_path / "keys.py"
    path.write_text(SCRIPT)
    run = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=300,
                         env={"JAX_PLATFORMS": "cpu", "PATH": ""})
    assert run.returncode != 0 and "KeyReuseError" in run.stderr, run.stderr[-2000:]
    assert f'{path}", line 7' in run.stderr, run.stderr[-2000:]


def test_identical_draws_compared_by_a_handed_on_equality_test_are_not_reported():
    source = textwrap.dedent("""
        import functools

        import jax
        import numpy as np


        def test_normal_is_deterministic():
            key = jax.random.key(0)
            close = functools.partial(np.testing.assert_allclose, atol=1e-6)
            first = {"w": jax.random.normal(key, (3,))}
            again = {"w": jax.random.normal(key, (3,))}
            jax.tree.map(close, first, again)
    """)
    assert _found(source) == []
    assert _found(source.replace("functools.partial(np.testing.assert_allclose, atol=1e-6)",
                                 "print")) == [("JAX401", 12)]


@pytest.mark.parametrize("imports, normal, uniform", [
    ("import jax", "jax.random.normal", "jax.random.uniform"),
    ("import jax.random as jr", "jr.normal", "jr.uniform"),
    ("from jax import random", "random.normal", "random.uniform"),
    ("from jax.random import normal, uniform", "normal", "uniform"),
    ("from jax.random import normal as draw, uniform", "draw", "uniform"),
])
def test_draws_are_found_however_jax_random_is_imported(imports, normal, uniform):
    source = (f"{imports}\nimport numpy as np\n\n\ndef noise(key, n):\n"
              f"    a = {normal}(key, (n,))\n    b = {uniform}(\n        key, (n,))\n"
              f"    return a + b + np.random.rand(n)\n")
    assert _found(source) == [("JAX401", 7)]


def test_lines_that_only_make_keys_or_use_numpy_random_are_not_draws():
    source = ("import jax\nimport numpy as np\nfrom jax import random\n\n\ndef keys(seed):\n"
              "    key = jax.random.PRNGKey(seed)\n    other = random.key(seed)\n"
              "    return key, other, np.random.rand(3), np.random.rand(3)\n")
    assert _found(source) == []
