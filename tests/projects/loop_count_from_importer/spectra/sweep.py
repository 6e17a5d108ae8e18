import jax.numpy as jnp

from spectra.power import spectral_radius


def sweep(matrices):
    return [spectral_radius(a, 40) for a in matrices]
