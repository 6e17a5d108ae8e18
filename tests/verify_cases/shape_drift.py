"""A jitted function fed a new shape on every call (tests plant a JAX305 finding on line 17:
the verifier confirms recompilation rules it does not know by name the same way). The main
block ends with sys.exit(0), which is a normal end."""
import sys

import jax
import jax.numpy as jnp


@jax.jit
def total(x):
    return x.sum()


def grow():
    out = 0.0
    for n in range(1, 5):
        x = jnp.arange(float(n))
        out += total(x)
    return out


if __name__ == "__main__":
    print(grow())
    sys.exit(0)
