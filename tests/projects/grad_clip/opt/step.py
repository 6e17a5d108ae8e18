import jax

from opt import settings
from opt.clipping import clip_to_norm
from opt.losses import mse


@jax.jit
def sgd_step(w, x, y):
    grads = jax.grad(mse)(w, x, y)
    return w - settings.LEARNING_RATE * clip_to_norm(grads, settings.CLIP)
