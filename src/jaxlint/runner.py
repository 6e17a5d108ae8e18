"""Lint many files: read each once, answer from the cache, analyse the misses in parallel.

The main process reads and hashes every file and serves cache hits itself, so a warm run never
pays for starting worker processes. Misses go to a process pool (the analysis is pure Python and
CPU-bound: threads would not help). Results come back in input order, so output is the same for
any `-j`.
"""

from __future__ import annotations

import io
import os
import sys
import time
import tokenize
from dataclasses import dataclass
from typing import Optional

from jaxlint.cache import Cache, decode, encode
from jaxlint.config import Config
from jaxlint.findings import FileResult
from jaxlint.notebooks import CellMap
from jaxlint.project import MAX_BOUNDARIES, bytes_digest, next_run
from jaxlint.source import SKIP_NOTE, SourceError, mentions_jax, read_file
from jaxlint.source import decode as decode_source


CHECK_LIMIT = 25     # fixable findings in one file beyond which the summary does not check them


@dataclass
class FileReport:
    """One file's outcome as the reporters see it."""

    path: str
    config: Config
    result: FileResult
    cells: Optional[CellMap] = None   # set for notebooks: maps lines back to cells
    io_error: Optional[str] = None    # the file could not be read (E902)
    data: Optional[bytes] = None      # the bytes linted, when they are not on disk (stdin, editor)


def default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _project(root: Optional[str]):
    from jaxlint.project import project_at
    return project_at(root)


def lint_one(task) -> dict:
    """Worker entry point: (path, bytes, config[, project root, external calls]) -> an encoded
    result. Never raises."""
    path, data, config = task[:3]
    root = task[3] if len(task) > 3 else None
    externals = task[4] if len(task) > 4 else ()
    cells = None
    try:
        if path.endswith(".ipynb"):
            from jaxlint.notebooks import lint_notebook
            result, cells = lint_notebook(path, data, config)
        else:
            from jaxlint.engine import lint_file
            result = lint_file(path, config=config, data=data, project=_project(root), externals=externals)
            if externals:
                result.linked = list(externals)
    except Exception as exc:  # noqa: BLE001 - one file's failure must not stop the run
        from jaxlint.engine import internal_error_text
        result = FileResult(path=path, internal_error=internal_error_text(path, exc))
    return encode(result, cells)


def run(targets, jobs: Optional[int] = None, cache: Optional[Cache] = None,
        progress: bool = False) -> list:
    """[(path, Config)] -> [FileReport] in the same order."""
    next_run()
    reports, pending = [], []
    for path, config in targets:
        report = FileReport(path=path, config=config, result=FileResult(path=path))
        reports.append(report)
        try:
            data = read_file(path)
        except SourceError as exc:
            report.io_error = exc.message.removeprefix("cannot read file: ")
            continue
        miss = _from_cache(report, data, cache)
        if miss is not None:
            pending.append(_deferred(miss))
    universe = _linked(reports)
    if universe and len(universe) <= MAX_NAMED:
        # a few files of a project: the files importing them first (unreported), so that the
        # calls their traces make into the named files run in those files' first analysis
        _add_importers(universe, jobs, cache)
    meter = Progress(len(pending)) if progress else None
    known = {id(r): r for r in reports} | {id(r): r for r in universe.values()}
    done = [r.result for r in known.values() if r.result.outgoing]      # from the cache
    for (report, key, _), payload in _analyse_importers_first(pending, done, jobs, meter):
        report.result, report.cells = decode(report.path, payload)
        if cache and key is not None and not report.result.internal_error:
            cache.put(os.path.abspath(report.path), key, payload)
    if meter:
        meter.close()
    link_modules(universe, jobs, cache)
    return reports


def _linked(reports) -> dict:
    """Absolute path -> report of the files whose traces are followed across modules."""
    return {os.path.abspath(r.path): r for r in reports
            if r.config.project_analysis and not r.io_error and not r.path.endswith(".ipynb")
            and _root_of(r.path)}


def boundaries(call) -> int:
    """How many module boundaries a traced call into another module has crossed from the jitted
    entry (1: the entry's module calls the helper's)."""
    files = [hop[2] for hop in call.chain] + [call.path]
    return sum(1 for a, b in zip(files, files[1:]) if a != b)


def _in_order(calls) -> tuple:
    """Calls in the order a module's analysis runs them: the shortest chains first (a call
    reached again through a longer chain is the same call, and keeps the chain seen first)."""
    return tuple(sorted(calls, key=lambda call: (boundaries(call), repr(call))))


def _calls_into(results) -> dict:
    """file -> the traced calls other modules' results make into it, within MAX_BOUNDARIES."""
    wanted: dict = {}
    for result in results:
        if not result.outgoing:
            continue
        own = os.path.abspath(result.path)
        for call in result.outgoing:
            if call.path != own and _within_reach(call):
                wanted.setdefault(call.path, set()).add(call)
    return wanted


def _within_reach(call) -> bool:
    """boundaries(call) <= MAX_BOUNDARIES (a chain of at most that many hops cannot cross more)."""
    return len(call.chain) <= MAX_BOUNDARIES or boundaries(call) <= MAX_BOUNDARIES


def _analyse_importers_first(pending, done, jobs, meter):
    """Yield ((report, key, task), payload) for each of `pending`, analysing a module of a
    project after the pending files that import it, so that the calls their traces make into it
    run in its first analysis (`link_modules` would otherwise analyse it a second time). Modules
    that import each other are analysed together, and `link_modules` completes them. `done`:
    results known already (from the cache), whose calls count too."""
    if not pending:
        return                          # (a warm run: everything came from the cache)
    from jaxlint.analysis.crossmodule import ExternalCall
    order, waits, unlocks = _importers_first(pending)
    calls = _calls_into(done)
    blocked = [len(w) for w in waits]
    ready = [unit for unit in order if not blocked[unit[0]]]
    ready.reverse()                     # a stack: the first unit of `order` on top

    def task_of(i):
        pending[i] = _read_again(pending[i])
        report, key, task = pending[i]
        wanted = calls.get(os.path.abspath(report.path))
        if wanted and len(task) == 4 and task[3]:
            task = task + (_in_order(wanted),)
        return task

    def finished(i, payload):
        own = os.path.abspath(pending[i][0].path)
        for item in payload.get("outgoing", ()) if isinstance(payload, dict) else ():
            if item[0] != own:
                call = ExternalCall.from_json(item)
                if _within_reach(call):
                    calls.setdefault(call.path, set()).add(call)
        for unit in unlocks[i]:
            blocked[unit[0]] -= 1
            if not blocked[unit[0]]:
                ready.append(unit)

    jobs = min(jobs or default_jobs(), len(pending))
    left = set(range(len(pending)))
    if jobs > 1:
        import concurrent.futures       # here: 3-4 ms of imports that a one-process run skips
        try:
            with concurrent.futures.ProcessPoolExecutor(max_workers=jobs) as pool:
                running: dict = {}
                while ready or running:
                    while ready and len(running) < jobs * 2:
                        unit = ready.pop()
                        for k in range(0, len(unit), _BATCH):
                            part = unit[k:k + _BATCH]
                            running[pool.submit(_lint_batch, [task_of(i) for i in part])] = part
                    finished_now, _ = concurrent.futures.wait(running, return_when="FIRST_COMPLETED")
                    for future in finished_now:
                        part = running.pop(future)
                        for i, payload in zip(part, future.result()):
                            left.discard(i)
                            if meter:
                                meter.update(len(pending) - len(left))
                            finished(i, payload)
                            yield pending[i], payload
                            pending[i] = _released(pending[i])
            return
        except (concurrent.futures.process.BrokenProcessPool, OSError):
            # a worker died (memory?): finish in this process, what is left in the same order
            ready = [tuple(i for unit in order for i in unit if i in left)]
    while ready:
        for i in ready.pop():
            payload = lint_one(task_of(i))
            left.discard(i)
            if meter:
                meter.update(len(pending) - len(left))
            finished(i, payload)
            yield pending[i], payload
            pending[i] = _released(pending[i])


class _Unread(tuple):
    """In a pending task, instead of the file's bytes: (size, hash) of the bytes its cache key
    was computed from. The bytes of every file waiting in a run would otherwise be held at once
    (the size of the linted tree, at the run's peak); each is read again when its turn comes."""


def _deferred(item) -> tuple:
    report, key, task = item
    data = task[1]
    if isinstance(data, bytes) and not task[0].endswith(".ipynb"):
        task = task[:1] + (_Unread((len(data), hash(data))),) + task[2:]
    return report, key, task


def _read_again(item) -> tuple:
    """The task with its file's bytes read again. Bytes that differ from those the cache key was
    computed from (the file changed meanwhile) are analysed, and the result is not cached (key
    None): it would be stored under the key of the other content."""
    report, key, task = item
    stamp = task[1]
    if not isinstance(stamp, _Unread):
        return item
    try:
        data = read_file(task[0])
    except SourceError:
        data = None         # gone meanwhile: the analysis reads it and reports why it cannot
    if data is None or (len(data), hash(data)) != stamp:
        key = None
    return report, key, task[:1] + (data,) + task[2:]


def _released(item) -> tuple:
    """A finished (report, key, task) without the file's bytes, which it no longer needs."""
    report, key, task = item
    return report, key, task[:1] + (None,) + task[2:]


_BATCH = 4      # files sent to a worker at once: fewer round trips, little waiting at the end


def _lint_batch(tasks) -> list:
    return [lint_one(task) for task in tasks]


def _importers_first(pending) -> tuple:
    """(units, waits, unlocks): `pending` split into units of files analysed together (a module,
    or modules that import each other), in an order where each comes after those importing it;
    waits[first file of a unit] = the files of other units it waits for; unlocks[i] = the units
    waiting for file i. Imports are read from each file's own text (top level); a missed one only
    costs `link_modules` a second analysis."""
    count = len(pending)
    index = {os.path.abspath(task[0]): i for i, (_, _, task) in enumerate(pending)
             if len(task) > 3 and task[3] and task[0].endswith(".py")}
    imported = [[] for _ in range(count)]       # i -> the pending files that i imports
    for full, i in index.items():
        report, _, task = pending[i]
        project = _project(task[3])
        if project is None:
            continue
        for dotted in project.imports_of(full, None if isinstance(task[1], _Unread) else task[1]).values():
            name = project.absolute(dotted, full)
            while name:                          # `pkg.ops.clip`: the module `pkg.ops`
                path = project.module_path(name)
                if path is not None:
                    j = index.get(os.path.abspath(path))
                    if j is not None and j != i:
                        imported[i].append(j)
                    break
                name = name.rpartition(".")[0]
    units = _components(imported)
    waits = [set() for _ in range(count)]
    unlocks = [[] for _ in range(count)]
    importers = [[] for _ in range(count)]
    for i, targets in enumerate(imported):
        for j in targets:
            importers[j].append(i)
    for unit in units:
        members = set(unit)
        head = unit[0]
        waits[head] = {j for i in unit for j in importers[i] if j not in members}
        for j in waits[head]:
            unlocks[j].append(unit)
    return units, waits, unlocks


def _components(edges) -> list:
    """Strongly connected components of the graph i -> edges[i], each a tuple of its nodes in
    increasing order, listed so that a component comes before every component it reaches
    (Tarjan's algorithm emits the reached ones first; the list is that order reversed).
    Iterative: a chain of thousands of imports must not exhaust the stack."""
    count = len(edges)
    number = [-1] * count
    low = [0] * count
    on_stack = [False] * count
    stack, found, counter = [], [], 0
    for root in range(count):
        if number[root] != -1:
            continue
        work = [(root, 0)]
        while work:
            node, position = work.pop()
            if position == 0:
                number[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack[node] = True
            targets = edges[node]
            while position < len(targets):
                nxt = targets[position]
                position += 1
                if number[nxt] == -1:
                    work.append((node, position))
                    work.append((nxt, 0))
                    break
                if on_stack[nxt]:
                    low[node] = min(low[node], number[nxt])
            else:
                if low[node] == number[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack[member] = False
                        component.append(member)
                        if member == node:
                            break
                    found.append(tuple(sorted(component)))
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
    found.reverse()
    return found


MAX_IMPORTERS = 200     # files read to find the traces that reach the files linted
MAX_NAMED = 32          # linting more files than this: the project is taken as linted whole


def link_modules(universe: dict, jobs=None, cache: Optional[Cache] = None) -> None:
    """Trace-time facts across modules: each traced call into another module of the project
    (a result's `outgoing`) is run in that module's analysis, whose findings land on its lines.
    `universe` (absolute path -> report): the files linted, and when only some files of a
    project are, the files importing them (`_add_importers`: their findings are not reported),
    so that a helper linted alone still sees the jitted step that calls it. Rounds repeat while
    a helper's run calls into yet another module."""
    if not universe:
        return
    # what each result ran already (handed in by `run`, or recorded in a cached result)
    applied: dict = {path: set(report.result.linked) for path, report in universe.items()}
    for _ in range(MAX_BOUNDARIES + 1):     # each round crosses one more module boundary
        wanted = _calls_into(report.result for report in universe.values())
        todo = [(path, wanted.get(path, set())) for path in sorted(universe)
                if wanted.get(path, set()) != applied[path]]
        if not todo:
            return
        tasks = []
        for path, calls in todo:
            report = universe[path]
            try:
                data = report.data if report.data is not None else read_file(report.path)
            except SourceError:
                continue
            ordered = _in_order(calls)
            key = found = None
            if cache:
                key = cache.key(path, data, f"{report.config.fingerprint()}\0calls\0{ordered!r}")
                found = cache.get(path, key)
            applied[path] = calls
            if found is not None:
                report.result, report.cells = found
                report.result.path = report.path
                continue
            tasks.append((report, key, (report.path, data, report.config, _root_of(report.path), ordered)))
        for (report, key, _), payload in zip(tasks, _analyse([t for *_, t in tasks], jobs, None)):
            report.result, report.cells = decode(report.path, payload)
            if cache and not report.result.internal_error:
                cache.put(os.path.abspath(report.path), key, payload)


_ROOTS: dict = {}


def _root_of(path: str) -> Optional[str]:
    folder = os.path.dirname(os.path.abspath(path))
    if folder not in _ROOTS:
        from jaxlint.project import find_root
        _ROOTS[folder] = find_root(folder)
    return _ROOTS[folder]


def _add_importers(universe: dict, jobs, cache) -> None:
    """Add (unreported) the project files that import the linted ones, transitively, so that
    their traces into the linted files are seen; a whole project linted at once needs none."""
    frontier = list(universe)
    extra = []
    for _ in range(MAX_BOUNDARIES):     # each round crosses one more module boundary
        found = []
        for path in frontier:
            project = _project(_root_of(path))
            if project is None:
                continue
            for other in project.importers(path):
                full = os.path.abspath(other)
                if full not in universe and full not in found and len(extra) + len(found) < MAX_IMPORTERS:
                    found.append(full)
        if not found:
            break
        config = universe[frontier[0]].config if frontier[0] in universe else None
        for full in found:
            report = FileReport(path=full, config=config or Config(), result=FileResult(path=full))
            universe[full] = report
            extra.append(report)
        frontier = found
    pending = []
    for report in extra:
        missed = None
        if cache:
            missed = _kept_for_digest(report, cache)
            if missed is None:
                continue
        try:
            data = read_file(report.path)
        except SourceError:
            continue
        miss = _from_cache(report, data, cache, missed=missed)
        if miss is not None:
            pending.append(miss)
    for (report, key, _), payload in zip(pending, _analyse([t for *_, t in pending], jobs, None)):
        report.result, report.cells = decode(report.path, payload)
        if cache and not report.result.internal_error:
            cache.put(os.path.abspath(report.path), key, payload)


def _from_cache(report: FileReport, data: bytes, cache: Optional[Cache], alone: bool = False,
                missed: Optional[str] = None):
    """Fill `report` from the cache, or return (report, key, task) for the analysis to do.

    `alone`: the file is linted by itself (standard input, an editor's buffer), so a module of a
    project is analysed with the traces its importers make into it, read from their files. Such
    a result has a cache entry of its own: the entry of a run over many files holds the module's
    own analysis, which that run completes with the other modules' traces afterwards.
    `missed`: the digest under which `_kept_for_digest` found no entry (not looked up again
    when the bytes still have it)."""
    path, config = report.path, report.config
    full = os.path.abspath(path)
    digest = bytes_digest(data) if cache else None
    looked = missed is not None and missed == digest
    if not path.endswith(".ipynb") and not mentions_jax(data, config) \
            and not _calls_project_jit(path, full, data, config, cache, digest, looked):
        report.result.notes.append(SKIP_NOTE)   # cannot hold a traced function (--verbose says so)
        return None
    root = _root_of(path) if config.project_analysis else None
    key = found = None
    if cache:
        key = cache.key_of_digest(full, digest, _result_fingerprint(config, alone and bool(root)))
        found = None if looked else cache.get(full, key)
    if found is not None:
        report.result, report.cells = found
        report.result.path = path
        return None
    return report, key, (path, data, config, root)


def _kept_for_digest(report: FileReport, cache: Cache) -> Optional[str]:
    """Fill an importer's report from the cache by the digest kept for its file (unread when its
    version is unchanged), as `_from_cache` would from its bytes: its result, or the answer that
    it names no jax and calls no jitted function of the project. None when filled; else the
    digest looked up (the file is to be read)."""
    from jaxlint.analysis.crossmodule import file_digest
    full = os.path.abspath(report.path)
    digest = file_digest(full)
    config = report.config
    found = cache.get(full, cache.key_of_digest(full, digest, _result_fingerprint(config)))
    if found is not None:
        report.result, report.cells = found
        report.result.path = report.path
        return None
    if config.project_analysis and cache.get_payload(
            full, cache.key_of_digest(full, digest, _no_jit_fingerprint(config))) is not None:
        report.result.notes.append(SKIP_NOTE)
        return None
    return digest


def _result_fingerprint(config: Config, alone: bool = False) -> str:
    """What keys a file's result besides its bytes and path (`alone`: linted by itself, with its
    importers' traces)."""
    return config.fingerprint() + ("\0alone" if alone else "")


def _no_jit_fingerprint(config: Config) -> str:
    """What keys the answer that a file naming no jax calls no jitted function of its project."""
    return f"{config.fingerprint()}\0calls no jit"


def _calls_project_jit(path: str, full: str, data: bytes, config: Config, cache: Optional[Cache],
                       digest: Optional[str] = None, looked: bool = False) -> bool:
    """A module that never names jax but calls another module's jitted function is linted. The
    answer "it calls none" is cached with the modules it looked into, so that a warm run of a
    project with many such files neither parses their imports nor reads those modules again.
    `digest`: of `data`, when known; `looked`: the cache was asked already, in vain."""
    if not config.project_analysis:
        return False
    project = _project(_root_of(path))
    if project is None:
        return False
    key = None
    if cache:
        key = cache.key_of_digest(full, digest or bytes_digest(data), _no_jit_fingerprint(config))
        if not looked and cache.get(full, key) is not None:
            return False
    from jaxlint.analysis.crossmodule import calls_project_jit
    depends: dict = {}
    if calls_project_jit(project, path, data, config, depends):
        return True
    if cache:
        cache.put(full, key, encode(FileResult(path=path, depends=depends), None))
    return False


def lint_data(path: str, data: bytes, config: Config, cache: Optional[Cache] = None,
              store: bool = True) -> FileReport:
    """One file's bytes that are not (or not yet) on disk, such as standard input or an editor's
    buffer, linted as `run` lints a file at `path`: the same filter, notebook handling and cache.
    `store=False` reads the cache but does not add to it (a buffer being typed)."""
    next_run()
    report = FileReport(path=path, config=config, result=FileResult(path=path), data=data)
    miss = _from_cache(report, data, cache, alone=True)
    if miss is None and SKIP_NOTE in report.result.notes and config.project_analysis \
            and not path.endswith(".ipynb") and _root_of(path):
        # a helper that never names jax may still run under another module's jitted step
        from jaxlint.analysis.incoming import incoming_calls
        project = _project(_root_of(path))
        externals = incoming_calls(project, path, config) if os.path.isfile(path) else ()
        if externals:
            report.result, report.cells = decode(path, lint_one((path, data, config, _root_of(path), externals)))
        return report
    if miss is not None:
        _, key, task = miss
        if task[3]:             # alone in its project: the importers' traces into it are read too
            task = task + (None,)
        payload = lint_one(task)
        report.result, report.cells = decode(path, payload)
        if cache and store and not report.result.internal_error:
            cache.put(os.path.abspath(path), key, payload)
    return report


def file_bytes(text: str) -> Optional[bytes]:
    """`text` as its file would hold it: encoded as its coding cookie says, so that decoding
    gives `text` back exactly (the positions of findings and fixes refer to it). None when no
    such bytes exist (a character the declared encoding cannot hold)."""
    head = "".join(text.splitlines(keepends=True)[:2]).encode("utf-8", "surrogatepass")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(head).readline)
        data = text.encode(encoding)
        if not text.startswith("\ufeff") and decode_source(data) == text:
            return data
    except (SyntaxError, LookupError, UnicodeError, SourceError):
        pass
    return None


def lint_text(path: str, text: str, config: Config, cache: Optional[Cache] = None,
              store: bool = True) -> FileReport:
    """An editor's text of the file at `path`, linted as the file would be, cache included.
    Text that no file could hold (see file_bytes) is linted directly, uncached."""
    data = file_bytes(text)
    if data is not None:
        return lint_data(path, data, config, cache, store)
    from jaxlint.engine import internal_error_text, lint_source
    report = FileReport(path=path, config=config, result=FileResult(path=path))
    try:
        report.result = lint_source(text, path, config=config)
    except Exception as exc:  # noqa: BLE001 - a bug on one text is a result, never a crash
        report.result.internal_error = internal_error_text(path, exc)
    return report


def attach_fixes(reports, cache: Optional[Cache] = None, jobs: Optional[int] = None) -> int:
    """Give each selected finding its checked fix (safe or unsafe), when it has one, in place:
    what the summary counts as fixable and `--show-source` shows. Checking a fix lints the file
    again, so the results are cached like the analysis, under a key of their own (the findings
    enabled, so that a warm run finds them before it loads the rules), and a file with more than
    CHECK_LIMIT candidates is not checked (10,000 findings in one file would be 10,000 analyses
    of it). Notebooks are never rewritten: their findings get no fix. Returns how many findings
    were left unchecked."""
    if not any(report.result.findings for report in reports):
        return 0
    fixable_codes = None
    pending, unchecked = [], 0
    for report in reports:
        result = report.result
        if report.io_error or result.error or result.internal_error or report.cells is not None:
            continue
        enabled = sorted((f.code, f.line, f.col) for f in result.findings
                         if report.config.enabled(f.code, report.path))
        if not enabled:
            continue
        try:
            data = report.data if report.data is not None else read_file(report.path)
        except SourceError:
            continue
        key = None
        if cache:
            full = os.path.abspath(report.path)
            key = cache.key(full, data, f"{report.config.fingerprint()}\0fixes\0{enabled!r}")
            found = cache.get(full, key)
            if found is not None:
                result.findings = found[0].findings
                continue
        if fixable_codes is None:
            fixable_codes = _fixable_codes()
        wanted = [item for item in enabled if item[0] in fixable_codes]
        if not wanted:
            if cache:       # nothing to check: remembered, so that the next run need not ask
                cache.put(full, key, encode(FileResult(path=report.path, findings=result.findings), None))
            continue
        if len(wanted) > CHECK_LIMIT:
            unchecked += len(wanted)
            continue
        pending.append((report, key, (report.path, data, report.config, result.findings)))
    for (report, key, _), payload in zip(pending, _analyse([t for *_, t in pending], jobs, None,
                                                           fixes_one)):
        fixed, _ = decode(report.path, payload)
        if fixed.internal_error:
            continue
        report.result.findings = fixed.findings
        if cache:
            cache.put(os.path.abspath(report.path), key, payload)
    return unchecked


def _fixable_codes() -> frozenset:
    """The codes whose rule has a fix, from the rule registry: the fixer's own FIXABLE_CODES
    would import it and libcst, a cost a run whose findings have no fix should not pay."""
    from jaxlint.rules import RULES
    return frozenset(rule.code for rule in RULES if rule.fix_finding is not None)


def fixes_one(task) -> dict:
    """Worker entry point: (path, bytes, config, findings) -> the findings with their checked
    fixes, encoded. Never raises: a failure leaves the findings without fixes."""
    path, data, config, findings = task
    try:
        from jaxlint import deepstack, fixer
        text = decode_source(data)
        found = deepstack.call(fixer.checked_fixes, text, path, config, findings)
        result = FileResult(path=path, findings=found)
    except Exception as exc:  # noqa: BLE001 - fixes are extra: never fail the run over them
        result = FileResult(path=path, findings=list(findings), internal_error=str(exc))
    return encode(result, None)


def _analyse(tasks, jobs, meter, worker=lint_one):
    """Yield encoded results of `worker` in task order, in a process pool when that pays."""
    jobs = min(jobs or default_jobs(), len(tasks))
    done = 0
    if jobs > 1:
        import concurrent.futures
        chunk = max(1, min(8, len(tasks) // (jobs * 8)))
        try:
            with concurrent.futures.ProcessPoolExecutor(max_workers=jobs) as pool:
                for payload in pool.map(worker, tasks, chunksize=chunk):
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
        yield worker(task)


class Progress:
    """`files 120/2300` on stderr, redrawn at most ten times a second, shown only once a run
    has taken half a second (short runs stay quiet), and erased at the end."""

    def __init__(self, total: int, stream=None):
        self.total = total
        # not part of the report: a run being recorded (jaxlint.replay) does not keep it
        self.stream = stream or getattr(sys.stderr, "unrecorded", sys.stderr)
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
