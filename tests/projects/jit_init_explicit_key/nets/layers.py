import jax
import jax.numpy as jnp

from nets.seeding import fresh_key


def conv_kernel(key, size, channels):
    return jax.random.normal(key, (size, size, channels)) * 0.1


def random_bias(channels):
    return jax.random.normal(fresh_key(), (channels,)) * 0.01


def bias(channels):
    return jnp.zeros(channels)
