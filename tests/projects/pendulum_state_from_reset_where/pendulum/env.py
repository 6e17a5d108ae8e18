import jax
import jax.numpy as jnp

from pendulum.dynamics import integrate
from pendulum.state import PendulumState


class Pendulum:
    def __init__(self, dt=0.05):
        self.dt = dt

    def reset(self, key):
        theta = jax.random.uniform(key, (), minval=-0.5, maxval=0.5)
        return PendulumState(theta, jnp.zeros(()), jnp.zeros((), dtype=jnp.int32))

    def step(self, state, torque):
        new = integrate(state, torque, self.dt)
        return new, jnp.cos(new.theta)
