import jax.numpy as jnp

from sim.experiment import curriculum

print(curriculum(jnp.ones(4), 5).shape)
