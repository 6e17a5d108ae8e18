"""`case int():` has no mechanical dtype rewrite: no fix."""
import jax


@jax.jit
def scale_by(x, factor):
    match factor:
        case int():
            return x * factor
        case _:
            return x / factor
