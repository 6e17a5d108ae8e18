"""The list is bound to a variable first: not fixed (the variable may be used as a list)."""
from functools import partial

import jax


@partial(jax.jit, static_argnames=("sizes",))
def forward(x, sizes):
    return x * len(sizes)


def run(x):
    sizes = [8, 32, 1]
    sizes.append(4)
    return forward(x, sizes=sizes)
