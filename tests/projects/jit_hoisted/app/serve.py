import jax
import jax.numpy as jnp

from app.model import evaluate, init, predict, predict_tiled


def serve(requests, sizes):
    params = init(jax.random.key(0), 3, 2)
    outputs = []
    for x in requests:
        outputs.append(predict(params, x))
    # one program per output size, on purpose: each has its own shape
    tiled = [predict_tiled(params, requests[0], reps) for reps in sizes]
    return jnp.stack(outputs), tiled, evaluate(params, requests)
