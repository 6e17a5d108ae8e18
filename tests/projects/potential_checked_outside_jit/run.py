import jax.numpy as jnp

from halo.orbits import circular_velocity

print(circular_velocity(1e12, 20.0, jnp.linspace(1.0, 50.0, 8)))
print(circular_velocity(2e12, 25.0, jnp.linspace(1.0, 50.0, 8)))
# expected compiles: _velocity=1
