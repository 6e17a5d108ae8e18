"""JAX108 traced-self."""

from jaxlint.findings import Finding
from jaxlint.rules.base import Rule


class TracedSelf(Rule):
    code = "JAX108"
    name = "traced-self"
    family = "trace-time failure"
    summary = "@jax.jit on a method of a class that is not a pytree: `self` cannot be traced."
    what = """
        Flags `@jax.jit` (or `step = jax.jit(_step)` in a class body) on a method when `self` is not
        static and the class is not a pytree: not registered with `jax.tree_util`, not an equinox
        or flax module, not a NamedTuple. Registration is not inherited, so subclasses count too.
        Also `@classmethod` stacked above `@jax.jit`: the jitted function receives the class itself,
        which no registration makes an array, unless `cls` is static.
    """
    why = """
        jit traces every non-static argument, `self` included. An ordinary object is not an
        array, so every call fails with `TypeError: Error interpreting argument to ... as an
        abstract array ... at path self`.
    """
    example = """
        import jax

        class Model:
            def __init__(self, w):
                self.w = w

            @jax.jit
            def predict(self, x):
                return x @ self.w
    """
    use_instead = """
        import jax

        @jax.tree_util.register_pytree_node_class
        class Model:
            def __init__(self, w):
                self.w = w

            def tree_flatten(self):
                return (self.w,), None

            @classmethod
            def tree_unflatten(cls, aux, children):
                return cls(*children)

            @jax.jit
            def predict(self, x):
                return x @ self.w
    """

    fix = ("No automatic fix: a static `self` needs a hashable class, and a pytree needs "
           "flatten/unflatten functions; both are design decisions.")

    def check(self, analysis):
        registered = analysis.index.registered_pytree_classes()
        for entry in analysis.entries:
            if entry.wrapper not in ("jax.jit", "jax.pmap") or entry.func is None or entry.spec.unresolved:
                continue
            func = entry.func
            if entry.via_decorator:
                if not func.is_method:
                    continue
                cls = func.cls
            elif entry.class_body is not None and func.cls is entry.class_body and not entry.bound:
                cls = func.cls
            else:
                continue
            kinds = [getattr(d, "id", getattr(d, "attr", "")) for d in func.node.decorator_list]
            params = func.params
            if not params or params[0] in entry.static or params[0] in entry.bound:
                continue
            if "staticmethod" in kinds:
                continue
            if "classmethod" in kinds:
                # `@classmethod` above `@jax.jit`: the jitted function gets the class itself,
                # which is never an array, whatever the class; below it, jit sees no method.
                if not (entry.via_decorator and _decorates_above(func.node, "classmethod", entry.site)):
                    continue
                lead = f"jitted classmethod `{func.qualname}` traces the class `{params[0]}`"
                why = (f"`{func.qualname}` is jitted under `@classmethod`, so jit gets the class as "
                       f"`{params[0]}` and every call fails with TypeError (Error interpreting "
                       f"argument ... of type <class 'type'> at path {params[0]}). Fix: "
                       f"static_argnums=0 (a class is hashable), or jit a module-level function and "
                       f"call it from the classmethod")
            elif analysis.is_plain_class(cls, registered):
                lead = f"jitted `{func.qualname}` traces `{params[0]}`, not a pytree"
                why = (f"`{func.qualname}` is jitted with `{params[0]}` traced, but class `{cls.name}` "
                       f"is not a pytree: every call fails with TypeError (Error interpreting argument "
                       f"... at path {params[0]}). Fix: static_argnums=0 (with a hashable, immutable "
                       f"class), or register `{cls.name}` as a pytree")
            else:
                continue
            site = entry.site
            yield Finding(code=self.code, line=site.lineno, col=site.col_offset, function=func.qualname,
                          param=params[0], message=lead, detail=why)


def _decorates_above(node, name, site) -> bool:
    """True when decorator `name` is listed above the decorator at `site` (applied after it)."""
    names = [getattr(d, "id", getattr(d, "attr", "")) for d in node.decorator_list]
    lines = [d.lineno for d in node.decorator_list]
    if name not in names:
        return False
    return lines[names.index(name)] < site.lineno
