import jax

from rl import env
from rl.policy import init_policy


def setup(seed):
    key = jax.random.key(seed)
    params = init_policy(key, 3, 2)
    state = env.reset(key)  # expect: JAX401
    return params, state
