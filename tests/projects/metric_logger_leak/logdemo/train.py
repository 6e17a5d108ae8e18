"""The jitted step logs its loss through the package's logger."""
import jax
import jax.numpy as jnp

from logdemo.metrics import LOGGER


def loss_fn(w, x, y):
    return jnp.mean((x @ w - y) ** 2)


@jax.jit
def train_step(w, x, y):
    loss, grad = jax.value_and_grad(loss_fn)(w, x, y)
    LOGGER.log("loss", loss)
    return w - 0.1 * grad


def fit(steps):
    w = jnp.zeros(3)
    x, y = jnp.ones((8, 3)), jnp.ones(8)
    for _ in range(steps):
        w = train_step(w, x, y)
    return LOGGER.summary()
