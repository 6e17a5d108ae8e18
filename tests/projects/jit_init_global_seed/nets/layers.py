import jax
import jax.numpy as jnp

from nets.seeding import fresh_key


def conv_kernel(size, channels):
    return jax.random.normal(fresh_key(), (size, size, channels)) * 0.1


def bias(channels):
    return jnp.zeros(channels)
