import jax
import jax.numpy as jnp

from optim import settings


@jax.jit
def momentum_step(params, grads, mom):
    if mom is None:
        mom = jnp.zeros_like(grads)
    mom = settings.BETA * mom + grads
    return params - settings.LR * mom, mom
