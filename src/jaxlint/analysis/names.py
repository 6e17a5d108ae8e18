"""What the names of this file mean: `jit`, `jnp`, `partial`, `lax`... resolved from its imports.

No import is executed: `import jax.numpy as jnp` just records that `jnp` means `jax.numpy`.
Every dotted name is then canonicalised so that rules compare one spelling (`jnp.zeros`,
`lax.scan`, `jax.jit`) whatever the file wrote.
"""

from __future__ import annotations

import ast
import functools
from typing import Optional

from jaxlint.analysis.syntax import LineFilter, iter_statements

# Longest prefix first: canonical short forms for the namespaces the rules talk about.
_CANONICAL_PREFIXES = (
    ("jax.experimental.pjit.pjit", "jax.jit"),
    ("jax.experimental.pjit", "jax.experimental.pjit"),
    ("jax.numpy.", "jnp."),
    ("jax.numpy", "jnp"),
    ("jax.lax.", "lax."),
    ("jax.lax", "lax"),
    ("jax._src.numpy.lax_numpy.", "jnp."),
    ("numpy.", "np."),
    ("numpy", "np"),
    ("jax.remat", "jax.checkpoint"),
    ("jax.experimental.shard_map.shard_map", "jax.shard_map"),
    ("equinox.", "eqx."),
    ("equinox", "eqx"),
    ("flax.nnx.", "nnx."),
    ("flax.nnx", "nnx"),
)


# jax.nn's functions that flax re-exports as the same objects (`nnx.relu is jax.nn.relu`, and
# `flax.linen.relu`; checked with flax 0.12.8): read as jax.nn's, whose behaviour the tables know.
_FLAX_REEXPORTS_OF_JAX_NN = frozenset((
    "celu", "elu", "gelu", "glu", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh", "leaky_relu",
    "log_sigmoid", "log_softmax", "logsumexp", "one_hot", "relu", "relu6", "selu", "sigmoid", "silu",
    "soft_sign", "softmax", "softplus", "standardize", "swish", "tanh"))


@functools.lru_cache(maxsize=65536)     # a pure function of the text, called ~35 times a file
def canonical(dotted: str) -> str:
    for prefix, short in _CANONICAL_PREFIXES:
        if dotted == prefix or (prefix.endswith(".") and dotted.startswith(prefix)):
            dotted = short + dotted[len(prefix):]
            break
        if dotted.startswith(prefix + "."):
            dotted = short + dotted[len(prefix):]
            break
    head, _, last = dotted.rpartition(".")
    if head in ("nnx", "flax.linen") and last in _FLAX_REEXPORTS_OF_JAX_NN:
        return "jax.nn." + last
    return dotted


class ImportMap:
    """Maps each local name bound by an import to the dotted name it stands for."""

    def __init__(self, tree: ast.Module, lines=None):
        """`lines` (the source lines) lets it visit only statements on lines that say `import`."""
        self.aliases: dict = {}
        for node in iter_statements(tree.body, LineFilter(lines, ("import",))):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self.aliases.setdefault(alias.asname, alias.name)
                    else:
                        top = alias.name.split(".")[0]
                        self.aliases.setdefault(top, top)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    if alias.name == "*":
                        continue
                    self.aliases.setdefault(alias.asname or alias.name, f"{node.module}.{alias.name}")

    def resolve(self, node: ast.AST) -> Optional[str]:
        """Canonical dotted name of a Name/Attribute chain rooted at an import, else None."""
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        base = self.aliases.get(node.id)
        if base is None:
            return None
        parts.append(base)
        return canonical(".".join(reversed(parts)))

    def mentions(self, prefix: str) -> bool:
        return any(v == prefix or v.startswith(prefix + ".") for v in self.aliases.values())
