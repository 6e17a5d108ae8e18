"""Decorator with functools imported as partial: @jax.jit becomes @partial(...)."""
from functools import partial

import jax
import jax.numpy as jnp

WIDTH = 4


@partial(jax.jit, static_argnames=("size",))  # <- fix
def window(x, size):  # the signature is untouched
    # a comment inside the body
    return x[:size]


@partial(jax.jit, static_argnames=("axis", "k"))  # <- fix
def head(x, axis, k):
    return jnp.sum(x[:k], axis=axis)


@partial(
    jax.jit,
    static_argnames=(  # names, one per line
        "axis",
        "k",
    ),  # <- fix
)
def tail(x, axis, k):
    return jnp.sum(x[-k:], axis=axis)


@jax.jit(static_argnums=(1, 2))  # <- fix
def mid(x, axis, k):
    return jnp.sum(x[k:], axis=axis)


def run(x):
    for k in (1, 2):
        head(x, 0, k)
        tail(x, 0, k=k)
        mid(x, 0, k)
    return window(x, WIDTH)
