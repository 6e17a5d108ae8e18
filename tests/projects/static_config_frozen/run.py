import jax.numpy as jnp

from exp.main import evaluate

print(len(evaluate([jnp.ones(3), jnp.zeros(3)])))

# expected compiles: forward=1 (a frozen dataclass hashes by value)
