import jax

from rl import env
from rl.policy import init_policy


def setup(seed):
    key = jax.random.key(seed)
    policy_key, env_key = jax.random.split(key)
    params = init_policy(policy_key, 3, 2)
    state = env.reset(env_key)
    return params, state
