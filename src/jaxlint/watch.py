"""`jaxlint check --watch`: lint, then lint again whenever a watched file changes.

Watched: every file `check` would lint under the given paths (so a new file is seen, and an
excluded one is not) and every `pyproject.toml` from those paths upward, since a configuration
change changes the findings. Changes are found by polling modification times and sizes, which
needs no extra dependency and works on every file system (network mounts and containers
included). A change starts a quiet period: the run waits until nothing has changed for DEBOUNCE
seconds, so an editor's save, a formatter's rewrite and a branch switch each cause one run, not
one per file written.
"""

from __future__ import annotations

import os
import sys
import time

from jaxlint.config import ConfigError, ConfigFinder
from jaxlint.discovery import iter_targets

POLL = 0.2          # seconds between looks while nothing is happening
SETTLE_POLL = 0.05  # seconds between looks while waiting for changes to stop
DEBOUNCE = 0.2      # seconds without a change before the files are linted again


def snapshot(paths, finder_factory) -> dict:
    """{path: (mtime_ns, size)} of the files to lint and the configuration that applies."""
    try:
        files = [path for path, _ in iter_targets(paths, finder_factory())]
    except ConfigError:                 # reported by the run; keep watching the files meanwhile
        files = [path for path, _ in iter_targets(paths, ConfigFinder(isolated=True))]
    found = {}
    for path in files + config_files(paths):
        try:
            st = os.stat(path)
        except OSError:
            continue
        found[path] = (st.st_mtime_ns, st.st_size)
    return found


def config_files(paths) -> list:
    """Every pyproject.toml in or above the folders of `paths` (existing or not yet)."""
    seen, out = set(), []
    for path in paths:
        folder = os.path.abspath(path if os.path.isdir(path) else os.path.dirname(path) or ".")
        while folder not in seen:
            seen.add(folder)
            out.append(os.path.join(folder, "pyproject.toml"))
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder = parent
    return out


def changed(before: dict, after: dict) -> list:
    return sorted(p for p in set(before) | set(after) if before.get(p) != after.get(p))


def watch(run_once, paths, finder_factory, settle: bool = False, clear: bool = False,
          stream=None, sleep=time.sleep, clock=time.monotonic, runs=None) -> int:
    """Run `run_once`, then again after each debounced change, until Ctrl-C (exit 0).

    `settle`: the run itself writes files (--fix), so what it wrote is not a change to react
    to. `clear`: clear the terminal before each run. `runs` bounds the number of runs (tests)."""
    stream = stream or sys.stderr
    count = 0
    try:
        while True:
            state = snapshot(paths, finder_factory)
            if clear:
                sys.stdout.write("\x1b[2J\x1b[H")
                sys.stdout.flush()
            run_once()
            count += 1
            sys.stdout.flush()
            if settle:
                state = snapshot(paths, finder_factory)
            if runs is not None and count >= runs:
                return 0
            print(f"jaxlint: watching {len(state)} files for changes (Ctrl-C to stop)",
                  file=stream, flush=True)
            files = _wait_for_change(state, paths, finder_factory, sleep, clock)
            shown = ", ".join(files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
            print(f"jaxlint: {time.strftime('%H:%M:%S')} changed: {shown}", file=stream, flush=True)
    except KeyboardInterrupt:
        print("jaxlint: stopped watching", file=stream, flush=True)
        return 0


def _wait_for_change(state, paths, finder_factory, sleep, clock) -> list:
    """Block until the files differ from `state` and then stay unchanged for DEBOUNCE seconds;
    the files that changed."""
    while True:
        sleep(POLL)
        latest = snapshot(paths, finder_factory)
        if latest != state:
            break
    quiet_since = clock()
    while clock() - quiet_since < DEBOUNCE:
        sleep(SETTLE_POLL)
        newer = snapshot(paths, finder_factory)
        if newer != latest:
            latest, quiet_since = newer, clock()
    return changed(state, latest)
