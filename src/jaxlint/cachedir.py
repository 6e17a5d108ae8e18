"""Where jaxlint keeps what it writes for a file: `.jaxlint_cache/<version>/` in the file's
project root (the nearest folder upward holding pyproject.toml or .git; else the working
directory), or in the one folder `--cache-dir` names. Standard library only: a replayed run
(jaxlint.replay) asks it before importing anything else."""

from __future__ import annotations

import os
from typing import Optional

CACHE_DIR = ".jaxlint_cache"
ROOT_MARKERS = ("pyproject.toml", ".git")


def root_of(directory: str, memo: Optional[dict] = None) -> str:
    """The folder whose cache holds the entries of files in `directory` (`memo`: folder -> root,
    filled for every folder passed on the way up)."""
    passed = []
    here = directory
    while True:
        if memo is not None and here in memo:
            found = memo[here]
            break
        passed.append(here)
        if any(os.path.exists(os.path.join(here, marker)) for marker in ROOT_MARKERS):
            found = here
            break
        parent = os.path.dirname(here)
        if parent == here:
            found = os.getcwd()
            break
        here = parent
    if memo is not None:
        for folder in passed:
            memo[folder] = found
    return found


def version_folder(base: str, version: str) -> str:
    """`base/<version>`, the version spelled with letters, digits, `.`, `_` and `-` only."""
    return os.path.join(base, "".join(c if c.isascii() and c.isalnum() or c in "._-" else "_"
                                      for c in version))
