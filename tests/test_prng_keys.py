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
