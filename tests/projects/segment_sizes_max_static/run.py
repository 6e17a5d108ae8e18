import jax
import jax.numpy as jnp

from segpkg.pad import segment_means

# expected compiles: segment_means=1
means = jax.jit(segment_means, static_argnames=["max_size"])
print(means(jnp.arange(5.0), jnp.array([2, 3]), max_size=4).shape)
