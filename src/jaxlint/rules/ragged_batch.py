"""JAX303 ragged-batch."""

import ast

from jaxlint.analysis import calls
from jaxlint.analysis.batches import BatchSources, Ctx, RaggedLoop, pads_short_batch
from jaxlint.analysis.syntax import COMPREHENSIONS
from jaxlint.findings import Finding
from jaxlint.rules.base import Rule


class RaggedBatch(Rule):
    code = "JAX303"
    name = "ragged-batch"
    family = "recompilation"
    summary = "A jitted function is fed batches whose last one can be smaller: one more compile."
    what = """
        Flags the call of a jitted function fed from a loop over batches that can end with a smaller
        one: a torch `DataLoader` without `drop_last=True` (also a subclass or a factory of the file
        that keeps or passes on `drop_last=False`), a `tf.data` pipeline whose `.batch()` or
        `.padded_batch()` lacks `drop_remainder=True` (also one built in a helper and returned), a
        Hugging Face dataset's `.iter(batch_size=...)` without `drop_last_batch=True`,
        `tfds.load(..., batch_size=n)`, `np.array_split`, `np.split(x, range(bs, n, bs))` or
        `itertools.batched`, a `while i < n: ... i += bs` loop, a generator or
        helper of the file that yields `x[i:i + bs]`, and loops that slice `x[i:i + bs]` over
        `range(0, n, bs)` or `x[b * bs:(b + 1) * bs]` over `range(ceil(n / bs))` (or
        `full + bool(leftover)` from `divmod`), where `n` is not known to be a multiple of `bs`.
        Batches drawn with `next(it)` from such a source count too. The finding is at the jitted call, also when the loop hands the batch to
        a helper that makes it. Not flagged: a loop that handles its last window itself
        (`if i + bs > n:`), data padded or cut to a multiple of the batch size, a flag whose
        value the file does not show, and a dataset loaded by name (`tfds.load("mnist")`,
        `torchvision.datasets.CIFAR10(...)`) whose size is not well known or is a multiple of the
        batch size (the splits of MNIST, Fashion-MNIST, KMNIST, CIFAR-10/100, ImageNet and SST-2 are
        known).
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
        sources = BatchSources(analysis)
        loops = {}
        for site in sites:
            for loop in site.loops:
                loops.setdefault(id(loop), loop)
        by_scope = {}
        for site in sites:
            by_scope.setdefault(id(site.scope), []).append(site)
        handed = [s.scope for s in sites if _passes_a_parameter(s)]
        for loop in _loops_calling(analysis, sources, handed):
            loops.setdefault(id(loop), loop)
        reported = set()
        for loop in sorted(loops.values(), key=lambda n: (n.lineno, n.col_offset)):
            ragged = sources.ragged_loop(loop)
            if ragged is None:
                continue
            for site in sites:
                if loop in site.loops and any(ragged.uses(arg.node) for arg in site.args.values()):
                    if id(site.node) not in reported:
                        reported.add(id(site.node))
                        yield self._finding(site, ragged.source)
            body = [loop] if isinstance(loop, COMPREHENSIONS) else loop.body
            for site, how in self._through_helpers(analysis, sources, body, analysis.parents.scope_of(loop),
                                                   ragged, by_scope):
                if id(site.node) not in reported:
                    reported.add(id(site.node))
                    yield self._finding(site, f"{ragged.source}, {how}")
        analysis.notes.extend(sources.notes)

    def _finding(self, site, source):
        name = site.entry.name
        return Finding(
            code=self.code, line=site.node.lineno, col=site.node.col_offset, function=name,
            message=f"jitted `{name}` gets a smaller last batch, so it compiles again",
            detail=(f"`{name}` is called per batch from {source}: the last batch can be "
                    f"smaller, a new shape that traces and compiles `{name}` once more. Fix: drop "
                    f"the remainder (drop_last=True / drop_remainder=True / n // bs * bs) or pad "
                    f"the last batch to full size with a mask"))

    def _through_helpers(self, analysis, sources, body, scope, batch, by_scope, depth=0):
        """Jitted calls in functions of the file that the loop hands a batch to (a `train_step(state,
        batch)` that calls the jitted update): reported where the jitted function is called."""
        for call in _calls_in(body):
            if not any(batch.uses(a) for a in list(call.args) + [k.value for k in call.keywords]):
                continue
            ctx = Ctx(scope, call.lineno)
            info = sources.function_of(call.func, ctx)
            if info is None:
                continue
            bound = sources.bind(info, call, ctx)
            if not bound:
                continue
            params = {param for param, (value, _) in bound if batch.uses(value)}
            inner = RaggedLoop(batch.loop, batch.source, sources.derived(info.node.body, params))
            padded = pads_short_batch(info.node.body, inner.names)
            if padded is not None:
                analysis.notes.append(f"JAX303 not reported through `{info.name}()`: it brings a short "
                                      f"batch to full size (the `if` at line {padded})")
                continue
            for site in by_scope.get(id(info.node), ()):
                if any(inner.uses(arg.node) for arg in site.args.values()):
                    yield site, f"through `{info.name}()` (line {call.lineno})"
            if depth < 1:
                yield from self._through_helpers(analysis, sources, info.node.body, info.node, inner,
                                                 by_scope, depth + 1)


def _passes_a_parameter(site) -> bool:
    """Does the jitted call pass something computed from its function's parameters (a batch its
    caller may have handed in)?"""
    scope = site.scope
    if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    args = scope.args
    params = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    return any(isinstance(n, ast.Name) and n.id in params for arg in site.args.values() for n in ast.walk(arg.node)) \
        or _derives_from(scope, params, site)


def _derives_from(scope, params, site) -> bool:
    """Is a name the call passes bound, in the function, from one of its parameters?"""
    used = {n.id for arg in site.args.values() for n in ast.walk(arg.node) if isinstance(n, ast.Name)}
    for stmt in calls._walk_scope(scope.body):
        for target, value in calls._bindings(stmt):
            if isinstance(value, ast.expr) and set(calls._names(target)) & used \
                    and any(isinstance(n, ast.Name) and n.id in params for n in ast.walk(value)):
                return True
    return False


def _loops_calling(analysis, sources, scopes, levels=2):
    """Loops around the calls of the functions that hold jitted calls (and of their callers)."""
    found, seen = [], set()
    level = [s for s in scopes if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for _ in range(levels):
        following = []
        for scope in level:
            if id(scope) in seen:
                continue
            seen.add(id(scope))
            info = analysis.index.by_node.get(id(scope))
            if info is None:
                continue
            for call, _ in sources.callers(info):
                found.extend(analysis.parents.loops_of(call))
                outer = analysis.parents.scope_of(call)
                if isinstance(outer, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    following.append(outer)
        level = following
    return found


def _calls_in(body):
    """Calls in a loop body, not inside nested defs or lambdas."""
    stack = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Call):
            yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        stack.extend(ast.iter_child_nodes(node))
