import jax.numpy as jnp

from app.serve import serve

print(serve([jnp.ones(3) * i for i in range(4)], [1, 2, 3])[0].shape)
