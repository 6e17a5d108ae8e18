from typing import Callable, NamedTuple

import jax.numpy as jnp


class Pure(NamedTuple):
    """A model as a pair of pure functions: the fields hold the same function objects for good."""
    init: Callable
    apply: Callable


def _init():
    return {"w": jnp.full((4, 4), 0.25), "b": jnp.zeros(4)}


def _apply(params, x):
    return jnp.tanh(x.mean(axis=0) @ params["w"] + params["b"]) * 2.0
