"""Only the next iteration reads the donated name: the result is discarded or stored under
another name, and the fix binds the name to it."""
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, donate_argnums=(0,))
def decay(state, rate):
    return state * rate


def run_discarded(state, steps, log):
    for _ in range(steps):
        log.append(float(jnp.sum(state)))
        state = decay(state, 0.9)  # <- fix


def run_other_name(state, steps):
    out = state
    for _ in range(steps):
        state = out = decay(state, 0.9)  # <- fix
    return out
