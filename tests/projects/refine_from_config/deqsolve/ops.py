import jax.numpy as jnp


def refine(x, w, n_iters):
    for _ in range(n_iters):  # expect: JAX302
        x = jnp.tanh(x @ w) + 0.5 * x
    return x
