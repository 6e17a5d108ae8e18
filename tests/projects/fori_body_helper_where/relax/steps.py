import jax.numpy as jnp


def damp(i, state):
    x, rate = state
    x = jnp.where(rate > 0.1, x * (1.0 - rate), x)
    return x, rate
