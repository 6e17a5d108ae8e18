import jax.numpy as jnp


def smooth(x, steps):
    for _ in range(steps):  # expect: JAX302
        x = 0.5 * (x + jnp.roll(x, 1))
    return x
