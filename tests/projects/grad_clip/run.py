import jax.numpy as jnp

from opt.step import sgd_step

print(sgd_step(jnp.ones(3), jnp.ones((5, 3)), jnp.zeros(5)))
