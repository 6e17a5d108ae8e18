from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames=("n_steps",))
def rollout(state, n_steps):
    def body(_, s):
        return s * 0.99 + jnp.sin(s)

    return jax.lax.fori_loop(0, n_steps, body, state)
