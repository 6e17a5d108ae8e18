"""JAX303 ragged-batch."""

import ast
from typing import Optional

from jaxlint.analysis import api_tables as api
from jaxlint.analysis import calls
from jaxlint.findings import Finding
from jaxlint.rules.base import Rule
from jaxlint.rules.static_args import NOT_LITERAL, literal_value


class RaggedBatch(Rule):
    code = "JAX303"
    name = "ragged-batch"
    family = "recompilation"
    summary = "A jitted function is fed batches whose last one can be smaller: one more compile."
    what = """
        Flags the call of a jitted function inside a loop over batches that can end with a
        smaller batch: a torch `DataLoader` without `drop_last=True`, a `tf.data` pipeline whose
        `.batch()` lacks `drop_remainder=True`, or `for i in range(0, n, bs): step(x[i:i + bs])`
        where `n` is not known to be a multiple of `bs`.
    """
    why = """
        A new input shape is a new cache entry: the smaller last batch traces and compiles the
        whole step again, every epoch's first pass included, and on accelerators it can cost more
        than the epoch itself.
    """
    example = """
        import jax

        @jax.jit
        def step(w, xb):
            return w - 0.1 * xb.mean()

        def epoch(w, x, bs=32):
            for i in range(0, len(x), bs):
                w = step(w, x[i:i + bs])
            return w
    """
    use_instead = """
        import jax

        @jax.jit
        def step(w, xb):
            return w - 0.1 * xb.mean()

        def epoch(w, x, bs=32):
            n = len(x) // bs * bs          # drop the ragged remainder (or pad it with a mask)
            for i in range(0, n, bs):
                w = step(w, x[i:i + bs])
            return w
    """

    fix = ("No automatic fix: dropping or padding the last batch changes the data the step sees.")

    def check(self, analysis):
        sites = analysis.jit_calls()
        if not sites:
            return
        loops = {}
        for site in sites:
            for loop in site.loops:
                loops.setdefault(id(loop), loop)
        for loop in loops.values():
            found = self._ragged(analysis, loop)
            if found is None:
                continue
            source, batch_names = found
            for site in sites:
                if loop not in site.loops:
                    continue
                if any(_uses(arg.node, batch_names, loop) for arg in site.args.values()):
                    yield Finding(
                        code=self.code, line=site.node.lineno, col=site.node.col_offset,
                        function=site.entry.name,
                        message=(f"jitted `{site.entry.name}` is called per batch from {source}: the last "
                                 f"batch can be smaller, a new shape that traces and compiles "
                                 f"`{site.entry.name}` once more. Fix: drop the remainder "
                                 f"(drop_last=True / drop_remainder=True / n // bs * bs) or pad the last "
                                 f"batch to full size with a mask"))

    def _ragged(self, analysis, loop) -> Optional[tuple]:
        scope = analysis.parents.scope_of(loop)
        if isinstance(loop, calls.COMPREHENSIONS):
            gen = loop.generators[0]
            loop = ast.For(target=gen.target, iter=gen.iter, body=[], orelse=[], lineno=loop.lineno,
                           col_offset=loop.col_offset)
        if isinstance(loop, ast.While):
            return None
        it = loop.iter
        resolved = it
        if isinstance(it, ast.Name):
            value = analysis.scope_facts(scope).value_before(it.id, loop.lineno)
            resolved = value if isinstance(value, ast.expr) else it
        loader = self._loader(analysis, resolved) or self._array_split(analysis, scope, loop, resolved)
        if loader:
            return loader, set(calls.varying_names(loop))
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" \
                and len(it.args) == 3 and isinstance(loop.target, ast.Name):
            stop, step = it.args[1], it.args[2]
            if _known_multiple(analysis, scope, loop, stop, step):
                return None
            return (f"`range(..., {ast.unparse(step)})` at line {loop.lineno}", {"__slice__:" + loop.target.id})
        return None

    def _array_split(self, analysis, scope, loop, node) -> Optional[str]:
        """`np.array_split(x, k)` yields unequal pieces unless len(x) is a multiple of k."""
        for sub in ast.walk(node):
            if isinstance(sub, ast.Call) and len(sub.args) >= 2:
                name = analysis.imports.resolve(sub.func) or ""
                if name in ("np.array_split", "jnp.array_split"):
                    n = literal_value(analysis, sub.args[1])
                    if isinstance(n, (list, tuple)):
                        return None
                    return (f"{name}() at line {sub.lineno}, whose pieces differ in size unless the "
                            f"length divides evenly")
        return None

    def _loader(self, analysis, node) -> Optional[str]:
        for sub in ast.walk(node):
            if not isinstance(sub, ast.Call):
                continue
            name = analysis.imports.resolve(sub.func) or ""
            if name in api.RAGGED_LOADERS:
                keyword, good = api.RAGGED_LOADERS[name]
                if any(kw.arg == keyword and isinstance(kw.value, ast.Constant) and kw.value.value == good
                       for kw in sub.keywords):
                    return None
                if any(kw.arg is None or (kw.arg == keyword and not isinstance(kw.value, ast.Constant))
                       for kw in sub.keywords):
                    return None      # **options or a computed drop_last: cannot tell
                return f"a torch DataLoader without drop_last=True (line {sub.lineno})"
            is_batch = isinstance(sub.func, ast.Attribute) and sub.func.attr == "batch"
            if is_batch and _mentions_tf(analysis, sub.func.value):
                keyword, good = api.TF_BATCH_KEYWORD
                if any(kw.arg == keyword and isinstance(kw.value, ast.Constant) and kw.value.value == good
                       for kw in sub.keywords) or len(sub.args) > 1:
                    return None
                return f"a tf.data pipeline whose .batch() has no drop_remainder=True (line {sub.lineno})"
        return None


def _mentions_tf(analysis, node) -> bool:
    for sub in ast.walk(node):
        if isinstance(sub, (ast.Name, ast.Attribute)):
            name = analysis.imports.resolve(sub) or ""
            if name.startswith("tensorflow"):
                return True
    return False


def _uses(expr, batch_names, loop) -> bool:
    slice_vars = {n.split(":", 1)[1] for n in batch_names if n.startswith("__slice__:")}
    if slice_vars:
        derived = _slice_derived_names(loop, slice_vars)
        for sub in ast.walk(expr):
            if _is_batch_slice(sub, slice_vars):
                return True
            if isinstance(sub, ast.Name) and sub.id in derived:
                return True
        return False
    return any(isinstance(sub, ast.Name) and sub.id in batch_names for sub in ast.walk(expr))


def _is_batch_slice(node, slice_vars) -> bool:
    if not isinstance(node, ast.Subscript):
        return False
    parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    for part in parts:
        if isinstance(part, ast.Slice) and part.lower is not None and part.upper is not None:
            if any(isinstance(n, ast.Name) and n.id in slice_vars for n in ast.walk(part.lower)):
                return True
    return False


def _slice_derived_names(loop, slice_vars) -> set:
    """Names holding a batch slice in the loop, minus those padded back to full size."""
    derived, padded = set(), set()
    changed = True
    stmts = [s for s in ast.walk(loop) if isinstance(s, ast.Assign)]
    while changed:
        changed = False
        for stmt in stmts:
            if calls.is_size_expr(stmt.value):
                continue      # len()/.shape of a batch is a Python int, not a ragged array
            if _pads(stmt.value):
                for target in stmt.targets:
                    padded.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
                continue
            if any(_is_batch_slice(n, slice_vars) or (isinstance(n, ast.Name) and n.id in derived)
                   for n in ast.walk(stmt.value)):
                for target in stmt.targets:
                    for n in ast.walk(target):
                        if isinstance(n, ast.Name) and n.id not in derived:
                            derived.add(n.id)
                            changed = True
    return derived - padded


def _pads(value) -> bool:
    """`np.pad(...)`, `pad_batch(...)`: the result is padded to a full batch."""
    if isinstance(value, ast.Call):
        name = value.func.attr if isinstance(value.func, ast.Attribute) else getattr(value.func, "id", "")
        return "pad" in name.lower()
    return False


def _known_multiple(analysis, scope, loop, stop, step) -> bool:
    """Is `stop` provably a multiple of `step` (or does the range stop before the last partial batch)?"""
    facts = analysis.scope_facts(scope)

    def const(node):
        value = literal_value(analysis, node)
        if value is NOT_LITERAL and isinstance(node, ast.Name):
            bound = facts.value_before(node.id, loop.lineno)
            if isinstance(bound, ast.expr):
                value = literal_value(analysis, bound)
        return value

    stop_value, step_value = const(stop), const(step)
    if isinstance(stop_value, int) and isinstance(step_value, int) and step_value:
        return stop_value % step_value == 0
    expr = stop
    if isinstance(stop, ast.Name):
        bound = facts.value_before(stop.id, loop.lineno)
        if isinstance(bound, ast.expr):
            expr = bound
    step_text = ast.unparse(step)
    text = ast.unparse(expr).replace(" ", "")
    if f"//{step_text}*{step_text}" in text or f"%{step_text}" in text or f"-{step_text}" in text:
        return True
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult) and \
            step_text in (ast.unparse(expr.left), ast.unparse(expr.right)):
        return True
    return False
