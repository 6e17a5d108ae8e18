"""A small grid environment, stepped by a jitted function the driver builds."""
