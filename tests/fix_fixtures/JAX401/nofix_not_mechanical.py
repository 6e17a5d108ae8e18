"""Reuses the fix leaves alone: a module-level key, a draw in a comprehension, a statement after
`;` and an `elif` test."""
import jax

KEY = jax.random.key(0)


def from_global():
    a = jax.random.normal(KEY, ())
    b = jax.random.uniform(KEY, ())
    return a, b


def in_comprehension(key):
    rest = [jax.random.normal(key, ()) for _ in range(3)]
    last = jax.random.uniform(key, ())
    return rest, last


def after_semicolon(key):
    x = 1; a = jax.random.normal(key, ())
    b = jax.random.normal(key, (2,))
    return a, b, x


def in_elif(key, c):
    a = 0
    if c:
        a = 1
    elif jax.random.uniform(key, ()) < 0.5:
        a = 2
    return a, jax.random.normal(key, ())
