"""The batch loss: the per-sequence error, vmapped over the batch."""
import jax
import jax.numpy as jnp

from seqloss import utils


@jax.jit
def batch_loss(outs, targets, t_ends):
    losses = jax.vmap(utils.masked_mse)(outs, targets, t_ends)
    return jnp.mean(losses)
