"""No `jax.numpy` alias in the module: the copy is spelled `jax.numpy.copy`."""
import jax


def _scale(x, factor):
    return x * factor


scale = jax.jit(_scale, donate_argnames=("x",))


def compare(x):
    y = scale(x=jax.tree.map(jax.numpy.copy, x), factor=2.0)  # <- fix
    return y - x
