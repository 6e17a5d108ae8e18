"""`g = jax.jit(f)`, `@jit` and `jax.jit(f)(...)`; functools is imported with `from`."""
from functools import partial, reduce  # <- fix

from jax import jit
import jax


def _crop(x, n):
    return x[:n]


crop = jax.jit(_crop, static_argnames=("n",))  # <- fix


@partial(jit, static_argnames=("n", "fill"))  # <- fix
def pad(x, n, *, fill):
    return x[: n + fill]


def first(x, n):
    return x[n:]


def run(x):
    for n in (2, 3):
        crop(x, n)
    total = reduce(lambda a, b: a + b, [pad(x, 2, fill=1)])
    return total, jax.jit(first, static_argnames=("n",))(x, 1)  # <- fix
