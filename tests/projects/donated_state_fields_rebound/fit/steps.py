import jax
import jax.numpy as jnp

from fit.state import TrainState


def loss_fn(params, x, y):
    return jnp.mean((x @ params["w"] + params["b"] - y) ** 2)


def _train_step(state, x, y):
    grads = jax.grad(loss_fn)(state.params, x, y)
    momentum = jax.tree.map(lambda m, g: 0.9 * m + g, state.momentum, grads)
    params = jax.tree.map(lambda p, m: p - 0.1 * m, state.params, momentum)
    return TrainState(state.step + 1, params, momentum)


train_step = jax.jit(_train_step, donate_argnums=(0,))


@jax.jit
def evaluate(state, x, y):
    return loss_fn(state.params, x, y)
