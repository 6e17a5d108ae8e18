"""A pendulum environment whose state the driver gets from `reset` and steps with a jit it builds."""
