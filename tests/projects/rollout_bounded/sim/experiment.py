import jax.numpy as jnp

from sim import dynamics


def compare_horizons(state):
    # three horizons, chosen on purpose: three compiles, each reused below
    results = [dynamics.rollout(state, n_steps=h) for h in (10, 20, 40)]
    for _ in range(100):
        state = dynamics.rollout(state, n_steps=10)
    return jnp.stack(results), state
