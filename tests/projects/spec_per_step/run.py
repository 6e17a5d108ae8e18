import jax.numpy as jnp

from opt.loop import train

print(train(jnp.ones(3), [jnp.ones(3)] * 4))
