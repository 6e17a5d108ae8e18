import jax.numpy as jnp


def integrate(state, torque, dt):
    if state.steps >= 200:  # expect: JAX101
        torque = 0.0
    omega = state.omega + dt * (torque - jnp.sin(state.theta))
    return state._replace(theta=state.theta + dt * omega, omega=omega, steps=state.steps + 1)
