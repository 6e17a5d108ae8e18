"""Look-alike: `n_inner` is bound by functools.partial before jax.jit, so it stays a Python int.
Tests plant a JAX102 finding on `range(n_inner)`: guessing `n_inner` traced fails there, the
program (which calls `step` with the partial's value) does not."""
import functools

import jax
import jax.numpy as jnp


def update(x, n_inner):
    for _ in range(n_inner):
        x = 0.5 * x
    return x


step = jax.jit(functools.partial(update, n_inner=3))


def run():
    return step(jnp.ones(4))
