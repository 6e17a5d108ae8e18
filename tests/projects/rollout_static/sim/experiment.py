import jax.numpy as jnp

from sim.dynamics import rollout


def curriculum(state, num_stages):
    results = []
    for stage in range(num_stages):
        horizon = 10 * (stage + 1)
        results.append(rollout(state, n_steps=horizon))  # expect: JAX201
    return jnp.stack(results)
