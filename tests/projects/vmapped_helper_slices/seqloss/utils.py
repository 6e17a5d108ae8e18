"""Per-sequence error up to the sequence's own end."""
import jax.numpy as jnp


def masked_mse(out, target, t_end):
    seg = out[:t_end]  # expect: JAX104
    return jnp.mean((seg - target[:seg.shape[0]]) ** 2)
