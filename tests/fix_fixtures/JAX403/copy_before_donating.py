"""Reads of the old value after a donating call: an array gets `jnp.copy`, anything else (a
parameter, a dict of arrays) `jax.tree.map(jnp.copy, ...)`."""
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, donate_argnums=(0,))
def sgd(params, grads):
    return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)


def update_size(grads):
    params = jnp.ones(3)
    new = sgd(params, grads)  # <- fix
    return jnp.abs(new - params).max()


def update_tree(params, grads):
    new = sgd(params, grads)  # <- fix
    return new, params


def update_dict():
    params = {"w": jnp.ones(2), "b": jnp.zeros(2)}
    new = sgd(params, {"w": jnp.ones(2), "b": jnp.ones(2)})  # <- fix
    return new, params["w"]
