"""Samplers imported by name: the split needs `import jax`, which the fix adds."""
import jax.numpy as jnp
from jax.random import normal, uniform


def perturb(x, key):
    scale = uniform(key, ())  # <- fix
    return x + scale * normal(key, x.shape) + jnp.zeros_like(x)
