"""A shape parameter of a jitted function called from a method with a literal: a safe fix."""
import jax
import jax.numpy as jnp


class Cache:
    def __init__(self, hidden):
        self.hidden = hidden

    def make(self, x):
        return init_state(x, 16)


@jax.jit  # <- fix
def init_state(x, hidden):
    return jnp.zeros((x.shape[0], hidden))
