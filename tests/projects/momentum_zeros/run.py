import jax.numpy as jnp

from optim.loop import train

print(train(jnp.zeros(3), [jnp.ones(3)] * 3))

# expected compiles: momentum_step=1
