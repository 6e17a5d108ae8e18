"""The result cache: a warm re-run reads results instead of analysing.

One JSON file per (file content, path, analysis settings, jaxlint version and source) under
`.jaxlint_cache/<version>/` in the project root (the nearest folder upward holding a
pyproject.toml or .git; else the working directory). Entries are written to a temporary file
and moved into place with os.replace, so concurrent runs never see half an entry; anything
unreadable, truncated or not ours is a miss and gets rewritten. JSON, not pickle: a cache folder
can come from anywhere (a CI artefact, a shared disk) and must never execute anything.
The key also hashes jaxlint's own source, so a development checkout whose analysis changed
under an unchanged version number never serves stale results.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
from typing import Optional

import jaxlint
from jaxlint.analysis.crossmodule import ExternalCall, compact_depends, dependency_holds
from jaxlint.project import bytes_digest
from jaxlint.atomic import write_atomically
from jaxlint.cachedir import CACHE_DIR, root_of, version_folder
from jaxlint.findings import FileResult, Finding, Fix
from jaxlint.notebooks import CellMap

FORMAT = 3       # 3: findings carry `detail` (the message became one short sentence)
_TAG = "Signature: 8a477f597d28d172789f06886806bc55\n# jaxlint result cache: safe to delete.\n"


@functools.lru_cache(maxsize=1)
def source_digest() -> str:
    """Hash of jaxlint's own .py files (about 50 small files: a few milliseconds)."""
    digest = hashlib.sha256()
    package = os.path.dirname(os.path.abspath(jaxlint.__file__))
    for root, dirs, files in os.walk(package):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(root, name)
                digest.update(os.path.relpath(path, package).encode() + b"\0")
                with open(path, "rb") as fh:
                    digest.update(fh.read())
    return digest.hexdigest()


class Cache:
    def __init__(self, version: Optional[str] = None, cache_dir: Optional[str] = None):
        self.version = version if version is not None else jaxlint.__version__
        self.cache_dir = cache_dir          # one folder for everything, instead of per project
        self._salt = f"jaxlint-cache-{FORMAT}\0{self.version}\0{source_digest()}\0".encode()
        self._roots: dict = {}
        self._folders: dict = {}
        self._ready: set = set()
        self.writable = True
        self.hits = self.misses = 0

    # -- where ------------------------------------------------------------------------------
    def project_root(self, directory: str) -> str:
        """Nearest folder upward holding pyproject.toml or .git; else the working directory."""
        return root_of(directory, self._roots)

    def folder(self, path: str) -> str:
        directory = os.path.dirname(os.path.abspath(path))
        if directory not in self._folders:
            base = self.cache_dir or os.path.join(self.project_root(directory), CACHE_DIR)
            self._folders[directory] = version_folder(base, self.version)
        return self._folders[directory]

    def imports_folder(self, root: str) -> Optional[str]:
        """The folder that keeps the module imports of the project at `root` between runs
        (project.use_cache), made if need be; None when it cannot be."""
        marker = os.path.join(root, "__init__.py")      # a file of the root: its folder's cache
        self.prepare(marker)
        folder = self.folder(marker)
        return folder if os.path.isdir(folder) else None

    # -- what -------------------------------------------------------------------------------
    def key(self, path: str, data: bytes, fingerprint: str) -> str:
        """Of the bytes, the settings and the path: within the project's own cache folder the
        path from its root (a project moved with its cache keeps the answers that need no other
        file); in a `--cache-dir` shared by several projects the whole path, since two projects
        can hold the same file at the same place (`pkg/ops.py`) whose answer differs with the
        modules around it."""
        return self.key_of_digest(path, bytes_digest(data), fingerprint)

    def key_of_digest(self, path: str, digest: str, fingerprint: str) -> str:
        """`key` from the digest of the bytes (project.bytes_digest): a module whose digest is
        kept (crossmodule.file_digest) is keyed without reading it."""
        full = os.path.abspath(path)
        root = self.project_root(os.path.dirname(full))
        rel = full[len(root):] if full.startswith(root) and not self.cache_dir else full
        digest_of_key = hashlib.sha256(self._salt)
        digest_of_key.update(f"{fingerprint}\0{rel}\0{digest}".encode("utf-8", "surrogateescape"))
        return digest_of_key.hexdigest()

    def get(self, path: str, key: str):
        """(FileResult, CellMap or None) from a valid entry, else None."""
        payload = self.get_payload(path, key)
        try:
            if payload is None:
                raise ValueError("no entry, or a module it depends on changed")
            found = decode(path, payload)
        except Exception:  # noqa: BLE001 - any bad entry is a miss, never an error
            self.misses += 1
            return None
        self.hits += 1
        return found

    def get_payload(self, path: str, key: str, suffix: str = ".json"):
        """The payload of a valid entry of ours (this format, this version, this key) whose
        `depends` ({other file: digest}, when the payload is a dict with one) all still hold,
        else None. Entries other than a file's result (`suffix`) keep what a new process would
        otherwise compute again, such as the traced calls an importer makes (analysis.incoming)."""
        try:
            with open(os.path.join(self.folder(path), key + suffix), "rb") as fh:
                entry = json.loads(fh.read())
            if (entry.get("format") != FORMAT or entry.get("jaxlint") != self.version
                    or entry.get("key") != key):
                raise ValueError("foreign entry")
            payload = entry["payload"]
            depends = payload.get("depends") if isinstance(payload, dict) else None
            if depends and not all(dependency_holds(other, digest) for other, digest in depends.items()):
                raise ValueError("a module it depends on changed")
            return payload
        except Exception:  # noqa: BLE001 - any bad entry is a miss, never an error
            return None

    def put(self, path: str, key: str, payload: dict, suffix: str = ".json") -> None:
        if not self.writable:
            return
        folder = self.folder(path)
        entry = {"format": FORMAT, "jaxlint": self.version, "key": key, "payload": payload}
        try:
            if folder not in self._ready:
                self._prepare(folder)
            write_atomically(os.path.join(folder, key + suffix),
                             json.dumps(entry, separators=(",", ":")).encode("utf-8"), suffix=suffix)
        except OSError:
            self.writable = False       # read-only tree: lint on, uncached

    def prepare(self, path: str) -> None:
        """Make the folder that will hold the entries of the file at `path` now (before a run
        records the stat of the folders it reads: see jaxlint.replay)."""
        folder = self.folder(path)
        if folder not in self._ready and self.writable:
            try:
                self._prepare(folder)
            except OSError:
                self.writable = False

    def _prepare(self, folder: str) -> None:
        os.makedirs(folder, exist_ok=True)
        top = os.path.dirname(folder)
        for name, text in (("CACHEDIR.TAG", _TAG), (".gitignore", "# created by jaxlint\n*\n")):
            if not os.path.exists(os.path.join(top, name)):
                write_atomically(os.path.join(top, name), text.encode("utf-8"))
        self._ready.add(folder)


# -- serialisation: plain JSON both ways, validated on the way in ------------------------------

def encode(result: FileResult, cells: Optional[CellMap]) -> dict:
    findings = []
    for f in result.findings:
        item = {fl.name: getattr(f, fl.name) for fl in dataclasses.fields(Finding)}
        if f.fix is not None:
            item["fix"] = dataclasses.asdict(f.fix)
        findings.append(item)
    return {"findings": findings, "error": result.error, "error_line": result.error_line,
            "error_col": result.error_col, "internal_error": result.internal_error,
            "notes": list(result.notes), "cells": cells.to_json() if cells else None,
            "outgoing": [call.to_json() for call in result.outgoing],
            "depends": compact_depends(result.depends),
            "linked": [call.to_json() for call in result.linked]}


def decode(path: str, payload: dict):
    findings = []
    for item in payload["findings"]:
        item = dict(item)
        if not (isinstance(item["code"], str) and isinstance(item["message"], str)
                and isinstance(item.get("detail", ""), str)
                and type(item["line"]) is int and type(item["col"]) is int):
            raise ValueError("malformed finding")
        if item.get("fix") is not None:
            fix = dict(item["fix"])
            fix["edits"] = tuple(tuple(edit) for edit in fix["edits"])
            item["fix"] = Fix(**fix)
        item["path"] = tuple(item.get("path", ()))
        item["chain"] = tuple(tuple(hop) for hop in item.get("chain", ()))
        findings.append(Finding(**item))
    error = payload["error"]
    if error is not None and not isinstance(error, str):
        raise ValueError("malformed error")
    result = FileResult(path=path, findings=findings, error=error,
                        error_line=int(payload["error_line"]), error_col=int(payload["error_col"]),
                        internal_error=payload["internal_error"], notes=list(payload["notes"]),
                        outgoing=[ExternalCall.from_json(item) for item in payload.get("outgoing", ())],
                        depends={str(k): str(v) for k, v in (payload.get("depends") or {}).items()},
                        linked=[ExternalCall.from_json(item) for item in payload.get("linked", ())])
    cells = CellMap.from_json(payload["cells"]) if payload["cells"] is not None else None
    return result, cells
