from functools import partial

import jax


@partial(jax.jit, static_argnames=("spec",))
def apply_update(w, g, spec):
    return w - spec.lr * g
