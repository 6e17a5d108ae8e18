import jax.numpy as jnp


def integrate(state, torque, dt):
    torque = jnp.where(state.steps >= 200, 0.0, torque)
    omega = state.omega + dt * (torque - jnp.sin(state.theta))
    return state._replace(theta=state.theta + dt * omega, omega=omega, steps=state.steps + 1)
