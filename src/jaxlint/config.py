"""`[tool.jaxlint]` in pyproject.toml: read, validate, and answer "is this code on for this file?".

Configuration is found like ruff finds it: for each file, the nearest `pyproject.toml` upward
that has a `[tool.jaxlint]` table; its directory is the root that `exclude` and
`per-file-ignores` patterns are relative to. Every mistake is a ConfigError naming the file, the
key and what is accepted, because a silently ignored setting is worse than no setting.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import functools
import os
import re
import sys
from dataclasses import dataclass, field
from typing import Optional


if sys.version_info >= (3, 11):
    import tomllib
else:                                   # Python 3.10: the same parser, from PyPI
    import tomli as tomllib

DEFAULT_EXCLUDE = (".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", "build", "dist",
                   "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", "node_modules",
                   ".eggs", ".jaxlint_cache", "site-packages", "*.egg-info", ".ipynb_checkpoints")
DEFAULT_THRESHOLD = 16
JAX_JIT_KEYWORDS = ("static_argnums", "static_argnames")
KEYS = ("select", "ignore", "extend-select", "per-file-ignores", "exclude", "extend-exclude",
        "unrolled-loop-threshold", "jit-decorators", "confirmed-only", "project-analysis",
        "respect-gitignore", "x64")
_SELECTOR = re.compile(r"^JAX[0-9]{0,3}$")
_DOTTED = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


class ConfigError(Exception):
    """A bad setting: `where` is the file (or the flag), `key` the option."""

    def __init__(self, where: str, key: str, problem: str):
        super().__init__(f"{where}: {key}: {problem}" if key else f"{where}: {problem}")


@dataclass(frozen=True)
class Config:
    """The settings for one file. Only `unrolled_loop_threshold` and `jit_decorators` reach the
    analysis (and the cache key); the rest filter files and findings afterwards."""

    select: tuple = ("JAX",)
    extend_select: tuple = ()
    ignore: tuple = ()
    extend_ignore: tuple = ()               # --extend-ignore: added to ignore
    per_file_ignores: tuple = ()            # ((glob, (code prefix, ...)), ...)
    exclude: tuple = DEFAULT_EXCLUDE
    extend_exclude: tuple = ()
    unrolled_loop_threshold: int = DEFAULT_THRESHOLD
    jit_decorators: dict = field(default_factory=dict)  # dotted name -> (argnums kw, argnames kw)
    confirmed_only: bool = False            # hide findings `jaxlint verify` found not reproduced
    project_analysis: bool = True           # follow traces into the project's other modules
    respect_gitignore: bool = True          # skip what .gitignore/.ignore files ignore (walks)
    x64: bool = False                       # the program enables x64 where jaxlint cannot see it
    root: str = ""                          # directory patterns are relative to ("" = cwd)
    source: str = ""                        # the pyproject.toml it came from, for messages

    def fingerprint(self) -> str:
        """What changes findings: part of the cache key."""
        wrappers = sorted((k, tuple(v)) for k, v in self.jit_decorators.items())
        return repr((self.unrolled_loop_threshold, wrappers) + (() if self.project_analysis else ("file-local",))
                    + (("x64",) if self.x64 else ()))

    @functools.cached_property
    def _root_prefix(self) -> str:
        return os.path.join(os.path.abspath(self.root or "."), "")

    def relative(self, path: str) -> str:
        """`path` relative to the root, with `/` separators; the path itself when outside."""
        full = os.path.abspath(path)
        rel = full[len(self._root_prefix):] if full.startswith(self._root_prefix) else path
        return rel.replace(os.sep, "/")

    def enabled(self, code: str, path: str) -> bool:
        """The longest matching selector decides; on a tie, ignoring wins (like ruff)."""
        rel = self.relative(path)
        ignores = list(self.ignore + self.extend_ignore)
        for patterns, codes in self._per_file_specs:
            if patterns.match_file(rel):
                ignores.extend(codes)
        on = max((len(s) for s in self.select + self.extend_select if code.startswith(s)), default=-1)
        off = max((len(s) for s in ignores if code.startswith(s)), default=-1)
        return on > off

    @functools.cached_property
    def _exclude_spec(self):
        """exclude + extend-exclude as one gitignore-style pattern set, compiled once."""
        return spec(self.exclude + self.extend_exclude)

    def excluded(self, path: str, is_dir: bool = False, base: Optional[str] = None) -> bool:
        """Matched like a .gitignore beside the configuration: a pattern without `/` matches a
        file or folder name at any depth (`build`, `*_pb2.py`), one with `/` the path from the
        root (`src/gen/*`), `**` any number of folders, zero included; a folder's match covers
        everything in it. A path outside the root is judged by its name alone. `base` judges
        it from another folder (inside an excluded folder named on the command line)."""
        if base is not None:
            rel = os.path.relpath(os.path.abspath(path), base).replace(os.sep, "/")
        else:
            rel = self.relative(path)
        if rel.startswith("../") or os.path.isabs(rel):
            rel = rel.rstrip("/").rsplit("/", 1)[-1]
        rel = "/".join(p for p in rel.split("/") if p not in ("", "."))
        if not rel:
            return False
        return self._exclude_spec.match_file(rel + "/" if is_dir else rel)

    @functools.cached_property
    def _per_file_specs(self):
        return tuple((spec((pattern,)), codes) for pattern, codes in self.per_file_ignores)


def spec(patterns):
    """Glob patterns with .gitignore's meaning (see Config.excluded): an object with
    `match_file(relative path)`. Patterns that are each a bare name are matched here; any other
    set by pathspec, imported then (with its dependencies it is a fifth of the start of a
    one-file run)."""
    patterns = [p for p in patterns if p.strip()]
    if all(_BARE_NAME.match(p) for p in patterns):
        return _NameSpec(patterns)
    import pathspec
    return pathspec.GitIgnoreSpec.from_lines(patterns)


# A pattern without a slash, a leading `!` or `#`, brackets, a backslash or white space, and not
# `.` or `..`: in a .gitignore it matches any file or folder of that name at any depth (a folder
# with all in it), `*` and `?` within the name only. `.` and `..` match nothing there.
_BARE_NAME = re.compile(r"(?!\.\.?\Z)[A-Za-z0-9_.*?+=@~,%-]+\Z")


class _NameSpec:
    """The bare-name patterns of `spec`: a path matches when one of its parts does."""

    def __init__(self, patterns):
        self.names = frozenset(p for p in patterns if "*" not in p and "?" not in p)
        wild = [p for p in patterns if "*" in p or "?" in p]
        self.wild = re.compile("|".join(fnmatch.translate(p) for p in wild)) if wild else None

    def match_file(self, path: str) -> bool:
        parts = [part for part in path.split("/") if part]
        return any(part in self.names or (self.wild is not None and self.wild.match(part))
                   for part in parts)


# -- reading values -------------------------------------------------------------------------------

def rule_codes() -> list:
    from jaxlint.rules import BY_CODE
    return sorted(BY_CODE)


def parse_selectors(values, where: str, key: str) -> tuple:
    """Code prefixes (`JAX`, `JAX1`, `JAX104`); each must match at least one rule."""
    if isinstance(values, str):
        values = [v for v in re.split(r"[,\s]+", values) if v]
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise ConfigError(where, key, f"expected a list of rule codes, got {values!r}")
    codes = rule_codes()
    out = []
    for value in values:
        sel = value.strip().upper()
        if sel == "ALL":
            sel = "JAX"
        if not _SELECTOR.match(sel) or not any(c.startswith(sel) for c in codes):
            raise ConfigError(where, key, f"unknown rule code {value!r}; accepted: a code or "
                              f"prefix of one of {', '.join(codes)} (e.g. JAX, JAX1, JAX104)")
        out.append(sel)
    return tuple(out)


def parse_patterns(values, where: str, key: str) -> tuple:
    if not isinstance(values, list) or not all(isinstance(v, str) and v for v in values):
        raise ConfigError(where, key, f"expected a list of glob patterns, got {values!r}")
    return tuple(values)


def parse_threshold(value, where: str, key: str = "unrolled-loop-threshold") -> int:
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(where, key, f"expected a positive integer (default {DEFAULT_THRESHOLD}), "
                          f"got {value!r}")
    return value


def parse_jit_decorators(value, where: str, key: str = "jit-decorators") -> dict:
    """A list of names (`["mylib.jit"]`, `"mylib.jit::names"` on the command line) or a table
    `{"mylib.jit" = {static_argnums = "nums", static_argnames = false}}`. A missing keyword
    means jax.jit's own name; `false` means the wrapper has no such keyword."""
    if isinstance(value, str):
        value = [v for v in value.split(",") if v.strip()]
    out = {}
    if isinstance(value, list):
        for item in value:
            if not isinstance(item, str):
                raise ConfigError(where, key, f"expected wrapper names, got {item!r}")
            name, *kws = [p.strip() for p in item.split(":")]
            if len(kws) > 2:
                raise ConfigError(where, key, f"{item!r}: expected NAME[:ARGNUMS_KW[:ARGNAMES_KW]]")
            kws += list(JAX_JIT_KEYWORDS[len(kws):])
            out[_wrapper_name(name, where, key)] = tuple(_keyword(k or False, where, key) for k in kws)
        return out
    if isinstance(value, dict):
        for name, spec in value.items():
            if spec is True:
                spec = {}
            if not isinstance(spec, dict):
                raise ConfigError(where, key, f"{name!r}: expected a table with static_argnums "
                                  f"and/or static_argnames, got {spec!r}")
            unknown = set(spec) - set(JAX_JIT_KEYWORDS)
            if unknown:
                raise ConfigError(where, f'{key}."{name}"', f"unknown key {sorted(unknown)[0]!r}; "
                                  f"accepted: {', '.join(JAX_JIT_KEYWORDS)}")
            out[_wrapper_name(name, where, key)] = tuple(
                _keyword(spec.get(kw, kw), where, f'{key}."{name}".{kw}') for kw in JAX_JIT_KEYWORDS)
        return out
    raise ConfigError(where, key, f"expected a list of dotted names or a table, got {value!r}")


def _wrapper_name(name, where, key) -> str:
    if not isinstance(name, str) or not _DOTTED.match(name):
        raise ConfigError(where, key, f"{name!r} is not a dotted name like 'mylib.jit'")
    return name


def _keyword(value, where, key) -> Optional[str]:
    if value is False:
        return None
    if isinstance(value, str) and value.isidentifier():
        return value
    raise ConfigError(where, key, f"expected a keyword name or false, got {value!r}")


# -- pyproject.toml -------------------------------------------------------------------------------

def read_table(pyproject: str) -> Optional[dict]:
    """The `[tool.jaxlint]` table, or None when the file has none."""
    try:
        with open(pyproject, "rb") as fh:
            data = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(pyproject, "", f"not valid TOML: {exc}") from None
    except OSError as exc:
        raise ConfigError(pyproject, "", f"cannot read: {exc.strerror or exc}") from None
    table = data.get("tool", {}).get("jaxlint") if isinstance(data.get("tool"), dict) else None
    if table is not None and not isinstance(table, dict):
        raise ConfigError(pyproject, "[tool.jaxlint]", "expected a table")
    return table


def from_table(table: dict, pyproject: str) -> Config:
    where = pyproject
    values = {}
    for key, value in table.items():
        if key not in KEYS:
            import difflib
            close = difflib.get_close_matches(key, KEYS, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ConfigError(where, f"[tool.jaxlint] {key}", f"unknown key{hint}; accepted keys: "
                              f"{', '.join(KEYS)}")
        name, label = key.replace("-", "_"), f"[tool.jaxlint] {key}"
        if key in ("select", "ignore", "extend-select"):
            values[name] = parse_selectors(value, where, label)
        elif key in ("exclude", "extend-exclude"):
            values[name] = parse_patterns(value, where, label)
        elif key == "unrolled-loop-threshold":
            values[name] = parse_threshold(value, where, label)
        elif key == "jit-decorators":
            values[name] = parse_jit_decorators(value, where, label)
        elif key in ("confirmed-only", "project-analysis", "respect-gitignore", "x64"):
            if not isinstance(value, bool):
                raise ConfigError(where, label, "expected true or false")
            values[name] = value
        else:
            values[name] = parse_per_file_ignores(value, where, label)
    return Config(root=os.path.dirname(os.path.abspath(pyproject)), source=pyproject, **values)


def parse_per_file_ignores_option(value: str, where: str) -> tuple:
    """flake8's spelling, `PATTERN:CODES` pairs separated by spaces or commas (`tests/*:JAX3
    __init__.py:JAX101,JAX102`; ruff's `a.py:JAX1,b.py:JAX2` reads the same), parsed by flake8."""
    from flake8.exceptions import ExecutionError
    from flake8.utils import parse_files_to_codes_mapping
    try:
        pairs = parse_files_to_codes_mapping(value)
    except (ExecutionError, ValueError):
        pairs = None
    if not pairs:
        raise ConfigError(where, "", f"expected PATTERN:CODES pairs such as 'tests/*:JAX3', "
                          f"got {value!r}")
    return tuple((pattern, parse_selectors(codes, where, f'"{pattern}"')) for pattern, codes in pairs)


def parse_per_file_ignores(value, where, key) -> tuple:
    if not isinstance(value, dict):
        raise ConfigError(where, key, 'expected a table of glob -> codes, e.g. {"tests/*" = ["JAX1"]}')
    return tuple((pattern, parse_selectors(codes, where, f'{key}."{pattern}"'))
                 for pattern, codes in value.items())


class ConfigFinder:
    """Finds and caches the configuration for each directory, walking upward once per folder."""

    def __init__(self, overrides: Optional[dict] = None, explicit: Optional[str] = None,
                 isolated: bool = False):
        self.overrides = overrides or {}
        self.isolated = isolated
        self._by_dir: dict = {}
        self._explicit = None
        if explicit is not None:
            table = read_table(explicit)
            self._explicit = self._apply(from_table(table or {}, explicit))

    def for_path(self, path: str) -> Config:
        directory = path if os.path.isdir(path) else os.path.dirname(os.path.abspath(path))
        return self.for_dir(os.path.abspath(directory))

    def for_dir(self, directory: str) -> Config:
        if self._explicit is not None:
            return self._explicit
        if self.isolated:
            return self._by_dir.setdefault("", self._apply(Config()))
        if directory in self._by_dir:
            return self._by_dir[directory]
        candidate = os.path.join(directory, "pyproject.toml")
        table = read_table(candidate) if os.path.isfile(candidate) else None
        if table is not None:
            config = self._apply(from_table(table, candidate))
        else:
            parent = os.path.dirname(directory)
            config = self.for_dir(parent) if parent != directory else self._apply(Config())
        self._by_dir[directory] = config
        return config

    def _apply(self, config: Config) -> Config:
        """Command-line values replace the file's; extend-* flags add to it."""
        values = dict(self.overrides)
        for key in ("extend_select", "extend_ignore", "extend_exclude"):
            if key in values:
                values[key] = getattr(config, key) + values[key]
        return dataclasses.replace(config, **values)
