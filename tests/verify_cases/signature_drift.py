"""The recompilation causes of issue 13, each a static finding before the program runs:
JAX305 (lines 25 and 27), JAX307 (line 29), JAX306 (lines 31 and 33). Line 30 compiles once
more too: a fixed shape at another call site, which by design is not a finding."""
import jax
import jax.numpy as jnp


@jax.jit
def gather(vec, indices):
    return vec[indices].sum()


@jax.jit
def step(params, batch):
    return params["w"] * batch[0] + batch[1]


@jax.jit
def scale(x, s):
    return x * s


def run(x, p, lr):
    for n in [5, 8, 10]:
        gather(x, jnp.arange(n))             # shape of `indices` follows n: 3 compiles
    for i in range(10):
        gather(x[: i + 1], jnp.arange(1))    # shape of `vec` grows: 10 compiles
    step(p, (x, x))
    step(p, [x, x])                          # tuple, then list: 1 more compile
    gather(x, jnp.arange(3))
    gather(x.astype(jnp.float16), jnp.arange(3))   # dtype changes: 1 more compile
    scale(x, 0.1)
    scale(x, jnp.float32(lr))                # weak Python float, then a strong f32: 1 more


if __name__ == "__main__":
    run(jnp.arange(10.0), {"w": jnp.ones(10)}, 0.1)
