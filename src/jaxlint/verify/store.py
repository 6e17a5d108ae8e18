"""The verdict store: what `jaxlint verify` decided, for `jaxlint check --confirmed-only` to read.

Standard library only: `check` reads it and must never import JAX or run code. One JSON file per
verified file content, `<cache folder>/verdicts/<sha256 of the file's bytes>.json`, where the
cache folder is check's (`.jaxlint_cache` in the project root, or `--cache-dir`). Keyed by the
content alone, so a verdict follows the file when it moves and is ignored as soon as one byte
of it changes (its line numbers would no longer be trusted). Entries are written to a temporary
file and moved into place; anything unreadable is simply no verdict.
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Optional

from jaxlint.atomic import write_atomically

FORMAT = 1
NOT_REPRODUCED = "not reproduced"


def folder(path: str, cache_dir: Optional[str] = None) -> str:
    from jaxlint.cache import CACHE_DIR, Cache
    if cache_dir:
        return os.path.join(cache_dir, "verdicts")
    directory = os.path.dirname(os.path.abspath(path))
    return os.path.join(Cache().project_root(directory), CACHE_DIR, "verdicts")


def digest(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


def save(path: str, content: bytes, verdicts: list, cache_dir: Optional[str] = None) -> Optional[str]:
    """Record `verdicts` (FindingVerdicts) for this content of `path`; the entry's path, or None
    when the folder cannot be written (verifying still succeeded)."""
    import jaxlint
    entry = {"format": FORMAT, "jaxlint_version": jaxlint.__version__, "path": os.path.abspath(path),
             "sha256": digest(content),
             "findings": [{"code": v.finding.code, "line": v.finding.line, "col": v.finding.col + 1,
                           "verdict": v.verdict, "basis": v.basis, "reason": v.reason} for v in verdicts]}
    target_dir = folder(path, cache_dir)
    target = os.path.join(target_dir, entry["sha256"] + ".json")
    try:
        os.makedirs(target_dir, exist_ok=True)
        write_atomically(target, json.dumps(entry, indent=1).encode("utf-8"), suffix=".json")
    except OSError:
        return None
    return target


def load(path: str, content: bytes, cache_dir: Optional[str] = None) -> dict:
    """{(code, line, col): verdict} recorded for exactly this content; {} when there is none."""
    target = os.path.join(folder(path, cache_dir), digest(content) + ".json")
    try:
        with open(target, encoding="utf-8") as handle:
            entry = json.load(handle)
        if entry.get("format") != FORMAT or entry.get("sha256") != digest(content):
            return {}
        return {(f["code"], int(f["line"]), int(f["col"])): f["verdict"] for f in entry.get("findings", [])}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def refuted(path: str, findings, cache_dir: Optional[str] = None, content: Optional[bytes] = None) -> set:
    """Indexes of `findings` (jaxlint.findings.Finding) that `jaxlint verify` found not reproduced
    for the current content of `path`."""
    if content is None:
        try:
            with open(path, "rb") as handle:
                content = handle.read()
        except OSError:
            return set()
    recorded = load(path, content, cache_dir)
    return {i for i, f in enumerate(findings) if recorded.get((f.code, f.line, f.col + 1)) == NOT_REPRODUCED}
