import jax.numpy as jnp

from spectra.sweep import sweep

print(sweep([jnp.eye(3) * 0.5, jnp.eye(3) * 2.0]))
# expected compiles: spectral_radius=1
