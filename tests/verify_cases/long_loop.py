"""A training loop far too long to run in full: the harness ends it (at a jitted call, without
editing the file) once the recompilations the finding predicts have been seen."""
import functools

import jax
import jax.numpy as jnp


@functools.partial(jax.jit, static_argnames="epoch")
def decay(w, epoch):
    return w * 0.99 ** epoch


def train():
    w = jnp.ones(3)
    for epoch in range(1_000_000):
        w = decay(w, epoch)
    return w
