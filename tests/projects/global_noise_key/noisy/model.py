"""An MLP whose initialiser is jitted with the layer sizes static."""
from functools import partial

import jax

from noisy.layers import init_dense


@partial(jax.jit, static_argnums=0)
def init_mlp(sizes):
    return [init_dense(m, n) for m, n in zip(sizes[:-1], sizes[1:])]
