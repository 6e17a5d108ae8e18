"""print() of traced values in its common spellings."""
import jax
import jax.numpy as jnp


@jax.jit
def step(params, grads, lr):
    loss = jnp.sum(grads**2)
    print("loss", loss)  # <- fix
    print(f"lr={lr!r:>12} {{not a field}} loss: {loss}")  # <- fix
    print("grad norm", jnp.linalg.norm(grads), sep=": ")  # <- fix
    print('it''s {odd}', loss)  # <- fix
    print(loss,
          end="\n")  # <- fix
    return params - lr * grads
