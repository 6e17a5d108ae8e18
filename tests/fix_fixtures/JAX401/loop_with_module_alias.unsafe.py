"""A loop draws noise from a key it never replaces; the module spells `jax.random` as `jr`."""
import jax.numpy as jnp
import jax.random as jr


def noisy_walk(x, key, steps):
    for _ in range(steps):
        # one Gaussian step
        key, subkey = jr.split(key)
        x = x + 0.1 * jr.normal(subkey, x.shape)  # <- fix
    return x


def shuffled_batches(data, key, epochs):
    batches = []
    while len(batches) < epochs:
        key, subkey = jr.split(key)
        size = data.shape[0]  # <- fix
        order = jr.permutation(subkey, size)  # <- fix
        batches.append(data[order])
    return jnp.stack(batches)
