"""The first example never returns; the second confirms the finding. The hang costs only its own
verdict: the rest of the file runs in a fresh child process."""
import jax
import jax.numpy as jnp


@jax.jit
def head(x, n):
    return x[:n]


def spin():
    while True:
        pass


# jaxlint-example: spin()
# jaxlint-example: head(jnp.ones(4), 2)
