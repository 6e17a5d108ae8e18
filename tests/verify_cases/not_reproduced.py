"""The `if` branches on a shape, which is static: it traces cleanly under jit. tests/test_verify.py
pretends a rule flagged it (JAX101) to check that the verifier calls such a finding "not
reproduced"."""
import jax
import jax.numpy as jnp  # noqa: F401 - used by the example directive


@jax.jit
def widen(x, n):
    if x.shape[0] > 2:
        return x * n
    return x


# jaxlint-example: widen(jnp.ones(3), 2)
