import jax

from optim import settings


@jax.jit
def momentum_step(params, grads, mom):
    mom = settings.BETA * mom + grads
    return params - settings.LR * mom, mom
