"""print in a lax.scan body of a file that never imports `jax` itself: `import jax` is added."""
import jax.numpy as jnp  # <- fix
from jax import lax


def _accumulate(total, x):
    total = total + x
    print("running total", total)  # <- fix
    return total, total


def cumulative(xs):
    _, totals = lax.scan(_accumulate, jnp.float32(0.0), xs)
    return totals
