"""JAX106 on the program's own values: `run()` passes a Python int, which eagerly passes the
isinstance test and under jit (a tracer) does not, so another branch runs."""
import jax
import jax.numpy as jnp


@jax.jit
def warmup_factor(step, warmup):
    if isinstance(warmup, int):
        return step / warmup
    return step * 0.1


def run():
    return warmup_factor(jnp.float32(2.0), 4)
