import jax.numpy as jnp


def power_iteration(a, num_iterations):
    v = jnp.ones(a.shape[0])
    for _ in range(num_iterations):  # expect: JAX102
        v = a @ v
    return v


def normalised(v, eps):
    return v / jnp.maximum(jnp.linalg.norm(v), eps)
