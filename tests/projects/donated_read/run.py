import jax.numpy as jnp

from opt.loop import train

train(jnp.ones((3, 2)), [jnp.ones((4, 3))] * 3)
