import jax

from .core import Layer


class Dense(Layer):
    @jax.jit  # expect: JAX108
    def __call__(self, x):
        w, b = self.weights
        return x @ w + b
