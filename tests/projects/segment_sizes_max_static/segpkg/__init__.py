"""Ragged segments padded to one width, jitted by the driver."""
