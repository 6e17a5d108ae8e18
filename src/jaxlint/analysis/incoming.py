"""Calls into a module from the project's other modules, for a file analysed alone (the flake8
plugin, the language server, standard input): the traced calls its importers make into it, found
by analysing each importer, and, as deep as `jaxlint check` links a whole project
(project.MAX_BOUNDARIES module boundaries), the importers of those importers, whose traces reach
the file through them (`train.step` -> `model.forward` -> `ops.clip_positive`).

Each answer (what one module's traces call, followed through some boundaries) is kept in the
project with what it was read from: the module's digest, the importer list it consulted, and the
answers it used. It is checked once per run (project.next_run: a run of `check`, of flake8, one
buffer linted by the server), so that flake8, which lints every file of a project in one process,
reads each module once, and a server re-reads only what an edit touched.

Above `analysis.file` (it runs an `Analysis` of each importer), so that the analysis of one
module never imports this.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Optional

from jaxlint.analysis.crossmodule import (MAX_IMPORTERS_READ, ExternalCall, bytes_digest, compact_depends,
                                          file_digest, parsed_tree)
from jaxlint.analysis.file import Analysis
from jaxlint.project import MAX_BOUNDARIES, run_number

MAX_ANALYSED = 200      # modules analysed afresh for one file linted alone (as many as `check` reads)


@dataclass(eq=False)
class _Answer:
    outgoing: tuple             # ExternalCall made by the module's traces
    digest: str                 # of the module's bytes when read
    importers: Optional[tuple]  # the module's importers, when the answer consulted them
    children: tuple             # keys of the answers it was built from
    checked: int                # the run it was last found to hold in (project.run_number)


def incoming_calls(project, path: str, config=None, depends: Optional[dict] = None,
                   boundaries: int = MAX_BOUNDARIES) -> tuple:
    """The traced calls (ExternalCall) that the project's modules make into the module at `path`,
    through at most `boundaries` module boundaries: its importers' own traces (one), the runs of
    its importers' functions that their importers' traces start (two), and so on. Every file
    the answer was read from is recorded in `depends` with its digest."""
    walk = _Walk(project, config)
    full = os.path.abspath(path)
    found, keys = walk.incoming(full, boundaries)
    if depends is not None:
        depends.update(walk.files(keys))
    return tuple(sorted(found, key=repr))


def _importers(project, full: str) -> tuple:
    return tuple(project.importers(full)[:MAX_IMPORTERS_READ])     # absolute paths already


class _Walk:
    """One file's question: the answers kept in the project, the budget of fresh analyses."""

    def __init__(self, project, config):
        self.project = project
        self.config = config
        self.fingerprint = config.fingerprint() if hasattr(config, "fingerprint") else ""
        self.answers = project.__dict__.setdefault("_per_version_incoming", {})
        self.generation = run_number()
        self.budget = MAX_ANALYSED
        self.cut = False            # the budget ran out: what is built from here on is partial
        self._fresh: dict = {}      # answers built in this walk (kept in the project unless cut)

    def incoming(self, full: str, boundaries: int) -> tuple:
        """(calls into `full`, keys of the answers read)."""
        found, keys = set(), []
        for other in _importers(self.project, full):
            key = self.answer(other, boundaries)
            keys.append(key)
            found.update(call for call in self._get(key).outgoing if call.path == full)
        return found, keys

    def answer(self, full: str, boundaries: int) -> tuple:
        """The key of the answer for the module `full`, built unless a kept one still holds."""
        key = (full, boundaries, self.fingerprint)
        if self._holds(key):
            return key
        importers = None
        children: tuple = ()
        externals = ()
        if boundaries > 1:
            importers = _importers(self.project, full)
            calls, children = self.incoming(full, boundaries - 1)
            externals = tuple(sorted(calls, key=repr))
        if not externals and boundaries > 1:    # nothing reaches it from above: its own traces
            own = self.answer(full, 1)
            answer = _Answer(self._get(own).outgoing, self._get(own).digest, importers,
                             tuple(children) + (own,), self.generation)
        else:
            outgoing, digest = self._read(full, externals)
            answer = _Answer(outgoing, digest, importers, tuple(children), self.generation)
        self._fresh[key] = answer
        if not self.cut:
            self.answers[key] = answer
        return key

    def _get(self, key) -> _Answer:
        return self._fresh.get(key) or self.answers[key]

    def _holds(self, key) -> bool:
        if key in self._fresh:
            return True
        answer = self.answers.get(key)
        if answer is None:
            return False
        if answer.checked == self.generation:
            return True
        full = key[0]
        ok = _digest(self.project, full, self.generation) == answer.digest \
            and (answer.importers is None or _importers(self.project, full) == answer.importers) \
            and all(self._holds(child) for child in answer.children)
        if ok:
            answer.checked = self.generation
        return ok

    def _read(self, full: str, externals: tuple) -> tuple:
        from jaxlint.project import _read, result_cache
        summary = self.project.kept_digest(full)    # unread when a run before found this version
        digest, jaxish = summary if summary is not None else (bytes_digest(b""), False)
        if not externals and not jaxish:
            return (), digest
        cache = result_cache()
        key = None
        if cache is not None:       # kept by an earlier process (flake8 starts one per run)
            key = self._key(cache, full, digest, externals)
            kept = _kept_outgoing(cache.get_payload(full, key, _SUFFIX))
            if kept is not None:
                return kept, digest
        data = _read(full)
        if bytes_digest(data) != digest:        # changed since it was stat'ed: keyed as it is now
            digest = bytes_digest(data)
            key = self._key(cache, full, digest, externals) if cache is not None else None
        if self.budget <= 0:
            self.cut = True
            return (), digest
        self.budget -= 1
        try:
            analysis = Analysis(parsed_tree(full, data), full, self.config,
                                data.decode("utf-8", "replace").splitlines(), project=self.project,
                                externals=externals)
            outgoing = tuple(analysis.outgoing)
            depends = analysis.all_depends()
            analysis.release()
        except (SyntaxError, ValueError):
            outgoing, depends = (), {}       # the bytes hold no module: kept as such
        except (RecursionError, MemoryError):
            return (), digest                # this process's limits: not kept for the next
        if key is not None:
            cache.put(full, key, {"outgoing": [call.to_json() for call in outgoing],
                                  "depends": compact_depends(depends)}, _SUFFIX)
        return outgoing, digest

    def _key(self, cache, full: str, digest: str, externals: tuple) -> str:
        """The entry of a module's traced calls: its bytes (by digest), the settings, and the
        calls made into it."""
        return cache.key_of_digest(full, digest, "\0".join((self.fingerprint, "incoming", full, json.dumps(
            [call.to_json() for call in externals], separators=(",", ":")))))

    def files(self, keys) -> dict:
        """{file: digest} of every module the answers under `keys` were read from."""
        found, todo, seen = {}, list(keys), set()
        while todo:
            key = todo.pop()
            if key in seen:
                continue
            seen.add(key)
            answer = self._get(key)
            found[key[0]] = answer.digest
            todo.extend(answer.children)
        return found


_SUFFIX = ".calls"      # beside the result entries (.json) of the cache, not counted as one


def _kept_outgoing(payload) -> Optional[tuple]:
    """The calls of a kept entry (Cache.get_payload has checked the modules it was read from),
    else None: a damaged or foreign entry is a miss, never an error."""
    if payload is None:
        return None
    try:
        return tuple(ExternalCall.from_json(item) for item in payload["outgoing"])
    except Exception:  # noqa: BLE001
        return None


def _digest(project, full: str, generation: int) -> str:
    """The digest of a file, looked up once per run."""
    memo = project.__dict__.get("_digests_of_generation")
    if memo is None or memo[0] != generation:
        memo = project.__dict__["_digests_of_generation"] = (generation, {})
    found = memo[1].get(full)
    if found is None:
        found = memo[1][full] = file_digest(full)
    return found
