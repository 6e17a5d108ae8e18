"""No call shows what `size` is, or the call passes a variable: making it static is unsafe."""
import functools

import jax


@functools.partial(jax.jit, static_argnames=("size",))  # <- fix
def crop(x, size):
    return x[:size]


@functools.partial(jax.jit, static_argnames=["axis", "k"])  # <- fix
def head(x, k, axis):
    return x[:k].sum(axis=axis)


def run(x, k):
    return head(x, k, axis=0)
