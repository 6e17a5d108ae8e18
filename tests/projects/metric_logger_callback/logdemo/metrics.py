"""One logger for the whole package: made when the module is imported."""
import collections

import jax.numpy as jnp


class MetricLogger:
    def __init__(self):
        self.history = collections.defaultdict(list)

    def log(self, name, value):
        self.history[name].append(value)

    def summary(self):
        return {name: float(jnp.mean(jnp.stack(values))) for name, values in self.history.items()}


LOGGER = MetricLogger()
