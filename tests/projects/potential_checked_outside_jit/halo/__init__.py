"""Rotation curves of dark-matter halos."""
