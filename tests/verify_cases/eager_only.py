"""The finding is real under jit, but the example runs the function eagerly (jax.disable_jit):
the flagged line runs without JAX tracing it, which neither confirms nor refutes the finding."""
import jax
import jax.numpy as jnp


@jax.jit
def scale_positive(x, n):
    if n > 0:
        return x * n
    return x


def run_eagerly():
    with jax.disable_jit():
        return scale_positive(jnp.ones(3), 2)


# jaxlint-example: run_eagerly()
