"""Allocates more than the child's memory limit at import time."""
import jax
import jax.numpy as jnp


@jax.jit
def window(x, n):
    return jnp.zeros(n) + x.sum()


BUFFER = bytearray(3 << 30)

# jaxlint-example: window(jnp.ones(3), 4)
