import jax


@jax.jit
def reset(key):
    joints_key, spin_key = jax.random.split(key)
    return jax.random.uniform(joints_key, (2,)), jax.random.uniform(spin_key, (1,))
