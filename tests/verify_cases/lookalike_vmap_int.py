"""Look-alike: `k` reaches `top_k_mask` through `jax.vmap(..., in_axes=(0, None))`, so the function
gets the Python int the program passes, never a tracer. Tests plant a JAX101 finding on the `if`:
guessing `k` (traced) makes JAX fail there, the program's own value does not."""
import jax
import jax.numpy as jnp


def top_k_mask(scores, k):
    if k <= 0:
        return jnp.zeros_like(scores)
    threshold = jnp.sort(scores)[-k]
    return jnp.where(scores >= threshold, scores, 0.0)


def batched_top_k(scores):
    return jax.vmap(top_k_mask, in_axes=(0, None))(scores, 2)
