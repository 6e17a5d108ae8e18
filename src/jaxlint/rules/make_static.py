"""The fix JAX101-JAX104 share: make the traced parameter static at its jit site.

The four rules name this module's fix and its documentation; nothing here runs while linting.
"""

from __future__ import annotations

from jaxlint.findings import Fix

MAKE_STATIC_FIX = ("Sometimes (safe or unsafe): when the jit site is in the same file and the parameter is "
                   "used only where a Python value works, the parameter is made static: `@jax.jit` "
                   "becomes `@functools.partial(jax.jit, static_argnames=(\"n\",))`, and an existing "
                   "static_argnames/static_argnums is extended in its own spelling. Safe when every call "
                   "in the file passes a literal or a constant; otherwise unsafe: each new value of a "
                   "static argument compiles the function again (JAX201). No fix when the value would "
                   "stay traced (it comes out of a jnp call) or the parameter is used as an array.")


def make_parameter_static(ctx, finding) -> Fix:
    from jaxlint.fixer.fixes import fix_static
    return fix_static(ctx, finding)
