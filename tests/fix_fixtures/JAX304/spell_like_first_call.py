"""Calls spelled differently from the first one: keyword vs positional, defaults."""
from functools import partial

import jax


@partial(jax.jit, static_argnames=("heads",))
def attend(x, heads, scale=1.0):
    return x * heads * scale


def train(x):
    return attend(x, 4), attend(x, heads=4)  # <- fix


def evaluate(x, y):
    first = attend(x, heads=4)  # <- fix
    second = attend(
        y,
        4,
        scale=1.0,
    )  # <- fix
    third = attend(y, 4, 1.0)  # a comment outside the call stays  # <- fix
    return first, second, third
