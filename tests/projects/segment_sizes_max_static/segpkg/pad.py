import jax.numpy as jnp


def segment_means(values, sizes, max_size=None):
    if max_size is None:
        max_size = max(sizes)
    return jnp.zeros((len(sizes), max_size)) + values.mean()
