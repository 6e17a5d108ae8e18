"""A small training script with the mistakes jaxlint finds. Run: jaxlint check examples/train.py"""
from functools import partial

import jax
import jax.numpy as jnp


@jax.jit
def loss_fn(params, x, y, num_classes):
    logits = x @ params["w"]
    targets = jax.nn.one_hot(y, num_classes)          # num_classes is traced: JAX103
    return -jnp.mean(jnp.sum(targets * jax.nn.log_softmax(logits), axis=-1))


@jax.jit
def clip_update(update, max_norm):
    norm = jnp.linalg.norm(update)
    if norm > max_norm:                               # Python `if` on a tracer: JAX101
        update = update * (max_norm / norm)
    return update


@jax.jit
def last_tokens(tokens, keep):
    return tokens[-keep:]                             # traced slice bound: JAX104


@partial(jax.jit, static_argnames=("num_classes",))
def accuracy(params, x, y, num_classes):
    logits = x @ params["w"]
    return jnp.mean(jnp.argmax(logits, axis=-1) == y) * num_classes / num_classes


def train(params, batches, num_classes=10):
    for x, y in batches:
        grads = jax.grad(loss_fn)(params, x, y, num_classes)
        params = jax.tree_util.tree_map(lambda p, g: p - 0.1 * clip_update(g, 1.0), params, grads)
    return params
