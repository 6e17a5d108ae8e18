"""jaxlint: find JAX trace-time failures and silent recompilation before the code runs."""

__version__ = "0.1.0"
