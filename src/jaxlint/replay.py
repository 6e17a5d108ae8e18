"""A repeated `jaxlint check` answered from the record of the same command's last run.

The same command over unchanged files prints the same report. So after a `jaxlint check` whose
report can be replayed, the run is recorded: the command (its arguments and working directory,
the environment variables and terminals its report depends on, jaxlint's version and Python's),
what it read, and what it wrote (standard output and error, in order) with its exit code. What
it read is every folder it walked (to find the files, or the modules of a project) with the
files in them that can change a finding (Python files, notebooks, `pyproject.toml`,
`setup.cfg`, ignore files), every file linted, an explicit `--config`, jaxlint's own source and
the libraries whose version can change the report (pathspec, libcst), each by its stat
(modification and change times in nanoseconds, size); and in the folders above them, whether
each configuration file, root or package marker and ignore file is there (and its stat when it
is). A folder's modification time changes when an entry is added, removed or renamed in it, so
the folders walked stand for the files that may appear; the folders above are not taken by
their stat, which changes whenever any file beside them is saved.

The next run of the same command stats those paths, and when every one is as recorded it writes
the recorded report without reading a file, importing the analysis or opening a cache entry.
Any difference, or a record that cannot be read, makes a plain run (warm through the per-file
cache), which records again. A record lives in the result cache's folder (`runs/`); deleting
the cache deletes it.

Not recorded: standard input, --fix/--diff/--add-noqa/--watch/--show-settings, --no-cache,
--output-file, a run with a file that could not be read or an internal error, a configuration
with confirmed-only (its verdicts live in the verify store), and a run that read a path modified
in the last RACY_SECONDS (as git says, a racy stat: a second change within the file system's
timestamp resolution would leave the stat as it was).

This module imports nothing of jaxlint at module level: a replayed run costs Python's start,
this file, and one stat per recorded path.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from typing import Optional

from jaxlint.atomic import write_atomically
from jaxlint.cachedir import CACHE_DIR, root_of, version_folder

FORMAT = 1
RACY_SECONDS = 2.0
KEEP = 16                           # records kept per cache folder (the least recently written go)
SUFFIXES = (".py", ".pyi", ".ipynb")
NAMES = frozenset({"pyproject.toml", "setup.cfg", ".gitignore", ".ignore"})
ENVIRONMENT = ("NO_COLOR", "FORCE_COLOR")     # what the report reads of the environment
LIBRARIES = ("pathspec", "libcst")   # what decides which files are linted, and which fixes hold
# what is looked for in the folders above those read: configuration, root and package markers,
# ignore files (a project root's own folder changes with every file saved beside it: not its stat)
PROBES = ("pyproject.toml", "setup.cfg", "setup.py", "__init__.py", ".gitignore", ".ignore", ".git",
          os.path.join(".git", "info", "exclude"))


# -- where and under which key ---------------------------------------------------------------

def _cache_dir_option(argv) -> Optional[str]:
    """The value of --cache-dir in argv (the last one wins, as argparse does), or None."""
    found = None
    for i, arg in enumerate(argv):
        if arg == "--":
            break
        if arg == "--cache-dir" and i + 1 < len(argv):
            found = argv[i + 1]
        elif arg.startswith("--cache-dir="):
            found = arg.split("=", 1)[1]
    return found


def folder(cache_dir: Optional[str], version: str) -> str:
    base = cache_dir or os.path.join(root_of(os.getcwd()), CACHE_DIR)
    return os.path.join(version_folder(os.path.abspath(base), version), "runs")


def _isatty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def command_key(argv) -> str:
    from jaxlint import __version__
    what = [FORMAT, __version__, sys.version, sys.executable, os.getcwd(), list(argv),
            [os.environ.get(name, "") for name in ENVIRONMENT],
            _isatty(sys.stdout), _isatty(sys.stderr)]
    return json.dumps(what, ensure_ascii=False)


def _record_path(argv, key: str) -> str:
    from jaxlint import __version__
    name = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:40]
    return os.path.join(folder(_cache_dir_option(argv), __version__), name + ".json")


def _stat(path: str) -> Optional[list]:
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return [info.st_mtime_ns, info.st_ctime_ns, info.st_size]


# -- replaying ----------------------------------------------------------------------------------

def answer(argv) -> Optional[int]:
    """Replay the recorded run of `jaxlint <argv>` when nothing it read changed; return its exit
    code, or None (no record, or something changed: run it)."""
    if "--no-cache" in argv or "-" in argv or "--stdin-filename" in argv:
        return None
    try:
        key = command_key(argv)
        with open(_record_path(argv, key), "rb") as fh:
            record = json.loads(fh.read())
        if record.get("format") != FORMAT or record.get("key") != key:
            return None
        for path, *seen in record["read"]:
            if len(seen) == 1:          # a name looked for above the folders read: there or not
                if os.path.exists(path) != bool(seen[0]):
                    return None
            elif _stat(path) != seen:
                return None
        chunks, code = record["wrote"], record["exit"]
        if type(code) is not int:
            return None
    except Exception:  # noqa: BLE001 - a missing, unreadable or foreign record is a plain run
        return None
    for stream, text in chunks:
        (sys.stdout if stream == 1 else sys.stderr).write(text)
    sys.stdout.flush()
    return code


# -- recording ----------------------------------------------------------------------------------

class _Tee:
    """A text stream that writes through to `stream` and keeps what was written, in order with
    the other stream's, in `chunks`."""

    def __init__(self, stream, number: int, chunks: list):
        self._stream, self._number, self._chunks = stream, number, chunks

    def write(self, text):
        self._chunks.append((self._number, text))
        return self._stream.write(text)

    @property
    def unrecorded(self):
        """The stream itself: for output that is not part of the report (a progress meter)."""
        return self._stream

    def __getattr__(self, name):
        return getattr(self._stream, name)


class Recorder:
    """One `jaxlint check` run being recorded: `capturing()` around it, `snapshot(...)` once the
    files are known and before they are read, `refuse(...)` when it turns out not replayable,
    `save(code)` at the end."""

    def __init__(self, argv):
        self.argv = list(argv)
        self.key = command_key(argv)
        self.chunks: list = []
        self.read: Optional[list] = None
        self.refused = ""

    @classmethod
    def start(cls, argv, args) -> Optional["Recorder"]:
        """A recorder for this run, or None when its report cannot be replayed."""
        if (args.stdin or args.watch or args.fix or args.fix_only or args.diff or args.add_noqa
                or args.show_settings or args.no_cache or args.output_file):
            return None
        try:
            return cls(argv)
        except Exception:  # noqa: BLE001 - recording is an optimisation: never fail a run over it
            return None

    def capturing(self):
        recorder = self

        class _Swap:
            def __enter__(self):
                self.saved = sys.stdout, sys.stderr
                sys.stdout = _Tee(sys.stdout, 1, recorder.chunks)
                sys.stderr = _Tee(sys.stderr, 2, recorder.chunks)

            def __exit__(self, *exc):
                sys.stdout, sys.stderr = self.saved
                return False
        return _Swap()

    def refuse(self, why: str) -> None:
        self.refused = self.refused or why

    def snapshot(self, targets, walked, roots, explicit_config: Optional[str]) -> None:
        """Stat what the run reads: `walked` folders and the folders above every one of them and
        of every target, the relevant files in all of those, the targets, each project root's
        folders and modules (`roots`: Project objects), the explicit configuration and jaxlint's
        source. Called before the analysis reads anything, so a change during the run shows as
        a difference next time."""
        try:
            self._snapshot(targets, walked, roots, explicit_config)
        except Exception as exc:  # noqa: BLE001 - never fail a run over its record
            self.refuse(f"snapshot: {exc}")

    def _snapshot(self, targets, walked, roots, explicit_config) -> None:
        started = time.time_ns()
        os.makedirs(os.path.dirname(_record_path(self.argv, self.key)), exist_ok=True)
        folders = {os.path.abspath(d) for d in walked}      # where a new file would be read
        files: set = set()
        for path, _ in targets:
            full = os.path.abspath(path)
            files.add(full)
            folders.add(os.path.dirname(full))
        for project in roots:
            folders.update(project.folders())
            files.update(os.path.abspath(p) for p in project.files())
        if explicit_config:
            files.add(os.path.abspath(explicit_config))
        above = set()                   # only looked into for a configuration or a root marker
        for directory in folders:
            parent = os.path.dirname(directory)
            while parent not in folders and parent not in above:
                above.add(parent)
                if os.path.dirname(parent) == parent:
                    break
                parent = os.path.dirname(parent)
        for directory in folders:
            try:
                entries = os.listdir(directory)
            except OSError:
                continue
            for name in entries:
                if name.endswith(SUFFIXES) or name in NAMES:
                    files.add(os.path.join(directory, name))
                elif name == ".git":    # the repository's own ignore file, and its folder
                    files.add(os.path.join(directory, ".git", "info", "exclude"))
                    files.add(os.path.join(directory, ".git", "info"))
        for library in LIBRARIES:       # an upgrade rewrites their __init__.py
            try:
                import importlib.util
                spec = importlib.util.find_spec(library)
            except (ImportError, ValueError):
                spec = None
            if spec is not None and spec.origin:
                files.add(spec.origin)
        package = os.path.dirname(os.path.abspath(__file__))
        for top, dirs, names in os.walk(package):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            files.update(os.path.join(top, n) for n in names if n.endswith(".py"))
        read = []
        racy = started - int(RACY_SECONDS * 1e9)
        for path in sorted(folders | files):
            stat = _stat(path)
            if stat is None:
                continue            # absent: the folder holding it stands for it
            if stat[0] > racy:
                self.refuse(f"{path} changed in the last {RACY_SECONDS:g} s")
                return
            read.append([path, *stat])
        for directory in sorted(above):
            for name in PROBES:
                path = os.path.join(directory, name)
                if name == ".git":      # its stat changes with every git command: only whether it is
                    read.append([path, int(os.path.exists(path))])
                    continue
                stat = _stat(path)
                if stat is not None and stat[0] > racy:
                    self.refuse(f"{path} changed in the last {RACY_SECONDS:g} s")
                    return
                read.append([path, *stat] if stat is not None else [path, 0])
        self.read = read

    def save(self, code: int) -> None:
        """Write the record (unless refused), keeping the KEEP most recent of the folder."""
        if self.refused or self.read is None:
            return
        try:
            path = _record_path(self.argv, self.key)
            directory = os.path.dirname(path)
            os.makedirs(directory, exist_ok=True)
            record = {"format": FORMAT, "key": self.key, "read": self.read,
                      "wrote": self.chunks, "exit": code}
            write_atomically(path, json.dumps(record, separators=(",", ":"), ensure_ascii=False)
                             .encode("utf-8", "surrogatepass"), suffix=".json")
            _prune(directory)
        except Exception:  # noqa: BLE001 - a read-only cache folder: the run was still right
            return


def _prune(directory: str) -> None:
    """Keep the KEEP most recently written records of the folder."""
    try:
        entries = [os.path.join(directory, n) for n in os.listdir(directory) if n.endswith(".json")]
        if len(entries) <= KEEP:
            return
        entries.sort(key=lambda p: os.stat(p).st_mtime_ns, reverse=True)
        for old in entries[KEEP:]:
            os.unlink(old)
    except OSError:
        pass
