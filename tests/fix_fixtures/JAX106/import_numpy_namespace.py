"""No numpy namespace is imported: `import jax.numpy as jnp` is added for the dtype test."""
from jax import jit


@jit
def halve(x, k):
    # a comment that must stay
    if isinstance(k, float):  # <- fix
        return x / k
    return x
