"""Circular velocities: the potential is made (and checked) before the jitted function, which
reads its parameters as arrays."""
import jax
import jax.numpy as jnp

from halo.potentials import NFWPotential


@jax.jit
def _velocity(m, r_s, r):
    x = r / r_s
    return jnp.sqrt(m * (jnp.log1p(x) - x / (1.0 + x)) / r)


def circular_velocity(m, r_s, r):
    pot = NFWPotential(m, r_s)
    return _velocity(pot.m, pot.r_s, r)
