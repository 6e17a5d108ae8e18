import jax
import jax.numpy as jnp


def init(key, n_in, n_out):
    return {"w": jax.random.normal(key, (n_in, n_out)) * 0.1, "b": jnp.zeros(n_out)}


def apply(params, x):
    return jnp.tanh(x @ params["w"] + params["b"])


def predict(params, x):
    return jax.jit(apply)(params, x)


def predict_with(params, x, scale):
    return jax.jit(lambda p, v: apply(p, v) * scale)(params, x)  # expect: JAX301
