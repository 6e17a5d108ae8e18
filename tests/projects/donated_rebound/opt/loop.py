import jax
import jax.numpy as jnp

from opt.update import apply_grads


def train(params, batches):
    for x in batches:
        grads = jax.grad(lambda p: jnp.sum((x @ p) ** 2))(params)
        before = jnp.abs(params).max()
        params = apply_grads(params, grads, 0.1)
        print(float(before), float(jnp.abs(params).max()))
    return params
