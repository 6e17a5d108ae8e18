import jax.numpy as jnp

from optim import update


def train(w, grads):
    mom = jnp.zeros_like(w)
    for g in grads:
        w, mom = update.momentum_step(w, g, mom)
    return w
