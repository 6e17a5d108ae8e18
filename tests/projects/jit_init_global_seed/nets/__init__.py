"""Layers initialised with keys from a module-level seed."""
