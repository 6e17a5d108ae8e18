"""The process dies in the example (as a native crash would): inconclusive, and the run goes on."""
import os

import jax
import jax.numpy as jnp


@jax.jit
def window(x, n):
    return jnp.zeros(n) + x.sum()


def die():
    os.abort()


# jaxlint-example: die()
