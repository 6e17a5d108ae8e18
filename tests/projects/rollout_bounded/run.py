import jax.numpy as jnp

from sim.experiment import compare_horizons

print(compare_horizons(jnp.ones(4))[0].shape)

# expected compiles: rollout=3 (three horizons chosen on purpose, each reused)
