"""Circular velocities: the potential is made inside the jitted function, from traced values."""
import jax
import jax.numpy as jnp

from halo.potentials import NFWPotential


@jax.jit
def circular_velocity(m, r_s, r):
    pot = NFWPotential(m, r_s)
    return jnp.sqrt(pot.enclosed_mass(r) / r)
