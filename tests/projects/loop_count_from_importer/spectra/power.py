from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=(1,))
def spectral_radius(a, num_iterations=8):
    b = jnp.ones(a.shape[1])
    radius = 0.0
    for _ in range(num_iterations):  # expect: JAX302
        c = a @ b
        radius = jnp.dot(c, b) / jnp.dot(b, b)
        b = c / jnp.linalg.norm(c)
    return radius
