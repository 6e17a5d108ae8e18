"""The first example confirms the finding, then the second kills the process: the report keeps
the confirmation and says the process died."""
import os

import jax
import jax.numpy as jnp


@jax.jit
def head(x, n):
    return x[:n]


def die():
    os.abort()


# jaxlint-example: head(jnp.ones(4), 2)
# jaxlint-example: die()
