import jax
import jax.numpy as jnp

from .data import batches


@jax.jit
def train_step(w, batch):
    err = (batch["x"] @ w - batch["y"]) ** 2
    if batch["mask"] is not None:
        err = err * batch["mask"]
    return w - 0.01 * jax.grad(lambda v: jnp.mean((batch["x"] @ v - batch["y"]) ** 2))(w), err.sum()


def train(x, y):
    w = jnp.zeros(x.shape[1])
    for batch in batches(x, y, 16):
        w, loss = train_step(w, batch)  # expect: JAX307
    return w
