"""A loop draws noise from a key it never replaces; the module spells `jax.random` as `jr`."""
import jax.numpy as jnp
import jax.random as jr


def noisy_walk(x, key, steps):
    for _ in range(steps):
        # one Gaussian step
        x = x + 0.1 * jr.normal(key, x.shape)  # <- fix
    return x


def shuffled_batches(data, key, epochs):
    batches = []
    while len(batches) < epochs:
        size = data.shape[0]  # <- fix
        order = jr.permutation(key, size)  # <- fix
        batches.append(data[order])
    return jnp.stack(batches)
