from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames=("widths",))
def init(key, widths):
    keys = jax.random.split(key, len(widths) - 1)
    return [jax.random.normal(k, (m, n)) * 0.1 for k, m, n in zip(keys, widths[:-1], widths[1:])]
