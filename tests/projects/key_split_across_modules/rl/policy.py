import jax
import jax.numpy as jnp


def init_policy(key, n_obs, n_act):
    return {"w": 0.1 * jax.random.normal(key, (n_obs, n_act)), "b": jnp.zeros(n_act)}
