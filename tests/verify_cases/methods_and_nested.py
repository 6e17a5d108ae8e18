"""Findings the program reaches through an instance it builds and through an enclosing call.

- JAX108: `Scaler.apply` is a jitted method of a plain class; the file builds `Scaler(2.0)`.
- JAX101: `make_clip.clip` is a nested jitted function, reached by calling `clip_all()`.
"""
import jax
import jax.numpy as jnp


class Scaler:
    def __init__(self, k):
        self.k = k

    @jax.jit
    def apply(self, x):
        return x * self.k


SCALER = Scaler(2.0)


def make_clip():
    @jax.jit
    def clip(x, limit):
        if limit > 0:
            return jnp.minimum(x, limit)
        return x

    return clip


def clip_all():
    clip = make_clip()
    return clip(jnp.arange(4.0), 2.0)
