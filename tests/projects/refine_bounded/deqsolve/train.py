import jax.numpy as jnp

from . import config
from .model import forward


def main():
    params = jnp.eye(config.WIDTH) * 0.5
    x = jnp.ones(config.WIDTH)
    return forward(params, x, n_iters=config.N_REFINE)
