import jax


@jax.jit
def sgd_step(w, g, lr):
    return w - lr * g
