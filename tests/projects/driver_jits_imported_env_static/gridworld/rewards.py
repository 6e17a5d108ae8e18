import jax.numpy as jnp


def goal_reward(pos, goal, bonus):
    reached = jnp.all(pos == goal)
    if bonus > 0:
        return jnp.where(reached, 1.0 + bonus, -0.01)
    return jnp.where(reached, 1.0, -0.01)
