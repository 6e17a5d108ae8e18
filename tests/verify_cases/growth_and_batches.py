"""Runs too small to show what a recompilation finding names: inconclusive, never "not reproduced".

- JAX201 in `two_values` sees 2 static values (growth needs more); in `many_values`, 5: confirmed.
- JAX303 in `train`: it is run on 64 rows in batches of 32, which divide evenly.
"""
import functools

import jax
import jax.numpy as jnp


@functools.partial(jax.jit, static_argnames="degree")
def power(x, degree):
    return x ** degree


def two_values():
    x = jnp.ones(3)
    for degree in range(2):
        x = power(x, degree)
    return x


def many_values():
    x = jnp.ones(3)
    for degree in range(5):
        x = power(x, degree)
    return x


@jax.jit
def sgd_step(w, xb):
    return w - 0.1 * (xb.T @ (xb @ w - 1.0)) / xb.shape[0]


def train(w, data, batch_size):
    for i in range(0, len(data), batch_size):
        w = sgd_step(w, data[i:i + batch_size])
    return w


def run():
    return train(jnp.zeros(3), jnp.ones((64, 3)), 32)
