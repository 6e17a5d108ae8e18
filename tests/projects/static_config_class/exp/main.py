import jax.numpy as jnp

from exp.model import forward
from exp.settings import ModelConfig


def evaluate(xs):
    cfg = ModelConfig(scale=3.0)
    return [forward(x, cfg=cfg) for x in xs]  # expect: JAX202
