import jax
import jax.numpy as jnp

from smooth.ops import smooth
from smooth.train import main

print(main())
# the smoothing loop is staged once per iteration: the program grows with the count
for n in (8, 48):
    jaxpr = jax.make_jaxpr(lambda x: smooth(x, n))(jnp.ones(8))
    print(f"equations at {n} iterations: {len(jaxpr.jaxpr.eqns)}")
