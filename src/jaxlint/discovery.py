"""Which files `jaxlint check` lints, each paired with its configuration, in a stable order.

As in ruff: folders are walked in sorted order, and `exclude` patterns and the files that
`.gitignore`, `.ignore` and `.git/info/exclude` ignore (unless `respect-gitignore = false`)
prune whole folders before they are read. A folder named on the command line is always entered
(the user asked for it). A file named on the command line is linted even when excluded, with a
note, unless `--force-exclude` (what a pre-commit hook passes, since it names every staged file)
applies `exclude` to it as well. Patterns are matched by pathspec, with .gitignore's meaning.
"""

from __future__ import annotations

import os
from typing import Optional

from jaxlint.config import ConfigFinder

SUFFIXES = (".py", ".ipynb")
IGNORE_FILES = (".gitignore", ".ignore")      # in this order: .ignore wins over .gitignore


def iter_targets(paths, finder: ConfigFinder, force_exclude: bool = False,
                 notes: Optional[list] = None, walked: Optional[list] = None):
    """Yield (path, config) for every file to lint; a missing path is yielded for the caller to
    report. Each file is yielded once, in command-line order then sorted walk order. No paths:
    the working directory, its files named without a `./` prefix. `notes` receives a line for
    each file named on the command line that is linted although excluded; `walked` each folder
    read (what tells, later, that a file may have appeared in it)."""
    seen = set()
    ignores = IgnoreFiles()
    for path in paths or ["."]:
        if os.path.isdir(path):
            found = _walk(path, finder, ignores, bare=not paths, walked=walked)
        else:
            config = finder.for_path(path)
            found = [(path, config)]
            if os.path.exists(path) and config.excluded(path):
                if force_exclude:
                    found = []
                elif notes is not None:
                    notes.append(f"{path}: note: linted although excluded by "
                                 f"{config.source or 'the default exclude'} because it is named "
                                 f"on the command line (--force-exclude skips it)")
        for item in found:
            key = os.path.abspath(item[0])
            if key not in seen:
                seen.add(key)
                yield item


def _walk(top, finder, ignores, bare=False, walked=None):
    """The files under `top`, pruning excluded and ignored folders. A `top` that is itself
    excluded (or ignored) is entered anyway; below it, patterns are judged from `top`, and
    ignore files do not apply."""
    full_top = os.path.abspath(top)
    top_config = finder.for_dir(full_top)
    base = full_top if top_config.excluded(full_top, True) else None
    use_ignores = not ignores.ignored(full_top, True)
    for root, dirs, files in os.walk(top):
        full_root = os.path.abspath(root)
        if walked is not None:
            walked.append(full_root)
        config = finder.for_dir(full_root)
        gitignore = use_ignores and config.respect_gitignore

        def skip(name, is_dir):
            path = os.path.join(full_root, name)
            return config.excluded(path, is_dir, base) or (
                gitignore and ignores.ignored(path, is_dir))

        dirs[:] = sorted(d for d in dirs if not skip(d, True))
        shown = root[2:] if bare and root.startswith("./") else "" if bare and root == "." else root
        for name in sorted(files):
            if name.endswith(SUFFIXES) and not skip(name, False):
                yield os.path.join(shown, name), config


class IgnoreFiles:
    """What `.gitignore`, `.ignore` and `.git/info/exclude` ignore, as git reads them: every
    folder's files from the repository's root down to the path, a deeper file and `.ignore`
    overriding (`!pattern` re-includes). Outside a repository only `.ignore` files count, from
    the working directory down (or from the path's own folder when it is elsewhere)."""

    def __init__(self):
        self._chains: dict = {}
        self._repos: dict = {}

    def ignored(self, path: str, is_dir: bool) -> bool:
        full = os.path.abspath(path)
        decision = None
        for folder, spec in self._chain(os.path.dirname(full)):
            rel = os.path.relpath(full, folder).replace(os.sep, "/")
            if rel.startswith("../"):
                continue
            result = spec.check_file(rel + "/" if is_dir else rel).include
            if result is not None:
                decision = result
        return bool(decision)

    def _repo(self, folder: str) -> Optional[str]:
        """The repository root at or above `folder` (a folder holding `.git`), or None."""
        if folder not in self._repos:
            parent = os.path.dirname(folder)
            if os.path.exists(os.path.join(folder, ".git")):
                self._repos[folder] = folder
            else:
                self._repos[folder] = None if parent == folder else self._repo(parent)
        return self._repos[folder]

    def _chain(self, folder: str) -> tuple:
        """((folder, spec), ...) that apply to the entries of `folder`, outermost first."""
        if folder in self._chains:
            return self._chains[folder]
        repo = self._repo(folder)
        start = repo or (os.getcwd() if _inside(folder, os.getcwd()) else folder)
        parent = os.path.dirname(folder)
        chain = () if folder == start or parent == folder else self._chain(parent)
        names = IGNORE_FILES if repo else IGNORE_FILES[1:]
        files = [os.path.join(folder, name) for name in names]
        if folder == repo:
            files.insert(0, os.path.join(folder, ".git", "info", "exclude"))
        for name in files:
            lines = _read_lines(name)
            if lines:
                import pathspec        # only where a folder has ignore files
                chain += ((folder, pathspec.GitIgnoreSpec.from_lines(lines)),)
        self._chains[folder] = chain
        return chain


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(os.path.join(folder, ""))


def _read_lines(path: str) -> list:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read().splitlines()
    except OSError:                     # missing, a folder, unreadable: nothing ignored by it
        return []
