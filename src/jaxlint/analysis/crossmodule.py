"""Traced values that cross a module boundary: a jitted function in one module calling a helper
defined in another.

While the dataflow traces a function, a call of a function that another module of the project
defines, with a traced argument, is recorded as an `ExternalCall`: the target (file, name), what
each argument is (traced: its leaf kind, the path it took, the entry's parameters it comes from;
else nothing), and how the trace got there (entry, kind, file, the chain of calls with files).
Plain data, so it is cached with the file's result and handed to the analysis of the target
module, which runs the helper with those values: its findings land on the helper's lines and
name the chain across files (`train.py:6 step -> ops.py:5 clip_positive`).
"""

from __future__ import annotations

import ast
import bisect
import collections
import json
import os
import re
from dataclasses import dataclass
from typing import Optional

from jaxlint.analysis import api_tables as api
from jaxlint.analysis import values as vals
from jaxlint.project import bytes_digest


@dataclass(frozen=True)
class ExternalCall:
    path: str              # the file of the module that defines the callee
    name: str              # the callee's name in that module
    args: tuple            # per positional argument: a taint (see `taint_of`) or None
    kwargs: tuple          # ((keyword, taint or None), ...)
    entry: str             # the traced function the trace started from
    entry_kind: str        # "jitted function", "lax.scan body", ...
    origin: str            # the file of the entry
    chain: tuple           # ((callee, call line, file), ...) from the entry to this call

    def to_json(self) -> list:
        return [self.path, self.name, [list(t) if t else None for t in self.args],
                [[k, list(t) if t else None] for k, t in self.kwargs], self.entry, self.entry_kind, self.origin,
                [list(hop) for hop in self.chain]]

    @classmethod
    def from_json(cls, item) -> "ExternalCall":
        path, name, args, kwargs, entry, kind, origin, chain = item
        return cls(path, name, tuple(_taint(t) for t in args), tuple((k, _taint(t)) for k, t in kwargs),
                   entry, kind, origin, tuple(tuple(hop) for hop in chain))


def _taint(item):
    if item is None:
        return None
    if item[0] in ("static", "static-param"):
        return (item[0], item[1])
    leaf, path, params, boolish = item
    return (leaf, tuple(path), tuple(params), bool(boolish))


_LITERALS = (bool, int, float, str, type(None))


def taint_of(value, node=None) -> Optional[tuple]:
    """What crosses the boundary: for a traced value (leaf kind, path, parameters, boolish); for
    a literal written at the call (`node`, the argument's expression), or a name or attribute
    whose value the caller's flow knows as one literal (a constant of its module or of a config
    module), ("static", value); else None."""
    if value is None or value.diff:
        return None
    if value.traced:
        return (value.leaf, tuple(value.path), tuple(sorted(value.params)), bool(value.boolish))
    if isinstance(node, ast.Constant) and type(node.value) in _LITERALS:
        return ("static", node.value)
    if isinstance(node, (ast.Name, ast.Attribute)) and value.state == vals.STATIC \
            and type(value.const) in _LITERALS and value.const is not vals.NO_CONST:
        return ("static", value.const)    # a constant (`config.STEPS`, `N`): the same for every caller
    if value.state == vals.STATIC and value.text.startswith("static:") and value.const is vals.NO_CONST:
        return ("static-param", value.text[7:])    # a static parameter of the jitted entry, as it is
    return None


def value_of(taint) -> "vals.V":
    if taint is None:
        return vals.UNKNOWN_V
    if taint[0] == "static":
        return vals.static(taint[1])
    if taint[0] == "static-param":
        return vals.V(vals.STATIC, text=f"static:{taint[1]}")
    leaf, path, params, boolish = taint
    return vals.traced(leaf=leaf, path=tuple(path), params=frozenset(params), boolish=boolish)


class ProjectView:
    """What one module of a project sees of the others: the targets of its imported names, and
    the external calls its traces make (collected in `calls`)."""

    def __init__(self, project, path: str, tree):
        from jaxlint.project import import_bindings
        self.project = project
        self.path = os.path.abspath(path)
        self.imported = import_bindings(tree.body)
        self.calls: list = []
        self.depends: dict = {}      # files read -> digest (the Analysis shares its own dict)
        self._seen: set = set()
        self._targets: dict = {}
        self._outer: dict = {}

    def constant(self, node) -> Optional[ast.AST]:
        """The expression a module of the project binds once to what `node` names through this
        module's imports (`LRS` from `from .config import LRS`, `config.LRS`), else None."""
        if not isinstance(node, (ast.Name, ast.Attribute)):
            return None
        target = self.target_of(node)
        if target is None:
            return None
        value = constant_of(self.project, target.path, target.name)
        record_constant(self.depends, target.path, target.name, value)
        return value

    def target_of(self, func) -> Optional[object]:
        """The project Target a callee expression names through this module's imports."""
        parts = []
        node = func
        while hasattr(node, "attr") and hasattr(node, "value"):
            parts.append(node.attr)
            node = node.value
        root = getattr(node, "id", None)
        if root is None or root not in self.imported:
            return None
        dotted = ".".join([self.imported[root]] + list(reversed(parts)))
        if dotted not in self._targets:
            target = self.project.resolve(dotted, self.path)
            if target is not None and os.path.abspath(target.path) == self.path:
                target = None
            self._targets[dotted] = target
        return self._targets[dotted]

    def stores_outer_state(self, target) -> bool:
        """Does the project function `target` store into module state (stores_outer_state)?
        Under jit a helper given only static arguments runs in the trace too, and a key it
        splits into a global leaks (JAX109): such calls are followed without a traced argument.
        (Following every call without one across modules cost 40% more on JAX's own sources.)"""
        key = (target.path, target.name)
        found = self._outer.get(key)
        if found is None:
            stores, read = stores_outer_state(self.project, target.path, target.name)
            record_outer_state(self.depends, target.path, target.name, stores, read)
            found = self._outer[key] = stores
        return found

    def record(self, target, call, args, kwargs, frame, untraced: bool = False, arg_nodes=None) -> None:
        """Record a call of another module's function made by a trace with a traced argument
        (`untraced`: or without one, for a module that stores into module state). `arg_nodes`:
        the expressions of `args`, when they are not `call`'s own (a lax body called by JAX)."""
        line = call.lineno
        nodes = arg_nodes if arg_nodes is not None else [a for a in call.args if not isinstance(a, ast.Starred)]
        if arg_nodes is None and len(nodes) != len(call.args):
            return        # `f(*xs)`: which parameter gets what is not known
        by_keyword = {kw.arg: kw.value for kw in call.keywords if kw.arg is not None}
        taints = tuple(taint_of(v, node) for v, node in zip(args, nodes))
        ktaints = tuple((k, taint_of(v, by_keyword.get(k))) for k, v in kwargs.items())
        if not untraced and not any(t and t[0] != "static" for t in taints) and \
                not any(t and t[0] != "static" for _, t in ktaints):
            return
        here = self.path
        # (callee, line, file): a hop made in another module carries its file, ours is `here`
        chain = tuple((hop[0], hop[1], hop[3] if len(hop) > 3 and hop[3] else here)
                      for hop in frame.chain) + ((target.name, line, here),)
        origin = frame.origin or here
        self.add(ExternalCall(os.path.abspath(target.path), target.name, taints, ktaints, frame.entry,
                              frame.entry_kind, origin, chain))

    def add(self, call: ExternalCall) -> None:
        """Keep a call for the callee's module (once per callee, arguments, entry and origin)."""
        key = (call.path, call.name, call.args, call.kwargs, call.entry, call.origin)
        if key not in self._seen:
            self._seen.add(key)
            self.calls.append(call)


# -- what other modules hold, read once per version of each file ----------------------------------

# `global n` / `nonlocal n` as a statement at the start of a line
_OUTER_STATEMENT = re.compile(rb"^[ \t]*(?:global|nonlocal)[ \t]+[A-Za-z_]", re.M)
_TOP_DEF = re.compile(rb"^(?:async[ \t]+)?def[ \t]+([A-Za-z_]\w*)", re.M)
_TOP_LEVEL_LINE = re.compile(rb"^[^\s#)\]}]", re.M)


def _declares_outer(data: bytes) -> bool:
    """Does a line of the module start with a `global` or `nonlocal` statement (found from the
    words' occurrences: most modules that say `global` say it in a name, `global_device_count`)?"""
    for word in (b"global", b"nonlocal"):
        at = data.find(word)
        while at >= 0:
            start = data.rfind(b"\n", 0, at) + 1
            if not data[start:at].strip(b" \t") and _OUTER_STATEMENT.match(data, start):
                return True
            at = data.find(word, at + len(word))
    return False


def top_def_blocks(data: bytes) -> dict:
    """name -> the text of each module-level `def` (its signature and body: up to the next line
    that starts at column 0), read without parsing."""
    found = {}
    starts = None
    for match in _TOP_DEF.finditer(data):
        if starts is None:          # every line that starts a top-level statement, once
            starts = [m.start() for m in _TOP_LEVEL_LINE.finditer(data)]
        end_of_line = data.find(b"\n", match.end())
        if end_of_line < 0:
            found[match.group(1).decode()] = data[match.start():]
            continue
        at = bisect.bisect_right(starts, end_of_line)
        found[match.group(1).decode()] = data[match.start():starts[at] if at < len(starts) else len(data)]
    return found


def _def_blocks(project, path: str) -> dict:
    """name -> the text of each module-level def of the module at `path`, once per version."""
    from jaxlint.project import _read
    return per_version(project, "def blocks", path, lambda full: top_def_blocks(_read(full)), {})


def _declaring(project, path: str) -> frozenset:
    """The module-level defs of the module at `path` that declare `global` or `nonlocal` names
    and assign one of them from an expression naming a JAX import of the module (`global key`
    ... `key, sub = random.split(key)`): what a trace can leave a tracer in; once per version.
    Most modules have no such statement: their defs are not cut out."""
    def compute(full):
        from jaxlint.project import _read
        data = _read(full)
        if not _declares_outer(data):
            return frozenset()
        jax_names = {local.encode() for local, dotted in project.imports_of(full, data).items()
                     if dotted == "jax" or dotted.startswith("jax.")}
        if not jax_names:
            return frozenset()
        return frozenset(name for name, block in _def_blocks(project, full).items()
                         if _stores_jax_value(block, jax_names))
    return per_version(project, "declaring defs", path, compute, frozenset())


_DECLARED = re.compile(rb"^[ \t]*(?:global|nonlocal)[ \t]+([A-Za-z_][\w, \t]*)", re.M)


# A line assigning to names (`key, sub = ...`, `count += ...`): the targets, then the value
_ASSIGNMENT = re.compile(rb"^[ \t]*([\w, \t()]*)[-+*/@|&]?=(?!=)(.*)$", re.M)
_IDENTIFIER = re.compile(rb"[A-Za-z_]\w*")


def _stores_jax_value(block: bytes, jax_names) -> bool:
    """Does a def's text assign a name it declares `global`/`nonlocal` from an expression that
    names one of `jax_names` (the module's names for JAX imports)?"""
    declared = {n.strip() for m in _DECLARED.finditer(block) for n in m.group(1).split(b",") if n.strip()}
    return bool(declared) and any(
        not declared.isdisjoint(_IDENTIFIER.findall(m.group(1))) and not jax_names.isdisjoint(
            _IDENTIFIER.findall(m.group(2))) for m in _ASSIGNMENT.finditer(block))


def stores_outer_state(project, path: str, name: str) -> tuple:
    """(Does the module-level function `name` of the module at `path` store into module state
    (`global`/`nonlocal`), itself or through a function it calls that another module of the
    project defines and that does?, the files read to tell)."""
    def compute(full):
        if name in _declaring(project, full):
            return True, (full,)
        from jaxlint.project import _read
        block = top_def_block(_read(full), name)
        if block is None:
            return False, (full,)
        # only the imports the def calls are looked into: `ops.f(` of a module, `f(` of a function
        names, attrs = calls_in_text(block.decode("utf-8", "replace"))
        read = [full]
        for local, dotted in project.imports_of(full).items():
            if local not in names and local not in attrs:
                continue
            module_name = project.absolute(dotted, full)
            if module_name is None or not project.may_hold(module_name, full):
                continue
            module = project.module_path(module_name, full)
            if module is None:
                target = project.resolve(dotted, full) if local in names else None
                if target is None or not target.path.endswith(".py"):
                    continue
                read.append(os.path.abspath(target.path))
                if target.name in _declaring(project, target.path):
                    return True, tuple(dict.fromkeys(read))
            elif module.endswith(".py") and local in attrs:
                read.append(os.path.abspath(module))
                if _declaring(project, module) & attrs[local]:
                    return True, tuple(dict.fromkeys(read))
        return False, tuple(dict.fromkeys(read))
    return per_version(project, "outer state", path, compute, (False, ()), extra=name)


def top_def_block(data: bytes, name: str) -> Optional[bytes]:
    """The text of the module-level `def name` (the last one, as top_def_blocks cuts it), found
    from the occurrences of `def name`: one def, not every def of the module."""
    word = name.encode()
    last = None
    spelled = b"def " + word        # (`def\tname`, `def  name`: taken to be no def)
    at = data.find(spelled)
    while at >= 0:
        match = _TOP_DEF.match(data, data.rfind(b"\n", 0, at) + 1)
        if match is not None and match.group(1) == word and match.start(1) == at + 4:
            last = match                # the last def of that name, as top_def_blocks keeps
        at = data.find(spelled, at + len(spelled))
    if last is None:
        return None
    end_of_line = data.find(b"\n", last.end())
    following = _TOP_LEVEL_LINE.search(data, end_of_line + 1) if end_of_line >= 0 else None
    return data[last.start():following.start() if following is not None else len(data)]


_NORMALISED: dict = {}      # an absolute path -> its normal form (asked tens of thousands of times a run)


def _absolute(path: str) -> str:
    """os.path.abspath(path), remembered for paths that are absolute already (a relative path's
    answer depends on the working directory)."""
    found = _NORMALISED.get(path)
    if found is None:
        found = os.path.abspath(path)
        if os.path.isabs(path):
            if len(_NORMALISED) > 100_000:
                _NORMALISED.clear()
            _NORMALISED[path] = found
    return found


class Kept:
    """The latest few answers that hold a whole syntax tree (~37 bytes of memory per byte of
    source; an analysis of it, more), bounded by their count and by the source bytes behind them:
    eight trees of jax's largest modules would hold 40 MB. The newest answer is always kept."""

    def __init__(self, items: int, source_bytes: int):
        self.items, self.source_bytes = items, source_bytes
        self._kept: "collections.OrderedDict" = collections.OrderedDict()   # key -> (value, size)
        self._bytes = 0

    def get(self, key, default=None):
        found = self._kept.get(key)
        if found is None:
            return default
        self._kept.move_to_end(key)
        return found[0]

    def __contains__(self, key) -> bool:
        return key in self._kept

    def __len__(self) -> int:
        return len(self._kept)

    def put(self, key, value, size: int):
        old = self._kept.pop(key, None)
        if old is not None:
            self._bytes -= old[1]
        self._kept[key] = (value, size)
        self._bytes += size
        while len(self._kept) > 1 and (len(self._kept) > self.items or self._bytes > self.source_bytes):
            self._bytes -= self._kept.popitem(last=False)[1][1]

    def clear(self):
        self._kept.clear()
        self._bytes = 0


def per_version(project, kind: str, path: str, compute, missing, extra="", keep: Optional[tuple] = None):
    """`compute(absolute path)` once per version (mtime and size) of the file at `path` and per
    `extra` (settings that change the answer), kept in the project under `kind` (with `keep`,
    (answers, source bytes): only the latest asked, for answers that hold a whole syntax tree);
    `missing` when the file cannot be read."""
    from jaxlint.project import version
    full = _absolute(path)
    stamp = version(full)
    if stamp is None:
        return missing
    key = (full, stamp, extra)
    cache = project.__dict__.get("_per_version_" + kind)
    if cache is None:
        cache = project.__dict__["_per_version_" + kind] = Kept(*keep) if keep else {}
    if key in cache:
        return cache.get(key)
    found = compute(full)
    if keep:
        cache.put(key, found, stamp[1])
    else:
        cache[key] = found
    return found


def _wrappers(config) -> dict:
    return getattr(config, "jit_decorators", None) or {}


# -- jitted functions of other modules, for the call-site rules ------------------------------------

def jit_entries_of(project, path: str, config=None) -> tuple:
    """Module-level name -> TracedEntry of each compiled jit site of the module at `path` that a
    caller elsewhere can call by that name (`step` of `@jax.jit def step`, `g` of `g = jax.jit(f)`),
    built from the module's own index and cached per version of the file. The entry carries
    `home` (the file) and `home_imports`, so that rules reading its body resolve its names there.
    Returns (entries by name, a digest of the file's bytes: what a cached result depends on)."""
    wrappers = _wrappers(config)
    return per_version(project, "jit_entries", path, lambda full: _read_jit_entries(full, wrappers),
                       ({}, ""), repr(sorted(wrappers.items())))


def jit_entry_names(project, path: str, config=None) -> frozenset:
    """The names of `jit_entries_of(path)`, without parsing the module when a process before
    this one already did: kept in the result cache (`project.use_cache`) under the module's
    bytes, path and jit wrappers. A module of hundreds of functions is often imported for a
    name that is not a jit site; this answers it from one small entry."""
    wrappers = _wrappers(config)
    extra = repr(sorted(wrappers.items()))
    return per_version(project, "jit_entry_names", path,
                       lambda full: _read_jit_entry_names(project, full, config, extra), frozenset(), extra)


_NAMES_SUFFIX = ".names"        # beside the result entries (.json) of the cache


def _read_jit_entry_names(project, full: str, config, extra: str) -> frozenset:
    from jaxlint.project import result_cache
    cache = result_cache()
    key = None
    if cache is not None:
        key = cache.key_of_digest(full, file_digest(full), f"{extra}\0jit-entry-names\0{full}")
        kept = cache.get_payload(full, key, _NAMES_SUFFIX)
        if isinstance(kept, list) and all(isinstance(name, str) for name in kept):
            return frozenset(kept)
    names = frozenset(jit_entries_of(project, full, config)[0])
    if key is not None:
        cache.put(full, key, sorted(names), _NAMES_SUFFIX)
    return names


def may_jit(project, path: str, name: str, config=None) -> bool:
    """Could the module at `path` bind `name` to a jitted function? False when no decorator
    line above a `def name` and no `name = ...` statement near a mention of jit or a configured
    wrapper binds it (read from the text once per version of the module: most imported names are
    not jitted, and their modules need no parsing)."""
    from jaxlint.project import _read
    wrappers = _wrappers(config)
    words = [b"jit"] + [w.rsplit(".", 1)[-1].encode() for w in wrappers]
    return name in per_version(project, "jit_names", path, lambda full: _jit_names(_read(full), words),
                               frozenset(), repr(sorted(wrappers.items())))


# A name or dotted chain followed by `(`, read backwards: in the reversed text each match starts at
# a `(` (a literal the regex engine jumps to), then optional whitespace, then the chain reversed,
# which must end (begin, read forwards) with a letter or `_` not preceded by a word character or
# a dot. Scanning forwards from every identifier cost seven times as much.
_CALLED_CHAIN_REVERSED = re.compile(r"\(\s*([\w.]*[A-Za-z_])(?![\w.])")


def calls_in_text(text: str) -> tuple:
    """(names called, {name: attributes called on it}) of a module's text, from one scan: a
    cheap first look at `f(...)` and `mod.f(...)` (the calls themselves are found in the tree)."""
    names, attrs = set(), {}
    for reversed_chain in reversed(_CALLED_CHAIN_REVERSED.findall(text[::-1])):
        head, _, rest = reversed_chain[::-1].partition(".")
        if not rest:
            names.add(head)
        else:
            attrs.setdefault(head, set()).add(rest.split(".", 1)[0])
    return names, attrs


def calls_project_jit(project, path: str, data: bytes, config=None, depends: Optional[dict] = None) -> bool:
    """Does a module that never mentions jax call a jitted function of another module of the
    project (`from .model import step` ... `step(x)`, `model.step(x)`)? Read from its import
    statements and text, without parsing it; the modules looked into go in `depends`."""
    from jaxlint.project import import_bindings, top_level_imports
    imported = import_bindings(top_level_imports(data))
    if not imported:
        return False
    names, attrs = calls_in_text(data.decode("utf-8", "replace"))
    return bool(jitted_imports(project, path, imported, names, attrs, config,
                               depends if depends is not None else {}))


def jitted_imports(project, path: str, imported: dict, names: set, attrs: dict, config, depends: dict,
                   skip=()) -> set:
    """The local names of a module's imports (`imported`: local -> dotted) through which its text
    calls a jitted function of another module of the project: a function imported by name and
    called (`step(...)`), or a module whose attributes are called (`train.step(...)`). `names`
    and `attrs` are what the text calls (calls_in_text); the modules read go in `depends`."""
    roots = set()
    for local, dotted in imported.items():
        if local in skip or (local not in names and local not in attrs):
            continue                    # neither called nor a module whose functions are
        name = project.absolute(dotted, path)
        if name is None or not project.may_hold(name, path):
            continue                    # not a module of the project (jax, numpy...)
        module = project.module_path(name, path)
        if module is not None:          # `import pkg.train as T` ... `T.step(...)`
            called = attrs.get(local, set())
            jitted = {attr for attr in called if may_jit(project, module, attr, config)}
            for attr in sorted(called - jitted):
                record_not_jit(depends, module, attr, config)
            if jitted:
                roots.add(local)        # each call is looked at (Analysis._foreign_calls)
            continue
        target = project.resolve(dotted, path) if local in names else None
        if target is None:              # `from pkg.train import step` ... `step(...)`
            continue
        if not may_jit(project, target.path, target.name, config) \
                or target.name not in jit_entry_names(project, target.path, config):
            record_not_jit(depends, target.path, target.name, config)
            continue
        entries, digest = jit_entries_of(project, target.path, config)
        depends[os.path.abspath(target.path)] = digest
        if target.name in entries:
            roots.add(local)
    return roots


# -- what a cached answer read: a module's bytes, or a fact about a module -----------------------
#
# A cached answer lists in `depends` what it read: a file's path with the digest of its bytes, or
# (record_fact) a fact about a module that it took from some files, with their digests. Once one
# of those files changes, a file entry fails; a fact entry is decided again, and the answer holds
# if the fact does (an edit of a helper imported by hundreds of modules leaves valid their cached
# answers that only learnt that its names are no jit sites, that its functions keep no state, the
# value and place of one of its constants, or what one of its classes is).

def record_fact(depends: dict, files, kind: str, module: str, *fact: str) -> None:
    """Record in `depends` that an answer relied on the fact `kind` about `module` (see
    _FACT_CHECKS), decided from `files`: one entry per file, each naming the fact (the module
    and the files are left out where they are the entry's own file)."""
    module = _absolute(module)
    files = tuple(dict.fromkeys(_absolute(f) for f in files))
    joined = "|".join(files) if len(files) > 1 else ""
    for full in files:
        depends["\0".join((full, kind, "" if module == full else module) + fact + (joined,))] = file_digest(full)


def compact_depends(depends: dict) -> dict:
    """`depends` without the facts about a file whose bytes are recorded too (its bytes decide)."""
    if all("\0" not in key for key in depends):
        return dict(depends)
    return {key: digest for key, digest in depends.items()
            if "\0" not in key or key.partition("\0")[0] not in depends}


def record_not_jit(depends: dict, path: str, name: str, config) -> None:
    """Record that an answer took `name` of the module at `path` for no jit site."""
    record_fact(depends, (path,), _NOT_JIT, path, _wrappers_text(config), name)


def _wrappers_text(config) -> str:
    """The configured jit wrappers as the text a "not jit" fact keeps (asked for every name)."""
    wrappers = _wrappers(config)
    if not wrappers:
        return "[]"
    key = repr(sorted(wrappers.items()))
    found = _WRAPPERS_TEXT.get(key)
    if found is None:
        found = _WRAPPERS_TEXT[key] = json.dumps(sorted(
            [name, list(value) if isinstance(value, (list, tuple)) else value] for name, value in wrappers.items()))
    return found


_WRAPPERS_TEXT: dict = {}


def record_outer_state(depends: dict, path: str, name: str, stores: bool, files) -> None:
    """Record that an answer took the function `name` of the module at `path` to store module
    state (or not: `stores`), as stores_outer_state decided from `files`."""
    record_fact(depends, files, _OUTER_STATE, path, name, "1" if stores else "0")


def record_constant(depends: dict, path: str, name: str, value: Optional[ast.AST]) -> None:
    """Record that an answer took `value` (None: no constant) for the name `name` of the module
    at `path` (constant_of), with its place in the module: a moved constant is another fact."""
    record_fact(depends, (path,), _CONSTANT, path, name, _constant_digest(value))


def record_class(depends: dict, path: str, name: str, cls) -> None:
    """Record that an answer took `cls` (a ClassInfo; None: no class) for the top-level class
    `name` of the module at `path`. Its readers take the class's own code, bases and flags (how
    it hashes, whether it is a pytree), never another class of that module (its bases are names
    there, not looked up)."""
    record_fact(depends, (path,), _CLASS, path, name, _class_digest(cls))


def _class_digest(cls) -> str:
    if cls is None:
        return "-"
    return bytes_digest(repr((ast.dump(cls.node), cls.name, cls.bases, cls.is_pytree, cls.dataclass,
                              cls.defines_eq, cls.defines_hash, cls.registered_here)).encode())


def _still_class(project, files: set, path: str, name: str, digest: str) -> bool:
    return _class_digest(module_classes(project, path)[0].get(name)) == digest


def _constant_digest(value: Optional[ast.AST]) -> str:
    return "-" if value is None else bytes_digest(ast.dump(value, include_attributes=True).encode())


def _still_constant(project, files: set, path: str, name: str, digest: str) -> bool:
    return _constant_digest(constant_of(project, path, name)) == digest


def _still_not_jit(project, files: set, path: str, wrappers: str, name: str) -> bool:
    config = _Wrappers({key: tuple(value) if isinstance(value, list) else value
                        for key, value in json.loads(wrappers)})
    return not (may_jit(project, path, name, config) and name in jit_entry_names(project, path, config))


def _still_stores(project, files: set, path: str, name: str, stores: str) -> bool:
    found, read = stores_outer_state(project, path, name)
    return found == (stores == "1") and set(read) <= files     # decided from no file unrecorded


_NOT_JIT = "not jit"
_OUTER_STATE = "outer state"
_CONSTANT = "constant"
_CLASS = "class"
_FACT_CHECKS = {_NOT_JIT: _still_not_jit, _OUTER_STATE: _still_stores, _CONSTANT: _still_constant,
                _CLASS: _still_class}


def dependency_holds(key: str, digest: str) -> bool:
    """Does what a cached answer read (an entry of its `depends`) still hold? Raises on an entry
    that is neither a file nor a known fact (the caller takes it for a changed module). Decided
    once per run: the entries of one project's answers name the same modules over and over."""
    from jaxlint.project import run_number
    if _HOLDS[0] != run_number():
        _HOLDS[:] = [run_number(), {}]
    found = _HOLDS[1].get((key, digest))
    if found is None:
        found = _HOLDS[1][key, digest] = _holds(key, digest)
    return found


_HOLDS: list = [None, {}]       # [run number, {(entry, digest): holds}]


def _holds(key: str, digest: str) -> bool:
    path, _, fact = key.partition("\0")
    if file_digest(path) == digest:
        return True
    if not fact:
        return False
    kind, module, *args, files = fact.split("\0")
    check = _FACT_CHECKS[kind]
    from jaxlint.project import project_of
    module = module or path
    project = project_of(module)
    return project is not None and check(project, set(files.split("|")) if files else {path}, module, *args)


def depended_files(depends: dict) -> set:
    """The files the entries of a `depends` read."""
    return {key.partition("\0")[0] for key in depends}


class _Wrappers:
    """The one setting that a "not jit" fact keeps in its entry: the configured jit wrappers."""

    def __init__(self, jit_decorators: dict):
        self.jit_decorators = jit_decorators


_DEF = re.compile(rb"^[ \t]*(?:async[ \t]+)?def[ \t]+([A-Za-z_]\w*)", re.M)
_ASSIGNED = re.compile(rb"^[ \t]*([A-Za-z_]\w*)[ \t]*(?::[^=\n]*)?=(?!=)", re.M)


def _jit_names(data: bytes, words: list) -> frozenset:
    """Names defined or assigned near a mention of one of `words`: the first `def` within the 12
    lines after it (its decorators), the assignments within the 4 lines before it (a call spread
    over lines) and on its own line."""
    found = set()
    for word in words:
        at = data.find(word)
        while at >= 0:
            line_start = data.rfind(b"\n", 0, at) + 1
            after = line_start
            for _ in range(13):
                nxt = data.find(b"\n", after)
                if nxt < 0:
                    after = len(data)
                    break
                after = nxt + 1
            if data[line_start:at].lstrip().startswith(b"@"):       # a decorator line
                match = _DEF.search(data, line_start, after)
                if match:
                    found.add(match.group(1).decode())
            before = line_start
            for _ in range(4):
                if before <= 0:
                    break
                before = data.rfind(b"\n", 0, before - 1) + 1
            line_end = data.find(b"\n", at)
            follows = data[at + len(word):at + len(word) + 1]
            if follows in (b"(", b",", b")"):        # `jax.jit(f)`, `partial(jax.jit, ...)`
                for match in _ASSIGNED.finditer(data, before, line_end if line_end >= 0 else len(data)):
                    found.add(match.group(1).decode())
            at = data.find(word, line_end if line_end >= 0 else len(data))
    return frozenset(found)


def _read_jit_entries(path: str, wrappers: dict) -> tuple:
    from jaxlint.analysis.module import ModuleIndex
    from jaxlint.analysis.names import ImportMap
    from jaxlint.analysis.traced import TracedFinder
    from jaxlint.project import _read
    data = _read(path)
    digest = bytes_digest(data)
    if b"jit" not in data and not any(w.rsplit(".", 1)[-1].encode() in data for w in wrappers):
        return {}, digest
    try:
        tree = parsed_tree(path, data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}, digest
    lines = data.decode("utf-8", "replace").splitlines()
    try:
        imports = ImportMap(tree, lines)
        index = ModuleIndex(tree, imports, lines)
        entries = TracedFinder(index, wrappers, lines).find()
    except RecursionError:
        return {}, digest
    found = {}
    for entry in entries:
        if not (entry.is_jit and entry.compiled) or entry.spec.unresolved or entry.name_scope is not None:
            continue
        if entry.outer and entry.outer not in api.VALUE_PRESERVING_OUTER:
            continue          # another decorator over the jit: what its calls hand on is unknown
        if entry.func is not None and entry.func.is_method and not entry.bound:
            continue          # called as `obj.m(...)`: not a module-level name
        entry.home, entry.home_imports = path, imports
        for name in entry.call_names:
            found.setdefault(name, entry)
    return found, digest


_TOP_ASSIGNED = re.compile(rb"^([A-Za-z_]\w*)[ \t]*(?::[^=\n]*)?=(?!=)", re.M)


def may_be_constant(project, path: str, name: str) -> bool:
    """Does a line of the module start with `name = ` (a top-level assignment)? Read from the
    text once per version of the module, so that only such names parse it."""
    from jaxlint.project import _read
    return name in per_version(project, "top_assigned", path, lambda full: frozenset(
        m.decode() for m in _TOP_ASSIGNED.findall(_read(full))), frozenset())


def constant_of(project, path: str, name: str) -> Optional[ast.AST]:
    """The expression the module at `path` binds once, at top level, to `name`, else None."""
    if not may_be_constant(project, path, name):
        return None
    return module_constants(project, path)[0].get(name)


def module_constants(project, path: str) -> tuple:
    """(name -> value expression, digest) for the names the module at `path` binds exactly once,
    by a top-level `NAME = value` (a config module's `LAYERS = [64, 32]`): what importing the
    name gives, as long as nothing rebinds it (`global NAME` in a def, a second binding)."""
    return per_version(project, "constants", path, _read_constants, ({}, ""))


def _read_constants(path: str) -> tuple:
    """Read from the text, parsing only each candidate's own statement: a name assigned once at
    the start of a line (`NAME = value`), bound nowhere else in the module (no indented
    assignment, def, class, import or `global` naming it)."""
    from jaxlint.project import _read
    data = _read(path)
    digest = bytes_digest(data)
    found = {}
    assigned: dict = {}
    for match in _TOP_ASSIGNED.finditer(data):
        assigned.setdefault(match.group(1), []).append(match.start())
    elsewhere = _bound_elsewhere(data) if assigned else set()
    for raw, starts in assigned.items():
        name = raw.decode()
        if len(starts) != 1 or raw in elsewhere:
            continue
        value = _statement_value(data, starts[0], name)
        if value is not None:
            found[name] = value
    return found, digest


# Where else a module binds a name, one scan per kind for every name at once: an indented
# assignment, a def or class, a name on an import or `global` line, a loop variable of a `for`.
_INDENTED_ASSIGNED = re.compile(rb"^[ \t]+([A-Za-z_]\w*)[ \t]*(?::[^=\n]*)?=(?!=)", re.M)
_DEFINED = re.compile(rb"^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+([A-Za-z_]\w*)", re.M)
_IMPORT_OR_GLOBAL_LINE = re.compile(rb"^[ \t]*(?:from|import|global)\b([^\n]*)", re.M)
_FOR_LINE = re.compile(rb"^[ \t]*for\b([^\n]*)", re.M)
_BYTES_WORD = re.compile(rb"\w+")
_BYTES_IN = re.compile(rb"\bin\b")


def _bound_elsewhere(data: bytes) -> set:
    """The names the module's text binds other than at the start of a line: assigned on an
    indented line, named by a def or class, on an import or `global` line, or before the last
    `in` of a `for` line."""
    names = set(_INDENTED_ASSIGNED.findall(data)) | set(_DEFINED.findall(data))
    for rest in _IMPORT_OR_GLOBAL_LINE.findall(data):
        names.update(_BYTES_WORD.findall(rest))
    for rest in _FOR_LINE.findall(data):
        last = None
        for match in _BYTES_IN.finditer(rest):
            last = match.start()
        if last is not None:
            names.update(_BYTES_WORD.findall(rest, 0, last))
    return names


def _statement_value(data: bytes, start: int, name: str):
    """The value of the assignment statement starting at `start` (it runs on while a bracket is
    open or a line ends with a backslash), or None when it does not parse alone."""
    end, depth = start, 0
    while True:
        stop = data.find(b"\n", end)
        line = data[end:stop if stop >= 0 else len(data)]
        depth += sum(line.count(c) for c in (b"(", b"[", b"{")) - sum(line.count(c) for c in (b")", b"]", b"}"))
        end = stop + 1 if stop >= 0 else len(data)
        if stop < 0 or depth <= 0 and not line.rstrip().endswith(b"\\"):
            break
    try:
        body = ast.parse(data[start:end].decode("utf-8", "replace")).body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if len(body) != 1:
        return None
    stmt = body[0]
    ast.increment_lineno(stmt, data.count(b"\n", 0, start))     # the lines of the module, not of the chunk
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
            and stmt.targets[0].id == name:
        return stmt.value
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == name:
        return stmt.value
    return None


_TREES = Kept(8, 600_000)    # (path, hash of bytes) -> tree


def parsed_tree(path: str, data: bytes):
    """The syntax tree of another module's bytes, parsed once for the several questions asked of
    it (its jit sites, constants, classes, calls), the latest few kept; raises SyntaxError & co."""
    key = (path, len(data), hash(data))
    tree = _TREES.get(key)
    if tree is None:
        tree = ast.parse(data, path)
        _TREES.put(key, tree, len(data))
    return tree


_DIGESTS: dict = {}       # (path, mtime, size) -> digest, per process


def file_digest(path: str) -> str:
    """The digest `jit_entries_of` records for a file (to check a cached result is current),
    computed once per version of the file: a module of a project whose version is unchanged
    since a run before keeps the digest that run found (Project.kept_digest), unread."""
    from jaxlint.project import _read, project_of, version
    stamp = version(path)
    if stamp is None:
        return bytes_digest(b"")
    key = (path, stamp)
    if key not in _DIGESTS:
        project = project_of(path)
        kept = project.kept_digest(path) if project is not None else None
        _DIGESTS[key] = kept[0] if kept is not None else bytes_digest(_read(path))
    return _DIGESTS[key]


# -- callers in other modules, for the repetition of a def ---------------------------------------

MAX_IMPORTERS_READ = 50       # importing files read to find the loops that call one def
MAX_IMPORTER_MODULES = (8, 400_000)   # of those, the latest kept: (modules, source bytes); each holds a whole tree


@dataclass(eq=False)
class ImporterCall:
    """A call, in another module of the project, of a module-level function of ours, or of a
    method of one of our module-level classes on an object of that class."""

    call: ast.Call
    caller: object         # FuncInfo of the def the call is in there (None: module level)
    repetition: object     # that module's Repetition (its loops and callers)
    path: str              # that module's file
    receiver: object = None  # the object a method is called on (`agent` of `agent.act(...)`)


def importer_calls(project, path: str, name: str, config=None, depends: Optional[dict] = None,
                   cls: Optional[str] = None) -> list:
    """The calls of the module-level function `name` of the module at `path` made by the project's
    modules that import it (read once per version of each; at most MAX_IMPORTERS_READ files); with
    `cls`, the calls of the method `name` of that class on its objects (`Agent(...).act(x)`,
    `agent = Agent(); agent.act(x)`). Each file read is recorded in `depends` with the digest of
    its bytes."""
    found = []
    home = os.path.abspath(path)
    wanted = cls if cls is not None else name
    from jaxlint.project import _read
    for other in project.importers(path)[:MAX_IMPORTERS_READ]:
        if depends is not None:
            depends[os.path.abspath(other)] = file_digest(other)
        data = _read(other)     # the text first: most importers never name the function
        if name.encode() not in data or wanted.encode() not in data:
            continue
        module = _importer_module(project, other, config)
        if module is None:
            continue
        for call in module.calls_named(name):
            if cls is None:
                target = module.view.target_of(call.func)
                receiver = None
            elif isinstance(call.func, ast.Attribute):
                receiver = call.func.value
                made = module.constructor_of(receiver, call)
                target = module.view.target_of(made.func) if made is not None else None
            else:
                continue
            if target is not None and os.path.abspath(target.path) == home and target.name == wanted:
                found.append(ImporterCall(call, module.repetition.function_of(call), module.repetition,
                                          other, receiver))
    return found


def classes_passed_by_importers(project, path: str, cls_name: str, param: str, position: Optional[int],
                                config=None, depends: Optional[dict] = None) -> list:
    """What the project's other modules pass for the parameter `param` (`position` among the
    positional ones after `self`) when they make an object of the class `cls_name` of the module
    at `path`: `Trainer(model)` with `model = Net()` there. Per call: the ClassInfo of the class
    made (read in the module defining it), its name when that module is the one at `path`, or
    None when the call does not show it."""
    found = []
    home = os.path.abspath(path)
    for item in importer_calls(project, path, cls_name, config, depends):
        call = item.call
        arg = next((kw.value for kw in call.keywords if kw.arg == param), None)
        if arg is None and position is not None and position < len(call.args):
            arg = call.args[position]
        module = _importer_module(project, item.path, config)
        if arg is None or module is None or any(isinstance(a, ast.Starred) for a in call.args) \
                or any(kw.arg is None for kw in call.keywords):
            found.append(None)
            continue
        made = module.constructor_of(arg, call)
        if made is None or not isinstance(made.func, (ast.Name, ast.Attribute)):
            found.append(None)
            continue
        target = module.view.target_of(made.func)
        if target is None and isinstance(made.func, ast.Name):
            where, name = item.path, made.func.id        # a class of the importing module itself
        elif target is not None:
            where, name = target.path, target.name
        else:
            found.append(None)
            continue
        if os.path.abspath(where) == home:
            found.append(name)
            continue
        classes, digest = module_classes(project, where)
        if depends is not None:
            depends[os.path.abspath(where)] = digest
        found.append(classes.get(name))
    return found


class _ImporterModule:
    """What the repetition of another module's def needs from one importing module."""

    def __init__(self, path: str, data: bytes, tree, lines, project, wrappers):
        from jaxlint.analysis.module import ModuleIndex
        from jaxlint.analysis.names import ImportMap
        from jaxlint.analysis.repetition import Repetition
        from jaxlint.analysis.syntax import Parents
        from jaxlint.analysis.traced import TracedFinder
        self.data = data
        self.digest = bytes_digest(data)
        self.tree = tree
        self.lines = lines
        index = ModuleIndex(tree, ImportMap(tree, lines), lines)
        traced = {id(e.node) for e in TracedFinder(index, wrappers, lines).find()}
        self.repetition = Repetition(tree, Parents(tree), index, lines, traced)
        self.view = ProjectView(project, path, tree)

    def calls_named(self, name: str) -> list:
        return [c for c in self.repetition._find_calls(self.tree, {name})
                if isinstance(c.func, (ast.Name, ast.Attribute))]

    def constructor_of(self, receiver, at) -> Optional[ast.Call]:
        """The call that made the object `receiver` names at `at`: the receiver itself
        (`Agent(...).act`), or the one value its name holds there (`agent = Agent(...)`)."""
        if isinstance(receiver, ast.Call):
            return receiver
        if not isinstance(receiver, ast.Name):
            return None
        model = self.repetition.model
        caller = self.repetition.function_of(at)
        bound = model.value(receiver.id, model.statement_of(at), model.scope(caller.node if caller is not None else None))
        return bound if isinstance(bound, ast.Call) else None


def _importer_module(project, path: str, config) -> Optional[_ImporterModule]:
    wrappers = _wrappers(config)
    return per_version(project, "importer_modules", path,
                       lambda full: _read_importer_module(project, full, wrappers), None,
                       repr(sorted(wrappers.items())), keep=MAX_IMPORTER_MODULES)


def _read_importer_module(project, full: str, wrappers: dict) -> Optional[_ImporterModule]:
    from jaxlint.project import _read
    data = _read(full)
    try:
        return _ImporterModule(full, data, parsed_tree(full, data), data.decode("utf-8", "replace").splitlines(),
                               project, wrappers)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


# -- classes of other modules ---------------------------------------------------------------------

def module_classes(project, path: str) -> tuple:
    """(name -> ClassInfo of the module's top-level classes, digest), from the module's own index,
    once per version of the file: how its instances hash (a dataclass's flags, __eq__/__hash__)."""
    return per_version(project, "classes", path, _read_classes, ({}, ""))


def _read_classes(full: str) -> tuple:
    from jaxlint.analysis.module import ModuleIndex
    from jaxlint.analysis.names import ImportMap
    from jaxlint.project import _read
    data = _read(full)
    digest = bytes_digest(data)
    classes = {}
    if b"class " in data:
        try:
            tree = parsed_tree(full, data)
            lines = data.decode("utf-8", "replace").splitlines()
            index = ModuleIndex(tree, ImportMap(tree, lines), lines)
            classes = {name: cls for name, cls in index.classes.items() if name in index.top_classes}
            for cls in classes.values():
                cls.home = full       # its bases are names of that module, not of the caller's
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            classes = {}
    return classes, digest
