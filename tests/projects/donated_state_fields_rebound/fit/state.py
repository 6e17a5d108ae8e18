from typing import NamedTuple

import jax
import jax.numpy as jnp


class TrainState(NamedTuple):
    step: jax.Array
    params: dict
    momentum: dict


def create(n):
    params = {"w": jnp.ones((n, 2)), "b": jnp.zeros(2)}
    return TrainState(jnp.array(0), params, jax.tree.map(jnp.zeros_like, params))
