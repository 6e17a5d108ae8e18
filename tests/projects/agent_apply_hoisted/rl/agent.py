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
        self.policy = jax.jit(self.model.apply)

    def act(self, params, obs):
        return self.policy(params, obs)
