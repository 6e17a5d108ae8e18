import jax

from pendulum.env import Pendulum

env = Pendulum()
state = env.reset(jax.random.PRNGKey(0))
step = jax.jit(env.step)
for t in range(3):
    state, reward = step(state, 0.5)
    print(t, float(reward))
