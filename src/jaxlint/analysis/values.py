"""Abstract values: what the dataflow knows about a Python value while JAX traces a function.

Three states matter: TRACED (a tracer, or a container holding tracers), STATIC (a Python value
JAX never sees) and UNKNOWN (anything the analysis cannot classify: precision first, unknown
values never produce findings). Functions, wrapped functions and `.at` indexers get their own
kinds so calls and updates can be followed.
"""

from __future__ import annotations

from typing import Optional

STATIC, TRACED, UNKNOWN, FUNC, WRAPPED, AT = "static", "traced", "unknown", "func", "wrapped", "at"
ARRAY, MAYBE, CONTAINER = "array", "maybe", "container"   # what a TRACED value is known to be
NO_CONST = object()
_MAX_PATH = 8


class V:
    """One abstract value. Immutable by convention: operations build new values."""

    __slots__ = ("state", "leaf", "path", "params", "boolish", "elts", "const", "pyseq",
                 "shows", "func", "closure", "bound", "wrapper", "extra", "text")

    def __init__(self, state, leaf=None, path=(), params=frozenset(), boolish=False, elts=None,
                 const=NO_CONST, pyseq=False, shows=None, func=None, closure=None, bound=None,
                 wrapper=None, extra=None, text=""):
        self.state = state
        self.leaf = leaf
        self.path = path
        self.params = params
        self.boolish = boolish
        self.elts = elts
        self.const = const
        self.pyseq = pyseq          # STATIC and known to be a Python sequence/str/dict/range
        self.shows = shows          # a STATIC string that displays a traced value
        self.func = func            # FUNC: FuncInfo or ast.Lambda
        self.closure = closure      # FUNC: the Env it closes over
        self.bound = bound          # FUNC: (positional V list, keyword dict) bound by partial
        self.wrapper = wrapper      # WRAPPED: canonical transform name; AT: None
        self.extra = extra          # WRAPPED: (inner V, keywords); AT: base value
        self.text = text            # how the value was produced, for messages ("jnp.ceil(...)")

    # -- predicates ---------------------------------------------------------------------------
    @property
    def traced(self) -> bool:
        return self.state == TRACED

    @property
    def is_array(self) -> bool:
        """A tracer, as opposed to a container that may hold some."""
        return self.state == TRACED and self.leaf == ARRAY

    def signature(self):
        return (self.state, self.leaf, self.boolish)

    def extend(self, step: str) -> "V":
        """The same value, having flowed into `step` (a variable or parameter name)."""
        if self.state != TRACED or (self.path and self.path[-1] == step):
            return self
        path = self.path + (step,)
        if len(path) > _MAX_PATH:
            path = path[:2] + ("...",) + path[-(_MAX_PATH - 3):]
        return copy(self, path=path)


def copy(v: V, **changes) -> V:
    new = V.__new__(V)
    for slot in V.__slots__:
        setattr(new, slot, changes.get(slot, getattr(v, slot)))
    return new


def static(const=NO_CONST, pyseq=False, elts=None, shows=None) -> V:
    if isinstance(const, int) and const.bit_length() > 256:
        const = NO_CONST    # no shape or count is this large, and str() of it can raise ValueError
    return V(STATIC, const=const, pyseq=pyseq, elts=elts, shows=shows)


UNKNOWN_V = V(UNKNOWN)
STATIC_V = V(STATIC)


def traced(leaf=ARRAY, path=(), params=frozenset(), boolish=False, elts=None, text="") -> V:
    return V(TRACED, leaf=leaf, path=path, params=params, boolish=boolish, elts=elts, text=text)


def first_traced(values) -> Optional[V]:
    for v in values:
        if v is not None and v.state == TRACED:
            return v
    return None


def derived(values, boolish=False, text="", leaf=ARRAY) -> V:
    """The result of computing with `values`: traced if any input is, else static."""
    source = first_traced(values)
    if source is None:
        if any(v is not None and v.state == UNKNOWN for v in values):
            return UNKNOWN_V
        return STATIC_V
    params = frozenset().union(*(v.params for v in values if v is not None and v.state == TRACED))
    return traced(leaf=leaf, path=source.path, params=params, boolish=boolish, text=text or source.text)


def join(a: Optional[V], b: Optional[V]) -> V:
    """Merge at the end of branches: traced on any path wins (a may-analysis)."""
    if a is None:
        return b if b is not None else UNKNOWN_V
    if b is None or a is b:
        return a
    if a.state == TRACED and b.state == TRACED:
        if a.leaf != b.leaf:
            return copy(a, leaf=MAYBE, elts=None, boolish=a.boolish and b.boolish)
        return a
    if a.state == TRACED:
        return a
    if b.state == TRACED:
        return b
    if a.state == b.state == STATIC:
        if a.const is not NO_CONST and a.const == b.const and type(a.const) is type(b.const):
            return a
        return static(pyseq=a.pyseq and b.pyseq)
    if a.state == b.state and a.state in (FUNC, WRAPPED) and a.func is b.func:
        return a
    return UNKNOWN_V


def element_of(v: V) -> V:
    """What iterating over `v` yields."""
    if v.state == TRACED:
        if v.elts:
            out = None
            for e in v.elts:
                out = join(out, e)
            return out
        return copy(v, leaf=MAYBE if v.leaf != ARRAY else ARRAY, elts=None)
    if v.state == STATIC and v.elts:
        out = None
        for e in v.elts:
            out = join(out, e)
        return out
    if v.state == STATIC:
        return STATIC_V
    return UNKNOWN_V
