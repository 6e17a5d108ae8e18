"""A training script at module level feeds the jitted step's learning rate back into it, decayed
by a Python float: it comes back weakly typed, as it went in, so the step compiles once."""
import jax.numpy as jnp

from step import sgd_step

w = jnp.ones(3)
lr = jnp.asarray(0.1, dtype=jnp.float32)
for _ in range(4):
    w, lr = sgd_step(w, lr)
