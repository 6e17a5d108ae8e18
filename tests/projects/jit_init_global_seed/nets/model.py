from functools import partial

import jax

from nets.layers import bias, conv_kernel


@partial(jax.jit, static_argnums=(0, 1))
def init(size, channels):
    return {"w": conv_kernel(size, channels), "b": bias(channels)}
