import jax
import jax.numpy as jnp


class Actor:
    """A linear policy with a squashed output."""

    def __init__(self, low, high):
        self.low, self.high = low, high

    def apply(self, weights, state):
        action = jax.nn.sigmoid(state @ weights)
        return self.low + (self.high - self.low) * action


class Agent:
    def __init__(self):
        self.model = Actor(-1.0, 1.0)
        self.policy = jax.jit(self.model.apply)

    def act(self, weights, state):
        return self.policy(weights, state)
