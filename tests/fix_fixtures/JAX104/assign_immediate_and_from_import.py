"""`g = jax.jit(f)`, `@jit` and `jax.jit(f)(...)`; functools is imported with `from`."""
from functools import reduce  # <- fix

from jax import jit
import jax


def _crop(x, n):
    return x[:n]


crop = jax.jit(_crop)  # <- fix


@jit  # <- fix
def pad(x, n, *, fill):
    return x[: n + fill]


def first(x, n):
    return x[n:]


def run(x):
    for n in (2, 3):
        crop(x, n)
    total = reduce(lambda a, b: a + b, [pad(x, 2, fill=1)])
    return total, jax.jit(first)(x, 1)  # <- fix
