"""JAX401 prng-key-reuse."""

import ast

from jaxlint.analysis import api_tables as api
from jaxlint.analysis.syntax import LineFilter, pruned_walk
from jaxlint.findings import Finding
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
        rebinding (`key, sub = jax.random.split(key)`) starts a new value. Two identical calls
        on one key (a reproducibility check) are not flagged, except `split`: two equal splits
        hand out the same subkeys twice.
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
    fix = "No automatic fix yet: split the key before the second use (`key, sub = jax.random.split(key)`)."

    def check(self, analysis):
        words = {"random"} | {local for local, target in analysis.imports.aliases.items()
                              if target.startswith("jax.random")}
        consumers = {}
        for node in pruned_walk(analysis.tree, LineFilter(analysis.lines, words)):
            if isinstance(node, ast.Call):
                key = _consumed_key(analysis, node)
                if key is not None:
                    consumers[id(key)] = (node, key)
        if not consumers:
            return
        model = analysis.model
        reported = set()
        for call, key in sorted(consumers.values(), key=lambda item: (item[0].lineno, item[0].col_offset)):
            scope = model.scope_of(call)
            stmt = model.statement_of(call)
            if stmt is None:
                continue
            for _, node in scope.reads_after(key.id, stmt):
                again = consumers.get(id(node))
                if again is None or id(node) in reported:
                    continue
                second = again[0]
                if second is not call and ast.dump(second) == ast.dump(call) \
                        and _name(analysis, call) != "jax.random.split":
                    continue      # the same draw twice: a reproducibility check (two equal splits are not)
                reported.add(id(node))
                first = _name(analysis, call)
                where = ("in every iteration of the loop around it: each draw repeats the last"
                         if second is call else
                         f"`{first}` at line {call.lineno} already consumed it, with no split between")
                yield Finding(
                    code=self.code, line=second.lineno, col=second.col_offset, param=key.id,
                    message=f"PRNG key `{key.id}` is consumed again by `{_name(analysis, second)}`",
                    detail=(f"{where[0].upper()}{where[1:]}, so the numbers are identical or "
                            f"correlated (typed keys raise KeyReuseError under jax_debug_key_reuse). "
                            f"Fix: split first (`{key.id}, sub = jax.random.split({key.id})`) and "
                            f"use the new key once"))
                break


def _name(analysis, call) -> str:
    return analysis.imports.resolve(call.func) or ast.unparse(call.func)


def _consumed_key(analysis, call):
    """The Name node of the key a jax.random call consumes, or None."""
    qual = analysis.imports.resolve(call.func) or ""
    if not qual.startswith("jax.random.") or qual in api.KEY_NOT_CONSUMED:
        return None
    if call.args and not isinstance(call.args[0], ast.Starred):
        node = call.args[0]
    else:
        node = next((kw.value for kw in call.keywords if kw.arg == "key"), None)
    return node if isinstance(node, ast.Name) else None
