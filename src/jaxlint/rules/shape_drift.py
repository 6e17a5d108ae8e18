"""JAX305 shape-drift."""

import ast

from jaxlint.analysis.call_order import describe_loop
from jaxlint.analysis.semantic import enclosing_statement
from jaxlint.analysis.signature_reader import reader_for
from jaxlint.analysis.signatures import MORE, leaves, path_text, poly_atoms, poly_eval, poly_text, shape_text
from jaxlint.analysis.syntax import text_of
from jaxlint.findings import Finding
from jaxlint.rules.base import Rule


class ShapeDrift(Rule):
    code = "JAX305"
    yields_to = ("JAX303",)       # the ragged last batch, named with its own fix
    name = "shape-drift"
    family = "recompilation"
    summary = "A jitted function gets a traced argument whose shape changes from one loop iteration to the next."
    what = """
        Flags the call of a jitted function, inside a loop, whose traced argument has a shape built
        from a value that changes every iteration: the loop variable (`jnp.arange(n)`,
        `jnp.zeros((n, d))`, `x[:i]`, `x[i:]`), a counter, a count read from each batch
        (`int(mask.sum())`), the longest sequence of each batch (`max(len(s) for s in batch)`), or
        an array or list that grows by one piece per iteration (`jnp.concatenate([acc, x])`,
        `buf.append(x)` then `jnp.array(buf)`). A shape that only takes a few fixed values at
        different calls (a train and an eval batch size) is not flagged, nor is a size bucketed
        or clipped by a function (`next_power_of_2(n)`, `min(n, cap)`, `n // k`), nor a sweep
        that calls each shape again in an inner loop (a benchmark over resolutions, the stages of
        a curriculum listed as literals): there each compile is the work, reused by every call of
        its shape. An inner loop that trains on each of many computed shapes (`params =
        step(params, data[:t])` for `t` in a range) is flagged: that is one compile per shape.
    """
    why = """
        An argument's shape is part of jit's cache key. Each new shape traces the function again
        and runs a full XLA compile (100-200 ms on CPU, seconds for a large model), so a loop
        whose shapes follow its counter spends its time compiling, and the cache keeps every
        version in memory. Nothing fails; the program is just slow.
    """
    example = """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def prefix_sum(x):
            return x.sum()

        def all_prefixes(x):
            return [prefix_sum(x[:i]) for i in range(1, len(x) + 1)]
    """
    use_instead = """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def prefix_sum(x, i):
            mask = jnp.arange(x.shape[0]) < i      # one shape: mask instead of slicing
            return jnp.where(mask, x, 0).sum()

        def all_prefixes(x):
            return [prefix_sum(x, i) for i in range(1, len(x) + 1)]
    """
    fix = "No automatic fix: padding, bucketing or masking changes the function's inputs."

    def check(self, analysis):
        candidates = []
        for site in analysis.jit_calls():
            if not site.loops:
                yield from self._through_callers(analysis, site)
                continue
            reader = reader_for(analysis, site.scope)
            for param, sig in _argument_sigs(site, reader):
                shapes = dict(leaves(sig))
                varying = [(path, index, atom) for path, index, atom in reader.varying_atoms(sig, site.loops)
                           if index is None or _distinct_sizes(shapes[path].shape[index], atom, reader) != 1]
                if varying:          # `for n in (8, 8)`: a loop whose values give one shape is not
                    candidates.append((site, param, varying, sig, reader))
        if not candidates:
            return
        for site, param, varying, sig, reader in candidates:
            where = (site.node.lineno, site.node.col_offset)
            repeat = _repeats_each_shape(analysis, site, varying)
            if repeat is not None:
                analysis.notes.append(
                    f"JAX305 not reported at line {where[0]}: the shape of `{param}` changes only with "
                    f"an outer loop, and the loop at line {repeat.lineno} calls `{site.entry.name}` "
                    f"again with each shape (a sweep over shapes: each compile is used many times)")
                continue
            yield Finding(code=self.code, line=where[0], col=where[1], function=site.entry.name, param=param,
                          **_message(analysis, site, param, varying, sig, reader))


    def _through_callers(self, analysis, site):
        """A jitted call in a helper, outside any loop, whose argument's shape is built from a
        parameter of the helper (`f = jnp.linspace(lo, hi, n_bins)`), while the helper's callers
        in the file pass that parameter a value that changes per iteration of their loop."""
        info = analysis.index.by_node.get(id(site.scope)) if site.scope is not None else None
        if info is None or info.cls is not None:
            return
        params = set(info.params)
        reader = reader_for(analysis, site.scope)
        for param, sig in _argument_sigs(site, reader):
            dims = [(path, i, dim) for path, leaf in leaves(sig) for i, dim in enumerate(leaf.shape or ())
                    if dim is not None and dim is not MORE and poly_atoms(dim) and poly_atoms(dim) <= params]
            if len(dims) != 1 or len(poly_atoms(dims[0][2])) != 1:
                continue           # one dimension, from one parameter: what a caller's value decides
            path, index, dim = dims[0]
            name = next(iter(poly_atoms(dim)))
            for _, call, scope, loops, passed in analysis.loop_callers_passing(site, name):
                caller = reader_for(analysis, scope)
                atom = caller.varying_atom(caller.dim(passed, enclosing_statement(analysis.parents, call)),
                                           loops)
                if atom is None or atom.values is not None and len(set(atom.values)) < 2:
                    continue
                changing = loops.index(atom.loop) if atom.loop in loops else None
                if changing is None or any(isinstance(loop, (ast.For, ast.AsyncFor, ast.While))
                                           for loop in loops[changing + 1:]):
                    continue       # an inner loop calls it again with each shape: a sweep
                leaf = dict(leaves(sig))[path]
                shown_name = path_text(param, path)
                count = f"{len(set(atom.values))} compiles, one per value" if atom.values is not None \
                    else "one compile per distinct value, without bound"
                yield Finding(
                    code=self.code, line=site.node.lineno, col=site.node.col_offset,
                    function=site.entry.name, param=param,
                    message=f"jitted `{site.entry.name}` gets `{shown_name}` in a new shape on each call "
                            f"of `{info.name}`",
                    detail=(f"`{site.entry.name}` is called in `{info.name}` with `{shown_name}` = "
                            f"`{leaf.origin}` of shape {shape_text(leaf.shape, reader.atoms)}, and "
                            f"`{info.name}` is called at line {call.lineno}, in {describe_loop(atom.loop)}, with "
                            f"`{name}` = `{text_of(passed)}`, {atom.reason}: each new shape traces and "
                            f"compiles `{site.entry.name}` again ({count}). Fix: pad or bucket the size to "
                            f"a few fixed values and pass a mask, or build the array once at its largest size"))
                break


def _argument_sigs(site, reader):
    """(parameter, signature) of each traced argument of a jitted call whose signature is read."""
    for param, arg in site.args.items():
        if param not in site.entry.static:
            sig = reader.sig_at(arg.node, site.node)
            if sig is not None:
                yield param, sig


def _message(analysis, site, param, varying, sig, reader) -> dict:
    """{"message": the lead, "detail": the shapes, what varies them, the compiles and the fix}."""
    name = site.entry.name
    path, index, atom = varying[0]
    leaf = dict(leaves(sig)).get(path)
    shown = path_text(param, path)
    loop = site.loops[-1]
    lead = f"jitted `{name}` gets `{shown}` in a new shape on each iteration"
    head = f"`{name}` is called in {describe_loop(loop)} with `{shown}`"
    if leaf.origin != shown:
        head += f" = `{leaf.origin}`"
    if index is None:
        return dict(message=lead, detail=(
            f"{head}, and {atom.reason}: its shape changes every iteration, and each new shape "
            f"traces and compiles `{name}` again (one compile per iteration, without bound). Fix: "
            f"preallocate the array at its final size and fill it with `.at[i].set()` (mask the "
            f"unfilled part), or keep a fixed-size buffer"))
    dim = leaf.shape[index]
    size = poly_text(dim, reader.atoms)
    sliced = "[" in leaf.origin and ":" in leaf.origin
    others = [a.text for p, i, a in varying[1:] if p == path and a.text != atom.text]
    if others:
        count = "one compile per distinct shape"
    else:
        count = _compiles(dim, atom, reader, clipped=sliced or _conditional(analysis, site, atom.loop))
    fix = ("slice a fixed size with `lax.dynamic_slice(x, (start,), (size,))` and mask the rest, or pass "
           "the whole array and the bound as a traced argument" if sliced else
           "pad or bucket the size to a few fixed values (powers of two, a maximum length) and pass a mask, "
           "so that only a handful of shapes compile")
    size = "its size" if size == atom.text else f"its size `{size}`"
    also = "".join(f", and another follows `{other}`" for other in others)
    return dict(message=lead, detail=(
        f"{head} of shape {shape_text(leaf.shape, reader.atoms)}, and {size} follows "
        f"`{atom.text}`, {atom.reason}{also}: each new shape traces and compiles `{name}` again "
        f"({count}). Fix: {fix}"))


def _repeats_each_shape(analysis, site, varying):
    """The loop, inside every loop that changes the shape, that calls the function again with the
    same shape (a benchmark over resolutions, the stages of a curriculum listed in the code), or None."""
    loops = site.loops                       # outermost first
    changing = [loops.index(atom.loop) for _, _, atom in varying if atom.loop in loops]
    if len(changing) != len(varying):
        return None
    listed = all(isinstance(getattr(atom.loop, "iter", None), (ast.Tuple, ast.List)) for _, _, atom in varying)
    for loop in loops[max(changing) + 1:]:
        if isinstance(loop, (ast.For, ast.AsyncFor, ast.While)):
            if _carries_result(analysis, site) and not listed:
                return None   # training on each of many computed shapes (data[:t] as data arrives)
            return loop
    return None


def _carries_result(analysis, site) -> bool:
    """`params = step(params, batch)`: the call's result is fed back into its own arguments, the
    inner loop trains rather than times; a benchmark's inner loop only repeats the call."""
    stmt = enclosing_statement(analysis.parents, site.node)
    if not isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        return False
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    bound = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return any(isinstance(a.node, ast.Name) and a.node.id in bound for a in site.args.values())


def _conditional(analysis, site, loop) -> bool:
    """Is the call inside an `if` (or `try`) within the loop: not every iteration may reach it?"""
    for anc in analysis.parents.chain(site.node):
        if anc is loop:
            return False
        if isinstance(anc, (ast.If, ast.IfExp, ast.Try)):
            return True
    return False


def _distinct_sizes(dim, atom, reader):
    """How many sizes `dim` takes over the loop's literal values (None: not known)."""
    if atom.values is None:
        return None
    key = next((k for k in poly_atoms(dim) if reader.atoms.get(k) is atom), None)
    if key is None or poly_atoms(dim) - {key}:
        return len(set(atom.values))
    return len({poly_eval(dim, {key: v}) for v in atom.values})


def _compiles(dim, atom, reader, clipped=False) -> str:
    """How many compiles follow; only "up to" when a slice may be clipped or the call skipped."""
    count = _distinct_sizes(dim, atom, reader)
    if count is None:
        return "one compile per distinct shape, without bound"
    exact = not clipped and not poly_atoms(dim) - {k for k in poly_atoms(dim) if reader.atoms.get(k) is atom}
    return f"{'' if exact else 'up to '}{count} compiles, one per distinct shape"
