import jax
import jax.numpy as jnp


@jax.jit
def sgd_step(w, lr):
    return w - lr * w, lr * jnp.float32(0.98)
