import jax.numpy as jnp

from specpkg.api import spectral_radius

print(spectral_radius(jnp.eye(3) * 2.0, 5, 1e-6))
