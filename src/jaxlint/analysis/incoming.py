"""Calls into a module from the project's other modules, for a file analysed alone (the flake8
plugin, the language server, standard input): the traced calls its importers make into it, found
by analysing each importer once per version of it. What `jaxlint check` links across the whole
project (runner.link_modules), one module boundary deep.

Above `analysis.file` (it runs an `Analysis` of each importer), so that the analysis of one
module never imports this.
"""

from __future__ import annotations

import hashlib
import os
from typing import Optional

from jaxlint.analysis.crossmodule import MAX_IMPORTERS_READ, parsed_tree, per_version
from jaxlint.analysis.file import Analysis


def incoming_calls(project, path: str, config=None, depends: Optional[dict] = None) -> tuple:
    """The traced calls that the project's modules importing the module at `path` make into it
    (ExternalCall), found by analysing each importer once per version of it: what `jaxlint check`
    links across the whole project, for one file linted on its own (one module boundary deep).
    The importers read are recorded in `depends`."""
    full = os.path.abspath(path)
    found = set()
    for other in project.importers(path)[:MAX_IMPORTERS_READ]:
        outgoing, digest = _outgoing_of(project, other, config)
        if depends is not None:
            depends[os.path.abspath(other)] = digest
        found.update(call for call in outgoing if call.path == full)
    return tuple(sorted(found, key=repr))


def _outgoing_of(project, path: str, config) -> tuple:
    return per_version(project, "outgoing", path, lambda full: _read_outgoing(project, full, config), ((), ""),
                       config.fingerprint() if hasattr(config, "fingerprint") else "")


def _read_outgoing(project, full: str, config) -> tuple:
    from jaxlint.project import _read
    data = _read(full)
    digest = hashlib.blake2b(data, digest_size=8).hexdigest()
    outgoing = ()
    if b"jax" in data or b"jit" in data:
        try:
            analysis = Analysis(parsed_tree(full, data), full, config, data.decode("utf-8", "replace").splitlines(),
                                project=project)
            outgoing = tuple(analysis.outgoing)
            analysis.release()
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            outgoing = ()
    return outgoing, digest
