import jax.numpy as jnp

from app.main import evaluate

print(len(evaluate([jnp.ones((2, 4)) * i for i in range(4)])))

# expected compiles: _apply=1 (a field of a named tuple: the same function at every batch)
