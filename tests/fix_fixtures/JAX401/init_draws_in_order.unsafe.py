"""Three draws from one key, and a function that already uses the name `subkey`."""
import jax
import jax.numpy as jnp


def init_layer(key, n_in, n_out):
    # weights first, then the bias, then a dropout mask
    key, subkey = jax.random.split(key)
    w = jax.random.normal(subkey, (n_in, n_out)) / jnp.sqrt(n_in)  # <- fix
    key, subkey_2 = jax.random.split(key)
    b = jax.random.uniform(subkey_2, (n_out,), minval=-0.1, maxval=0.1)  # <- fix
    keep = jax.random.bernoulli(key, 0.9, (n_out,))
    return w, b, keep


def sample_pair(key, shape):
    subkey = key
    subkey, subkey_2 = jax.random.split(subkey)
    first = jax.random.normal(subkey_2, shape)  # <- fix
    second = jax.random.uniform(subkey, shape)
    return first, second
