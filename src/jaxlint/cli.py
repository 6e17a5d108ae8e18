"""The `jaxlint` command: argument parsing, dispatch and exit codes. No analysis here."""

from __future__ import annotations

import argparse
import os
import sys

from jaxlint import __version__

# The configuration, discovery and analysis modules are imported where they are used: a run that
# `jaxlint.replay` answers from its record never needs them.
SERVER_DESCRIPTION = """\
Speak the Language Server Protocol on stdin/stdout; an editor starts it (`jaxlint server`) and
shows findings as you type, with quick fixes, "add # noqa" and the rule's documentation on
hover. Configuration and the cache are the ones `jaxlint check` uses. Needs pygls:
pip install "flake8-jaxlint[server]". The README shows the setup for VS Code, Neovim and Helix.
"""
USAGE = """\
Find JAX trace-time failures and silent recompilation before the code runs: a traced value
where Python needs a concrete one (`if n > 0`, `x[:n]`, `jnp.zeros(n)`), static arguments that
take a new value on every call, jit inside a loop, ragged last batches, shapes and dtypes that
drift between calls. Linting reads the code; it never imports or runs it, and needs no JAX.
"""
EPILOG = """\
common options of `jaxlint check` (`jaxlint check --help` lists them all):
  --fix, --diff, --unsafe-fixes   apply the fixes in place, or show them as a diff
  --select, --ignore, --extend-ignore, --per-file-ignores PATTERN:CODES
                                  choose the rules (codes JAX101-JAX307, prefixes like JAX1)
  --format text|full|json|sarif|github
                                  the report: for people, scripts, code scanning, pull requests
  --statistics, --show-source     counts per code; the offending line under each finding
  --add-noqa                      add `# noqa: CODE` to every line with a finding
  --show-settings                 print the configuration that applies to a file

examples:
  jaxlint check src/ tests/       report findings, exit 1 when there are any
  jaxlint check --fix src/        apply the safe fixes
  jaxlint rule JAX104             why a rule fires and what to write instead
  flake8 --select=JAX src/        the same findings through flake8

Configuration: [tool.jaxlint] in pyproject.toml (select, ignore, exclude, jit-decorators, ...).
Exit codes of check: 0 no findings; 1 findings or a file that could not be read or parsed;
2 a usage or configuration error.
"""
FORMAT_CHOICES = ("text", "concise", "full", "json", "sarif", "github")
CHECK_DESCRIPTION = """\
Lint Python files and notebooks for JAX trace-time failures and recompilation. Never runs the code.

  jaxlint check src/                          report findings (exit 1 when there are any)
  jaxlint check --fix src/                    apply the safe fixes in place
  jaxlint check --watch src/                  lint again whenever a file changes
  cat f.py | jaxlint check - --stdin-filename src/f.py
                                              lint an editor's buffer as if it were src/f.py;
                                              with --fix, print the fixed source

Exit codes: 0 no findings; 1 findings, or a file that could not be read or parsed, or an
internal error; 2 a usage or configuration error. --exit-zero turns 1 into 0.
"""


def iter_python_files(paths):
    """Every file `check` would lint under `paths`, with the default configuration lookup."""
    from jaxlint.config import ConfigFinder
    from jaxlint.discovery import iter_targets
    for path, _ in iter_targets(paths, ConfigFinder()):
        yield path


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="jaxlint", description=USAGE, epilog=EPILOG,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"jaxlint {__version__}")
    sub = parser.add_subparsers(dest="command", title="commands", metavar="COMMAND")
    check = sub.add_parser("check", help="lint files, folders and notebooks (never runs the code)",
                           description=CHECK_DESCRIPTION,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    check.add_argument("paths", nargs="*", metavar="PATH",
                       help="files and folders to lint (default: .); - reads standard input")
    check.add_argument("--stdin-filename", metavar="PATH",
                       help="with -: the path the text would have, for messages, configuration, "
                            "per-file-ignores, excludes and notebook detection (implies -)")
    pick = check.add_argument_group("rule selection (replace the [tool.jaxlint] value)")
    pick.add_argument("--select", help="comma-separated code prefixes to report (default: JAX)")
    pick.add_argument("--ignore", help="comma-separated code prefixes to skip")
    pick.add_argument("--extend-select", help="code prefixes to report in addition to select")
    pick.add_argument("--extend-ignore", help="code prefixes to skip in addition to ignore")
    pick.add_argument("--per-file-ignores", metavar="PATTERN:CODES",
                      help="codes to skip in matching files, e.g. 'tests/*:JAX3 "
                           "__init__.py:JAX101,JAX102' (replaces per-file-ignores)")
    pick.add_argument("--exclude", help="comma-separated glob patterns of files/folders to skip")
    pick.add_argument("--extend-exclude", help="patterns to skip in addition to exclude")
    pick.add_argument("--force-exclude", action="store_true",
                      help="apply exclude to files named on the command line too "
                           "(for pre-commit hooks and editors)")
    pick.add_argument("--respect-gitignore", action=argparse.BooleanOptionalAction, default=None,
                      help="skip files that .gitignore, .ignore or .git/info/exclude ignore "
                           "(default: on)")
    pick.add_argument("--unrolled-loop-threshold", metavar="N",
                      help="literal loop length from which JAX302 reports a Python loop (16)")
    pick.add_argument("--jit-decorators", metavar="NAMES",
                      help="extra jit wrappers, NAME[:ARGNUMS_KW[:ARGNAMES_KW]],...")
    pick.add_argument("--config", metavar="PYPROJECT",
                      help="use this pyproject.toml for every file instead of searching")
    pick.add_argument("--isolated", action="store_true", help="ignore all configuration files")
    out = check.add_argument_group("output")
    out.add_argument("--format", "--output-format", dest="format", choices=FORMAT_CHOICES,
                     default="text", help="text (concise is the same), full (text with the "
                     "source line under each finding), json, sarif or github (default: text)")
    out.add_argument("--show-source", action="store_true",
                     help="print the offending line under each finding, with a caret")
    out.add_argument("--show-fixes", action="store_true",
                     help="list the fixes applied (--fix), that would be (--diff), or available")
    out.add_argument("--watch", "-w", action="store_true",
                     help="lint again whenever a file changes (debounced); Ctrl-C stops")
    out.add_argument("--statistics", action="store_true",
                     help="print the number of findings per code instead of each finding")
    out.add_argument("--exit-zero", action="store_true", help="exit 0 even with findings")
    out.add_argument("--output-file", "-o", metavar="FILE", help="write the report to FILE")
    out.add_argument("--quiet", "-q", action="store_true",
                     help="only the report: no summary line, no progress display")
    out.add_argument("--verbose", "-v", action="store_true",
                     help="also print notes on stderr (files skipped, analysis cut short)")
    out.add_argument("--no-project", action="store_true",
                     help="analyse each file alone: do not follow a trace into the project's other "
                          "modules (config: project-analysis = false)")
    out.add_argument("--show-settings", action="store_true",
                     help="print the configuration that applies to the first file, and exit")
    out.add_argument("--confirmed-only", action="store_true",
                     help="hide findings that `jaxlint verify` ran and found not reproduced in "
                          "this exact file content (reads its saved verdicts; runs nothing)")
    fixes = check.add_argument_group("fixes (jaxlint.fixer)")
    fixes.add_argument("--fix", action="store_true",
                       help="apply safe fixes in place (with -: print the fixed source)")
    fixes.add_argument("--unsafe-fixes", action="store_true",
                       help="with --fix/--diff/--fix-only: apply unsafe fixes too (review them)")
    fixes.add_argument("--diff", action="store_true",
                       help="print the fixes as a unified diff and change no file")
    fixes.add_argument("--fix-only", action="store_true",
                       help="apply fixes; do not report the findings that remain")
    fixes.add_argument("--add-noqa", action="store_true",
                       help="add `# noqa: CODE` to each line with findings (merged with an "
                            "existing noqa comment), to adopt jaxlint on existing code")
    run = check.add_argument_group("speed")
    run.add_argument("-j", "--jobs", type=int, default=0, metavar="N",
                     help="files analysed in parallel (default 0: all cores)")
    run.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    run.add_argument("--cache-dir", metavar="DIR",
                     help="cache folder (default: .jaxlint_cache in each project root)")
    server = sub.add_parser("server", help="run the language server on stdio, for editors "
                            "(needs flake8-jaxlint[server])", description=SERVER_DESCRIPTION,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    server.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    server.add_argument("--cache-dir", metavar="DIR",
                        help="cache folder (default: .jaxlint_cache in each project root)")
    rules = sub.add_parser("rules", help="list every rule: code, name, family, fixable")
    rules.add_argument("--markdown", action="store_true",
                       help="print the full rule reference (the source of docs/rules.md)")
    rule = sub.add_parser("rule", help="print one rule's documentation")
    rule.add_argument("code", help="a rule code, e.g. JAX101")
    from jaxlint.verify.command import add_parser as add_verify_parser
    add_verify_parser(sub)   # `verify` RUNS the user's code; see jaxlint/verify/
    return parser


def overrides(args) -> dict:
    """Command-line values as Config fields; raises ConfigError naming the flag."""
    from jaxlint.config import (parse_jit_decorators, parse_per_file_ignores_option,
                                parse_selectors, parse_threshold)
    out = {}
    for flag in ("select", "ignore", "extend_select", "extend_ignore"):
        if getattr(args, flag) is not None:
            out[flag] = parse_selectors(getattr(args, flag), f"--{flag.replace('_', '-')}", "")
    for flag in ("exclude", "extend_exclude"):
        if getattr(args, flag) is not None:
            out[flag] = tuple(p.strip() for p in getattr(args, flag).split(",") if p.strip())
    if args.per_file_ignores is not None:
        out["per_file_ignores"] = parse_per_file_ignores_option(args.per_file_ignores,
                                                                "--per-file-ignores")
    if args.respect_gitignore is not None:
        out["respect_gitignore"] = args.respect_gitignore
    if args.unrolled_loop_threshold is not None:
        out["unrolled_loop_threshold"] = parse_threshold(args.unrolled_loop_threshold,
                                                         "--unrolled-loop-threshold", "")
    if args.jit_decorators is not None:
        out["jit_decorators"] = parse_jit_decorators(args.jit_decorators, "--jit-decorators", "")
    if getattr(args, "confirmed_only", False):
        out["confirmed_only"] = True
    if getattr(args, "no_project", False):
        out["project_analysis"] = False
    return out


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["check"]:
        from jaxlint import replay
        code = replay.answer(argv)
        if code is not None:        # the same command's last run, and nothing it read changed
            return code
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return 0 if exc.code == 0 else 2
    if args.command == "check":
        return check(args, argv)
    if args.command == "server":
        from jaxlint.server import main as server_main
        return server_main(args)
    if args.command == "verify":
        from jaxlint.verify.command import main as verify_main
        return verify_main(args)
    if args.command == "rules":
        from jaxlint import ruledocs
        sys.stdout.write(ruledocs.markdown() if args.markdown else ruledocs.table())
        return 0
    if args.command == "rule":
        from jaxlint import ruledocs
        rule = ruledocs.find(args.code)
        if rule is None:
            print(f"jaxlint: error: unknown rule {args.code!r}; `jaxlint rules` lists them",
                  file=sys.stderr)
            return 2
        sys.stdout.write(rule.documentation())
        return 0
    parser.print_help()
    return 2


def check(args, argv=None) -> int:
    normalise(args)
    problem = usage_problem(args)
    if problem:
        print(f"jaxlint: error: {problem}", file=sys.stderr)
        return 2
    if args.watch:
        from jaxlint.config import ConfigFinder
        from jaxlint.watch import watch
        return watch(lambda: check_once(args), args.paths or ["."],
                     lambda: ConfigFinder(overrides(args), explicit=args.config,
                                          isolated=args.isolated),
                     settle=args.fix or args.fix_only,
                     clear=sys.stdout.isatty() and not args.output_file)
    from jaxlint.replay import Recorder
    recorder = Recorder.start(argv, args) if argv is not None else None
    if recorder is None:
        return check_once(args)
    with recorder.capturing():
        code = check_once(args, recorder)
    recorder.save(code)
    return code


def normalise(args) -> None:
    """ruff's format names as jaxlint's (`full` is text with --show-source), and whether the
    source comes from standard input (`-`, or --stdin-filename without paths)."""
    if args.format in ("full", "concise"):
        args.show_source = args.show_source or args.format == "full"
        args.format = "text"
    args.stdin = "-" in (args.paths or []) or (args.stdin_filename is not None and not args.paths)


def usage_problem(args) -> str:
    """What is wrong with this combination of flags, or ""."""
    if args.stdin and args.paths not in (None, [], ["-"]):
        return "- (standard input) cannot be combined with other paths"
    if args.stdin_filename is not None and not args.stdin:
        return "--stdin-filename names standard input: give - or no path"
    if args.stdin and args.watch:
        return "--watch watches files: it cannot read standard input"
    if args.statistics and args.format not in ("text", "json"):
        return "--statistics works with --format text or json"
    if args.show_source and args.format != "text":
        return "--show-source works with --format text (or full)"
    if args.jobs < 0:
        return "-j/--jobs: expected 0 (all cores) or a positive number"
    if args.add_noqa and (args.fix or args.fix_only or args.diff or args.stdin or args.watch):
        return "--add-noqa changes files by itself: not with --fix, --diff, --watch or -"
    return ""


def check_once(args, recorder=None) -> int:
    """One `jaxlint check` run: lint, fix if asked, report; returns the exit code. `recorder`
    (jaxlint.replay) keeps what the run reads and writes, for the same command to replay."""
    from jaxlint import reporters
    from jaxlint.cache import Cache
    from jaxlint.config import ConfigError, ConfigFinder
    from jaxlint.discovery import iter_targets
    from jaxlint.runner import attach_fixes, run
    data = None
    walked: list = []
    try:
        finder = ConfigFinder(overrides(args), explicit=args.config, isolated=args.isolated)
        if args.stdin:
            from jaxlint import stdin
            targets = stdin.targets(args.stdin_filename, finder)
        else:
            notes = []
            targets = list(iter_targets(args.paths, finder, args.force_exclude, notes, walked))
            if not args.quiet and not args.show_settings:
                for note in notes:
                    print(note, file=sys.stderr)
        if args.show_settings:
            return show_settings(targets, finder, args.paths)
    except ConfigError as exc:
        print(f"jaxlint: error: {exc}", file=sys.stderr)
        return 2
    cache = None if args.no_cache else Cache(cache_dir=args.cache_dir)
    from jaxlint.project import use_cache
    use_cache(cache)
    if recorder is not None:
        _snapshot(recorder, targets, walked, cache, args.config)
    if args.stdin:
        try:
            data = stdin.read(sys.stdin)
        except (OSError, AttributeError, ValueError) as exc:
            print(f"jaxlint: error: cannot read standard input: {exc}", file=sys.stderr)
            return 2
        reports = stdin.lint(data, targets, cache)
    else:
        progress = not args.quiet and sys.stderr.isatty()
        reports = run(targets, jobs=args.jobs or None, cache=cache, progress=progress)
    if recorder is not None:
        for report in reports:
            if report.io_error or report.result.internal_error or report.config.confirmed_only:
                recorder.refuse(f"{report.path}: not the same answer next time")
    if args.add_noqa:
        from jaxlint.noqa import add_noqa
        added, files = add_noqa(reports)
        if not args.quiet:
            print(f"Added {added} noqa directive{'s' * (added != 1)}"
                  f"{f' in {files} file' + 's' * (files != 1) if added else ''}.", file=sys.stderr)
        return 0
    fixing = stdin_fix = None
    unchecked = 0
    if args.fix or args.fix_only or args.diff:
        if args.stdin:
            stdin_fix = stdin.fix(reports, data, unsafe=args.unsafe_fixes)
            fixing = stdin_fix.summary
        else:
            from jaxlint import fixer
            fixing = fixer.fix_reports(reports, unsafe=args.unsafe_fixes, write=not args.diff)
    elif wants_fixes(args):
        unchecked = attach_fixes(reports, cache, jobs=args.jobs or None)  # counted as fixable
    # with standard input, the verdicts are those saved for the text that came on it
    hidden = _hide_refuted(reports, args.cache_dir, data if args.stdin else None)
    findings, errors = reporters.collect(reports)
    if hidden and not args.quiet:
        print(f"jaxlint: {hidden} finding{'s' * (hidden != 1)} hidden: `jaxlint verify` found "
              f"{'them' if hidden != 1 else 'it'} not reproduced (confirmed-only)", file=sys.stderr)
    if args.verbose:
        for report in reports:
            for note in getattr(report.result, "notes", ()) or ():
                note = report.cells.relabel(note) if report.cells else note   # a notebook's cell_K:M
                print(f"{report.path}: note: {note}", file=sys.stderr)
    for error in errors:    # for people reading the log; machine formats also carry them
        if args.format in ("json", "sarif") or args.statistics or error.code != "E999" \
                and args.format == "text":
            print(f"{error.location}: {error.code} {error.message}", file=sys.stderr)
    if stdin_fix is not None and not args.diff:
        sys.stdout.flush()
        sys.stdout.buffer.write(stdin_fix.output)    # the editor's new buffer, always
        sys.stdout.flush()
    if args.show_fixes:
        sys.stderr.write(reporters.fixes_listing(
            fixing.applied if fixing is not None else None, findings,
            would=bool(args.diff)))
    if fixing is not None and args.diff:
        sys.stdout.write(fixing.diff)
        if not args.quiet:
            print(fixing.line(diff=True, unsafe=args.unsafe_fixes), file=sys.stderr)
        return 0 if args.exit_zero else int(bool(fixing.diff or errors))
    if fixing is not None and args.fix_only:
        findings = []
    if stdin_fix is not None and not args.output_file:
        stream = sys.stderr         # stdout holds the fixed source
    else:
        stream = open_output(args.output_file)
    if stream is None:
        return 2
    colour = stream is sys.stdout and use_colour(stream)
    if args.statistics:
        report = (reporters.json_statistics(findings) if args.format == "json"
                  else reporters.text_statistics(findings))
    elif args.format == "json":
        report = reporters.json_report(findings, errors, len(targets))
    elif args.format == "sarif":
        report = reporters.sarif_report(findings, errors)
    elif args.format == "github":
        report = reporters.github(findings, errors)
    else:
        sources = None
        if args.show_source:
            from jaxlint.spans import of_reports
            sources = of_reports(reports, {item.path for item in findings + errors})
        report = reporters.text(findings, errors, colour, sources)
    stream.write(report)
    if stream not in (sys.stdout, sys.stderr):
        stream.close()
    if fixing is not None and not args.quiet:
        print(fixing.line(unsafe=args.unsafe_fixes), file=sys.stderr)
    elif args.format == "text" and not args.quiet and (findings or errors):
        print(summary(findings, errors, len(targets)), file=sys.stderr)
        fixable = reporters.fixable_line(findings, unchecked)
        if fixable:
            print(fixable, file=sys.stderr)
    elif args.format == "text" and not (args.quiet or args.statistics or args.fix_only) and targets:
        # as ruff says it: on the report's stream (stderr when stdout holds a fixed buffer)
        print("All checks passed!", file=stream if stream in (sys.stdout, sys.stderr)
              else sys.stderr)
    if args.exit_zero:
        return 0
    return 1 if findings or errors else 0


def _snapshot(recorder, targets, walked, cache, config) -> None:
    """What the run will read, stated before it reads it: the cache folders made first (so
    that making them does not count as a change of the folders they are in), then the project
    of every file linted with project analysis."""
    from jaxlint.project import project_at
    from jaxlint.runner import _root_of
    roots = {}
    for path, file_config in targets:
        if cache is not None:
            cache.prepare(path)
        if file_config.project_analysis and not path.endswith(".ipynb"):
            root = _root_of(path)
            if root and root not in roots:
                roots[root] = project_at(root)
    recorder.snapshot(targets, walked, [p for p in roots.values() if p is not None], config)


def use_colour(stream) -> bool:
    """Colour on a terminal; NO_COLOR (no-color.org) turns it off, FORCE_COLOR (force-color.org)
    on anywhere, NO_COLOR winning when both are set. Empty values count as unset."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def show_settings(targets, finder, paths) -> int:
    """--show-settings: the configuration of the first file `check` would lint (of the first
    path, or the working directory, when there is none), as TOML a [tool.jaxlint] could hold."""
    if targets:
        path, config = targets[0]
    else:
        path = (paths or ["."])[0]
        config = finder.for_path(path)
    rows = [("select", list(config.select)), ("extend-select", list(config.extend_select)),
            ("ignore", list(config.ignore)), ("extend-ignore", list(config.extend_ignore)),
            ("per-file-ignores", {p: list(c) for p, c in config.per_file_ignores}),
            ("exclude", list(config.exclude)), ("extend-exclude", list(config.extend_exclude)),
            ("respect-gitignore", config.respect_gitignore),
            ("unrolled-loop-threshold", config.unrolled_loop_threshold),
            ("jit-decorators", {name: {"static_argnums": kws[0] or False,
                                       "static_argnames": kws[1] or False}
                                for name, kws in sorted(config.jit_decorators.items())}),
            ("confirmed-only", config.confirmed_only)]
    out = [f"Resolved settings for: {path}",
           f"Settings path: {config.source or '(none: defaults and command-line options)'}",
           f"Root (patterns are relative to it): {os.path.abspath(config.root or '.')}", "",
           "[tool.jaxlint]"]
    for key, value in rows:
        out.append(f"{key} = {_toml(value)}")
    sys.stdout.write("\n".join(out) + "\n")
    return 0


def _toml(value) -> str:
    import json
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {_toml(v)}" for k, v in value.items()) + " }" \
            if value else "{}"
    return json.dumps(value)


def wants_fixes(args) -> bool:
    """Whether the report shows each finding's fix: the text summary counts them, JSON carries
    them (and --statistics marks fixable codes), --show-fixes/--show-source print them. SARIF
    and GitHub annotations have no place for them."""
    if args.show_fixes or args.show_source or args.statistics or args.format == "json":
        return True
    return args.format == "text" and not args.quiet


def _hide_refuted(reports, cache_dir, content=None) -> int:
    """With confirmed-only, drop the findings `jaxlint verify` saved as not reproduced for the
    file's current content (`content`, or the file on disk; its verdict store: nothing runs
    here). Returns how many."""
    hidden = 0
    for report in reports:
        if not report.config.confirmed_only or report.cells is not None or not report.result.findings:
            continue
        from jaxlint.verify import store
        refuted = store.refuted(report.path, report.result.findings, cache_dir, content)
        if refuted:
            report.result.findings = [f for i, f in enumerate(report.result.findings) if i not in refuted]
            hidden += len(refuted)
    return hidden


def open_output(path):
    if not path:
        return sys.stdout
    try:
        return open(path, "w", encoding="utf-8")
    except OSError as exc:
        print(f"jaxlint: error: --output-file {path}: {exc.strerror or exc}", file=sys.stderr)
        return None


def summary(findings, errors, checked: int) -> str:
    files = len({f.path for f in findings})
    parts = [f"Found {len(findings)} finding{'s' * (len(findings) != 1)} in {files} "
             f"file{'s' * (files != 1)}"]
    if errors:
        parts.append(f"{len(errors)} file error{'s' * (len(errors) != 1)}")
    return ", ".join(parts) + f" ({checked} file{'s' * (checked != 1)} checked)."
