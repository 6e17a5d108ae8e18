import jax.numpy as jnp

from rl.agent import Agent


def rollout(steps):
    agent = Agent()
    params = jnp.eye(3) * 0.5
    obs = jnp.ones(3)
    for _ in range(steps):
        obs = agent.act(params, obs)
    return obs
