"""A halo potential that checks its parameters when it is made."""
import jax.numpy as jnp


class NFWPotential:
    def __init__(self, m, r_s):
        self.m = m
        self.r_s = r_s
        self.check()

    def check(self):
        if (self.m <= 0) or (self.r_s <= 0):
            raise ValueError("mass and scale radius must be positive")

    def enclosed_mass(self, r):
        x = r / self.r_s
        return self.m * (jnp.log1p(x) - x / (1.0 + x))
