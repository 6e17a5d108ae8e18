"""Dense layers whose weights come from the key handed down."""
import jax.numpy as jnp

from noisy.noise import draw


def init_dense(key, n_in, n_out):
    key, w = draw(key, (n_in, n_out))
    return key, (w / jnp.sqrt(n_in), jnp.zeros(n_out))
