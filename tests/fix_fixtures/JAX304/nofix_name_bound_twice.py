"""`step` is bound twice in the file: a call of `step` may not be the jitted one; no fix."""
from functools import partial

import jax


@partial(jax.jit, static_argnames=("n",))
def step(x, n):
    return x * n


def run(x):
    return step(x, 2), step(x, n=2)


def other(x):
    step = max
    return step(x, 2)
