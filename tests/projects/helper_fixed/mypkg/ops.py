import jax.numpy as jnp


def clip_positive(x, limit):
    return jnp.where(limit > 0, jnp.clip(x, 0, limit), x)
