"""No examples either: inputs for a dict of parameters used in a helper under jax.grad, a PRNG key,
a trace-time print and an unrolled loop, all guessed from how the code uses them."""
import jax
import jax.numpy as jnp


def loss_fn(params, x):
    return jnp.mean((x @ params["w"] + params["b"]) ** 2)


@jax.jit
def train_step(params, x, lr):
    loss, grads = jax.value_and_grad(loss_fn)(params, x)
    log = loss.item()
    return jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads), log


@jax.jit
def noise(key, n):
    return jax.random.normal(key, (n,))


@jax.jit
def show(x):
    print("x is", x)
    return x * 2


@jax.jit
def smooth(x):
    for _ in range(20):
        x = 0.5 * (x + jnp.roll(x, 1))
    return x
