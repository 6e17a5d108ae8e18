import jax.numpy as jnp

from optim.loop import train

print(train(jnp.zeros(3), [jnp.ones(3)] * 3))
