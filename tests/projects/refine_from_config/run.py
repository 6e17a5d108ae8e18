from functools import partial

import jax
import jax.numpy as jnp

from deqsolve.model import forward
from deqsolve.train import main

print(main())
# the refinement loop is staged once per iteration: the program grows with the count
params, x = jnp.eye(4) * 0.5, jnp.ones(4)
for n in (8, 64):
    jaxpr = jax.make_jaxpr(partial(forward.__wrapped__, n_iters=n))(params, x)
    print(f"equations at {n} iterations: {len(jaxpr.jaxpr.eqns)}")
