"""Abstract values: what the dataflow knows about a Python value while JAX traces a function.

Three states matter: TRACED (a tracer, or a container holding tracers), STATIC (a Python value
JAX never sees) and UNKNOWN (anything the analysis cannot classify: precision first, unknown
values never produce findings). Functions, wrapped functions and `.at` indexers get their own
kinds so calls and updates can be followed, and so do the classes of the file and their
objects (OBJECT, CLASS), so that `model.energy`, `Model.f` and `self.helper` reach their defs.

A TRACED value with `diff` set is a tracer of autodiff alone (`jax.grad`, `jax.vjp`, ... outside
any jit): its primal value is concrete, so `if x > 0`, `int(x)` and `x.item()` work on it, while
`float(x)`, `math.*` and NumPy conversions fail (checked with JAX 0.10.2).
"""

from __future__ import annotations

from typing import Optional

STATIC, TRACED, UNKNOWN, FUNC, WRAPPED, AT = "static", "traced", "unknown", "func", "wrapped", "at"
OBJECT, CLASS = "object", "class"     # an instance of a class of this file / the class itself
ARRAY, MAYBE, CONTAINER = "array", "maybe", "container"   # what a TRACED value is known to be
NO_CONST = object()
_MAX_PATH = 8


class V:
    """One abstract value. Immutable by convention: operations build new values."""

    __slots__ = ("state", "leaf", "path", "params", "boolish", "elts", "const", "pyseq",
                 "shows", "func", "closure", "bound", "wrapper", "extra", "text", "diff", "maykey",
                 "ndarray", "cls", "fields", "nonnull")

    def __init__(self, state, leaf=None, path=(), params=frozenset(), boolish=False, elts=None,
                 const=NO_CONST, pyseq=False, shows=None, func=None, closure=None, bound=None,
                 wrapper=None, extra=None, text="", diff=False, maykey=False, ndarray=False,
                 cls=None, fields=None, nonnull=False):
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
        self.extra = extra          # WRAPPED: (inner V, keywords, positional options, the project
        #                             Target of an inner function of another module); AT: base value
        self.text = text            # how the value was produced, for messages ("jnp.ceil(...)")
        self.diff = diff            # TRACED by autodiff alone: the primal value is concrete
        self.maykey = maykey        # TRACED element of a pytree of unknown kind: may be a dict's str key
        self.ndarray = ndarray      # STATIC and known to be a NumPy array
        self.cls = cls              # OBJECT/CLASS, or a record (NamedTuple...): its ClassInfo
        self.fields = fields        # a record's field names, in the order of `elts`
        self.nonnull = nonnull      # known not to be None (`if x is None: return` ran before)

    # -- predicates ---------------------------------------------------------------------------
    @property
    def traced(self) -> bool:
        return self.state == TRACED

    @property
    def is_array(self) -> bool:
        """A tracer, as opposed to a container that may hold some."""
        return self.state == TRACED and self.leaf == ARRAY

    def signature(self):
        held = tuple(e.traced for e in self.elts) if self.state == OBJECT and self.elts else None
        return (self.state, self.leaf, self.boolish, self.diff, self.maykey, self.ndarray,
                id(self.cls) if self.cls is not None else None, held, self.nonnull)

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
    new.state, new.leaf, new.path, new.params, new.boolish = v.state, v.leaf, v.path, v.params, v.boolish
    new.elts, new.const, new.pyseq, new.shows, new.func = v.elts, v.const, v.pyseq, v.shows, v.func
    new.closure, new.bound, new.wrapper, new.extra, new.text = v.closure, v.bound, v.wrapper, v.extra, v.text
    new.diff, new.maykey, new.ndarray, new.cls, new.fields = v.diff, v.maykey, v.ndarray, v.cls, v.fields
    new.nonnull = v.nonnull
    for slot, value in changes.items():
        setattr(new, slot, value)
    return new


def static(const=NO_CONST, pyseq=False, elts=None, shows=None, ndarray=False) -> V:
    if isinstance(const, int) and const.bit_length() > 256:
        const = NO_CONST    # no shape or count is this large, and str() of it can raise ValueError
    return V(STATIC, const=const, pyseq=pyseq, elts=elts, shows=shows, ndarray=ndarray)


UNKNOWN_V = V(UNKNOWN)
STATIC_V = V(STATIC)


def traced(leaf=ARRAY, path=(), params=frozenset(), boolish=False, elts=None, text="", diff=False,
           maykey=False) -> V:
    return V(TRACED, leaf=leaf, path=path, params=params, boolish=boolish, elts=elts, text=text, diff=diff,
             maykey=maykey)


def first_traced(values) -> Optional[V]:
    for v in values:
        if v is not None and v.state == TRACED:
            return v
    return None


def str_keyed(keys: tuple, values: tuple) -> V:
    """A dict whose str keys are known (`{"x": x, "step": 0}`, the **kwargs of a call): the value
    of each key is kept, and iterating over it gives the keys (static strings)."""
    source = first_traced(values)
    if source is not None:
        made = traced(leaf=CONTAINER, path=source.path, params=source.params)
        made.fields, made.elts = tuple(keys), tuple(values)
        return made
    return V(STATIC, pyseq=True, fields=tuple(keys), elts=tuple(values))


def derived(values, boolish=False, text="", leaf=ARRAY) -> V:
    """The result of computing with `values`: traced if any input is, else static."""
    source = first_traced(values)
    if source is None:
        if any(v is not None and v.state == UNKNOWN for v in values):
            return UNKNOWN_V
        return STATIC_V
    tracers = [v for v in values if v is not None and v.state == TRACED]
    params = frozenset().union(*(v.params for v in tracers))
    return traced(leaf=leaf, path=source.path, params=params, boolish=boolish, text=text or source.text,
                  diff=all(v.diff for v in tracers))


def join(a: Optional[V], b: Optional[V]) -> V:
    """Merge at the end of branches: traced on any path wins (a may-analysis)."""
    if a is None:
        return b if b is not None else UNKNOWN_V
    if b is None or a is b:
        return a
    if a.state == TRACED and b.state == TRACED:
        diff, maykey = a.diff and b.diff, a.maykey or b.maykey    # a staged tracer on any path wins
        if a.leaf != b.leaf:
            return copy(a, leaf=MAYBE, elts=None, boolish=a.boolish and b.boolish, diff=diff, maykey=maykey,
                        fields=None, cls=None)
        if a.diff != diff or a.maykey != maykey:
            return copy(a, diff=diff, maykey=maykey)
        return a
    if a.state == TRACED:
        return a
    if b.state == TRACED:
        return b
    if a.state == b.state == STATIC:
        if a.const is not NO_CONST and a.const == b.const and type(a.const) is type(b.const):
            return a
        return static(pyseq=a.pyseq and b.pyseq, ndarray=a.ndarray and b.ndarray)
    if a.state == b.state and a.state in (FUNC, WRAPPED) and a.func is b.func:
        return a
    if a.state == b.state and a.state in (OBJECT, CLASS) and a.cls is b.cls:
        return a
    if a.state == b.state == UNKNOWN and a.nonnull and b.nonnull:
        return a
    return UNKNOWN_V


def element_of(v: V, iterating: bool = False) -> V:
    """What iterating over `v` (`iterating`: a for-loop or comprehension) or unpacking it yields.

    A for-loop over a pytree of unknown kind may be over a dict, whose items are its str keys:
    those elements are `maykey`, and a place that a str passes as well as a tracer fails with
    (a dict or list index, a print) is not reported for them."""
    if v.fields and v.cls is None:
        return static(pyseq=True)       # a dict whose keys are known: its str keys
    if v.state == TRACED:
        if v.elts:
            out = None
            for e in v.elts:
                out = join(out, e)
            return out
        if v.leaf == ARRAY:
            return copy(v, elts=None, fields=None, cls=None)
        return copy(v, leaf=MAYBE, elts=None, fields=None, cls=None, maykey=v.maykey or iterating)
    if v.state == STATIC and v.elts:
        out = None
        for e in v.elts:
            out = join(out, e)
        return out
    if v.state == STATIC:
        return STATIC_V
    return UNKNOWN_V
