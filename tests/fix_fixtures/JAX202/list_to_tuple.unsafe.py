"""Lists passed to static parameters: a display, a comprehension and a list inside a tuple."""
from functools import partial

import jax


@partial(jax.jit, static_argnames=("sizes", "windows"))
def forward(x, sizes, windows):
    return x * len(sizes) + len(windows)


def run(x):
    a = forward(x, sizes=(8, 32, 1), windows=((2, 4),))  # <- fix
    b = forward(x, sizes=(  # <- fix
        8,  # hidden
        16,
    ), windows=((1,),))  # <- fix
    c = forward(x, sizes=(4,), windows=tuple(2 ** i for i in range(3)))  # <- fix
    d = forward(x, sizes=(7,), windows=((1,),))  # <- fix
    return a, b, c, d
