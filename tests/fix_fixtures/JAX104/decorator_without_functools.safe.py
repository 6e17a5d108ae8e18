"""`@jax.jit` in a file without functools: `import functools` joins the standard-library imports."""
import functools
import math

import jax
import jax.numpy as jnp


@functools.partial(jax.jit, static_argnames=("keep",))  # <- fix
def last_tokens(x, keep):
    # keep the newest `keep` tokens
    return x[-keep:] * math.pi


def evaluate(tokens):
    return jnp.sum(last_tokens(tokens, 8))
