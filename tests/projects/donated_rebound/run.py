import jax.numpy as jnp

from opt.loop import train

train(jnp.ones((3, 2)), [jnp.ones((4, 3))] * 3)

# expected compiles: apply_grads=1 (the name is rebound to the result)
