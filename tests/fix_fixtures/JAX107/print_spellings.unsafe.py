"""print() of traced values in its common spellings."""
import jax
import jax.numpy as jnp


@jax.jit
def step(params, grads, lr):
    loss = jnp.sum(grads**2)
    jax.debug.print("loss {}", loss)  # <- fix
    jax.debug.print("lr={!r:>12} {{not a field}} loss: {}", lr, loss)  # <- fix
    jax.debug.print("grad norm: {}", jnp.linalg.norm(grads))  # <- fix
    jax.debug.print('its {{odd}} {}', loss)  # <- fix
    jax.debug.print("{}", loss)  # <- fix
    return params - lr * grads
