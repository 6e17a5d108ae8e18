"""An MLP whose initialiser is jitted with the layer sizes static and the key traced."""
from functools import partial

import jax

from noisy.layers import init_dense


@partial(jax.jit, static_argnums=1)
def init_mlp(key, sizes):
    params = []
    for m, n in zip(sizes[:-1], sizes[1:]):
        key, layer = init_dense(key, m, n)
        params.append(layer)
    return params
