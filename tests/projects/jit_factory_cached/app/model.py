import functools

import jax
import jax.numpy as jnp


def init(key, n_in, n_out):
    return {"w": jax.random.normal(key, (n_in, n_out)) * 0.1, "b": jnp.zeros(n_out)}


def apply(params, x, scale):
    return jnp.tanh(x @ params["w"] + params["b"]) * scale


@functools.lru_cache(maxsize=None)
def predictor(scale):
    return jax.jit(functools.partial(apply, scale=scale))
