"""Which files `jaxlint check` lints, each paired with its configuration, in a stable order.

Folders are walked in sorted order so output is deterministic; `exclude` patterns prune whole
folders before they are read. Files named on the command line are checked against `exclude`
too (flake8 does the same), so a pre-commit hook honours the project's excludes; a folder named
on the command line is always entered (the user asked for it).
"""

from __future__ import annotations

import os

from jaxlint.config import ConfigFinder

SUFFIXES = (".py", ".ipynb")


def iter_targets(paths, finder: ConfigFinder):
    """Yield (path, config) for every file to lint; a missing path is yielded for the caller to
    report. Each file is yielded once, in command-line order then sorted walk order."""
    seen = set()
    for path in paths:
        if os.path.isdir(path):
            found = _walk(path, finder)
        else:
            config = finder.for_path(path)
            found = [] if config.excluded(path) and os.path.exists(path) else [(path, config)]
        for item in found:
            key = os.path.abspath(item[0])
            if key not in seen:
                seen.add(key)
                yield item


def _walk(top, finder):
    for root, dirs, files in os.walk(top):
        config = finder.for_dir(os.path.abspath(root))
        dirs[:] = sorted(d for d in dirs if not config.excluded(os.path.join(root, d), False))
        for name in sorted(files):
            if name.endswith(SUFFIXES):
                path = os.path.join(root, name)
                if not config.excluded(path, False):
                    yield path, config
