import jax.numpy as jnp
import numpy as np

from .data import BatchIterator
from .model import fit_step


def train(n=70, dim=3, batch=16, epochs=2):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(n, dim)).astype(np.float32)
    y = x.sum(axis=1)
    w = jnp.zeros(dim)
    batches = BatchIterator(x, y, batch)
    for _ in range(epochs):
        for xb, yb in batches:
            w = fit_step(w, xb, yb)  # expect: JAX303
    return w
