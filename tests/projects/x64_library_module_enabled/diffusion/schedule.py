"""Noise schedules, computed once when the sampler is built."""
import jax.numpy as jnp


class LinearSchedule:
    def __init__(self, steps):
        betas = jnp.linspace(1e-4, 0.02, steps, dtype=jnp.float64)
        self.alphas_cumprod = jnp.cumprod(1.0 - betas)
