"""Run as a module (`verify -m drift_module`): two recompilations, one a static rule predicts
and one it does not (the same jitted function fed int32 data, then that data halved: float32)."""
import sys

import jax
import jax.numpy as jnp


@jax.jit
def total(x):
    return x.sum()


def main():
    for size in (8, 8):
        total(jnp.arange(size))
    total(jnp.arange(8) / 2)
    for _ in range(2):
        jax.jit(lambda v: v * 2)(jnp.ones(2))
    print("done", sys.argv[1:])


if __name__ == "__main__":
    main()
