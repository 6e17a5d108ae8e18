import jax.numpy as jnp

from fit.loop import fit

fit(jnp.ones((4, 3)), jnp.zeros((4, 2)), 3)
# expected compiles: _train_step=1
