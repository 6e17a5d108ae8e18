"""JAX307 pytree-drift."""

from jaxlint.analysis.call_order import STRUCTURE, describe_loop, signature_changes
from jaxlint.analysis.signature_reader import reader_for
from jaxlint.analysis.signatures import Tree, describe, path_text
from jaxlint.findings import Finding
from jaxlint.rules.base import Rule


class PytreeDrift(Rule):
    code = "JAX307"
    yields_to = ("JAX304",)       # the spelling of the call is the first difference JAX sees
    name = "pytree-drift"
    family = "recompilation"
    summary = "The pytree structure of a jitted function's argument changes between calls."
    what = """
        Flags the call that passes an argument of a jitted function with a pytree structure no
        earlier call in the same function body passed: a tuple where a list was passed, a dict
        with other keys, `None` where an array was passed (or the reverse), a NamedTuple where a
        plain tuple was passed, a tuple or list of another length. Also a call in a loop whose
        argument is a list that grows every iteration (`buf.append(x)`), a list or tuple whose
        length follows a value that changes between iterations (`[f(i) for i in range(k)]` with
        `k` updated in the loop), an element of a generator of the project whose yields differ in
        structure (`"mask": None` for full batches, a mask array for the last), or a name bound to one
        structure before the loop and rebound to another inside it (`state = None` first,
        `state = (h, c)` later), or a name bound in the loop to `a if cond else b` of two
        structures where `cond` reads the loop's variable (`None if b % 2 == 0 else mask`). Dict
        key order does not matter and is not flagged.
    """
    why = """
        jit flattens its arguments into a tree structure and leaves; the structure (container
        types, lengths, dict keys, None) is part of the cache key. A new structure traces and
        compiles the function again, even if every leaf is the same array.
    """
    example = """
        import jax

        @jax.jit
        def step(params, batch):
            x, y = batch
            return params * x + y

        def run(params, x, y):
            first = step(params, (x, y))
            second = step(params, [x, y])
            return first, second
    """
    use_instead = """
        import jax

        @jax.jit
        def step(params, batch):
            x, y = batch
            return params * x + y

        def run(params, x, y):
            first = step(params, (x, y))
            second = step(params, (x, y))
            return first, second
    """
    fix = "No automatic fix: which structure is right is the author's choice."

    def check(self, analysis):
        yield from self._changed(analysis)
        yield from self._growing(analysis)

    def _changed(self, analysis):
        for change in signature_changes(analysis):
            if change.kind != STRUCTURE:
                continue
            site = change.site
            name = site.entry.name
            shown = path_text(change.param, change.path)
            source = f" ({change.now})" if change.now else ""
            yield Finding(
                code=self.code, line=site.node.lineno, col=site.node.col_offset, function=name,
                param=change.param,
                message=f"jitted `{name}` gets `{shown}` with a new pytree structure",
                detail=(f"`{shown}` is {describe(change.new)}{source} here, but "
                        f"{describe(change.old)} {change.before}: a new pytree structure, so `{name}` "
                        f"is traced and compiled again. Fix: pass the same container type, keys and "
                        f"length at every call (e.g. always a tuple; an array of zeros with a flag "
                        f"instead of None)"))

    def _growing(self, analysis):
        for site in analysis.jit_calls():
            if not site.loops:
                continue
            reader = reader_for(analysis, site.scope)
            loop_ids = {id(loop) for loop in site.loops}
            for param, arg in site.args.items():
                if param in site.entry.static:
                    continue
                sig = reader.sig_at(arg.node, site.node)
                atom = reader.varying_length(sig, site.loops)
                if atom is not None:
                    why = f" ({atom.reason})" if atom.reason else ""
                    how = (f"a {sig.kind} whose length changes in a loop",
                           f"`{sig.origin}`, whose length follows `{atom.text}`{why}, a value that changes "
                           f"between iterations", sig.kind)
                elif isinstance(sig, Tree) and sig.grows is not None and id(sig.grows[0]) in loop_ids:
                    how = ("a list that grows in a loop", f"a list whose length changes: {sig.grows[1]}", "list")
                else:
                    continue
                name = site.entry.name
                what, value, kind = how
                yield Finding(
                    code=self.code, line=site.node.lineno, col=site.node.col_offset, function=name,
                    param=param, message=f"jitted `{name}` gets `{param}` as {what}",
                    detail=(f"`{name}` is called in {describe_loop(site.loops[-1])} with `{param}` = {value}. "
                            f"The length of a {kind} is part of its pytree structure, so each new length "
                            f"traces and compiles `{name}` again. Fix: stack the items into an array of "
                            f"fixed size (with a mask or a count), or pass a fixed number of items"))
