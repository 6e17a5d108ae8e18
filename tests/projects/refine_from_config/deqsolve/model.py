from functools import partial

import jax
import jax.numpy as jnp

from .ops import refine


@partial(jax.jit, static_argnames=("n_iters",))
def forward(params, x, n_iters):
    return jnp.sum(refine(x, params, n_iters))
