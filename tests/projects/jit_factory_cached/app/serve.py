import jax
import jax.numpy as jnp

from app.model import init, predictor


def serve(requests):
    params = init(jax.random.key(0), 3, 2)
    outputs = []
    for x in requests:
        outputs.append(predictor(2.0)(params, x))
    return jnp.stack(outputs)
