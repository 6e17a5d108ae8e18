"""Lint many files: read each once, answer from the cache, analyse the misses in parallel.

The main process reads and hashes every file and serves cache hits itself, so a warm run never
pays for starting worker processes. Misses go to a process pool (the analysis is pure Python and
CPU-bound: threads would not help). Results come back in input order, so output is the same for
any `-j`.
"""

from __future__ import annotations

import concurrent.futures
import os
import sys
import time
from dataclasses import dataclass
from typing import Optional

from jaxlint.cache import Cache, decode, encode
from jaxlint.config import Config
from jaxlint.findings import FileResult
from jaxlint.notebooks import CellMap
from jaxlint.source import SourceError, mentions_jax, read_file


@dataclass
class FileReport:
    """One file's outcome as the reporters see it."""

    path: str
    config: Config
    result: FileResult
    cells: Optional[CellMap] = None   # set for notebooks: maps lines back to cells
    io_error: Optional[str] = None    # the file could not be read (E902)


def default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def lint_one(task) -> dict:
    """Worker entry point: (path, bytes, config) -> an encoded result. Never raises."""
    path, data, config = task
    cells = None
    try:
        if path.endswith(".ipynb"):
            from jaxlint.notebooks import lint_notebook
            result, cells = lint_notebook(path, data, config)
        else:
            from jaxlint.engine import lint_file
            result = lint_file(path, config=config, data=data)
    except Exception as exc:  # noqa: BLE001 - one file's failure must not stop the run
        from jaxlint.engine import internal_error_text
        result = FileResult(path=path, internal_error=internal_error_text(path, exc))
    return encode(result, cells)


def run(targets, jobs: Optional[int] = None, cache: Optional[Cache] = None,
        progress: bool = False) -> list:
    """[(path, Config)] -> [FileReport] in the same order."""
    reports, pending = [], []
    for path, config in targets:
        report = FileReport(path=path, config=config, result=FileResult(path=path))
        reports.append(report)
        try:
            data = read_file(path)
        except SourceError as exc:
            report.io_error = exc.message.removeprefix("cannot read file: ")
            continue
        if not path.endswith(".ipynb") and not mentions_jax(data):
            continue                    # cannot hold a traced function: nothing to analyse
        key = found = None
        if cache:
            full = os.path.abspath(path)    # once: the cache needs it three times
            key = cache.key(full, data, config.fingerprint())
            found = cache.get(full, key)
        if found is not None:
            report.result, report.cells = found
            report.result.path = path
        else:
            pending.append((report, key, (path, data, config)))
    meter = Progress(len(pending)) if progress else None
    for (report, key, _), payload in zip(pending, _analyse([t for *_, t in pending], jobs, meter)):
        report.result, report.cells = decode(report.path, payload)
        if cache and not report.result.internal_error:
            cache.put(os.path.abspath(report.path), key, payload)
    if meter:
        meter.close()
    return reports


def _analyse(tasks, jobs, meter):
    """Yield encoded results in task order, in a process pool when that pays."""
    jobs = min(jobs or default_jobs(), len(tasks))
    done = 0
    if jobs > 1:
        chunk = max(1, min(8, len(tasks) // (jobs * 8)))
        try:
            with concurrent.futures.ProcessPoolExecutor(max_workers=jobs) as pool:
                for payload in pool.map(lint_one, tasks, chunksize=chunk):
                    done += 1
                    if meter:
                        meter.update(done)
                    yield payload
            return
        except (concurrent.futures.process.BrokenProcessPool, OSError):
            pass                        # a worker died (memory?): finish in this process
    for task in tasks[done:]:
        done += 1
        if meter:
            meter.update(done)
        yield lint_one(task)


class Progress:
    """`files 120/2300` on stderr, redrawn at most ten times a second, shown only once a run
    has taken half a second (short runs stay quiet), and erased at the end."""

    def __init__(self, total: int, stream=None):
        self.total = total
        self.stream = stream or sys.stderr
        self.start = self.last = time.monotonic()
        self.shown = False

    def update(self, done: int) -> None:
        now = time.monotonic()
        if now - self.start < 0.5 or now - self.last < 0.1:
            return
        self.last = now
        self.shown = True
        self.stream.write(f"\rjaxlint: {done}/{self.total} files analysed")
        self.stream.flush()

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
