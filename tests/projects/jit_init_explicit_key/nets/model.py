from functools import partial

import jax

from nets.layers import bias, conv_kernel


@partial(jax.jit, static_argnums=(1, 2))
def init(key, size, channels):
    return {"w": conv_kernel(key, size, channels), "b": bias(channels)}
