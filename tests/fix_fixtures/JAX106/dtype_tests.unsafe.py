"""isinstance on traced values: int, float, bool, a tuple of types, under `import jax as jx`."""
import jax as jx
import jax.numpy as jnp


@jx.jit
def warmup_factor(step, warmup, eps, flag):
    if jnp.issubdtype(jnp.asarray(warmup).dtype, jnp.integer):  # <- fix
        step = step / warmup
    if (jnp.issubdtype(jnp.asarray(eps).dtype, jnp.integer) or jnp.issubdtype(jnp.asarray(eps).dtype, jnp.floating)):  # <- fix
        step = jnp.maximum(step, eps)
    return jnp.where(flag, step, 0.0) if jnp.issubdtype(jnp.asarray(flag).dtype, jnp.bool_) else step  # <- fix
