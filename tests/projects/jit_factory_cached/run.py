# expected compiles: apply=1
import jax.numpy as jnp

from app.serve import serve

print(serve([jnp.ones(3) * i for i in range(4)]).shape)
