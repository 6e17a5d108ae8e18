import jax.numpy as jnp

from optim.update import momentum_step


def train(w, grads):
    mom = None
    for g in grads:
        w, mom = momentum_step(w, g, mom)  # expect: JAX307
    return w
