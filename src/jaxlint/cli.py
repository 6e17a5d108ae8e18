"""The `jaxlint` command: argument parsing, file discovery and exit codes. No analysis here."""

from __future__ import annotations

import argparse
import os
import sys

from jaxlint import __version__
from jaxlint.engine import lint_file

DEFAULT_EXCLUDES = {".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", "build", "dist",
                    "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", "node_modules",
                    ".eggs", ".jaxlint_cache", "site-packages"}


def iter_python_files(paths, excludes=DEFAULT_EXCLUDES):
    for path in paths:
        if os.path.isdir(path):
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if d not in excludes and not d.endswith(".egg-info"))
                for name in sorted(files):
                    if name.endswith(".py"):
                        yield os.path.join(root, name)
        else:
            yield path


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="jaxlint", description=__doc__)
    parser.add_argument("--version", action="version", version=f"jaxlint {__version__}")
    sub = parser.add_subparsers(dest="command")
    check = sub.add_parser("check", help="lint files and folders (never runs the code)")
    check.add_argument("paths", nargs="*", default=["."])
    check.add_argument("--select", default="", help="comma-separated code prefixes to report")
    check.add_argument("--ignore", default="", help="comma-separated code prefixes to skip")
    return parser


def _codes(text):
    return [c.strip().upper() for c in text.split(",") if c.strip()]


def main(argv=None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return 0 if exc.code == 0 else 2
    if args.command != "check":
        parser.print_help()
        return 2
    select, ignore = _codes(args.select), _codes(args.ignore)
    found = False
    failed = False
    for path in iter_python_files(args.paths):
        if not os.path.exists(path) and not os.path.islink(path):
            print(f"{path}:0:1: E902 No such file or directory", file=sys.stderr)
            failed = True
            continue
        result = lint_file(path)
        if result.error:
            print(f"{path}:{result.error_line}:{result.error_col + 1}: E999 {result.error}")
            failed = True
        if result.internal_error:
            print(f"{path}:1:1: JAX000 {result.internal_error}", file=sys.stderr)
            failed = True
        for f in result.findings:
            if select and not any(f.code.startswith(s) for s in select):
                continue
            if any(f.code.startswith(i) for i in ignore):
                continue
            found = True
            print(f"{path}:{f.line}:{f.col + 1}: {f.code} {f.message}")
    return 1 if (found or failed) else 0
