"""No numpy namespace is imported: `import jax.numpy as jnp` is added for the dtype test."""
import jax.numpy as jnp
from jax import jit


@jit
def halve(x, k):
    # a comment that must stay
    if jnp.issubdtype(jnp.asarray(k).dtype, jnp.floating):  # <- fix
        return x / k
    return x
