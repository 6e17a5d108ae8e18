import jax
import jax.numpy as jnp

from spectra.power import spectral_radius
from spectra.sweep import sweep

print(sweep([jnp.eye(3) * 0.5, jnp.eye(3) * 2.0]))
# the power iteration is staged once per iteration: the program grows with the count
for n in (4, 40):
    jaxpr = jax.make_jaxpr(lambda a: spectral_radius.__wrapped__(a, n))(jnp.eye(3))
    print(f"equations at {n} iterations: {len(jaxpr.jaxpr.eqns)}")
