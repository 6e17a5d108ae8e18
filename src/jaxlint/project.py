"""The project around a file: its root, its modules, and what an imported name refers to.

A JAX program is several modules: the jitted step in `train.py`, its helpers in `ops.py`. The
index maps module names to files and back, without importing anything: a project root is the
nearest folder upward holding `pyproject.toml`, `setup.cfg`, `setup.py` or `.git`; its source
roots are `src/` (when it holds packages) and the root itself. An imported name (`from .ops
import clip`, `import pkg.ops as ops; ops.clip`, a re-export through `__init__.py`) resolves to
the file of the module that defines it and the name inside that module. Installed packages are
outside the project and never read.

Only what is asked is read (a module's imports, for a re-export), once per content; every
question has a small budget, so a large tree costs only what the linted files reach.
"""

from __future__ import annotations

import ast
import bisect
import hashlib
import os
import re
import stat
from dataclasses import dataclass, field
from typing import Optional

ROOT_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", ".git")
SKIP_DIRS = {".git", ".hg", ".svn", ".tox", ".nox", ".venv", "venv", "env", "__pycache__", "node_modules",
             "build", "dist", ".eggs", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".jaxlint_cache"}
MAX_RE_EXPORT_HOPS = 4
MAX_BOUNDARIES = 3      # module boundaries a trace is followed through, by every front end
MAX_FILES = 20_000
MAX_IMPORTED = 200     # files a program's imports are followed to (JAX402: does one of them enable x64?)


def find_root(path: str) -> Optional[str]:
    """The project root of a file or folder: the nearest folder upward with a root marker; with
    none, the folder Python would run it from (the one above its outermost package)."""
    start = os.path.abspath(path)
    if not os.path.isdir(start):
        start = os.path.dirname(start)
    here = start
    while True:
        if any(os.path.exists(os.path.join(here, marker)) for marker in ROOT_MARKERS):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return package_root(os.path.join(start, "__init__.py"))
        here = parent


_SHARED: dict = {}        # project root -> Project, per process

# Which run of the linter this process is in: a run (`jaxlint check`, a flake8 run, one buffer
# linted by the language server) reads each file once, so what was found to hold in this run
# still holds; answers kept from an earlier run are checked again against the files.
_RUN = [0]


def next_run() -> None:
    _RUN[0] += 1
    _STAMPS.clear()


# path -> version(path), looked up once per run: a run reads each file once, and the same modules
# are asked about by every module importing them (a library run stats ~100,000 times otherwise).
_STAMPS: dict = {}


def run_number() -> int:
    return _RUN[0]
_ROOT_OF: dict = {}       # folder -> project root


def project_of(path: str, config=None) -> Optional["Project"]:
    """The project a file on disk belongs to, one Project per root in this process (None for a
    file not on disk, or when the configuration asks for file-local analysis)."""
    if config is not None and not getattr(config, "project_analysis", True):
        return None
    if not path or path.startswith("<") or not os.path.isfile(path):
        return None
    folder = os.path.dirname(os.path.abspath(path))
    if folder not in _ROOT_OF:
        _ROOT_OF[folder] = find_root(folder)
    return project_at(_ROOT_OF[folder])


def project_at(root: Optional[str]) -> Optional["Project"]:
    """The one Project of this process for a root folder (None for no root)."""
    if not root:
        return None
    if root not in _SHARED:
        _SHARED[root] = Project.at(root)
    return _SHARED[root]


def package_root(path: str) -> str:
    """The folder above the outermost package holding a file (its own folder outside packages):
    where `python -m` or a script beside it would import it from."""
    here = os.path.dirname(os.path.abspath(path))
    while os.path.isfile(os.path.join(here, "__init__.py")):
        parent = os.path.dirname(here)
        if parent == here:
            break
        here = parent
    return here


@dataclass(frozen=True)
class Target:
    """A name defined in a module of the project: the module's file and the name in it."""

    path: str
    module: str
    name: str


@dataclass
class Project:
    """Module names and files of one project root."""

    root: str
    source_roots: list = field(default_factory=list)
    _imports: dict = field(default_factory=dict)      # path -> Project._summary
    _files: Optional[list] = None
    _folders: Optional[list] = None

    @classmethod
    def for_path(cls, path: str) -> Optional["Project"]:
        root = find_root(path)
        if root is None:
            return None
        return cls.at(root)

    @classmethod
    def at(cls, root: str) -> "Project":
        roots = []
        src = os.path.join(root, "src")
        if os.path.isdir(src) and any(os.path.isfile(os.path.join(src, d, "__init__.py")) or d.endswith(".py")
                                      for d in _listdir(src)):
            roots.append(src)
        roots.append(root)
        return cls(root=root, source_roots=roots)

    # -- names and files ------------------------------------------------------------------------
    def roots_for(self, path: str) -> list:
        """Where imports in the file at `path` are looked up: the folder above its outermost
        package (or its own folder), then the project's source roots."""
        first = self._first_root(path)
        return [first] + [r for r in self.source_roots if r != first]

    def module_name(self, path: str) -> Optional[str]:
        """`pkg.ops` for `<source root>/pkg/ops.py` (`pkg` for `pkg/__init__.py`); asked for
        every relative import of a module, so kept per file."""
        full = os.path.abspath(path)
        return self._memo("_module_names", full, lambda: self._module_name(full))

    def _module_name(self, full: str) -> Optional[str]:
        for root in self.roots_for(full):
            rel = os.path.relpath(full, root)
            if rel.startswith(os.pardir) or not rel.endswith(".py"):
                continue
            parts = rel[:-3].split(os.sep)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            if parts and all(p.isidentifier() for p in parts):
                return ".".join(parts)
        return None

    def is_package(self, path: str) -> bool:
        return os.path.basename(path) == "__init__.py"

    def module_path(self, name: str, from_path: Optional[str] = None) -> Optional[str]:
        """The file of module `name` in the project, or None (an installed package, a typo);
        cached per name and place of the importing file."""
        key = (name, self._first_root(from_path) if from_path else None)
        return self._memo("_module_paths", key, lambda: self._module_path(name, from_path))

    def _module_path(self, name: str, from_path: Optional[str]) -> Optional[str]:
        if not name or not all(p.isidentifier() for p in name.split(".")):
            return None
        rel = name.replace(".", os.sep)
        for root in self.roots_for(from_path) if from_path else self.source_roots:
            if not _inside(root, self.root):
                continue
            for candidate in (os.path.join(root, rel + ".py"), os.path.join(root, rel, "__init__.py")):
                if os.path.isfile(candidate):
                    return candidate
        return None

    def absolute(self, dotted: str, from_path: str) -> Optional[str]:
        """A relative name (`.ops.clip`, `..util.f`) made absolute from the module at `from_path`."""
        level = len(dotted) - len(dotted.lstrip("."))
        if level == 0:
            return dotted
        here = self.module_name(from_path)
        if here is None:
            return None
        package = here.split(".") if self.is_package(from_path) else here.split(".")[:-1]
        if level - 1 > len(package):
            return None
        base = package[:len(package) - (level - 1)]
        rest = dotted[level:]
        return ".".join(base + ([rest] if rest else [])) or None

    def resolve(self, dotted: str, from_path: str, hops: int = 0) -> Optional[Target]:
        """The module of the project that defines the name `dotted` (as imported at `from_path`)
        and the name in it, following re-exports through `from ... import` in packages (cached
        per absolute name and place of the importing file)."""
        name = self.absolute(dotted, from_path)
        if name is None:
            return None
        key = (name, self._first_root(from_path), hops)
        return self._memo("_resolved", key, lambda: self._resolve(name, from_path, hops))

    def _memo(self, kind: str, key, compute):
        """compute() once per key, kept under `kind` until `refresh` drops what was read."""
        cache = self.__dict__.setdefault(kind, {})
        if key not in cache:
            cache[key] = compute()
        return cache[key]

    def _first_root(self, path: str) -> str:
        return self._memo("_package_roots", path, lambda: package_root(path))

    def may_hold(self, name: str, from_path: str) -> bool:
        """Could the absolute module name `name` be a module of the project, imported at
        `from_path`? False when its first part names no folder or .py file in a root
        (`numpy`, `jax` in most projects): nothing needs looking up."""
        first = name.split(".", 1)[0]
        names = self._memo("_tops", self._first_root(from_path), lambda: {
            entry[:-3] if entry.endswith(".py") else entry
            for root in self.roots_for(from_path) for entry in _listdir(root)})
        return first in names

    def _resolve(self, name: str, from_path: str, hops: int) -> Optional[Target]:
        if name is None or hops > MAX_RE_EXPORT_HOPS:
            return None
        parts = name.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:cut])
            path = self.module_path(module, from_path)
            if path is None:
                continue
            rest = parts[cut:]
            if len(rest) > 1:
                return None        # `mod.Cls.method` or a submodule missing on disk: not followed
            inner = self.imports_of(path).get(rest[0])
            if inner is not None:  # re-exported: `from .ops import clip` in pkg/__init__.py
                return self.resolve(inner, path, hops + 1)
            return Target(path=path, module=module, name=rest[0])
        return None

    def imports_of(self, path: str, data: Optional[bytes] = None) -> dict:
        """Local name -> the dotted name a module's top-level imports bind it to (relative names
        keep their leading dots), read from the file once per version of it (`data`: its bytes,
        when the caller has just read them)."""
        found = self._summary(path, data)
        return found[1] if found is not None else {}

    def kept_digest(self, path: str) -> Optional[tuple]:
        """(digest of the bytes, does it name jax or jit) of the module's current version, as the
        bytes were found when its imports were read (bytes_digest), in this process or
        one before it: a module whose version is unchanged is not read again. None when the file
        cannot be stat'ed."""
        found = self._summary(path)
        return (found[2], found[3]) if found is not None else None

    def _summary(self, path: str, data: Optional[bytes] = None) -> Optional[tuple]:
        """(version, imports, digest, names jax) of the module at `path`, read once per version."""
        stamp = version(path)
        if stamp is None:
            return None
        cached = self._imports.get(path)
        if cached is not None and cached[0] == stamp:
            return cached
        stored = self._stored_imports().get(path)
        if stored is not None and stored[0] == stamp:
            found = stored
        else:
            if data is None:
                data = _read(path)
            found = (stamp, import_bindings(top_level_imports(data)), bytes_digest(data),
                     b"jax" in data or b"jit" in data)
            self._unstored = True
        self._imports[path] = found
        return found

    def _stored_imports(self) -> dict:
        """path -> (version, bindings, digest, names jax): the modules as the last run that indexed
        them found them (kept on disk by `_store_imports`; empty without a store)."""
        if "_stored" not in self.__dict__:
            self._stored = _load_imports(self.root)
        return self._stored

    def _store_imports(self) -> None:
        """Keep the imports read from the files for the next process (a file linted alone, a
        flake8 worker, an editor's server started again): reading them is most of the cost of
        finding a module's importers in a large project."""
        if self.__dict__.pop("_unstored", False):
            _save_imports(self.root, {path: entry for path, entry in self._imports.items()
                                      if isinstance(entry[0], tuple) and isinstance(entry[0][0], int)})

    # -- files ----------------------------------------------------------------------------------
    def files(self) -> list:
        """Every Python file of the project (excluded folders skipped), at most MAX_FILES. A
        folder without a root marker is a project of its own modules and packages only."""
        if self._files is None:
            found, folders = [], []
            marked = self.marked
            for top, dirs, names in os.walk(self.root):
                folders.append(top)
                dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith(".")
                                 and (marked or os.path.isfile(os.path.join(top, d, "__init__.py"))))
                found.extend(os.path.join(top, n) for n in sorted(names) if n.endswith(".py"))
                if len(found) > MAX_FILES:
                    break
            self._files, self._folders = found[:MAX_FILES], folders
        return self._files

    def folders(self) -> list:
        """The folders `files` walked (what tells that a module appeared or went)."""
        self.files()
        return self._folders

    def importers(self, path: str) -> list:
        """The project's files that import the module at `path` (by any spelling the index
        resolves), found by the module's last name in their text, then checked."""
        return self._memo("_importers", os.path.abspath(path), lambda: self._find_importers(path))

    def _find_importers(self, path: str) -> list:
        module = self.module_name(path)
        if module is None:
            return []
        index, keys, order = self._import_index()
        found = set(index.get(module, ()))
        at = bisect.bisect_left(keys, module + ".")
        while at < len(keys) and keys[at].startswith(module + "."):
            found |= index[keys[at]]
            at += 1
        parts = module.split(".")
        for cut in range(1, len(parts)):       # `import pkg` ... `pkg.ops.f()`
            outer = ".".join(parts[:cut])
            if outer in index and self._names_module(outer, module):
                found |= index[outer]
        found.discard(os.path.abspath(path))
        return sorted(found, key=order.get)

    def _import_index(self) -> tuple:
        """(absolute module name -> files importing it, the names sorted, file -> position),
        built once: every project file's top-level imports."""
        if "_import_index_" not in self.__dict__:
            index: dict = {}
            order = {}
            for position, other in enumerate(self.files()):   # absolute: walked from the root
                order[other] = position
                for dotted in self.imports_of(other).values():
                    target = self.absolute(dotted, other)
                    if target is not None:
                        index.setdefault(target, set()).add(other)
            self._import_index_ = (index, sorted(index), order)
            self._store_imports()
        return self._import_index_

    @property
    def marked(self) -> bool:
        """Is the root a project's (a marker file), not a folder of loose scripts? Asked for every
        module linted: looked up once, until `refresh` sees a marker come or go."""
        return self._memo("_marked", None, lambda: any(os.path.exists(os.path.join(self.root, m))
                                                       for m in ROOT_MARKERS))

    def imported_files(self, path: str) -> list:
        """The project's files that importing the module at `path` runs, in the order found:
        the modules its top-level imports name, the `__init__.py` of each package on the way
        (`from nbody.forces import energy` runs `nbody/__init__.py` first), and theirs in turn;
        at most MAX_IMPORTED files (cached per run)."""
        return self._memo("_imported_files", os.path.abspath(path), lambda: self._collect_imported_files(path))

    def _collect_imported_files(self, path: str) -> list:
        start = os.path.abspath(path)
        seen, found, todo = {start}, [], [start]
        for current in todo:
            for dotted in self.imports_of(current).values():
                name = self.absolute(dotted, current)
                if name is None or not self.may_hold(name, current):
                    continue
                parts = name.split(".")
                for cut in range(1, len(parts) + 1):
                    module = self.module_path(".".join(parts[:cut]), current)
                    if module is None:
                        break
                    module = os.path.abspath(module)
                    if module not in seen:
                        seen.add(module)
                        found.append(module)
                        todo.append(module)
                        if len(found) >= MAX_IMPORTED:
                            return found
        return found

    def mentions(self, words, in_code: bool = False) -> bool:
        """Does any file of the project contain one of these words (cached per run)? `in_code`:
        outside a comment (`# needs jax_enable_x64` does not enable it). A folder of loose
        scripts (no root marker) is not one program: never."""
        if not self.marked:
            return False
        encoded = [w.encode() for w in words]
        return self._memo("_mentions", (tuple(words), in_code),
                          lambda: any(mentions_in(data, encoded, in_code) for data in map(_read, self.files())))

    def mentions_known(self, words, in_code: bool = False) -> Optional[bool]:
        """What `mentions` answers, when a module linted before has asked it in this run; None
        when it has not (nothing is read)."""
        if not self.marked:
            return False
        return self.__dict__.get("_mentions", {}).get((tuple(words), in_code))

    def refresh(self) -> bool:
        """Forget what was read when a file of the project changed, appeared or went since the
        last look (for a long-lived process, the language server; a run of `jaxlint check` reads
        the tree once). Returns whether anything changed."""
        _STAMPS.clear()                         # a new look at the files, not this run's
        self.__dict__.pop("_marked", None)     # a marker file that came or went changes the walk
        stamps = {("marked", self.marked): True}     # (in the keys: where modules are may change)
        self._files = None
        for path in self.files():
            stamp = version(path)
            if stamp is not None:
                stamps[path] = stamp
        before = self.__dict__.get("_stamps")
        if stamps == before:
            return False
        # answers keyed by a file's version stay; where files are stays when none came or went
        keep = {"root", "source_roots", "_imports", "_stored", "_files", "_folders"}
        if before is not None and before.keys() == stamps.keys():
            keep |= {"_module_paths", "_package_roots", "_tops", "_module_names"}
        for key in [k for k in self.__dict__ if k not in keep and not k.startswith("_per_version_")]:
            del self.__dict__[key]
        self._stamps = stamps
        return True

    def _names_module(self, imported: str, module: str) -> bool:
        """`from pkg import ops` imports `pkg.ops` (a name of package `pkg` that is the module)."""
        return self.module_path(imported) is not None and imported.count(".") + 1 == module.count(".")


# -- the imports of a project's modules, kept on disk between processes --------------------------

# The result cache of the front end (cache.Cache; None with --no-cache): besides each file's
# result, it keeps what a new process would otherwise read again from many files (the imports
# of every module of a project, the traced calls an importer makes into a module, the names of
# a module's jit sites).
_CACHE = [None]
_IMPORTS_FORMAT = 2      # 2: each module's digest and whether it names jax


def use_cache(cache) -> None:
    """Keep project-wide answers in `cache` between processes (None: nowhere; every module is
    read again by each process)."""
    _CACHE[0] = cache


def result_cache():
    """The cache set by `use_cache`, or None."""
    return _CACHE[0]


def _imports_path(root: str) -> Optional[str]:
    """The store of the project at `root`: one file per root (a `--cache-dir` holds several)."""
    cache = _CACHE[0]
    folder = cache.imports_folder(root) if cache is not None else None
    if not folder:
        return None
    import hashlib
    tag = hashlib.blake2b(root.encode("utf-8", "surrogateescape"), digest_size=8).hexdigest()
    return os.path.join(folder, f"{tag}.imports")      # JSON, not named .json: not a result entry


def _load_imports(root: str) -> dict:
    """path -> ((mtime, size), bindings, digest, names jax) as kept for the project at `root`;
    empty when nothing is kept or what is there is not a store of ours (any damage is a miss,
    never an error)."""
    where = _imports_path(root)
    if where is None:
        return {}
    import json
    try:
        with open(where, "rb") as fh:
            kept = json.loads(fh.read())
        if kept.get("format") != _IMPORTS_FORMAT or kept.get("root") != root:
            return {}
        found = {}
        for path, (mtime, size, bindings, digest, jaxish) in kept["modules"].items():
            if isinstance(mtime, int) and isinstance(size, int) and isinstance(bindings, dict) \
                    and all(isinstance(v, str) for v in bindings.values()) \
                    and isinstance(digest, str) and isinstance(jaxish, bool):
                found[path] = ((mtime, size), bindings, digest, jaxish)
        return found
    except Exception:  # noqa: BLE001 - a damaged or foreign file is a miss
        return {}


def _save_imports(root: str, modules: dict) -> None:
    where = _imports_path(root)
    if where is None:
        return
    import json
    from jaxlint.atomic import write_atomically
    kept = {"format": _IMPORTS_FORMAT, "root": root,
            "modules": {path: [stamp[0], stamp[1], bindings, digest, jaxish]
                        for path, (stamp, bindings, digest, jaxish) in modules.items()}}
    try:
        write_atomically(where, json.dumps(kept, separators=(",", ":")).encode("utf-8"), suffix=".imports")
    except OSError:
        pass            # a read-only tree: the next process reads the modules again


def bytes_digest(data: bytes) -> str:
    """The digest recorded for a file's bytes, to tell whether an answer read from it still holds."""
    return hashlib.blake2b(data, digest_size=8).hexdigest()


_IMPORT_LINE = re.compile(rb"^(?:import|from)[ \t\\(]", re.M)


def top_level_imports(data: bytes) -> list:
    """The top-level import statements of a module's source (ast nodes), without parsing the
    whole module: each statement starts a line with `import` or `from`, and runs on while a
    parenthesis is open or a line ends with a backslash. A chunk that does not parse (a line of
    a docstring that begins with "from ") is skipped."""
    chunks = []
    strings = _triple_quoted_spans(data) if b'"""' in data or b"'''" in data else []
    opens = [a for a, _ in strings]
    for match in _IMPORT_LINE.finditer(data):
        start = end = match.start()
        at = bisect.bisect_left(opens, start) - 1     # the last string opened before the line
        if at >= 0 and start < strings[at][1]:
            continue          # an example in a docstring
        depth = 0
        while True:
            stop = data.find(b"\n", end)
            line = data[end:stop if stop >= 0 else len(data)]
            depth += line.count(b"(") - line.count(b")")
            end = stop + 1 if stop >= 0 else len(data)
            if stop < 0 or (depth <= 0 and not line.rstrip().endswith(b"\\")):
                break
        chunks.append(data[start:end].decode("utf-8", "replace"))
    try:            # one parse for all of them; one per statement when one does not parse
        return ast.parse("\n".join(chunks)).body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        pass
    found = []
    for chunk in chunks:
        try:
            found.extend(ast.parse(chunk).body)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
    return found


_TRIPLE = re.compile(rb"\"\"\"|'''")


def _triple_quoted_spans(data: bytes) -> list:
    """[(start, end)] of the triple-quoted strings, paired in order (a quote of the other kind
    inside one does not close it)."""
    spans, opened = [], None
    for match in _TRIPLE.finditer(data):
        if opened is None:
            opened = match
        elif match.group() == opened.group():
            spans.append((opened.start(), match.end()))
            opened = None
    if opened is not None:
        spans.append((opened.start(), len(data)))
    return spans


def import_bindings(body) -> dict:
    """Local name -> dotted name for the top-level imports of a module body (relative imports
    keep their dots: `from .ops import clip` -> {"clip": ".ops.clip"})."""
    found = {}
    for stmt in body:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.asname:
                    found[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    found.setdefault(top, top)
        elif isinstance(stmt, ast.ImportFrom):
            base = "." * (stmt.level or 0) + (stmt.module or "")
            for alias in stmt.names:
                if alias.name == "*":
                    continue
                joined = f"{base}.{alias.name}" if stmt.module else f"{base}{alias.name}"
                found[alias.asname or alias.name] = joined
    return found


def mentions_in(data, words, in_code: bool = False) -> bool:
    """Does `data` (a file's bytes, or text) contain one of `words` (of the same type)? `in_code`:
    on a line where no `#` comes before it, and outside a triple-quoted string (a comment or a
    docstring telling how to set a flag does not set it; the quotes are counted up to each
    occurrence, in one pass over the text)."""
    if not in_code:
        return any(word in data for word in words)
    newline, hash_, quotes = ("\n", "#", ('"""', "'''")) if isinstance(data, str) else \
        (b"\n", b"#", (b'"""', b"'''"))
    found = []
    for word in words:
        at = data.find(word)
        while at >= 0:
            found.append(at)
            at = data.find(word, at + len(word))
    last, double, single = 0, 0, 0
    for at in sorted(found):
        if hash_ in data[data.rfind(newline, 0, at) + 1:at]:
            continue
        double += data.count(quotes[0], last, at)
        single += data.count(quotes[1], last, at)
        last = at
        if double % 2 == 0 and single % 2 == 0:
            return True
    return False


MAX_BYTES = 5 << 20

# Unsaved editor buffers (absolute path -> bytes), read in place of the files: the language server
# keeps here what the user is typing, so that the other open modules are linted against it.
_BUFFERS: dict = {}


def set_buffer(path: str, data: Optional[bytes]) -> None:
    """Read `data` in place of the file at `path` from now on (None: read the file again)."""
    full = os.path.abspath(path)
    if data is None:
        _BUFFERS.pop(full, None)
    else:
        _BUFFERS[full] = data


def version(path: str) -> Optional[tuple]:
    """What tells one content of the file at `path` from another: an unsaved buffer's length and
    hash, else the file's mtime and size (looked up once per run); None when there is neither."""
    data = _BUFFERS.get(os.path.abspath(path)) if _BUFFERS else None
    if data is not None:
        return ("buffer", len(data), hash(data))
    if path in _STAMPS:
        return _STAMPS[path]
    try:
        info = os.stat(path)
    except OSError:
        found = None
    else:
        found = (info.st_mtime_ns, info.st_size)
    if len(_STAMPS) < 200_000:
        _STAMPS[path] = found
    return found


def _read(path: str) -> bytes:
    """A project file's bytes (its unsaved buffer if the editor has one): only regular files (a
    FIFO or a device named *.py is never opened: reading it could block), at most MAX_BYTES; b""
    when it cannot be read."""
    if _BUFFERS:
        data = _BUFFERS.get(os.path.abspath(path))
        if data is not None:
            return data[:MAX_BYTES]
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_BYTES:
            return b""
        with open(path, "rb") as fh:
            return fh.read(MAX_BYTES)
    except OSError:
        return b""


def _inside(folder: str, root: str) -> bool:
    rel = os.path.relpath(folder, root)
    return not rel.startswith(os.pardir)


def _listdir(path: str) -> list:
    try:
        return os.listdir(path)
    except OSError:
        return []
