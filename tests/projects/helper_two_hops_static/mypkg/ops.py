import jax.numpy as jnp


def clip_positive(x, limit):
    if limit > 0:
        return jnp.clip(x, 0, limit)
    return x
