"""The first call passes a default explicitly; a later call reorders impure arguments (unsafe)."""
from functools import partial

import jax


@partial(jax.jit, static_argnames=("temperature",))
def sample(key, logits, temperature=1.0):
    return jax.random.categorical(key, logits / temperature)


def run(logits, make_key, prepare):
    a = sample(make_key(), logits, temperature=1.0)
    b = sample(make_key(), logits, temperature=1.0)  # <- fix
    c = sample(key=make_key(), logits=prepare(logits), temperature=1.0)  # <- fix
    d = sample(logits=prepare(logits), key=make_key(), temperature=1.0)  # <- fix
    return a, b, c, d
