"""Where batches come from, for JAX303: loaders, pipelines, generators and helpers that can end
with a smaller batch.

A loop's iterable is followed the way Python would run it: a name to what it was bound to, a call
of a function or class of the file into its body with the call's arguments bound to the
parameters (so a factory's `drop_last=drop_last` reads the caller's value), a generator to what it
yields, `self.loader` to what the class assigned. Only what the file shows counts: a `drop_last`
or `drop_remainder` whose value cannot be read, a loader built in another module, a helper more
than a few calls deep, a loop that handles its last window itself: no ragged batch.
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass, field
from typing import Optional

from jaxlint.analysis import api_tables as api
from jaxlint.analysis.calls import is_size_expr
from jaxlint.analysis.shown import MAX_DEPTH, Ctx, Shown, Values, read_in_home, text_of
from jaxlint.analysis.syntax import COMPREHENSIONS, target_names

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


@dataclass
class RaggedLoop:
    """A loop whose batches can end with a smaller one, and how to tell a batch value in it."""

    loop: ast.AST
    source: str                         # for the message: where the batches come from
    names: set = field(default_factory=set)         # names that hold a batch in the loop
    slice_vars: set = field(default_factory=set)    # range loops: x[i:i + bs] with i in here
    nodes: set = field(default_factory=set)         # ids of expressions that give a batch: next(it)

    def uses(self, expr) -> bool:
        """Does `expr` pass a batch of this loop (not its size, not a batch padded to full size)?"""
        for sub in _walk_outside_sizes(expr, skip_padding=True):
            if self.slice_vars and _is_batch_slice(sub, self.slice_vars):
                return True
            if isinstance(sub, ast.Name) and sub.id in self.names:
                return True
            if id(sub) in self.nodes:
                return True
        return False


class BatchSources(Shown):
    """Answers `can this loop's last batch be smaller?` for one analysed file."""

    def __init__(self, analysis):
        super().__init__(analysis)
        self.notes: list = []
        self._hf = analysis.imports.mentions("datasets")
        self._readers: dict = {}      # id(analysis of another module) -> (analysis, its BatchSources)

    # -- loops --------------------------------------------------------------------------------
    def ragged_loop(self, loop) -> Optional[RaggedLoop]:
        scope = self.parents.scope_of(loop)
        ctx = Ctx(scope, loop.lineno)
        if isinstance(loop, COMPREHENSIONS):
            gen = loop.generators[0]
            target, iterable, body = gen.target, gen.iter, [loop]
        elif isinstance(loop, (ast.For, ast.AsyncFor)):
            target, iterable, body = loop.target, loop.iter, loop.body
        else:
            return self._counter_batches(loop, ctx) or self._next_batches(loop, loop.body, ctx)
        by_range = self._range_batches(loop, target, iterable, body, ctx)
        if by_range:
            return by_range
        source = self.ragged(iterable, ctx) if by_range is None else None
        if source is None:
            return self._next_batches(loop, body, ctx)
        derived = _derived_names(body, set(target_names(target)), self._is_step_call)
        padded = pads_short_batch(body, derived)
        if padded is not None:
            self.notes.append(f"JAX303 not reported for the loop at line {loop.lineno}: it brings a "
                              f"short batch to full size itself (the `if` at line {padded})")
            return None
        return RaggedLoop(loop, source, derived)

    def _counter_batches(self, loop, ctx) -> Optional[RaggedLoop]:
        """`while start < n: f(x[start:start + bs]); start += bs`: a range loop written by hand."""
        test = loop.test
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Lt)
                and isinstance(test.left, ast.Name)):
            return None
        var, stop = test.left.id, test.comparators[0]
        steps = _counter_steps(loop.body, var)
        if len(steps) != 1 or steps[0] is None:
            return None
        target = ast.Name(id=var, ctx=ast.Store())
        fake = ast.Call(func=ast.Name(id="range", ctx=ast.Load()),
                        args=[ast.Constant(0), stop, steps[0]], keywords=[])
        found = self._range_batches(loop, target, fake, loop.body, ctx)
        if not found:
            return None
        found.source = f"the loop at line {loop.lineno} stepping `{var}` by `{text_of(steps[0])}`"
        return found

    def _next_batches(self, loop, body, ctx) -> Optional[RaggedLoop]:
        """`batch = next(batches)` in the loop, where `batches` is a ragged source (the generator
        of JAX's MNIST example, `iter(loader)`): each such value is a batch."""
        found, source = set(), None
        for node in _nodes_in(body):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "next" \
                    and node.args and not self._is_local("next", ctx):
                why = self.ragged(node.args[0], Ctx(ctx.scope, node.lineno, ctx.bound, ctx.depth))
                if why:
                    found.add(id(node))
                    source = source or why
        if not found:
            return None
        names = set()
        for targets, value in _assignments(body):
            if isinstance(value, ast.expr) and any(id(n) in found for n in ast.walk(value)):
                for target in targets:
                    names.update(target_names(target))
        return RaggedLoop(loop, source, _derived_names(body, names, self._is_step_call), nodes=found)

    def _range_batches(self, loop, target, iterable, body, ctx) -> Optional[object]:
        """`for i in range(0, n, bs): f(x[i:i + bs])` and `for b in range(ceil(n / bs)):
        f(x[b * bs:(b + 1) * bs])`. False: a range loop that cannot be ragged; None: not a range."""
        if not (isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name)
                and iterable.func.id == "range" and not iterable.keywords and isinstance(target, ast.Name)):
            return None
        args = iterable.args
        if len(args) == 3:
            stop, step = args[1], args[2]
            shown = f"`range(..., {text_of(step)})` at line {loop.lineno}"
        elif len(args) in (1, 2):
            count = self._ceil_count(args[-1], ctx)
            if count is None:
                return False
            stop, step = count
            shown = f"`range({text_of(args[-1])})` at line {loop.lineno}, which counts a last partial batch"
        else:
            return False
        if self.known_multiple(stop, step, ctx):
            return False
        counted = self._counts_named_dataset(stop, ctx)
        if counted is not None:
            self.notes.append(f"JAX303 not reported for the loop at line {loop.lineno}: it counts what a "
                              f"dataset loaded by name holds (line {counted}), a number the file does not show")
            return False
        slice_vars = {target.id}
        handled = _handles_last_batch(body, target.id, stop, step, slice_vars)
        if handled is not None:
            self.notes.append(f"JAX303 not reported for the loop at line {loop.lineno}: it handles its "
                              f"last batch itself (line {handled})")
            return False
        padded = self._padded_arrays(body, slice_vars, ctx)
        if padded and _all_slices_padded(body, slice_vars, padded):
            self.notes.append(f"JAX303 not reported for the loop at line {loop.lineno}: the arrays it "
                              f"slices were padded before it")
            return False
        return RaggedLoop(loop, shown, _slice_derived_names(body, slice_vars), slice_vars)

    def _padded_arrays(self, body, slice_vars, ctx) -> set:
        """Arrays sliced by the loop that were padded before it (`x = np.pad(...)`, `pad_to(x)`)."""
        padded = set()
        for stmt in body:
            for sub in ast.walk(stmt):
                if _is_batch_slice(sub, slice_vars) and isinstance(sub.value, ast.Name):
                    found = self.lookup(sub.value.id, ctx)
                    if found is not None and _pads(found[0]):
                        padded.add(sub.value.id)
        return padded

    # -- where an iterable comes from ---------------------------------------------------------
    @read_in_home
    def ragged(self, expr, ctx: Ctx) -> Optional[str]:
        """Why iterating over `expr` can give a smaller last batch, or None."""
        if ctx.depth > MAX_DEPTH or expr is None or not self.spend():
            return None
        if isinstance(expr, ast.Name):
            found = self.lookup(expr.id, ctx)
            if found is not None:
                return self.ragged(*found)
            for value, where in self.parameter_values(expr.id, ctx):
                why = self.ragged(value, where)
                if why:
                    return why
            return None
        if isinstance(expr, ast.Attribute):
            for value, where in self.attribute_values(expr, ctx):
                why = self.ragged(value, where)
                if why:
                    return why
            return None
        if isinstance(expr, ast.Call):
            return self._ragged_call(expr, ctx)
        if isinstance(expr, ast.Subscript):
            for value, where in self.returned_element(expr, ctx):
                why = self.ragged(value, where)
                if why:
                    return why
            return None
        if isinstance(expr, (ast.ListComp, ast.GeneratorExp)):
            return self._ragged_comprehension(expr, ctx)
        return None

    def _ragged_call(self, call, ctx) -> Optional[str]:
        name = self.imports.resolve(call.func) or ""
        if name in api.RAGGED_LOADERS:
            return self._torch_loader(call.args, call.keywords, ctx, call.lineno)
        if name in api.RAGGED_SPLITTERS:
            return self._splitter(name, call, ctx)
        if name in api.BATCHING_LOADS:
            size = next((k.value for k in call.keywords if k.arg == api.BATCHING_LOADS[name]), None)
            values = self.values(size, ctx) if size is not None else None
            if values is not None and values.complete and values.known and all(
                    isinstance(v, int) and v > 0 for v in values.known):
                if self.named_divides(self._catalog_size(call, call, ctx), size, ctx, call.lineno):
                    return None
                return f"{name}(..., batch_size=...) at line {call.lineno}, which keeps the last partial batch"
            return None
        func = call.func
        if isinstance(func, ast.Attribute):
            attr = func.attr
            if attr in api.TF_BATCH_METHODS and self.is_tf_pipeline(func.value, ctx):
                return self._tf_batch(call, ctx)
            if attr == "iter" and self._hf and (call.args or any(k.arg == "batch_size" for k in call.keywords)):
                size = call.args[0] if call.args else next(k.value for k in call.keywords if k.arg == "batch_size")
                if self.sized_by_batch(func.value, size, ctx, call.lineno):
                    return None
                return self._keyword_false(call, api.HF_ITER_KEYWORD, None, ctx,
                                           f"a Hugging Face dataset's .iter(batch_size=...) without "
                                           f"{api.HF_ITER_KEYWORD}=True (line {call.lineno})")
            if attr in api.BATCH_STOPPERS:
                return None
            target = self.function_of(func, ctx)
            if target is not None:
                return self._ragged_function(target, call, ctx)
            elsewhere = self._imported_ragged(call, ctx)
            if elsewhere is not None:
                return elsewhere or None
            if name in api.BATCH_PASS_THROUGH or attr in api.BATCH_PASS_THROUGH_METHODS:
                return self.ragged(func.value, ctx.deeper()) if attr in api.BATCH_PASS_THROUGH_METHODS \
                    else self._first_ragged_argument(call, ctx)
            return None
        if isinstance(func, ast.Name):
            if func.id not in self.imports.aliases and not self._is_local(func.id, ctx):
                cls = self.index.classes.get(func.id)
                if cls is not None:
                    return self._ragged_class(cls, call, ctx)
            target = self.function_of(func, ctx)
            if target is not None:
                return self._ragged_function(target, call, ctx)
            elsewhere = self._imported_ragged(call, ctx)
            if elsewhere is not None:
                return elsewhere or None
            if name in api.BATCH_PASS_THROUGH or (not name and func.id in api.BATCH_PASS_THROUGH_BUILTINS
                                                  and not self._is_local(func.id, ctx)):
                return self._first_ragged_argument(call, ctx)
        return None

    def _imported_ragged(self, call, ctx) -> Optional[str]:
        """A call of a function or class another module of the project defines (a loader or a
        batch generator of `data.py`), read in that module with this call's arguments: why it
        gives ragged batches, "" when it does not, None when it is not such a call."""
        found = self.analysis.imported_target(call.func)
        if found is None or ctx.depth >= MAX_DEPTH:
            return None
        other, name = found
        reader = self._reader_of(other)
        cls = other.index.classes.get(name)
        if cls is not None:
            why = reader._ragged_class(cls, call, self.stamped(ctx))
        else:
            home = other.module_def(name)
            info = other.index.by_node.get(id(home[0])) if home is not None and not home[1] else None
            if info is None:
                return None
            why = reader._ragged_function(info, call, self.stamped(ctx))
        where = os.path.basename(other.path)
        self.notes.extend(f"{note} (in {where})" for note in reader.notes)   # --verbose says why there too
        reader.notes.clear()
        return f"{why}, in {where}" if why else ""

    def _reader_of(self, other) -> "BatchSources":
        if id(other) not in self._readers:
            self._readers[id(other)] = (other, BatchSources(other))
        return self._readers[id(other)][1]

    def _first_ragged_argument(self, call, ctx) -> Optional[str]:
        for arg in list(call.args) + [k.value for k in call.keywords if k.arg]:
            if isinstance(arg, ast.Starred):
                arg = arg.value
            why = self.ragged(arg, ctx.deeper())
            if why:
                return why
        return None

    def _torch_loader(self, args, keywords, ctx, line, via="") -> Optional[str]:
        if any(k.arg is None for k in keywords) or any(isinstance(a, ast.Starred) for a in args):
            return None          # **options: cannot tell
        given = {k.arg: k.value for k in keywords}
        sampler = given.get("batch_sampler")
        if sampler is not None and self.values(sampler, ctx) == Values.of(None):
            sampler = None       # `batch_sampler=batch_sampler` of a subclass whose default is None
        if sampler is not None or len(args) > 4:
            return None          # the sampler decides the batches
        if "batch_size" in given and isinstance(given["batch_size"], ast.Constant) \
                and given["batch_size"].value is None:
            return None
        dataset = args[0] if args else given.get("dataset")
        size = args[1] if len(args) > 1 else given.get("batch_size")
        if dataset is not None and size is not None and self.sized_by_batch(dataset, size, ctx, line):
            return None
        if dataset is not None and self.named_divides(self.named_dataset(dataset, ctx), size, ctx, line):
            return None
        keyword, good = api.RAGGED_LOADERS["torch.utils.data.DataLoader"]
        if keyword in given:
            value = self.truth(given[keyword], ctx)
            if value is None:
                self.notes.append(f"JAX303 not reported for the DataLoader at line {line}: "
                                  f"`{keyword}={text_of(given[keyword])}` cannot be read")
                return None
            if value == good:
                return None
        return f"a torch DataLoader without drop_last=True{via} (line {line})"

    def _tf_batch(self, call, ctx) -> Optional[str]:
        keyword, good = api.TF_BATCH_KEYWORD
        position = api.TF_BATCH_METHODS[call.func.attr]
        if self._repeats_forever(call.func.value, ctx):
            return None          # `.repeat().batch(n)`: an endless stream of full batches
        size = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "batch_size"), None)
        if self.named_divides(self.named_dataset(call.func.value, ctx), size, ctx, call.lineno):
            return None
        return self._keyword_false(call, keyword, position, ctx,
                                   f"a tf.data pipeline whose .{call.func.attr}() has no "
                                   f"{keyword}=True (line {call.lineno})")

    def _keyword_false(self, call, keyword, position, ctx, why) -> Optional[str]:
        value = None
        found = False
        for kw in call.keywords:
            if kw.arg is None:
                return None
            if kw.arg == keyword:
                value, found = kw.value, True
        if not found and position is not None and len(call.args) > position:
            value, found = call.args[position], True
        if not found:
            return why
        truth = self.truth(value, ctx)
        if truth is False:
            return why
        if truth is None:
            self.notes.append(f"JAX303 not reported for line {call.lineno}: `{keyword}={text_of(value)}` "
                              f"cannot be read")
        return None

    @read_in_home
    def sized_by_batch(self, dataset, size, ctx, line) -> bool:
        """Is the dataset's length computed from the batch size (`x[:n // bs * bs]`,
        `select(range(bs * k))`)? Then it is meant to be a multiple: say nothing."""
        if not isinstance(size, ast.Name):
            return False
        names = {size.id}
        todo, seen = [(dataset, ctx)], 0
        while todo and seen < 12:
            expr, where = todo.pop()
            seen += 1
            for sub in ast.walk(expr):
                sizes = isinstance(sub, ast.Slice) or (isinstance(sub, ast.BinOp) and isinstance(
                    sub.op, (ast.FloorDiv, ast.Mult, ast.Mod))) or (isinstance(sub, ast.Call) and isinstance(
                        sub.func, ast.Name) and sub.func.id == "range")
                if sizes and any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(sub)):
                    self.notes.append(f"JAX303 not reported for the loader at line {line}: the length of "
                                      f"its data is computed from the batch size `{size.id}` (line "
                                      f"{getattr(sub, 'lineno', where.line)})")
                    return True
                if isinstance(sub, ast.Name) and sub.id not in names:
                    found = self.lookup(sub.id, where)
                    if found is not None:
                        todo.append(found)
        return False

    # -- datasets loaded by name -----------------------------------------------------------------
    @read_in_home
    def named_dataset(self, node, ctx, depth=0):
        """For a dataset loaded by name (`tfds.load("mnist", split="test")`, `builder.as_dataset(
        "test")`, `torchvision.datasets.MNIST(..., train=False)`, through names, attributes and
        size-keeping tf.data methods): its size when well known, else 0 (named, size not known).
        None when it is not a dataset loaded by name."""
        if depth > 8:
            return None
        if isinstance(node, ast.Name):
            found = self.lookup(node.id, ctx)
            return self.named_dataset(found[0], found[1], depth + 1) if found is not None else None
        if isinstance(node, ast.Attribute):
            for value, where in self.attribute_values(node, ctx):
                found = self.named_dataset(value, where, depth + 1)
                if found is not None:
                    return found
            return None
        if not isinstance(node, ast.Call):
            return None
        name = self.imports.resolve(node.func) or ""
        if name.startswith(api.NAMED_DATASET_PREFIXES):
            short = api.TORCHVISION_NAMES.get(name.rsplit(".", 1)[-1])
            train = next((k.value for k in node.keywords if k.arg == "train"), None)
            split = "train" if train is None or self.truth(train, ctx) is True else \
                "test" if self.truth(train, ctx) is False else None
            return api.WELL_KNOWN_SIZES.get((short, split), 0)
        if name in api.NAMED_DATASET_LOADERS:
            return self._catalog_size(node, node, ctx)
        func = node.func
        if isinstance(func, ast.Attribute):
            if func.attr == "as_dataset":
                source = func.value
                if isinstance(source, ast.Name):
                    found = self.lookup(source.id, ctx)
                    source = found[0] if found is not None else source
                if isinstance(source, ast.Call) and self.imports.resolve(source.func) == "tensorflow_datasets.builder":
                    return self._catalog_size(source, node, ctx)
                return None
            inner = self.named_dataset(func.value, ctx, depth + 1)
            if inner is None:
                return None
            return inner if func.attr in api.SIZE_KEEPING_METHODS else 0
        return None

    def _catalog_size(self, named, split_call, ctx) -> int:
        """The well-known size of `tfds.load("cifar100", split="test")`, else 0."""
        title = named.args[0] if named.args else next((k.value for k in named.keywords if k.arg == "name"), None)
        split = next((k.value for k in split_call.keywords if k.arg == "split"), None)
        if split is None and split_call is not named and split_call.args:
            split = split_call.args[0]
        if not (isinstance(title, ast.Constant) and isinstance(title.value, str)
                and isinstance(split, ast.Constant) and isinstance(split.value, str)):
            return 0
        return api.WELL_KNOWN_SIZES.get((title.value.split(":")[0], split.value), 0)

    def named_divides(self, named, size, ctx, line) -> bool:
        """Say nothing about a dataset loaded by name unless its size is known and the batch
        size does not divide it (a note says why)."""
        if named is None:
            return False
        sizes = self.values(size, ctx) if size is not None else None
        known = sizes is not None and sizes.complete and sizes.known and all(
            isinstance(v, int) and v > 0 for v in sizes.known)
        if named and known and any(named % v for v in sizes.known):
            return False
        why = "the batch size divides it" if named and known else "its size is not shown in the file"
        self.notes.append(f"JAX303 not reported for line {line}: a dataset loaded by name, and {why}")
        return True

    @read_in_home
    def _counts_named_dataset(self, expr, ctx) -> Optional[int]:
        """The line of a dataset loaded by name whose size the file does not show (its split,
        its classes: `len([... for c in range(builder.info.features["label"].num_classes)])`)
        that `expr` is computed from, through its names; else None."""
        todo, seen, visited = [(expr, ctx)], 0, set()
        while todo and seen < 16:
            node, where = todo.pop()
            seen += 1
            stack = [node]
            while stack:
                sub = stack.pop()
                if isinstance(sub, ast.Call):
                    named = self.named_dataset(sub, where)
                    if named == 0:
                        return sub.lineno
                    if named:
                        continue             # its size is known: what it is made of does not count
                if isinstance(sub, ast.Name) and (sub.id, where.scope) not in visited:
                    visited.add((sub.id, where.scope))
                    found = self.lookup(sub.id, where)
                    if found is not None:
                        todo.append(found)
                stack.extend(ast.iter_child_nodes(sub))
        return None

    @read_in_home
    def _repeats_forever(self, node, ctx) -> bool:
        """Is there a `.repeat()` with no count earlier in the pipeline (through its names)?"""
        for _ in range(24):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                if node.func.attr == "repeat" and not node.keywords and (not node.args or (
                        len(node.args) == 1 and self.values(node.args[0], ctx) == Values.of(None))):
                    return True      # `.repeat()`, `.repeat(count)` with count None: forever
                node = node.func.value
            elif isinstance(node, ast.Name):
                found = self.lookup(node.id, ctx)
                if found is None:
                    return False
                node, ctx = found
            else:
                return False
        return False

    def _splitter(self, name, call, ctx) -> Optional[str]:
        """`np.array_split(x, k)`: unequal pieces unless len(x) is a multiple of k;
        `itertools.batched(x, n)`: a short last tuple unless len(x) is a multiple of n."""
        if len(call.args) < 2 and not call.keywords:
            return None
        if name.endswith("split"):
            pieces = call.args[1] if len(call.args) > 1 else None
            points = self._split_points(pieces)
            if points is not None:      # np.split(x, range(bs, n, bs)): every bs rows, then the rest
                stop, step = points
                if self.known_multiple(stop, step, ctx):
                    return None
                return (f"{name}() at line {call.lineno} every `{text_of(step)}` rows, whose last piece is "
                        f"shorter unless the length divides evenly")
            if not name.endswith("array_split") or pieces is None \
                    or isinstance(self.literal(pieces, ctx), (list, tuple)):
                return None      # explicit split points, or np.split's equal pieces (else it raises)
            return (f"{name}() at line {call.lineno}, whose pieces differ in size unless the length "
                    f"divides evenly")
        return f"{name}() at line {call.lineno}, whose last batch is shorter unless the length divides evenly"

    def _split_points(self, node) -> Optional[tuple]:
        """(stop, step) of split points `range(step, stop, step)` / `np.arange(step, stop, step)`."""
        if isinstance(node, ast.Call) and len(node.args) == 3 and not node.keywords:
            name = self.imports.resolve(node.func) or (node.func.id if isinstance(node.func, ast.Name) else "")
            if name in ("range", "np.arange", "jnp.arange") and text_of(node.args[0]) == text_of(node.args[2]):
                return node.args[1], node.args[2]
        return None

    def _ragged_comprehension(self, node, ctx) -> Optional[str]:
        """`[x[i:i + bs] for i in range(0, n, bs)]`, `(b for b in loader)`."""
        gen = node.generators[0]
        found = self._range_batches(node, gen.target, gen.iter, [node.elt], ctx)
        if isinstance(found, RaggedLoop):
            if found.uses(node.elt):
                return f"the batches built at line {node.lineno} over {found.source}"
            return None
        if found is None:
            why = self.ragged(gen.iter, ctx)
            if why and _mentions(node.elt, set(target_names(gen.target))):
                return why
        return None

    # -- functions and classes of the file ----------------------------------------------------
    @read_in_home
    def returned_element(self, node, ctx) -> list:
        """`make_loaders(...)[1]` (also what `a, b = make_loaders(...)` binds): element `i` of each
        tuple the helper returns, as (expression, ctx) pairs; [] for anything else."""
        if not (isinstance(node.value, ast.Call) and isinstance(node.slice, ast.Constant)
                and isinstance(node.slice.value, int)) or ctx.depth >= MAX_DEPTH:
            return []
        call, index = node.value, node.slice.value
        info = self.function_of(call.func, ctx)
        bound = self.bind(info, call, ctx) if info is not None else None
        if bound is None:
            return []
        inner = Ctx(info.node, info.node.lineno, bound, ctx.depth + 1)
        found = []
        for ret in _yields_and_returns(info.node)[1]:
            value = ret.value
            if self.excluded_branch(info.node, ret, inner):
                continue
            if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) > index \
                    and not any(isinstance(e, ast.Starred) for e in value.elts):
                found.append((value.elts[index], Ctx(info.node, ret.lineno, bound, ctx.depth + 1)))
        return found

    def _ragged_function(self, info, call, ctx) -> Optional[str]:
        if ctx.depth >= MAX_DEPTH:
            return None
        bound = self.bind(info, call, ctx)
        if bound is None:
            return None
        inner = Ctx(info.node, info.node.lineno, bound, ctx.depth + 1)
        why = self._ragged_body(info, inner)
        if why:
            return f"{why}, via `{info.name}()` (line {info.node.lineno})" if "via `" not in why else why
        return None

    def _ragged_body(self, info, ctx) -> Optional[str]:
        """What a function gives back: what its generator yields, or what it returns."""
        yields, returns = _yields_and_returns(info.node)
        for node in yields:
            where = Ctx(ctx.scope, node.lineno, ctx.bound, ctx.depth)
            if isinstance(node, ast.YieldFrom):
                why = self.ragged(node.value, where)
            else:
                why = self._yielded_batch(info, node, where)
            if why:
                return why
        if yields:
            return None
        for ret in returns:
            if self.excluded_branch(info.node, ret, ctx):
                continue
            why = self.ragged(ret.value, Ctx(ctx.scope, ret.lineno, ctx.bound, ctx.depth))
            if why:
                return why
        return None

    def _yielded_batch(self, info, node, ctx) -> Optional[str]:
        """`yield x[i:i + bs]` inside `for i in range(0, n, bs)`, `yield b` inside `for b in loader`."""
        if node.value is None:
            return None
        for loop in reversed(self.parents.loops_of(node)):
            if isinstance(loop, ast.While):
                found = self._counter_batches(loop, Ctx(ctx.scope, loop.lineno, ctx.bound, ctx.depth))
                if found and found.uses(node.value):
                    return f"the generator `{info.name}` (line {info.node.lineno}) yielding batches over {found.source}"
                continue
            if not isinstance(loop, (ast.For, ast.AsyncFor)):
                continue
            found = self._range_batches(loop, loop.target, loop.iter, loop.body, Ctx(
                ctx.scope, loop.lineno, ctx.bound, ctx.depth))
            if isinstance(found, RaggedLoop):
                if found.uses(node.value):
                    return f"the generator `{info.name}` (line {info.node.lineno}) yielding batches over {found.source}"
                continue
            if found is None:
                why = self.ragged(loop.iter, Ctx(ctx.scope, loop.lineno, ctx.bound, ctx.depth))
                if why:
                    names = _derived_names(loop.body, set(target_names(loop.target)), self._is_step_call)
                    if _mentions(node.value, names):
                        return why
        return None

    def _ragged_class(self, cls, call, ctx, seen=None) -> Optional[str]:
        """A DataLoader subclass of the file, or an iterable class whose `__iter__` yields batches."""
        seen = seen or set()
        if cls.name in seen or ctx.depth >= MAX_DEPTH:
            return None
        seen.add(cls.name)
        init = cls.methods.get("__init__")
        if "__iter__" in cls.methods:
            if self._loader_base(cls) is not None:
                return None      # a loader that batches its own way
            bound = self.bind(init, call, ctx, skip_self=True) if init is not None else ()
            if bound is None:
                return None
            it = cls.methods["__iter__"]
            return self._ragged_body(it, Ctx(it.node, it.node.lineno, bound, ctx.depth + 1))
        base = self._loader_base(cls)
        if base is None:
            return None
        if init is None:
            if isinstance(base, str):
                return self._torch_loader(call.args, call.keywords, ctx, call.lineno, f" (`{cls.name}`)")
            return self._ragged_class(base, call, ctx, seen)
        bound = self.bind(init, call, ctx, skip_self=True)
        if bound is None:
            return None
        inner = Ctx(init.node, init.node.lineno, bound, ctx.depth + 1)
        for sub in ast.walk(init.node):
            if isinstance(sub, ast.Call) and _is_super_init(sub, cls):
                args = sub.args[1:] if _explicit_base_init(sub) else sub.args
                where = Ctx(inner.scope, sub.lineno, inner.bound, inner.depth)
                if isinstance(base, str):
                    why = self._torch_loader(args, sub.keywords, where, call.lineno, f" (`{cls.name}`)")
                    return why
                fake = ast.Call(func=ast.Name(id=base.name, ctx=ast.Load()), args=list(args),
                                keywords=list(sub.keywords), lineno=call.lineno, col_offset=0)
                return self._ragged_class(base, fake, where, seen)
        return None

    def _loader_base(self, cls, seen=None):
        """The torch loader name, or the file's class, this class derives its batching from."""
        seen = seen or set()
        if cls.name in seen:
            return None
        seen.add(cls.name)
        for base in cls.node.bases:
            name = self.imports.resolve(base) or ""
            if name in api.RAGGED_LOADERS:
                return name
            if isinstance(base, ast.Name) and base.id in self.index.classes:
                other = self.index.classes[base.id]
                if self._loader_base(other, seen) is not None:
                    return other
        return None

    @read_in_home
    def known_multiple(self, stop, step, ctx) -> bool:
        """Is `stop` provably a multiple of `step` (or cut down to one before the loop)?"""
        stops, steps = self.values(stop, ctx), self.values(step, ctx)
        if steps.complete and steps.known == {1}:
            return True          # batches of one row: never a short one
        if stops.complete and steps.complete and stops.known and steps.known:
            return all(isinstance(a, int) and isinstance(b, int) and b and a % b == 0
                       for a in stops.known for b in steps.known)
        expr = stop
        for _ in range(3):
            if not isinstance(expr, ast.Name):
                break
            found = self.lookup(expr.id, ctx)
            if found is None:
                break
            expr = found[0]
        step_text = text_of(step)
        text = text_of(expr).replace(" ", "")
        if f"//{step_text}*{step_text}" in text or f"%{step_text}" in text or f"-{step_text}" in text:
            return True
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult) and \
                step_text in (text_of(expr.left), text_of(expr.right)):
            return True
        return False

    @read_in_home
    def _ceil_count(self, node, ctx, depth=0) -> Optional[tuple]:
        """(n, bs) when `node` counts batches rounding up: `math.ceil(n / bs)`, `(n + bs - 1) // bs`,
        `-(-n // bs)`, `n // bs + 1`, `n // bs + (n % bs > 0)`."""
        if isinstance(node, ast.Name) and depth < 3:
            found = self.lookup(node.id, ctx)
            return self._ceil_count(found[0], found[1], depth + 1) if found is not None else None
        if isinstance(node, ast.Call) and len(node.args) == 1:
            name = self.imports.resolve(node.func) or (node.func.id if isinstance(node.func, ast.Name) else "")
            if name in ("int", "math.ceil", "np.ceil", "jnp.ceil"):
                inner = node.args[0]
                if name != "int" and isinstance(inner, ast.BinOp) and isinstance(inner.op, ast.Div):
                    return inner.left, inner.right
                if name == "int":
                    return self._ceil_count(inner, ctx, depth + 1)
            return None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.BinOp) \
                and isinstance(node.operand.op, ast.FloorDiv) and isinstance(node.operand.left, ast.UnaryOp) \
                and isinstance(node.operand.left.op, ast.USub):
            return node.operand.left.operand, node.operand.right
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.FloorDiv):
            left, bs = node.left, node.right
            if isinstance(left, ast.BinOp) and isinstance(left.op, ast.Sub) and _is_one(left.right) \
                    and isinstance(left.left, ast.BinOp) and isinstance(left.left.op, ast.Add) \
                    and text_of(left.left.right) == text_of(bs):
                return left.left.left, bs
            if isinstance(left, ast.BinOp) and isinstance(left.op, ast.Add) and isinstance(left.right, ast.BinOp) \
                    and isinstance(left.right.op, ast.Sub) and _is_one(left.right.right) \
                    and text_of(left.right.left) == text_of(bs):
                return left.left, bs
            return None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and isinstance(node.left, ast.BinOp) \
                and isinstance(node.left.op, ast.FloorDiv):
            n, bs = node.left.left, node.left.right
            extra = node.right
            if _is_one(extra):
                return n, bs
            if any(isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.Mod) and text_of(sub.left) == text_of(n)
                   and text_of(sub.right) == text_of(bs) for sub in ast.walk(extra)):
                return n, bs
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and isinstance(node.left, ast.Name):
            # `full, leftover = divmod(n, bs)` ... `full + bool(leftover)`
            quotient = self._divmod_part(node.left.id, ctx)
            if quotient is not None and quotient[2] == 0:
                for sub in ast.walk(node.right):
                    if isinstance(sub, ast.Name):
                        rest = self._divmod_part(sub.id, ctx)
                        if rest is not None and rest[2] == 1 and rest[3] is quotient[3]:
                            return quotient[0], quotient[1]
        return None

    def _divmod_part(self, name, ctx) -> Optional[tuple]:
        """(n, bs, 0 or 1, the call) when `name` was bound by `q, r = divmod(n, bs)` in the
        enclosing functions or the module."""
        scope = ctx.scope
        while True:
            if not isinstance(scope, ast.Lambda):
                body = scope.body if scope is not None else self.analysis.tree.body
                for stmt in _body_statements(body):
                    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                            and isinstance(stmt.targets[0], ast.Tuple) and len(stmt.targets[0].elts) == 2 \
                            and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Name) \
                            and stmt.value.func.id == "divmod" and len(stmt.value.args) == 2:
                        for i, elt in enumerate(stmt.targets[0].elts):
                            if isinstance(elt, ast.Name) and elt.id == name:
                                return stmt.value.args[0], stmt.value.args[1], i, stmt.value
            if scope is None:
                return None
            scope = self.parents.scope_of(scope)

    @read_in_home
    def is_tf_pipeline(self, node, ctx, depth=0) -> bool:
        """Does this receiver chain start at tf.data / tfds (through names and helpers)?"""
        if depth > 8:
            return False
        while isinstance(node, (ast.Call, ast.Attribute, ast.Subscript)):
            if isinstance(node, ast.Subscript):
                elements = self.returned_element(node, ctx)
                if elements:
                    return any(self.is_tf_pipeline(v, c, depth + 1) for v, c in elements)
            if isinstance(node, ast.Call):
                target = self.function_of(node.func, ctx) if not isinstance(node.func, ast.Attribute) \
                    or isinstance(node.func.value, ast.Name) and node.func.value.id in ("self", "cls") else None
                if target is not None:
                    _, returns = _yields_and_returns(target.node)
                    bound = self.bind(target, node, ctx) or ()
                    inner = Ctx(target.node, target.node.lineno, bound, ctx.depth + 1)
                    return ctx.depth < MAX_DEPTH and any(
                        self.is_tf_pipeline(r.value, Ctx(inner.scope, r.lineno, inner.bound, inner.depth), depth + 1)
                        for r in returns if r.value is not None)
                name = self.imports.resolve(node.func) or ""
                if name.startswith(api.TF_DATA_PREFIXES):
                    return True
                node = node.func
            elif isinstance(node, ast.Attribute):
                name = self.imports.resolve(node) or ""
                if name.startswith(api.TF_DATA_PREFIXES):
                    return True
                node = node.value
            else:
                node = node.value
        if isinstance(node, ast.Name):
            name = self.imports.resolve(node) or ""
            if name.startswith(api.TF_DATA_PREFIXES):
                return True
            found = self.lookup(node.id, ctx)
            if found is not None:
                return self.is_tf_pipeline(found[0], found[1], depth + 1)
            return any(self.is_tf_pipeline(v, c, depth + 1) for v, c in self.parameter_values(node.id, ctx))
        return False

    # -- helpers ------------------------------------------------------------------------------
    def derived(self, body, names) -> set:
        """`names` and the names computed from them in `body`."""
        return _derived_names(body, set(names), self._is_step_call)

    def _is_step_call(self, value) -> bool:
        """The result of a jitted step (new parameters, a loss): not a batch."""
        if isinstance(value, ast.Call):
            func = value.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
            return name in self.analysis.jitted_by_name or name in self.analysis.jitted_by_attr
        return False


def _counter_steps(body, var) -> list:
    """What the loop adds to `var` each iteration: `var += bs`, `var = var + bs`, or the
    hand-over `var = end` with `end = var + bs` (the equinox-style dataloader). One entry per
    binding of `var` in the body; an entry None when the binding is no step."""
    bindings = [stmt for stmt in _body_statements(body)
                if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign))
                and var in {n for t in _stmt_targets(stmt) for n in target_names(t)}]
    steps = []
    for stmt in bindings:
        if isinstance(stmt, ast.AugAssign):
            steps.append(stmt.value if isinstance(stmt.op, ast.Add) and isinstance(stmt.target, ast.Name) else None)
            continue
        value = stmt.value
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            step = _step_from(value, var)
            if step is None and isinstance(value, ast.Name):
                handed = [s.value for s in _body_statements(body) if isinstance(s, ast.Assign)
                          and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)
                          and s.targets[0].id == value.id]
                if len(handed) == 1:
                    step = _step_from(handed[0], var)
            steps.append(step)
            continue
        steps.append(None)
    return steps


def _stmt_targets(stmt):
    return stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]


def _step_from(value, var):
    """`var + bs` (or `bs + var`): the step bs, else None."""
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
        if isinstance(value.left, ast.Name) and value.left.id == var:
            return value.right
        if isinstance(value.right, ast.Name) and value.right.id == var:
            return value.left
    return None


def _is_one(node) -> bool:
    return isinstance(node, ast.Constant) and node.value == 1 and not isinstance(node.value, bool)


def _mentions(expr, names) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in _walk_outside_sizes(expr))


def _walk_outside_sizes(expr, skip_padding=False):
    """The nodes of `expr`, leaving out `len(b)` / `b.shape` (a batch's size is not a batch) and,
    with `skip_padding`, what a padding call (`np.pad(b, ...)`) brings back to full size."""
    stack = [expr]
    while stack:
        node = stack.pop()
        if node is not expr and is_size_expr(node):
            continue
        if skip_padding and _pads(node):
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def _nodes_in(body):
    """Every node of a loop body, not inside nested defs, lambdas or classes."""
    stack = list(body)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, _SCOPES):
            stack.extend(ast.iter_child_nodes(node))


def _body_statements(body):
    """Statements of a loop body at any depth, not inside nested defs or classes."""
    stack = list(reversed(body))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, _SCOPES):
            continue
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list):
                stack.extend(reversed([s for s in block if isinstance(s, ast.stmt)]))
        for handler in getattr(node, "handlers", ()) or ():
            stack.extend(reversed(handler.body))


def _assignments(body):
    for stmt in _body_statements(body):
        if isinstance(stmt, ast.Assign):
            yield stmt.targets, stmt.value
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            yield [stmt.target], stmt.value
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            yield [stmt.target], stmt.iter
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                if item.optional_vars is not None:
                    yield [item.optional_vars], item.context_expr


def pads_short_batch(body, derived) -> Optional[int]:
    """The line of an `if` in the loop body that tests a batch's size and rebinds the batch
    (`if batch.shape[0] != bs: batch = pad(batch)`): the loop fixes its short batch itself."""
    def reads(expr, names):
        return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(expr))
    sizes = {name for targets, value in _assignments(body) if isinstance(value, ast.expr)
             and is_size_expr(value) and reads(value, derived)
             for target in targets for name in target_names(target)}
    for stmt in _body_statements(body):
        if not isinstance(stmt, ast.If):
            continue
        tests_size = reads(stmt.test, sizes) or any(
            isinstance(sub, ast.expr) and is_size_expr(sub) and reads(sub, derived) for sub in ast.walk(stmt.test))
        if tests_size and any(name in derived for targets, _ in _assignments(stmt.body)
                              for target in targets for name in target_names(target)):
            return stmt.lineno
    return None


def _derived_names(body, names, is_step_call) -> set:
    """`names` and every name computed from them in the loop body (not a size, not a step's result)."""
    derived = set(names)
    assignments = [(t, v) for t, v in _assignments(body) if isinstance(v, ast.expr)]
    changed = True
    while changed:
        changed = False
        for targets, value in assignments:
            if is_size_expr(value) or is_step_call(value) or not _mentions(value, derived):
                continue
            for target in targets:
                for name in target_names(target):
                    if name not in derived:
                        derived.add(name)
                        changed = True
    return derived


def _is_batch_slice(node, slice_vars) -> bool:
    """`x[i:i + bs]`, `x[:, i:i + bs]`, `x[b * bs:(b + 1) * bs]`: a slice starting at the loop variable."""
    if not isinstance(node, ast.Subscript):
        return False
    parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    for part in parts:
        if isinstance(part, ast.Slice) and part.lower is not None and part.upper is not None:
            if any(isinstance(n, ast.Name) and n.id in slice_vars for n in ast.walk(part.lower)):
                return True
    return False


def _slice_derived_names(body, slice_vars) -> set:
    """Names holding a batch slice in the loop, minus those padded back to full size."""
    derived, padded = set(), set()
    assignments = [(t, v) for t, v in _assignments(body) if isinstance(v, ast.expr)]
    shortfalls = _shortfall_names(assignments)
    fillers = _filler_names(assignments, shortfalls)
    changed = True
    while changed:
        changed = False
        for targets, value in assignments:
            if is_size_expr(value):
                continue      # len()/.shape of a batch is a Python int, not a ragged array
            if _pads(value, fillers, shortfalls):
                for target in targets:
                    padded.update(target_names(target))
                continue
            if any(_is_batch_slice(n, slice_vars) or (isinstance(n, ast.Name) and n.id in derived)
                   for n in _walk_outside_sizes(value)):
                for target in targets:
                    for name in target_names(target):
                        if name not in derived:
                            derived.add(name)
                            changed = True
    return derived - padded


def _all_slices_padded(body, slice_vars, padded) -> bool:
    arrays = {sub.value.id for stmt in body for sub in ast.walk(stmt)
              if _is_batch_slice(sub, slice_vars) and isinstance(sub.value, ast.Name)}
    return bool(arrays) and arrays <= padded


_JOINS = {"concatenate", "concat", "hstack", "vstack", "append"}
_FILLS = {"zeros", "ones", "full", "empty", "tile", "repeat"}


def _pads(value, fillers=frozenset(), shortfalls=frozenset()) -> bool:
    """`np.pad(...)`, `pad_batch(...)`, or the batch joined with a filler sized by what it lacks
    (`np.concatenate([x, np.zeros(bs - n)])`, `pad = bs - n; np.zeros((pad,) + x.shape[1:])`):
    the result is padded to a full batch. A dict or comprehension of such calls (a batch of
    named arrays padded key by key) is padded too."""
    if isinstance(value, ast.DictComp):
        return _pads(value.value, fillers, shortfalls)
    if isinstance(value, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
        return _pads(value.elt, fillers, shortfalls)
    if isinstance(value, ast.Dict):
        return any(v is not None and _pads(v, fillers, shortfalls) for v in value.values)
    if not isinstance(value, ast.Call):
        return False
    name = _call_name(value)
    if "pad" in name.lower():
        return True
    if name in _JOINS and value.args:
        first = value.args[0]
        parts = value.args[1:2] if name == "append" else first.elts if isinstance(first, (ast.List, ast.Tuple)) else ()
        return any(_is_filler(p, shortfalls) or isinstance(p, ast.Name) and p.id in fillers for p in parts)
    return False


def _call_name(call) -> str:
    return call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")


def _is_filler(expr, shortfalls=frozenset()) -> bool:
    """`np.zeros(bs - n)`, `np.full([bs - len(x), d], -1)`: filler sized by a difference (or by a
    name that holds one, `shortfalls`)."""
    return isinstance(expr, ast.Call) and _call_name(expr) in _FILLS and any(
        isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub) or isinstance(n, ast.Name) and n.id in shortfalls
        for a in expr.args[:1] for n in ast.walk(a))


def _filler_names(assignments, shortfalls=frozenset()) -> frozenset:
    return frozenset(name for targets, value in assignments if _is_filler(value, shortfalls)
                     for target in targets for name in target_names(target))


def _shortfall_names(assignments) -> frozenset:
    """Names bound to a difference (`pad = batch_size - valid`): what a short batch lacks."""
    return frozenset(name for targets, value in assignments
                     if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Sub)
                     for target in targets for name in target_names(target))


def _handles_last_batch(body, var, stop, step, slice_vars) -> Optional[int]:
    """The line of an `if` in the loop that tests for the last, partial batch (`if i + bs > n:`,
    `if len(xb) < bs:`), so that the loop deals with it itself; else None."""
    texts = {t for t in (text_of(stop).replace(" ", ""), text_of(step).replace(" ", "")) if t}
    batch_names = _slice_derived_names(body, slice_vars)
    for stmt in _body_statements(body):
        for node in ast.walk(stmt) if not isinstance(stmt, _SCOPES) else ():
            if not isinstance(node, (ast.If, ast.IfExp, ast.While)) or not isinstance(node.test, ast.Compare):
                continue
            test = node.test
            names = {n.id for n in ast.walk(test) if isinstance(n, ast.Name)}
            parts = [test.left] + list(test.comparators)
            mentions_bound = any(text_of(p).replace(" ", "") in texts or
                                 any(text_of(s).replace(" ", "") in texts for s in ast.walk(p) if isinstance(s, ast.expr))
                                 for p in parts)
            sizes_batch = any(is_size_expr(p) and _mentions_any(p, batch_names) for p in parts)
            if (var in names and mentions_bound) or (sizes_batch and (mentions_bound or _has_constant(parts))):
                return node.lineno
    return None


def _mentions_any(expr, names) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(expr))


def _has_constant(parts) -> bool:
    return any(isinstance(p, ast.Constant) for p in parts)


def _yields_and_returns(func) -> tuple:
    """The yield / return nodes of a def's own body (not of nested defs or lambdas)."""
    yields, returns = [], []
    stack = list(func.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            yields.append(node)
        elif isinstance(node, ast.Return) and node.value is not None:
            returns.append(node)
        if isinstance(node, _SCOPES):
            continue
        stack.extend(ast.iter_child_nodes(node))
    yields.sort(key=lambda n: n.lineno)
    returns.sort(key=lambda n: n.lineno)
    return yields, returns


def _is_super_init(call, cls) -> bool:
    """`super().__init__(...)`, `super(Cls, self).__init__(...)`, `Base.__init__(self, ...)`."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == "__init__"):
        return False
    value = func.value
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "super":
        return True
    return _explicit_base_init(call)


def _explicit_base_init(call) -> bool:
    value = call.func.value
    return not isinstance(value, ast.Call) and bool(call.args) and isinstance(call.args[0], ast.Name) \
        and call.args[0].id == "self"


