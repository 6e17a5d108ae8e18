"""The abstract call signature of an argument of a jitted function, and how two of them differ.

jit compiles once per signature: the pytree structure of the arguments, and for each leaf its
shape, its dtype and whether it is weakly typed (a Python scalar). A signature here is:

- `Tree`: a container (tuple / list / dict with its keys / None / a NamedTuple of the module);
- `Leaf`: an array or a Python scalar, with dtype, weak type and shape. Each dimension is a
  polynomial over *atoms* (`n`, `len(x)`), so `jnp.arange(n)` has shape (n,), `x[i:i + bs]` has
  (bs,) and `jnp.pad(s, (0, L - len(s)))` has (L,); an `Atom` remembers why it changes from one
  loop iteration to the next (a loop variable, a counter, the longest sequence of a batch);
- `Opaque`: a value known only by identity (a parameter), whose own `.astype(T)` differs from it;
- None: unknown. Unknown never differs from anything: precision first.

`signature_reader.py` reads signatures from code; the rules compare them with
`structure_difference` and `dtype_difference`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

MORE = "..."            # a shape's last entry: further dimensions, unknown


# -- symbolic dimensions --------------------------------------------------------------------------

def poly_const(c: int) -> tuple:
    return (((), c),) if c else ()


def poly_atom(key: str) -> tuple:
    return (((key,), 1),)


def _normal(terms: dict) -> tuple:
    return tuple(sorted((m, c) for m, c in terms.items() if c))


def poly_add(a: tuple, b: tuple, sign: int = 1) -> tuple:
    terms = dict(a)
    for m, c in b:
        terms[m] = terms.get(m, 0) + sign * c
    return _normal(terms)


def poly_mul(a: tuple, b: tuple) -> tuple:
    terms: dict = {}
    for ma, ca in a:
        for mb, cb in b:
            m = tuple(sorted(ma + mb))
            terms[m] = terms.get(m, 0) + ca * cb
    return _normal(terms)


def poly_value(p: tuple) -> Optional[int]:
    """The integer a polynomial stands for, if it has no atom."""
    if not p:
        return 0
    if len(p) == 1 and p[0][0] == ():
        return p[0][1]
    return None


def poly_atoms(p: tuple) -> set:
    return {a for m, _ in p for a in m}


def poly_eval(p: tuple, values: dict) -> Optional[int]:
    total = 0
    for m, c in p:
        term = c
        for a in m:
            if a not in values:
                return None
            term *= values[a]
        total += term
    return total


@dataclass
class Atom:
    """A quantity a dimension is built from, and whether it changes per loop iteration."""

    text: str
    kind: str = "fixed"      # "loop" | "counter" | "longest" | "data" | "growth" | "fixed"
    loop: object = None                # the loop (or comprehension) it follows
    values: Optional[list] = None      # the values it takes, when the loop is over literals
    reason: str = ""

    @property
    def varies(self) -> bool:
        return self.kind != "fixed"


# -- signatures -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Leaf:
    """An array or a Python scalar: one leaf of the argument's pytree."""

    dtype: Optional[str] = None
    weak: Optional[bool] = None
    shape: Optional[tuple] = None        # polynomials (None: unknown dimension), maybe ending in MORE
    python: Optional[str] = None         # "int" / "float" / "bool" / "complex": a Python scalar
    origin: str = ""                     # the expression, for messages
    grows: Optional[tuple] = field(default=None, compare=False)   # (loop, why) when accumulated
    certain: bool = field(default=True, compare=False)   # False: a slice of a value that may be a list
    dtype_of: Optional[str] = None       # dtype unknown but that of this value (an Opaque key)
    cast_from: Optional[str] = None      # `v.astype(T)`, T not a default dtype: the cast says v is not T
    floating: bool = field(default=False, compare=False)   # dtype unknown, but some float (`jnp.mean(x)`)


@dataclass(frozen=True)
class Opaque:
    """A value known only by its identity: a parameter, the result of an unknown call. Its
    structure and dtype are unknown, but `x` and `x.astype(T)` are known to differ in dtype."""

    key: str
    origin: str = ""


@dataclass(frozen=True)
class Tree:
    """A pytree container: tuple, list, dict, None, or a NamedTuple of the module."""

    kind: str                            # "tuple" | "list" | "dict" | "None" | "NamedTuple X"
    children: Optional[tuple] = None     # the children's signatures (None: the number is unknown)
    keys: Optional[tuple] = None         # dict keys, in sorted order (None: not known)
    length: Optional[tuple] = None       # a list of symbolic length (a comprehension, a growing list)
    elt: object = None                   # ... and its element's signature
    grows: Optional[tuple] = field(default=None, compare=False)
    origin: str = ""


def describe(sig) -> str:
    """`a Python float (weakly typed float32)`, `a float16 array`, `a tuple of 2`, `None`."""
    if isinstance(sig, Opaque):
        return f"`{sig.origin}` itself (in its own dtype)"
    if isinstance(sig, Tree):
        if sig.kind == "None":
            return "None"
        if sig.kind == "dict":
            if sig.keys is None:
                return "a dict"
            return "a dict with keys " + ", ".join(repr(k) for k in sig.keys) if sig.keys else "an empty dict"
        if sig.kind.startswith("NamedTuple "):
            return f"a `{sig.kind.split(' ', 1)[1]}` NamedTuple"
        if sig.children is not None:
            return f"a {sig.kind} of {len(sig.children)}"
        return f"a {sig.kind}"
    if sig.python:
        if sig.python == "bool":
            return "a Python bool (a strong bool)"
        return f"a Python {sig.python} (weakly typed {sig.dtype})"
    if sig.dtype is None and sig.weak is False:
        return f"a strongly typed {'float ' if sig.floating else ''}array (`{sig.origin}`)" if sig.origin \
            else "a strongly typed array"
    if sig.dtype is None:
        return f"`{sig.origin}` (in the dtype of its source)" if sig.origin else "an array"
    if sig.shape == ():
        strength = "weakly typed" if sig.weak else "strong" if sig.weak is False else ""
        return f"a {strength + ' ' if strength else ''}{sig.dtype} scalar"
    if sig.shape is None and sig.weak is False:
        return f"a strongly typed {sig.dtype} value (`{sig.origin}`)" if sig.origin else \
            f"a strongly typed {sig.dtype} value"
    strength = "weakly typed " if sig.weak else ""
    article = "an" if (strength or sig.dtype)[:1] in "aeiou" else "a"
    shown = f" (`{sig.origin}`)" if sig.origin and len(sig.origin) <= 40 else ""
    return f"{article} {strength}{sig.dtype} array{shown}"


def shape_text(shape, atoms: dict) -> str:
    if shape is None:
        return "?"
    parts = []
    for d in shape:
        parts.append("..." if d is MORE else "?" if d is None else poly_text(d, atoms))
    return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"


def poly_text(p: tuple, atoms: dict) -> str:
    if not p:
        return "0"
    out = ""
    for m, c in sorted(p, key=lambda mc: (-len(mc[0]), mc[0])):
        names = " * ".join(atoms[a].text if a in atoms else a for a in m)
        if not m:
            body = str(abs(c))
        elif abs(c) == 1:
            body = names
        else:
            body = f"{abs(c)} * {names}"
        if not out:
            out = ("-" if c < 0 else "") + body
        else:
            out += (" - " if c < 0 else " + ") + body
    return out


def leaves(sig, path=()):
    """(path, Leaf) for every known leaf of a signature."""
    if isinstance(sig, Leaf):
        yield path, sig
    elif isinstance(sig, Tree) and sig.children is not None:
        names = _child_names(sig)
        for key, child in zip(names, sig.children):
            yield from leaves(child, path + (key,))


class Field(str):
    """A NamedTuple field in a path: shown as `.name`, as JAX shows it."""


def path_text(param: str, path: tuple) -> str:
    return param + "".join(f".{k}" if isinstance(k, Field) else f"[{k!r}]" for k in path)


def _child_names(tree) -> tuple:
    """What each child of a container is called in a path: dict keys, NamedTuple fields, indices."""
    if tree.kind == "dict":
        return tree.keys
    if tree.kind.startswith("NamedTuple ") and tree.keys is not None and len(tree.keys) == len(tree.children):
        return tuple(Field(k) for k in tree.keys)
    return tuple(range(len(tree.children)))


def structure_difference(old, new, path=()) -> Optional[tuple]:
    """(path, old part, new part) where two signatures' pytree structures differ, else None."""
    if old is None or new is None or isinstance(old, Opaque) or isinstance(new, Opaque):
        return None
    old_leaf, new_leaf = isinstance(old, Leaf), isinstance(new, Leaf)
    if old_leaf and new_leaf:
        return None
    if old_leaf or new_leaf:
        leaf = old if old_leaf else new
        return (path, old, new) if leaf.certain else None
    if old.kind != new.kind:
        return path, old, new
    if old.kind == "dict":
        if old.keys is not None and new.keys is not None and old.keys != new.keys:
            return path, old, new
    if old.children is not None and new.children is not None:
        if len(old.children) != len(new.children):
            return path, old, new
        names = _child_names(old)
        for key, a, b in zip(names, old.children, new.children):
            found = structure_difference(a, b, path + (key,))
            if found:
                return found
    return None


def dtype_difference(old, new, path=()) -> Optional[tuple]:
    """(path, old leaf, new leaf) where the same position holds another dtype or weak type."""
    if isinstance(old, Opaque) or isinstance(new, Opaque):
        a = old.key if isinstance(old, Opaque) else old.dtype_of if isinstance(old, Leaf) else None
        b = new.key if isinstance(new, Opaque) else new.dtype_of if isinstance(new, Leaf) else None
        if a is not None and isinstance(new, Leaf) and new.dtype and new.cast_from == a:
            return path, old, new
        if b is not None and isinstance(old, Leaf) and old.dtype and old.cast_from == b:
            return path, old, new
        return None
    if isinstance(old, Leaf) and isinstance(new, Leaf):
        if old.dtype and new.dtype and old.dtype != new.dtype:
            return path, old, new
        if old.dtype and old.dtype == new.dtype and old.weak is not None and new.weak is not None \
                and old.weak != new.weak:
            return path, old, new
        if not (old.dtype and new.dtype) and (old.dtype or new.dtype) and old.weak is not None \
                and new.weak is not None and old.weak != new.weak:
            return path, old, new       # weak and strong never share a cache entry, whatever the dtype
        if old.dtype_of and new.dtype and new.cast_from == old.dtype_of:
            return path, old, new
        if new.dtype_of and old.dtype and old.cast_from == new.dtype_of:
            return path, old, new
        return None
    if isinstance(old, Tree) and isinstance(new, Tree) and old.kind == new.kind and old.keys == new.keys \
            and old.children is not None and new.children is not None and len(old.children) == len(new.children):
        names = _child_names(old)
        for key, a, b in zip(names, old.children, new.children):
            found = dtype_difference(a, b, path + (key,))
            if found:
                return found
    return None
