import jax
import jax.numpy as jnp


class Policy:
    def __init__(self, scale):
        self.scale = scale

    def apply(self, params, obs):
        return jnp.tanh(obs @ params) * self.scale


class Agent:
    def __init__(self):
        self.model = Policy(2.0)

    def act(self, params, obs):
        return jax.jit(self.model.apply)(params, obs)  # expect: JAX301
