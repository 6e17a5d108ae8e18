"""A training script at module level feeds the jitted step's decayed learning rate back into it:
the first call gets the Python float (weakly typed), every later call the step's strong float32,
so the step compiles twice."""
import jax.numpy as jnp

from step import sgd_step

w = jnp.ones(3)
lr = 0.1
for _ in range(4):
    w, lr = sgd_step(w, lr)  # expect: JAX306
