import jax

from . import power_iteration
from .solver import normalised


@jax.jit
def spectral_radius(a, num_iterations, eps):
    v = normalised(power_iteration(a, num_iterations), eps)
    return v @ a @ v
