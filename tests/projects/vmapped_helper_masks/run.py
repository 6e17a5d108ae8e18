import jax.numpy as jnp

from seqloss.model import batch_loss

outs = jnp.ones((4, 10))
targets = jnp.zeros((4, 10))
print(batch_loss(outs, targets, jnp.array([3, 5, 7, 9])))
print(batch_loss(outs * 2, targets, jnp.array([2, 4, 6, 8])))
# expected compiles: batch_loss=1
