import jax.numpy as jnp

from lrsched.train import fit

print(fit(jnp.ones(2), [jnp.ones(2)] * 3))
