"""A recompilation trap with no example: only `verify --run` on a real program can show it."""
import functools

import jax


@functools.partial(jax.jit, static_argnums=1)
def power(x, k):
    return x ** k


def sweep(x):
    return [power(x, k) for k in range(8)]
