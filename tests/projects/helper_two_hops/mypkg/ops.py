import jax.numpy as jnp


def clip_positive(x, limit):
    if limit > 0:  # expect: JAX101
        return jnp.clip(x, 0, limit)
    return x
