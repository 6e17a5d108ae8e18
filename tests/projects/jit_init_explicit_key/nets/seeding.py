import jax

_KEY = jax.random.PRNGKey(42)


def fresh_key():
    global _KEY
    _KEY, sub = jax.random.split(_KEY)
    return sub
