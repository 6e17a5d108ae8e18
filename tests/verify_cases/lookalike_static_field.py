"""Look-alike: `depth` is a static (meta) field of a registered dataclass, so under jit the
helper receives a Python int. Tests plant a JAX101 finding on the helper's `if`: guessing `depth`
as a traced value fails there, the program's own pytree does not."""
import dataclasses

import jax
import jax.numpy as jnp


@jax.tree_util.register_dataclass
@dataclasses.dataclass
class Config:
    scale: jax.Array
    depth: int = dataclasses.field(metadata=dict(static=True))


def _stack(x, scale, depth):
    if depth > 2:
        return x * scale
    return x


@jax.jit
def apply(cfg, x):
    return _stack(x, cfg.scale, cfg.depth)


def run():
    return apply(Config(jnp.float32(2.0), 3), jnp.ones(3))
