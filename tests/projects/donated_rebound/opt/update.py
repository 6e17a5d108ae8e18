from functools import partial

import jax


@partial(jax.jit, donate_argnums=(0,))
def apply_grads(params, grads, lr):
    return jax.tree.map(lambda p, g: p - lr * g, params, grads)
