"""No `# jaxlint-example:` here: the verifier builds inputs from annotations and uses."""
import jax
import jax.numpy as jnp


@jax.jit
def pad_to(x: jax.Array, n: int):
    return jnp.zeros(n) + x.sum()


@jax.jit
def head(tokens, keep):
    return tokens[:keep] * 2


class Scaler:
    def __init__(self, k):
        self.k = k

    @jax.jit
    def apply(self, x):
        return x * self.k


def row_scale(row, k):
    return row * int(k)


scale_rows = jax.vmap(row_scale)
