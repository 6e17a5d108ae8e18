"""Losses over sequences of different lengths."""
