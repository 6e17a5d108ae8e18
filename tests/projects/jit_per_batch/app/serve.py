import jax
import jax.numpy as jnp

from app.model import init, predict, predict_with


def serve(requests):
    params = init(jax.random.key(0), 3, 2)
    outputs = []
    for x in requests:
        outputs.append(predict(params, x))
        outputs.append(predict_with(params, x, 2.0))
    return jnp.stack(outputs)
