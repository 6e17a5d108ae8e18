import jax.numpy as jnp

from layers.dense import Dense

layer = Dense(jnp.ones((3, 2)), jnp.zeros(2))
print(layer(jnp.ones((4, 3))).shape)

# expected compiles: __call__=1
