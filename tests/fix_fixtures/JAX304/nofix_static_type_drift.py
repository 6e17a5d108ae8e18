"""`1` vs `1.0` for a static parameter: fixing it would change the value's type; no fix."""
from functools import partial

import jax


@partial(jax.jit, static_argnames=("p",))
def penalty(w, p):
    return (abs(w) ** p).sum()


def run(w):
    return penalty(w, p=2), penalty(w, p=2.0)
