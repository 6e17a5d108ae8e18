"""JAX302 unrolled-loop."""

import ast
import itertools
import math
import os
from typing import Optional

from jaxlint.analysis import calls
from jaxlint.analysis import values as vals
from jaxlint.analysis.crossmodule import importer_calls
from jaxlint.analysis.shown import Ctx
from jaxlint.analysis.signature_reader import reader_for
from jaxlint.analysis.signatures import MORE, Leaf, Tree, poly_atoms, poly_eval, poly_value
from jaxlint.analysis.syntax import text_of
from jaxlint.findings import Finding
from jaxlint.rules.base import Rule


class UnrolledLoop(Rule):
    code = "JAX302"
    name = "unrolled-loop"
    family = "recompilation"
    summary = "A Python for-loop over a static range, or over the rows of a traced array, inside a traced function is unrolled."
    # A trace-time failure in the loop's body stops the trace at the first iteration: the loop
    # is never unrolled, and the failure is the finding to fix first.
    yields_inside = ("JAX101", "JAX102", "JAX103", "JAX104", "JAX105", "JAX106", "JAX108")
    what = """
        Flags a Python `for` over `range(...)` inside a traced function when the loop runs at
        least a threshold of iterations (default 16, `unrolled-loop-threshold`): a literal or
        module constant, or a static parameter whose value the file shows (a default, a literal
        or constant passed at a call, arithmetic such as `range(1, L - 1)`). When every value the
        file shows is below the threshold the loop is not flagged; a loop over a bare static
        parameter whose value the file does not show is.
        A loop in a plain function that only calls `lax.scan`/`fori_loop` runs eagerly and is not
        flagged; the same loop inside the scan body is.

        Also flags a `for` inside a jitted function whose trip count is a size of a traced array:
        over its rows (`for row in x`, `for a, b in zip(xs, ys)`, `enumerate(x)`) or over a range
        of one of its axes (`range(x.shape[1])`, `B, T = x.shape` then `range(T - 1)`,
        `reversed(...)`, `range(len(x))`), when the value is known to be an array (an annotation,
        `.shape`, a `jnp`/`lax` result, or every call passing one). The body is copied once per
        element. When the array is a parameter and every call the file shows gives a size below
        the threshold (`for axis in frame` with a 3x3 frame, or `jnp.arange(n)` for `n` in a
        literal list of small sizes), it is not flagged. Not flagged: a
        loop over a list or tuple of arrays (`for w, b in params`: Python values), over blocks of
        an axis (`range(0, n, block)`, `range(n // block)`: a count sized on purpose), over
        `len()` of what may be a dict.
    """
    why = """
        JAX traces Python loops by running them: the body is copied into the program once per
        iteration. Compile time and program size grow with `n`, and every new static `n` is a new
        compile.
    """
    example = """
        import jax

        @jax.jit
        def simulate(x):
            for _ in range(1000):
                x = x - 0.01 * x
            return x
    """
    use_instead = """
        import jax
        from jax import lax

        @jax.jit
        def simulate(x):
            return lax.fori_loop(0, 1000, lambda i, x: x - 0.01 * x, x)
    """

    fix = ("No automatic fix: a lax.fori_loop or lax.scan rewrite needs a loop body with fixed "
           "shapes, which is a redesign.")

    def check(self, analysis):
        threshold = analysis.unrolled_loop_threshold
        for sink in analysis.sinks:
            if sink.kind == "rows":
                finding = self._rows(analysis, sink, threshold)
                if finding is not None:
                    yield finding
                continue
            if sink.kind != "loop":
                continue
            if sink.detail.get("axis") and sink.value.const is vals.NO_CONST and not sink.value.text.startswith("static:"):
                finding = self._axis(analysis, sink, threshold)
                if finding is not None:
                    yield finding
                continue
            stop = sink.value
            bounds = sink.detail.get("bounds", [])
            reason = None
            if stop.state == vals.STATIC and isinstance(stop.const, int) and not isinstance(stop.const, bool):
                start = bounds[0].const if len(bounds) > 1 and isinstance(bounds[0].const, int) else 0
                step = bounds[2].const if len(bounds) > 2 and isinstance(bounds[2].const, int) else 1
                count = _count(start, stop.const, step)
                if count < threshold:
                    continue
                reason = f"it runs {count} iterations (threshold {threshold})"
            elif all(b.state == vals.STATIC for b in bounds) and sink.frame.entry_kind.startswith("jit"):
                reason = (self._foreign_static_reason(analysis, sink, threshold) if sink.frame.origin
                          else self._static_reason(analysis, analysis.shown, sink, threshold))
            if reason is None:
                continue
            yield Finding(
                code=self.code, line=sink.node.lineno, col=sink.node.col_offset,
                function=sink.frame.function, end_line=sink.node.end_lineno or sink.node.lineno,
                message=f"Python for-loop over range() is unrolled in traced `{sink.frame.function}`",
                detail=(f"The loop is unrolled: {reason}, and compile time grows with the iteration "
                        f"count. Fix: lax.fori_loop or lax.scan"))

    def _rows(self, analysis, sink, threshold):
        """A loop over the rows of a traced array: one copy of the body per row."""
        over = sink.detail["over"]
        text = text_of(over) or "the iterable"
        return self._data_size(analysis, sink, over, 0, sink.value, sink.detail.get("array"), threshold,
                               f"Python for-loop over the rows of traced `{text}` is unrolled in "
                               f"`{sink.frame.function}`", "row", "jax.vmap over the rows, or lax.scan")

    def _axis(self, analysis, sink, threshold):
        """A range over an axis of a traced array (`range(x.shape[1])`, `range(len(x))`)."""
        array, axis, value, via = sink.detail["axis"]
        text = text_of(array) or "the array"
        # `.shape` says it is an array; `len()` of a value that may be a list or dict does not
        return self._data_size(analysis, sink, array, axis, value, value.leaf == vals.ARRAY or via == "shape", threshold,
                               f"Python for-loop over axis {axis} of traced `{text}` is unrolled in "
                               f"`{sink.frame.function}`", f"element of axis {axis}", "lax.scan or lax.fori_loop")

    def _data_size(self, analysis, sink, array, axis, value, is_array, threshold, message, unit, fix):
        """A loop whose trip count is a size of a traced array: the body is copied once per
        element of that axis. When the array is a parameter of the jitted function, the calls the
        file shows give the size: silent when each is below the threshold, or when a call passes
        something else than an array (a list of arrays loops over Python values)."""
        loop = sink.node
        sizes = _axis_sizes(analysis, sink, array, value, axis)
        rows = self._rows_written(analysis, loop, array) if axis == 0 and not sizes else None
        if rows is not None:    # `for t in jnp.arange(1000)`, `for c in jnp.array([[0, 1], [1, 0]]) * s`
            if rows < threshold:
                return None
            return Finding(
                code=self.code, line=loop.lineno, col=loop.col_offset, function=sink.frame.function,
                end_line=loop.end_lineno or loop.lineno, message=message,
                detail=(f"The loop runs while JAX traces, once per {unit}: `{text_of(array)}` has "
                        f"{rows if rows < 10**12 else 'more than 10^12'} "
                        f"rows (threshold {threshold}), and the program and its compile time grow with "
                        f"them. Fix: {fix}, carrying the accumulator"))
        if not sizes and not value.params:
            return None       # an array made in the trace from nothing the caller passes: its size is not data's
        if not sizes and _names_parameter(analysis, sink, array):
            return None       # a parameter of the jitted function whose size no call shows
        if any(shown is False for shown, _ in sizes):
            return None       # a call passes a list of arrays (a loop over Python values) or a scalar
        if not is_array and not (sizes and all(sizes_shown for sizes_shown, _ in sizes)):
            return None       # may be a list of arrays: the calls do not show that it is an array
        known = [n for _, n in sizes if n is not None]
        if sizes and len(known) == len(sizes) and max(known) < threshold:
            analysis.notes.append(f"JAX302 not reported at line {loop.lineno}: the calls the file shows give "
                                  f"at most {max(known)} iterations (threshold {threshold})")
            return None
        count = (f"{max(known)} copies at the largest call the file shows (threshold {threshold})"
                 if known and max(known) >= threshold else f"one copy per {unit}")
        return Finding(
            code=self.code, line=loop.lineno, col=loop.col_offset, function=sink.frame.function,
            end_line=loop.end_lineno or loop.lineno, message=message,
            detail=(f"The loop runs while JAX traces, once per {unit}: {count}. The program and its "
                    f"compile time grow with the data's size, and each new size is a new compile. "
                    f"Fix: {fix}, carrying the accumulator"))

    @staticmethod
    def _rows_written(analysis, loop, array) -> Optional[int]:
        """The number of rows of an array whose leading dimension the code writes out, read by
        the signature reader where the loop is (`jnp.arange(1000)`, `jnp.zeros((STEPS, 3))`)."""
        sig = reader_for(analysis, analysis.parents.scope_of(loop)).sig(array, loop)
        if not isinstance(sig, Leaf) or sig.python or not sig.shape or sig.shape[0] is None or sig.shape[0] is MORE:
            return None
        return poly_value(sig.shape[0])

    def _foreign_static_reason(self, analysis, sink, threshold):
        """A helper's loop over a static parameter of a jitted function of another module, whose
        trace led here: the values are those its calls pass, in its module and in the modules that
        import it (`forward(params, x, n_iters=config.N_REFINE)`). Reported when one reaches the
        threshold; silent otherwise."""
        loop = sink.node
        bare = sink.value.text[7:] if sink.value.text.startswith("static:") else None
        if analysis.project is None or bare is None or len(loop.iter.args) != 1:
            return None
        home = analysis.other_module(sink.frame.origin)
        entry = _jitted_named(home, sink.frame.entry) if home is not None else None
        if entry is None or entry.func is None or bare not in entry.func.params or bare not in entry.static:
            return None
        most = _largest_passed(analysis, home, entry, bare)
        if most is None:
            return None
        count, path, line = most
        if count < threshold:
            analysis.notes.append(f"JAX302 not reported at line {loop.lineno}: every value the project passes "
                                  f"for `{bare}` gives at most {count} iterations (threshold {threshold})")
            return None
        return (f"`{bare}` is a static parameter of `{entry.name}` ({os.path.basename(home.path)}), and it runs "
                f"{count} iterations with the arguments of the call at {os.path.basename(path)}:{line} "
                f"(threshold {threshold})")

    def _static_reason(self, analysis, shown, sink, threshold):
        """A range over static parameters: report it when a value the file shows for them reaches
        the threshold, stay silent when every value shown is below it, and when the file shows
        none, report a loop over a bare static parameter (its length is a compile-time constant)."""
        loop = sink.node
        stop = sink.value
        bare = stop.text[7:] if stop.text.startswith("static:") else None
        if sink.frame.chain:
            # a helper's loop over a static parameter of the jitted function that called it:
            # its values are those the entry's calls pass for that parameter
            entry = _jitted_named(analysis, sink.frame.entry)
            if entry is None or bare is None or bare not in entry.func.params or len(loop.iter.args) != 1:
                return None
            args = [ast.Name(id=bare, ctx=ast.Load())]
            where_loop = entry.node.lineno
        else:
            entry = _entry_of(analysis, sink)
            if entry is None:
                return None
            args = loop.iter.args
            where_loop = loop.lineno
        most = None          # (count, call line or None)
        for line, bound in _scenarios(analysis, entry):
            ctx = Ctx(entry.node, where_loop, bound)
            parts = [shown.values(a, ctx) for a in args]
            if not all(p.known for p in parts) or math.prod(len(p.known) for p in parts) > 64:
                continue
            for combo in itertools.product(*(p.known for p in parts)):
                if all(isinstance(v, int) and not isinstance(v, bool) for v in combo):
                    count = _count(*combo)
                    if most is None or count > most[0]:
                        most = (count, line)
        if most is not None:
            count, line = most
            where = f"the arguments of the call at line {line}" if line else "the defaults"
            if count >= threshold:
                what = f"`{bare}` is a static parameter, and " if bare else ""
                return f"{what}it runs {count} iterations with {where} (threshold {threshold})"
            passed = _largest_passed(analysis, analysis, entry, bare, importers_only=True) \
                if analysis.project is not None and bare and not sink.frame.chain and len(args) == 1 \
                and bare in entry.static else None
            if passed is not None and passed[0] >= threshold:
                count, path, line = passed
                return (f"`{bare}` is a static parameter, and it runs {count} iterations with the arguments "
                        f"of the call at {os.path.basename(path)}:{line} (threshold {threshold})")
            analysis.notes.append(f"JAX302 not reported at line {loop.lineno}: every value the file "
                                  f"passes gives at most {count} iterations (threshold {threshold})")
            return None
        if bare:
            return f"`{bare}` is a static parameter: the loop length is a compile-time constant"
        return None


def _largest_passed(analysis, home, entry, bare, importers_only=False):
    """(count, file, line): the largest int that a call of the jitted `entry` (of the module
    `home` analyses), in that module or in one importing it, passes for its parameter `bare` (or
    leaves at its default); None when no call shows one."""
    default = calls.defaults_of(entry).get(bare)
    most = None
    for other, call, skips in _foreign_calls_of(analysis, home, entry):
        if importers_only and other is home:
            continue
        site = calls.map_call(call, entry, skips)
        if site.starred:
            continue
        arg = site.args.get(bare)
        if arg is not None:
            shown = other.shown.values(arg.node, Ctx(other.parents.scope_of(call), call.lineno))
        elif default is not None:
            shown = home.shown.values(default, Ctx(home.parents.scope_of(entry.node), entry.node.lineno))
        else:
            continue
        for value in shown.known:
            if isinstance(value, int) and not isinstance(value, bool) and (most is None or value > most[0]):
                most = (value, other.path, call.lineno)
    return most


def _foreign_calls_of(analysis, home, entry):
    """(module analysis, call, skips_self) for each call of `entry` (a jitted def of the module
    `home` analyses) made in that module or in the project's modules that import it."""
    found = [(home, call, skips) for call, skips in home.call_sites.get(id(entry), [])]
    for item in importer_calls(analysis.project, home.path, entry.name, analysis.config, analysis.depends):
        other = analysis.other_module(item.path)
        if other is not None:
            found.append((other, item.call, False))
    return found


def _jitted_named(analysis, name):
    """The module's one jitted def entry called `name`, or None."""
    found = [e for e in analysis.entries if e.is_jit and e.func is not None and e.name == name]
    return found[0] if len(found) == 1 else None


def _count(*bounds) -> int:
    """len(range(*bounds)) without building the range (len() overflows on huge ranges)."""
    start, stop, step = (0, bounds[0], 1) if len(bounds) == 1 else (bounds + (1,))[:3]
    return max(0, -((start - stop) // step)) if step else 0


def _entry_of(analysis, sink):
    """The jitted entry whose own body holds the loop."""
    scope = analysis.parents.scope_of(sink.node)
    for entry in analysis.entries:
        if entry.node is scope and entry.is_jit and entry.name == sink.frame.entry:
            return entry
    return None


def _scenarios(analysis, entry):
    """(call line, bound arguments) for each call of the entry in the file, as the parameters
    receive them (a default where the call leaves it out); the defaults alone when no call is seen."""
    parents = analysis.parents
    defaults = calls.defaults_of(entry)
    def_ctx = Ctx(parents.scope_of(entry.node), entry.node.lineno)
    found = []
    for call, skips_self in analysis.call_sites.get(id(entry), []):
        site = calls.map_call(call, entry, skips_self)
        if site.starred:
            continue
        caller = Ctx(parents.scope_of(call), call.lineno)
        bound = [(p, (arg.node, caller)) for p, arg in site.args.items() if not p.startswith("*")]
        bound += [(p, (d, def_ctx)) for p, d in defaults.items() if p not in site.args]
        found.append((call.lineno, tuple(bound)))
    if not found and not analysis.call_sites.get(id(entry)):
        found.append((None, tuple((p, (d, def_ctx)) for p, d in defaults.items())))
    return found


def _names_parameter(analysis, sink, array) -> bool:
    """Is `array` a parameter of the jitted function whose body holds the loop?"""
    if sink.frame.chain or sink.frame.origin or not isinstance(array, ast.Name):
        return False
    entry = _entry_of(analysis, sink)
    return entry is not None and entry.func is not None and array.id in entry.func.params


def _axis_sizes(analysis, sink, array, value, axis) -> list:
    """(an array is passed, the size of `axis` or None) for each call of the jitted function that
    passes the parameter `array` stands for; [] when it is not one. In the function's own body,
    `array` naming the parameter gives its size; in a helper, a value made from one parameter
    only is checked to be an array (its size is not the parameter's)."""
    if sink.frame.origin:
        return []
    if not sink.frame.chain:
        entry = _entry_of(analysis, sink)
        param = array.id if isinstance(array, ast.Name) else None
        sized = True
    else:
        entry = _jitted_named(analysis, sink.frame.entry)
        param = next(iter(value.params)) if value is not None and len(value.params) == 1 else None
        sized = False
    if entry is None or entry.func is None or param not in entry.func.params:
        return []
    found = []
    for site in analysis.jit_calls():
        if site.entry is not entry or param not in site.args:
            continue
        reader = reader_for(analysis, site.scope)
        sig = reader.sig_at(site.args[param].node, site.node)
        if isinstance(sig, Tree) or isinstance(sig, Leaf) and sig.python is not None:
            found.append((False, None))         # a container, a Python scalar
        elif not isinstance(sig, Leaf):
            found.append((None, None))          # the call does not show what it passes
        else:
            shape = sig.shape or ()
            dim = shape[axis] if sized and axis < len(shape) else None
            found.append((True, _largest(dim, reader.atoms) if dim is not None and dim != MORE else None))
    return found


def _largest(dim, atoms) -> Optional[int]:
    """The largest value of a dimension: a constant, or one loop variable over literal ints
    (`jnp.arange(n)` for `n in [5, 8, 10]` gives 10)."""
    value = poly_value(dim)
    if value is not None:
        return value
    names = poly_atoms(dim)
    if len(names) != 1:
        return None
    name = next(iter(names))
    atom = atoms.get(name)
    if atom is None or not atom.values:
        return None
    results = [poly_eval(dim, {name: v}) for v in atom.values]
    return max(results) if all(r is not None for r in results) else None
