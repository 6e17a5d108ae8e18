"""Look-alike: the scan carry is a registered dataclass whose `width` is a static (meta) field,
so inside the body `carry.width` is a Python int. Tests plant a JAX103 finding on
`jnp.zeros(carry.width)` with the message the analysis would write for a traced carry field: a
body of lax control flow gets tracers, but not for static fields, and the program's own call
runs the line cleanly."""
import dataclasses

import jax
import jax.numpy as jnp


@jax.tree_util.register_dataclass
@dataclasses.dataclass
class Carry:
    total: jax.Array
    width: int = dataclasses.field(metadata=dict(static=True))


def step(carry, x):
    pad = jnp.zeros(carry.width)
    return Carry(carry.total + x.sum() + pad.sum(), carry.width), None


def run():
    final, _ = jax.lax.scan(step, Carry(jnp.float32(0.0), 3), jnp.ones((4, 2)))
    return final.total
