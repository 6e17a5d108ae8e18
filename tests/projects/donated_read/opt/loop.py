import jax
import jax.numpy as jnp

from opt.update import apply_grads


def train(params, batches):
    for x in batches:
        grads = jax.grad(lambda p: jnp.sum((x @ p) ** 2))(params)
        new_params = apply_grads(params, grads, 0.1)
        change = jnp.abs(new_params - params).max()  # expect: JAX403
        params = new_params
        print(float(change))
    return params
