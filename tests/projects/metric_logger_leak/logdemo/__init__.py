"""A small regression trainer whose metrics go through one logger shared by the package."""
