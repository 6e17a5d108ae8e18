import jax.numpy as jnp

from . import config


def step_decay(lr):
    return lr * jnp.float32(config.DECAY)
