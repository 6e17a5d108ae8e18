"""Draws from the key the caller passes: nothing is kept between calls."""
import jax


def draw(key, shape):
    key, sub = jax.random.split(key)
    return key, jax.random.normal(sub, shape)
