"""Look-alike: `jax.jit` is applied inside a loop, but to a module-level function, which JAX
caches (reference, key fact 6). Tests plant a JAX301 finding on that line: the program's own run
applies jit three times and traces once, so the finding is not reproduced."""
import jax
import jax.numpy as jnp


def _scale(x):
    return 2.0 * x


def run():
    x = jnp.ones(3)
    for _ in range(3):
        x = jax.jit(_scale)(x)
    return x
