"""isinstance on traced values: int, float, bool, a tuple of types, under `import jax as jx`."""
import jax as jx
import jax.numpy as jnp


@jx.jit
def warmup_factor(step, warmup, eps, flag):
    if isinstance(warmup, int):  # <- fix
        step = step / warmup
    if isinstance(eps, (int, float)):  # <- fix
        step = jnp.maximum(step, eps)
    return jnp.where(flag, step, 0.0) if isinstance(flag, bool) else step  # <- fix
