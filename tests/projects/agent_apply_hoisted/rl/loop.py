import jax.numpy as jnp

from rl.agent import Agent


def rollout(steps):
    agent = Agent()
    weights = jnp.full((3, 3), 0.1)
    state, total = jnp.zeros(3), 0.0
    for t in range(steps):
        action = agent.act(weights, state)
        state = state + 0.1 * action
        total += float(action.sum())
    return state, total
