"""Runs a user's program with its traces and compiles recorded: the child of `verify --run`.

CHILD SIDE: `python -m jaxlint.verify.runharness --out FILE [--module] TARGET [ARGS...]` runs
TARGET as `__main__` (like `python TARGET ARGS` or `python -m TARGET ARGS`), with a `Recorder`
installed, and writes what it recorded to FILE as JSON when the program ends, however it ends
(normal exit, sys.exit, an exception, SIGTERM from the parent's timeout). The program's own
stdin, stdout and stderr are left alone.
"""

from __future__ import annotations

import argparse
import json
import os
import runpy
import signal
import sys
import time
import traceback


def _write(path, payload):
    tmp = path + ".tmp"
    with open(tmp, "w") as handle:
        json.dump(payload, handle, default=str)
    os.replace(tmp, path)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jaxlint.verify.runharness")
    parser.add_argument("--out", required=True)
    parser.add_argument("--module", action="store_true")
    parser.add_argument("--memory-mb", type=int, default=0)
    parser.add_argument("target")
    parser.add_argument("args", nargs=argparse.REMAINDER)
    options = parser.parse_args(argv)
    if options.memory_mb:
        # set here rather than between fork and exec in the parent, which may run JAX's threads
        import resource
        size = options.memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (size, size))

    from jaxlint.verify.recorder import Recorder

    recorder = Recorder(keep_samples=False).install()
    payload = {"target": options.target, "module": options.module, "script": None,
               "exit": 0, "error": None, "records": recorder.records, "unmatched": recorder.unmatched}
    start = time.monotonic()

    def on_term(signum, frame):
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, on_term)
    sys.argv = [options.target] + list(options.args)
    try:
        if options.module:
            import importlib.util
            spec = importlib.util.find_spec(options.target)
            payload["script"] = getattr(spec, "origin", None) if spec else None
            sys.path.insert(0, os.getcwd())
            runpy.run_module(options.target, run_name="__main__", alter_sys=True)
        else:
            payload["script"] = os.path.abspath(options.target)
            sys.path.insert(0, os.path.dirname(os.path.abspath(options.target)))
            runpy.run_path(payload["script"], run_name="__main__")
    except SystemExit as exc:
        code = exc.code
        payload["exit"] = code if isinstance(code, int) else (0 if code is None else 1)
        if code is not None and not isinstance(code, int):
            print(code, file=sys.stderr)
    except BaseException as exc:  # noqa: BLE001 - report like Python would, then record
        traceback.print_exc()
        payload["exit"] = 1
        payload["error"] = f"{type(exc).__name__}: {exc}"
    finally:
        payload["wall_s"] = round(time.monotonic() - start, 3)
        try:
            sys.stdout.flush()
        except Exception:  # noqa: BLE001
            pass
        _write(options.out, payload)
    return payload["exit"]


if __name__ == "__main__":
    sys.exit(main())
