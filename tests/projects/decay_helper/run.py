import jax.numpy as jnp

from lrsched.train import train

print(train(jnp.zeros(3), [jnp.ones(3)] * 2))
