import jax.numpy as jnp

from opt.spec import UpdateSpec
from opt.update import apply_update


def train(w, grads):
    for g in grads:
        spec = UpdateSpec(0.1, 0.9)
        w = apply_update(w, g, spec=spec)  # expect: JAX204
    return w
