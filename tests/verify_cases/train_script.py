"""A small training script with three recompilation traps (used by tests/test_verify.py).

1. `train_step` takes the epoch as a static argument: one compile per epoch.
2. The data (10 rows, batches of 4) ends with a ragged batch of 2 rows: one more compile.
3. `evaluate` jits a fresh lambda on every call: one compile per call.
"""
import functools
import sys

import jax
import jax.numpy as jnp
import numpy as np


@functools.partial(jax.jit, static_argnums=2)
def train_step(w, batch, epoch):
    lr = 0.1 / (1 + epoch)
    grad = batch.T @ (batch @ w - 1.0) / batch.shape[0]
    return w - lr * grad


def evaluate(w, data):
    loss = jax.jit(lambda v: jnp.mean((data @ v - 1.0) ** 2))(w)
    return float(loss)


def main(epochs):
    data = np.ones((10, 3), np.float32)
    w = jnp.zeros(3)
    for epoch in range(epochs):
        for i in range(0, len(data), 4):
            w = train_step(w, data[i:i + 4], epoch)
        print(f"epoch {epoch}: loss {evaluate(w, data):.4f}")
    return w


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
