"""A small diffusion schedule package."""
