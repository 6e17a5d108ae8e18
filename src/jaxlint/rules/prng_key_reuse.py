"""JAX401 prng-key-reuse."""

import ast
import os
import re
from typing import Optional

from jaxlint.analysis import api_tables as api
from jaxlint.analysis.crossmodule import file_digest, per_version
from jaxlint.analysis.file import module_analysis
from jaxlint.analysis.module import defaults
from jaxlint.analysis.semantic import COMPREHENSIONS, LOOP_STATEMENTS, SCOPE_NODES, BindingKind, NameScope, ScopeKind
from jaxlint.analysis.syntax import (CALLED_NAME, LineFilter, calls_around, calls_by_callee_end, child_bodies,
                                     iter_statements, joined_text, pruned_walk, statement_holding, statement_start,
                                     target_names)
from jaxlint.findings import Finding, Fix, NoFix
from jaxlint.project import _read as read_project_file
from jaxlint.rules.base import Rule


class PrngKeyReuse(Rule):
    code = "JAX401"
    name = "prng-key-reuse"
    family = "broken state"
    summary = "The same PRNG key consumed twice without split or fold_in between."
    what = """
        Flags a `jax.random` call that consumes a key variable already consumed by an earlier
        `jax.random` call (a sampler, or `split`) with no rebinding of the variable between, as
        the semantic model follows the control flow: a second sampler on the same key, `split`
        after a sampler, or a sampler in a loop that never replaces the key (reported on the
        sampler: each iteration draws the same numbers). `fold_in` does not consume a key; a
        rebinding (`key, sub = jax.random.split(key)`) starts a new value. In a function that
        compares values (an `assert`, `allclose`, `assert_array_equal`), two identical draws
        from one key (a reproducibility check; not two `split`s, which hand out the same subkeys
        twice) are not flagged, nor a function that draws tested against `jax.random` on the
        same key when one comparison reads both results. Elsewhere two identical draws are the bug itself (`xs = uniform(key, (n,))`,
        `ys = uniform(key, (n,))` give xs == ys). A function of the module that always draws from one of
        its parameters (`def init_params(key, n): return jax.random.normal(key, (n,))`), through
        other such functions or through a closure it calls on every path (a loss function given
        to `jax.value_and_grad`), consumes the key passed there, like a sampler; so does such a
        method of a class of the module, called on `self`, on an object an attribute holds
        (`self.policy.act(key, obs)`) or on one a variable holds (`policy: Policy`), and, in
        project analysis, a function of another module of the project that draws so
        (`init_policy(key)` then `env.reset(key)`, both imported). Such a function
        called with one fixed key in every iteration of a loop is not flagged (an evaluation key,
        a sweep over settings) unless the loop feeds the call's result back into it
        (`params, loss = train_step(params, batch, key)`: the same dropout mask at every step).
    """
    why = """
        A key is a value, not a stream: the same key gives the same bits. Two samplers on one key
        draw identical or correlated numbers (dropout masks equal to initialisations, noise that
        repeats every step), silently. With typed keys (`jax.random.key`) and
        `jax_debug_key_reuse` on, JAX raises `KeyReuseError` at the second use.
    """
    example = """
        import jax

        def init(key):
            w = jax.random.normal(key, (3, 3))
            b = jax.random.uniform(key, (3,))
            return w, b
    """
    use_instead = """
        import jax

        def init(key):
            key, w_key, b_key = jax.random.split(key, 3)
            w = jax.random.normal(w_key, (3, 3))
            b = jax.random.uniform(b_key, (3,))
            return w, b
    """
    fix = ("Unsafe: the key is split just before the call that consumed it first (`key, subkey = "
           "jax.random.split(key)`, spelled the way the module spells `jax.random`, with a new name "
           "the function does not use), and that call draws from `subkey`; the later call draws from "
           "the new `key`. For a sampler in a loop that never replaces the key, the split becomes "
           "the first statement of the loop body. Unsafe because the program then draws different "
           "random numbers (independent instead of repeated), so its results change. No fix when the "
           "key is consumed inside a lambda or a comprehension, in a `while` or `elif` test, in a "
           "statement sharing its line with another, or when it is not a local variable there.")

    def check(self, analysis):
        for first, second, key in _reuses(analysis):
            fix = f"split first (`{key.id}, sub = jax.random.split({key.id})`) and use the new key once"
            if second is first and _repeated_by_comprehension(analysis, first, key.id):
                where = "for every element of the comprehension around it: each draw repeats the last"
                fix = (f"split one key per element (`keys = jax.random.split({key.id}, n)`) and iterate "
                       f"over them with the elements (`for x, k in zip(xs, keys)`)")
            elif second is first:
                where = "in every iteration of the loop around it: each draw repeats the last"
            else:
                where = f"`{_name(analysis, first)}` at line {first.lineno} already consumed it, with no split between"
            yield Finding(
                code=self.code, line=second.lineno, col=second.col_offset, param=key.id,
                message=f"PRNG key `{key.id}` is consumed again by `{_name(analysis, second)}`",
                detail=(f"{where[0].upper()}{where[1:]}, so the numbers are identical or "
                        f"correlated (typed keys raise KeyReuseError under jax_debug_key_reuse). "
                        f"Fix: {fix}"))

    @staticmethod
    def fix_finding(ctx, finding) -> Fix:
        """Split the key before the consumer that drew from it first, and give that consumer the
        new subkey: `key, subkey = jax.random.split(key)`; for a loop that never replaces the
        key, the split is the first statement of the loop body."""
        found = next(((first, second) for first, second, key in _reuses(ctx.analysis)
                      if (second.lineno, second.col_offset) == (finding.line, finding.col)
                      and key.id == finding.param), None)
        if found is None:
            raise NoFix("the reuse is not found in the current text")
        first, second = found
        analysis, name = ctx.analysis, finding.param
        model = analysis.model
        scope = model.scope_of(first)
        if model.scope_of(second) is not scope:
            raise NoFix("the two consumers run in different scopes")
        _not_in_nested_code(analysis, first)
        if scope.kind is not ScopeKind.MODULE and model.classify(name, scope) is not NameScope.LOCAL:
            raise NoFix(f"`{name}` is not a local variable here: assigning it would make it one")
        if second is first:
            loop = _loop_around(analysis, first, scope)
            anchor = loop.body[0]
            where = f"as the first statement of the loop at line {loop.lineno}"
        else:
            anchor = model.statement_of(first)
            if isinstance(anchor, ast.While) and _holds(anchor.test, first):
                raise NoFix("the key is consumed in a `while` test, where no statement can run "
                            "before each evaluation")
            where = f"before line {anchor.lineno}"
        indent = _own_line_indent(ctx, anchor)
        key_node = _consumed_key(analysis, first)
        sub = ctx.fresh_name("subkey", scope.node)
        split, edits = _split_ref(ctx, first)
        at = ctx.text.line_start(anchor.lineno)
        line = f"{indent}{name}, {sub} = {split}({name}){ctx.text.newline}"
        start, end = ctx.text.span(key_node)
        why = ("the consumer that drew from the key now draws from a new subkey, so the program's "
               "random numbers change (they become independent instead of repeated)")
        return Fix.unsafe(f"Split the key {where}: `{line.strip()}`, and draw from `{sub}`", why,
                          edits + [(at, at, line), (start, end, sub)])


def _reuses(analysis):
    """(first consumer, second consumer, key Name node of the second) for every reuse, in
    source order of the first; a call that consumes its key again in the next iteration of a
    loop is its own first consumer."""
    named = LineFilter(None, ())
    consumers = {id(key): (node, key) for node, key in _sampler_calls(analysis, named)}
    for node, key in _imported_draws(analysis, {key.id for _, key in consumers.values()}, list(consumers.values()),
                                     named):
        consumers.setdefault(id(key), (node, key))
    if not consumers:
        return
    drawing = _drawing_functions(analysis, consumers.values())
    if drawing:
        words = {entry[0] for entry in drawing.values()}
        for node in _calls_of(analysis, words):
            key = _consumed_key(analysis, node, drawing)
            if key is not None:
                consumers.setdefault(id(key), (node, key))
    candidates = _may_be_reused(analysis, consumers.values())
    if not candidates:
        return
    model = analysis.model
    reported = set()
    for call, key in sorted(consumers.values(), key=lambda item: (item[0].lineno, item[0].col_offset)):
        if id(call) not in candidates:
            continue
        if _name(analysis, call).startswith("jax.random.") and _repeated_by_comprehension(analysis, call, key.id):
            reported.add(id(key))       # `[g + random.normal(rng, g.shape) for g in grads]`
            yield call, call, key
            continue
        scope = model.scope_of(call)
        stmt = model.statement_of(call)
        if stmt is None:
            continue
        for _, node in scope.reads_after(key.id, stmt):
            again = consumers.get(id(node))
            if again is None or id(node) in reported:
                continue
            second = again[0]
            where = scope.node if scope.node is not None else analysis.tree
            if second is not call and ast.dump(second) == ast.dump(call) \
                    and _name(analysis, call) != "jax.random.split" and _compares(where):
                continue      # the same draw twice, compared: a reproducibility check (not for split)
            if second is not call and _name(analysis, call).startswith("jax.random.") \
                    != _name(analysis, second).startswith("jax.random.") and _compared_together(where, call, second):
                continue      # a function that draws, tested against jax.random on the same key: one
                #               comparison reads both results (`tree_split_key_like(k, t)` vs `split(k, n)`)

            if second is call and not _name(analysis, call).startswith("jax.random.") \
                    and not _advances_state(call, stmt, key.id):
                continue      # a helper given one fixed key per iteration: an evaluation key, a sweep
            reported.add(id(node))
            yield call, second, node
            break


def _repeated_by_comprehension(analysis, call, key: str) -> bool:
    """Does a comprehension run `call` once per element, with `key` the same at each (not bound
    by the comprehension's own `for` targets)? Its first iterable runs once: a call there is not
    repeated by that comprehension."""
    path = [call]
    for anc in analysis.parents.chain(call):
        if isinstance(anc, SCOPE_NODES):
            return False
        if isinstance(anc, COMPREHENSIONS):
            if any(key in set(target_names(gen.target)) for gen in anc.generators):
                return False        # `for g, k in zip(grads, keys)`: a key per element
            first = anc.generators[0]
            if not (len(path) > 1 and path[-1] is first and path[-2] is first.iter):
                return True
        path.append(anc)
    return False


def _may_be_reused(analysis, consumers) -> set:
    """id() of the consumers that another consumer may follow with the same key, read from
    their ancestors alone (before any scope is built): those sharing their key's name with
    another consumer of the same scope, and those a loop of their scope runs again."""
    groups: dict = {}
    again = set()
    for call, key in consumers:
        owner = None
        for anc in analysis.parents.chain(call):
            if isinstance(anc, SCOPE_NODES):
                owner = anc
                break
            if isinstance(anc, LOOP_STATEMENTS + COMPREHENSIONS):
                again.add(id(call))
        groups.setdefault((key.id, id(owner)), set()).add(id(call))
    return again.union(*(ids for ids in groups.values() if len(ids) > 1))


def _advances_state(call, stmt, key) -> bool:
    """Does the statement feed the call's result back into its own next call, as a training
    step does (`params, loss = train_step(params, batch, key)`)? Then one fixed key per
    iteration draws the same numbers (the same dropout mask) at every step of one run, which no
    evaluation or sweep does."""
    if not isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)) or stmt.value is not call:
        return False
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    bound = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    passed = {a.id for a in call.args if isinstance(a, ast.Name)} | \
        {kw.value.id for kw in call.keywords if isinstance(kw.value, ast.Name)}
    return bool((bound & passed) - {key})


def _compares(node) -> bool:
    """Does the function (or module) compare values: an `assert`, or an equality test called or
    handed on (`np.testing.assert_allclose`, `jnp.array_equal`, `jax.tree.map(assert_allclose,
    a, b)`)?"""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Assert):
            return True
        if isinstance(sub, (ast.Name, ast.Attribute)) and \
                (sub.attr if isinstance(sub, ast.Attribute) else sub.id) in api.EQUALITY_TESTS:
            return True
    return False


def _compared_together(where, first, second) -> bool:
    """Does one comparison of the function (an `assert`, or a call of an equality test or of an
    `assert...` helper, handed on or not) read what both calls return: the calls themselves, or names bound to their results
    (directly or through one more assignment)?"""
    fed = [_fed_names(where, call) for call in (first, second)]
    for sub in ast.walk(where):
        if isinstance(sub, ast.Assert):
            test = sub.test
        elif isinstance(sub, ast.Call) and any(
                isinstance(n, (ast.Name, ast.Attribute)) and _is_equality_test(n.attr if isinstance(n, ast.Attribute) else n.id)
                for n in [sub.func] + list(sub.args)):
            test = sub
        else:
            continue
        inside = list(ast.walk(test))
        read = {n.id for n in inside if isinstance(n, ast.Name)}
        if all(call in inside or names & read for call, names in zip((first, second), fed)):
            return True
    return False


def _is_equality_test(name: str) -> bool:
    """An equality test by its name: a known one, or a test helper named `assert...`
    (`assert_trees_all_close`, `assertAllClose`)."""
    return name in api.EQUALITY_TESTS or name.startswith("assert")


def _fed_names(where, call) -> set:
    """The names bound to what `call` returns in `where`, and to what an expression of those
    returns (one step further: `fst = jnp.stack(keys)`)."""
    names: set = set()
    for _ in range(2):
        for stmt in ast.walk(where):
            if isinstance(stmt, ast.Assign) and (stmt.value is call or any(
                    isinstance(n, ast.Name) and n.id in names for n in ast.walk(stmt.value))):
                names.update(n.id for t in stmt.targets for n in ast.walk(t) if isinstance(n, ast.Name))
    return names


def _name(analysis, call) -> str:
    return analysis.imports.resolve(call.func) or ast.unparse(call.func)


def _consumed_key(analysis, call, drawing=None, flags=None):
    """The Name node of the key a call consumes, or None: a jax.random call's key, or the key
    argument of a function or method of the module that draws from that parameter (`drawing`:
    see _drawing_functions; computed here when not given), also through a transform that calls
    it (`jax.value_and_grad(loss)(params, key)`). A function that draws only under flags (`if
    training:`) consumes the key when the call passes them with that truth (literals, or the
    defaults); with `flags` (a list), a flag passed on as a name is taken as given and recorded
    there as (name, truth)."""
    qual = analysis.imports.resolve(call.func) or ""
    if qual.startswith("jax.random."):
        if qual in api.KEY_NOT_CONSUMED:
            return None
        if call.args and not isinstance(call.args[0], ast.Starred):
            node = call.args[0]
        else:
            node = next((kw.value for kw in call.keywords if kw.arg == "key"), None)
        return node if isinstance(node, ast.Name) else None
    inner = call.func
    if isinstance(inner, ast.Call) and len(inner.args) == 1 and not inner.keywords and isinstance(inner.args[0], ast.Name) \
            and (analysis.imports.resolve(inner.func) or "") in _CALLING_TRANSFORMS:
        inner = inner.args[0]      # `jax.value_and_grad(loss)(params, key)` calls `loss(params, key)`
    elif qual or not isinstance(call.func, (ast.Name, ast.Attribute)):
        return None
    if drawing is None:
        drawing = _drawing_functions(analysis)
    if not drawing or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    callee = _callee(analysis, call if inner is call.func else ast.Call(func=inner, args=call.args, keywords=call.keywords))
    found = drawing.get(id(callee.node)) if callee is not None else None
    if found is None:
        return None
    _, index, param, conditions = found
    for flag, position, truth in conditions:     # `if training:` around the draw
        arg = _argument(call, callee.node, flag, position)
        if _literal_truth(arg) is not None:
            if _literal_truth(arg) != truth:
                return None
        elif isinstance(arg, ast.Name) and flags is not None:
            flags.append((arg.id, truth))
        else:
            return None
    node = call.args[index] if index < len(call.args) else \
        next((kw.value for kw in call.keywords if kw.arg == param), None)
    return node if isinstance(node, ast.Name) else None


# the transforms whose result calls the function with the arguments it is given
_CALLING_TRANSFORMS = {"jax.grad", "jax.value_and_grad", "jax.checkpoint", "jax.remat"}


def _argument(call, func, name, position):
    """What `call` passes for parameter `name` (at `position`) of the def `func`, or the default
    it leaves in place; None when neither."""
    if position < len(call.args):
        return call.args[position]
    passed = next((kw.value for kw in call.keywords if kw.arg == name), None)
    return passed if passed is not None else defaults(func.args).get(name)


def _imported_draws(analysis, names, consumers=(), random_lines=None) -> list:
    """(call, key Name node) of the calls of another module's functions that draw from the key
    passed to them (`init_policy(rng)` imported from the project's `networks.py`), among the
    calls passing one of `names` (the keys this module consumes; without any, the keys it makes)
    that another consumer of that key may follow (`consumers`: this module's own; see
    _may_be_reused), so that only those calls' modules are read (`random_lines`: the lines that
    name jax.random, from _sampler_calls). Project analysis only: the other module's drawing
    functions are found as this module's are, in its own analysis."""
    view = getattr(analysis.flow, "external", None)
    if view is None or not view.imported or analysis.lines is None:
        return []
    if not names and random_lines is not None and random_lines.hits == []:
        return []           # consumes no key and makes none (no line names jax.random)
    called, on = analysis.names_called(), analysis.attributes_called()
    imported = {local for local in view.imported if local in called or local in on}
    if not imported:
        return []           # calls nothing it imports
    names = set(names) or _keys_made(analysis, random_lines)     # (without draws of its own: the keys it makes)
    if not names:
        return []
    # the lines where a call of an imported name may start with a key on it or on one of the
    # next few (its arguments wrapped): `attack_losses.get_attack_fn(\n    fn, batch, dropout_rng,`
    text = analysis.lines
    near = sorted({i - k for i in LineFilter(text, names).hits or () for k in range(_WRAPPED_LINES) if i > k})
    named = {i: imported.intersection(_WORD.findall(text[i - 1])) for i in near}
    if not any(named.values()):
        return []
    project = analysis.project
    project_names = {local for local in set().union(*named.values()) if project.may_hold(
                         project.absolute(view.imported[local], view.path) or view.imported[local], view.path)
                     and view.target_of(ast.Name(id=local, ctx=ast.Load())) is not None}
    if not project_names:
        return []           # nothing imported from the project's own modules
    numbers = [i for i in near if named[i] & project_names]
    calls = []      # the calls around the imported names: `networks.init(`, `(mod\n .init(`
    for node in calls_around(analysis.tree, text, numbers, None, analysis.parents, project_names):
        if any(isinstance(a, ast.Starred) for a in node.args):
            continue
        root = node.func
        while isinstance(root, ast.Attribute):
            root = root.value
        if not isinstance(root, ast.Name) or root.id not in view.imported:
            continue
        keys = [a for a in list(node.args) + [k.value for k in node.keywords] if isinstance(a, ast.Name) and a.id in names]
        target = view.target_of(node.func) if keys else None     # a module of the project (cached per name)
        if target is not None and target.path.endswith(".py"):
            calls.append((node, target, keys))
    if not calls:
        return []
    pairs = list(consumers) + [(node, key) for node, _, keys in calls for key in keys]
    again = _may_be_reused(analysis, pairs)
    found = []
    modules = {}        # path -> its drawing functions, asked once here for all the calls into it
    for node, target, keys in calls:
        if id(node) not in again:
            continue
        drawing = modules.get(target.path)
        if drawing is None:
            drawing = modules[target.path] = per_version(
                analysis.project, "drawing functions", target.path,
                lambda full: _module_drawing(analysis.project, full, analysis.config), {})
            analysis.depends[os.path.abspath(target.path)] = file_digest(target.path)
        hit = drawing.get(target.name)
        if hit is None:
            continue
        index, param, conditions = hit
        if not all(_literal_truth(node.args[position] if position < len(node.args) else next(
                (kw.value for kw in node.keywords if kw.arg == flag), None)) == truth
                for flag, position, truth in conditions):
            continue        # draws under a flag this call does not pass as a literal of that truth
        key = node.args[index] if index < len(node.args) else \
            next((kw.value for kw in node.keywords if kw.arg == param), None)
        if isinstance(key, ast.Name) and key.id in names:
            found.append((node, key))
    return found


_WORD = re.compile(r"\w+")
_WRAPPED_LINES = 4      # a call's first line and the next three, where its key argument may sit


def _keys_made(analysis, random_lines=None) -> set:
    """The names this module binds to a key made or split by jax.random (`key = jax.random.key(0)`,
    `key, sub = jax.random.split(key)`), on the lines that name it; project analysis only (they
    are what it may hand to another module's sampler)."""
    view = getattr(analysis.flow, "external", None)
    if view is None or not view.imported or analysis.lines is None:
        return set()
    if random_lines is None:
        aliases = {local for local, target in analysis.imports.aliases.items() if target.startswith("jax.random")}
        random_lines = LineFilter(analysis.lines, {"random"} | aliases)
    if random_lines.hits is not None and not random_lines.hits:
        return set()            # no line names it
    found = set()
    for stmt in iter_statements(analysis.tree.body, random_lines):
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call) \
                and (analysis.imports.resolve(stmt.value.func) or "").startswith("jax.random."):
            found.update(n.id for t in stmt.targets for n in ast.walk(t) if isinstance(n, ast.Name))
    return found


def _module_drawing(project, path, config) -> dict:
    """name -> (position, parameter) of each module-level function of the module at `path` that
    draws from a key parameter (as `_drawing_functions` finds them there): asked once per version
    of the file by every module importing it."""
    if b"random" not in read_project_file(path):
        return {}               # draws nothing: not worth an analysis
    other = module_analysis(project, path, config)
    if other is None:
        return {}
    found = {}
    for key, (name, index, param, conditions) in _drawing_functions(other).items():
        info = other.index.by_node.get(key)
        if info is not None and info.cls is None:
            found[name] = (index, param, conditions)
    return found


def _callee(analysis, call):
    """The def of this module a call runs: a module-level function by its name, a method through
    `self.m(...)`, `self.layer.m(...)` or an object of a class of this module (`policy.act(...)`),
    as the traced-function finder resolves calls."""
    if isinstance(call.func, ast.Name):
        home = analysis.module_def(call.func.id)
        return analysis.index.by_node.get(id(home[0])) if home is not None else None
    where = analysis.parents.scope_of(call)
    scope = analysis.index.by_node.get(id(where)) if where is not None else None
    found = analysis.finder.resolve_function(call.func, scope, None)
    return found if found is not None and found.method_kind == "instance" else None


def _sampler_calls(analysis, named=None) -> list:
    """(call, key Name node) of each jax.random call consuming a key, on the lines that call a
    function of jax.random that consumes one (`jax.random.normal(`, `jr.split(`, `uniform(`
    imported from it): most files that say `random` only make keys, or mean NumPy's."""
    aliases = {local: target for local, target in analysis.imports.aliases.items() if target.startswith("jax.random")}
    modules = sorted(local for local, target in aliases.items() if target == "jax.random")
    drawers = sorted(local for local, target in aliases.items()
                     if target != "jax.random" and target not in api.KEY_NOT_CONSUMED)
    lines = LineFilter(analysis.lines, {"random", *aliases})
    if named is not None:
        named.hits = lines.hits       # every line naming it, for the keys the module makes
    if lines.hits == []:
        return []               # no line names it
    if lines.hits is None:      # no text to search: every call
        calls = [node for node in pruned_walk(analysis.tree, lines) if isinstance(node, ast.Call)]
    else:
        module = r"(?:\bjax\s*\.\s*random" + "".join(rf"|\b{re.escape(a)}" for a in modules) + r")\s*\.\s*(\w+)"
        drawer = "|".join(rf"\b{re.escape(a)}\b" for a in drawers)
        found_module, found_drawer = re.compile(module), re.compile(drawer) if drawer else None
        lines.hits = [i for i in lines.hits
                      if any(f"jax.random.{m.group(1)}" not in api.KEY_NOT_CONSUMED
                             for m in found_module.finditer(analysis.lines[i - 1]))
                      or found_drawer is not None and found_drawer.search(analysis.lines[i - 1])]
        if not lines.hits:
            return []
        callee = re.compile(module + (f"|{drawer}" if drawer else ""))
        calls = calls_by_callee_end(analysis.tree, analysis.lines, lines.hits, callee, parents=analysis.parents)
    found = []
    for node in calls:
        key = _consumed_key(analysis, node, {})
        if key is not None:
            found.append((node, key))
    return found


def _drawing_functions(analysis, consumers=None) -> dict:
    """id(def) -> (name, position, parameter) of each module-level function, or method of a
    module-level class (position counted after `self`), that hands a parameter, not rebound
    before, to a key consumer on every path: a jax.random call, a function of the module
    that draws (so `train_step(params, key)` -> `loss(p)` -> `apply(p, x, key)` -> `bernoulli(key)`
    draws), or a closure the function defines and calls (itself or through `jax.grad(loss)`) on
    every path. Calling such a function consumes the key passed there (`init_params(key, n)`
    draws from `key`, and may split it afterwards)."""
    if consumers is None:
        consumers = _sampler_calls(analysis)
    found: dict = {}
    pending = list(consumers)
    tops = _TopLevel(analysis)
    for _ in range(_DRAWING_DEPTH):
        added = {}
        for call, key, *flags in pending:
            hit = _draws_from_parameter(analysis, call, key, flags[0] if flags else ()) \
                if tops.may_draw(call, key) else None
            if hit is not None and hit[0] not in found and hit[0] not in added:
                added[hit[0]] = hit[1]
        if not added:
            break
        found.update(added)
        words = {entry[0] for entry in added.values()}
        pending = []
        for node in _calls_of(analysis, words):
            flags = []
            key = _consumed_key(analysis, node, added, flags)
            if key is not None:
                pending.append((node, key, flags))
    return found


def _calls_of(analysis, names) -> list:
    """The calls of one of `names` (`name(`, `.name(`, or through a transform, `grad(name)(`):
    a method named `sample` is named in many more lines (docstrings, attribute reads) than it
    is called on."""
    lines = LineFilter(analysis.lines, names)
    if lines.hits is None:          # no text to search: every call
        return [node for node in pruned_walk(analysis.tree, lines) if isinstance(node, ast.Call)]
    # the callee ends after the name, or after the `)` of the transform around it
    return calls_by_callee_end(analysis.tree, analysis.lines, lines.hits, CALLED_NAME, names, analysis.parents)


_DRAWING_DEPTH = 4      # functions handing a key down: train_step -> loss -> apply -> bernoulli


def _draws_from_parameter(analysis, call, key, flags=()) -> Optional[tuple]:
    """(id(def), (name, position, parameter, conditions)) when `call` consumes, on every path of
    a module-level function or of a method of a module-level class, the key parameter passed to
    it, or on the paths its flag parameters choose (`if training:`; `flags`: the callee's own
    flags the call passes these parameters for): conditions ((flag, position, truth), ...);
    else None."""
    model = analysis.model
    scope = model.scope_of(call)
    stmt = model.statement_of(call)
    guards = _flag_guards(scope, stmt) if scope is not None and stmt is not None else None
    if guards is None:
        return None         # draws on some paths only, not chosen by a flag
    guards = guards + list(flags)
    if not scope.by_name.get(key.id) and scope.parent is not None and isinstance(scope.node, ast.FunctionDef) \
            and key.id not in scope.declared_global:
        if guards:
            return None
        # a closure reading its function's key: it draws when the function calls it on every path
        outer = scope.parent
        defined = next((s for s in outer.statements if s is scope.node), None)
        if defined is None or _on_some_paths(outer, defined) or not _calls_on_every_path(outer, scope.node.name):
            return None
        scope, call = outer, scope.node
    func = scope.node
    if not isinstance(func, ast.FunctionDef):
        return None
    info = analysis.index.by_node.get(id(func))
    if info is None:
        return None
    if info.cls is None:
        home = analysis.module_def(func.name)
        if home is None or home[0] is not func:
            return None
    elif info.method_kind != "instance" or analysis.index.top_classes.get(info.cls.name) is not info.cls:
        return None
    bindings = scope.by_name.get(key.id, ())
    if not bindings or bindings[0].kind is not BindingKind.PARAMETER or any(
            b.kind is not BindingKind.PARAMETER and b.start <= (call.lineno, call.col_offset) for b in bindings):
        return None         # the draw must read the key passed in: no rebinding before it
    positional = [a.arg for a in func.args.posonlyargs + func.args.args][1 if info.cls is not None else 0:]
    if key.id not in positional:
        return None
    conditions = []
    for flag, truth in guards:
        rebound = scope.by_name.get(flag, ())
        if flag not in positional or flag == key.id or any(b.kind is not BindingKind.PARAMETER for b in rebound):
            return None     # chosen by something else than a flag the caller passes
        conditions.append((flag, positional.index(flag), truth))
    return id(func), (func.name, positional.index(key.id), key.id, tuple(sorted(set(conditions))))


def _flag_guards(scope, stmt) -> Optional[list]:
    """[(name, truth)] of the `if name:` / `if not name:` tests a statement runs under in its
    scope ([] on every path); None when another test, a `try`, `match` or `while` decides."""
    guards = []
    for block, field in scope.path_of.get(id(stmt), ()):
        if isinstance(block, (ast.Try, ast.Match, ast.While)):
            return None
        if isinstance(block, ast.If):
            test, truth = block.test, field == "body"
            if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
                test, truth = test.operand, not truth
            if not isinstance(test, ast.Name):
                return None
            guards.append((test.id, truth))
    return guards


def _literal_truth(node) -> Optional[bool]:
    if isinstance(node, ast.Constant) and isinstance(node.value, (bool, int, type(None))):
        return bool(node.value)
    return None


class _TopLevel:
    """Where a call lies among the module's top-level statements, found by its position."""

    def __init__(self, analysis):
        self.analysis = analysis
        self.body = analysis.tree.body
        self.starts = [statement_start(stmt) for stmt in self.body]
        self.text = joined_text(analysis.lines) if analysis.lines is not None else None

    def may_draw(self, call, key) -> bool:
        """What `_draws_from_parameter` needs before it asks for scopes: the call runs in a
        module-level def or a method of a module-level class that takes the key as a positional
        parameter, or in a closure directly inside such a def (which reads that parameter). A
        def inside a top-level block (`if`, `try`) is decided from the call's ancestors."""
        top = statement_holding(self.body, self.starts, (call.lineno, call.col_offset))
        if isinstance(top, ast.ClassDef):       # a method: its def, among the class's statements
            top = statement_holding(top.body, [statement_start(stmt) for stmt in top.body],
                                    (call.lineno, call.col_offset))
            if not isinstance(top, ast.FunctionDef) or self.text is not None and f".{top.name}(" not in self.text:
                return False    # not a method, or one the module never calls on an object
        if isinstance(top, ast.FunctionDef):
            return key.id in (a.arg for a in top.args.posonlyargs + top.args.args)
        if top is None or isinstance(top, ast.AsyncFunctionDef) or not any(child_bodies(top)):
            return False        # a statement that holds no def
        defs = []
        for anc in self.analysis.parents.chain(call):
            if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                defs.append(anc)
                if len(defs) > 2:
                    return False
        if not defs or not isinstance(defs[-1], ast.FunctionDef) or \
                not all(isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef)) for d in defs):
            return False
        return key.id in (a.arg for a in defs[-1].args.posonlyargs + defs[-1].args.args)


def _on_some_paths(scope, stmt) -> bool:
    path = scope.path_of.get(id(stmt), ())
    return any(isinstance(block, (ast.If, ast.Try, ast.Match, ast.While)) for block, _ in path)


def _calls_on_every_path(scope, name) -> bool:
    """Does a statement of `scope` on every path call the function `name`, itself (`loss(p)`)
    or through a wrapper that calls it (`jax.value_and_grad(loss)(params)`)?"""
    for stmt in scope.statements:
        if isinstance(stmt, SCOPE_NODES) or _on_some_paths(scope, stmt) or hasattr(stmt, "body"):
            continue        # a compound statement's body is walked statement by statement
        for node in ast.walk(stmt):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if isinstance(func, ast.Call) and func.args:
                func = func.args[0]
            if isinstance(func, ast.Name) and func.id == name:
                return True
    return False


# -- the fix's helpers ---------------------------------------------------------------------------

def _not_in_nested_code(analysis, call) -> None:
    """Raise NoFix when the call runs in a lambda or a comprehension inside its statement: a
    split before the statement would run once, not once per evaluation."""
    for anc in analysis.parents.chain(call):
        if isinstance(anc, ast.stmt):
            return
        if isinstance(anc, ast.Lambda):
            raise NoFix("the key is consumed inside a lambda: no statement runs before each call")
        if isinstance(anc, COMPREHENSIONS):
            raise NoFix("the key is consumed inside a comprehension: no statement runs before "
                        "each element")


def _holds(expr, node) -> bool:
    return any(sub is node for sub in ast.walk(expr))


def _loop_around(analysis, call, scope):
    """The innermost loop of `scope` whose body holds the call."""
    child = call
    for anc in analysis.parents.chain(call):
        if isinstance(anc, SCOPE_NODES) or anc is scope.node:
            break
        if isinstance(anc, LOOP_STATEMENTS):
            if any(child is stmt for stmt in anc.body):
                return anc
            if child is not None and child in (getattr(anc, "test", None), getattr(anc, "iter", None)):
                raise NoFix("the key is consumed in the loop's header, where no statement can "
                            "run before each evaluation")
        child = anc
    raise NoFix("no loop around the consumer holds it in its body")


def _own_line_indent(ctx, stmt) -> str:
    """The indentation of a statement that starts its own line (a split line goes before it)."""
    if getattr(stmt, "decorator_list", None):
        raise NoFix("the key is consumed in a decorator or a default of a def")
    start = ctx.text.line_start(stmt.lineno)
    at = ctx.text.offset(stmt.lineno, stmt.col_offset)
    indent = ctx.text.text[start:at]
    if indent.strip():
        raise NoFix("the statement shares its line with another one (`;` or a one-line block)")
    following = ctx.text.text[at:at + 5]
    if following.startswith("elif") and not (following[4:5].isalnum() or following[4:5] == "_"):
        raise NoFix("the key is consumed in an `elif` test: no statement fits before it")
    return indent


def _split_ref(ctx, call):
    """(how to spell jax.random.split here, edits adding an import if one is needed): the
    module the consumer is called through (`random.normal` -> `random.split`) when it is one."""
    resolve = ctx.analysis.imports.resolve
    func = call.func
    if isinstance(func, ast.Attribute) and resolve(func.value) == "jax.random":
        return f"{ctx.text.segment(func.value)}.split", []
    for dotted, suffix in (("jax.random.split", ""), ("jax.random", ".split")):
        local = ctx.alias_for(dotted)
        if local is not None:
            return local + suffix, []
    jax_ref, edits = ctx.module_ref("jax")
    return f"{jax_ref}.random.split", edits
