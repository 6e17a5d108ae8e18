"""Dense layers whose weights come from the package's noise source."""
import jax.numpy as jnp

from noisy.noise import draw


def init_dense(n_in, n_out):
    return draw((n_in, n_out)) / jnp.sqrt(n_in), jnp.zeros(n_out)
