import jax
import jax.numpy as jnp

from gridworld.env import GridWorld

env = GridWorld()
step = jax.jit(env.step)
pos = jnp.zeros(2, dtype=jnp.int32)
for t in range(3):
    pos, reward = step(pos, jnp.int32(t % 4), 0.5)
    print(t, pos, reward)
