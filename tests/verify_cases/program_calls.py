"""No `# jaxlint-example:` here: the program's own code reaches every finding.

- JAX201: a module-level loop calls `power` with 4 static values (it runs on import);
- JAX104: `test_window` slices with a traced bound (a test function: run by default);
- JAX102: only the `if __name__ == "__main__":` block calls `as_index` (run with --main only);
- a module-level argparse: it must see the program's own argv, not the verifier's.
"""
import argparse
import functools

import jax
import jax.numpy as jnp

OPTIONS = argparse.ArgumentParser().parse_args()


@functools.partial(jax.jit, static_argnames="degree")
def power(x, degree):
    return x ** degree


TABLE = [power(jnp.ones(2), degree) for degree in range(4)]


@jax.jit
def window(x, n):
    return x[:n]


def test_window():
    assert window(jnp.arange(8.0), 3).shape == (3,)


@jax.jit
def as_index(x, i):
    return x * int(i)


if __name__ == "__main__":
    print(as_index(jnp.ones(3), 2))
