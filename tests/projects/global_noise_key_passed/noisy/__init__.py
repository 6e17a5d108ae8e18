"""Layers initialised from one package-wide noise source."""
