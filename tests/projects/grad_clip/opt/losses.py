import jax.numpy as jnp


def mse(w, x, y):
    return jnp.mean((x @ w - y) ** 2)
