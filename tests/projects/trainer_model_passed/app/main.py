import jax.numpy as jnp

from app.models import Regressor
from app.trainer import Evaluator


def evaluate(batches):
    evaluator = Evaluator(Regressor(2.0))
    params = {"w": jnp.full((4, 4), 0.25), "b": jnp.zeros(4)}
    return [evaluator.predict(params, batch) for batch in batches]
