from typing import NamedTuple

import jax.numpy as jnp


class PendulumState(NamedTuple):
    theta: jnp.ndarray
    omega: jnp.ndarray
    steps: jnp.ndarray
