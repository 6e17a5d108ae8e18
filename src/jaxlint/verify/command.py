"""The `jaxlint verify` subcommand: options, output formats and exit codes.

Registered by `jaxlint.cli` through `add_parser`; everything heavy is imported only when the
subcommand runs, so `jaxlint check` pays nothing for it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time

HELP = "RUN your code to confirm findings with JAX (imports and executes the files)"
DESCRIPTION = """\
WARNING: unlike `jaxlint check`, `verify` RUNS YOUR CODE. It imports each file (never running
its `if __name__ == "__main__":` block unless you pass --main), then runs what reaches each
finding: the file's `# jaxlint-example: EXPR` directives, its own calls (module level, test
functions, functions that need no argument), and only then guessed inputs; each file in a
separate child process with a time limit and a memory limit. Only verify code you would run
yourself.

  jaxlint verify PATH...                 confirm each finding: confirmed / confirmed on
                                         guessed inputs / NOT REPRODUCED / inconclusive
  jaxlint verify --run SCRIPT [ARGS...]  run a program (`-m MODULE [ARGS...]` for a module)
                                         and explain every recompilation of every jitted
                                         function, cross-referenced with the static findings

Options go before --run / -m: everything after them is passed to the program.
Verdicts are saved for `jaxlint check --confirmed-only` (in .jaxlint_cache/verdicts/).
Exit codes: 0 nothing refuted (PATH mode) / the program ran within --max-compiles (--run);
1 a finding was not reproduced or a file could not be read or parsed / a function compiled
more than --max-compiles times or the program failed; 2 usage error or JAX unavailable.
"""


def add_parser(subparsers):
    verify = subparsers.add_parser("verify", help=HELP, description=DESCRIPTION,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    verify.add_argument("paths", nargs="*", metavar="PATH", help="files or folders to verify")
    verify.add_argument("--run", nargs=argparse.REMAINDER, metavar="SCRIPT",
                        help="run SCRIPT [ARGS...] and report its recompilations (must come last)")
    verify.add_argument("-m", dest="module", nargs=argparse.REMAINDER, metavar="MODULE",
                        help="like --run, for `python -m MODULE [ARGS...]` (must come last)")
    verify.add_argument("--format", choices=("text", "json"), default="text")
    verify.add_argument("--output-file", "-o", metavar="FILE",
                        help="write the report to FILE (with --run, the program's own output "
                             "stays on the terminal)")
    verify.add_argument("--main", action="store_true",
                        help="also run each file's `if __name__ == \"__main__\":` block (it may "
                             "train for hours: the time limit applies)")
    verify.add_argument("--no-directives", action="store_true",
                        help="ignore `# jaxlint-example:` directives: judge findings on the "
                             "program's own calls (and guessed inputs) only")
    verify.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                        help="wall-time limit per file (default 60); for --run, for the whole "
                             "program (default: none)")
    verify.add_argument("--memory-limit", type=int, default=None, metavar="MB",
                        help="address-space limit of each child process in MB (default 2048); "
                             "for --run: none unless given")
    verify.add_argument("-j", "--jobs", type=int, default=0, metavar="N",
                        help="files verified in parallel (default 0: all cores)")
    verify.add_argument("--files-per-process", type=int, default=1, metavar="N",
                        help="let one child process verify N files in turn (default 1: a fresh "
                             "process per file); faster, but files share the process's state")
    verify.add_argument("--compare-eager", action="store_true",
                        help="also run every example under jax.disable_jit() and report results "
                             "that differ from the jitted run")
    verify.add_argument("--max-compiles", type=int, default=None, metavar="N",
                        help="with --run: exit 1 if any jitted function compiled more than N times")
    verify.add_argument("--quiet", "-q", action="store_true", help="no progress display")
    verify.add_argument("--no-store", action="store_true",
                        help="do not save the verdicts for `jaxlint check --confirmed-only`")
    verify.add_argument("--cache-dir", metavar="DIR",
                        help="where verdicts are saved (default: .jaxlint_cache in each project "
                             "root, as for check)")
    return verify


def _error(message: str) -> int:
    print(f"jaxlint verify: error: {message}", file=sys.stderr)
    return 2


def main(args) -> int:
    try:
        return _dispatch(args)
    except KeyboardInterrupt:
        sys.stderr.write("\njaxlint verify: interrupted; the child processes were stopped\n")
        return 130


def _dispatch(args) -> int:
    run_target = args.run if args.run is not None else None
    module_target = args.module if args.module is not None else None
    if run_target is not None and module_target is not None:
        return _error("use either --run SCRIPT or -m MODULE, not both")
    if run_target is not None or module_target is not None:
        target = run_target if run_target is not None else module_target
        if not target:
            return _error("--run needs a script" if run_target is not None else "-m needs a module name")
        if args.paths:
            return _error("give either PATHs or --run/-m, not both (options go before --run)")
        return run_main(args, target[0], target[1:], module=module_target is not None)
    if args.max_compiles is not None:
        return _error("--max-compiles works with --run / -m")
    if not args.paths:
        return _error("nothing to verify: give files or folders, or --run SCRIPT")
    missing = [p for p in args.paths if not os.path.exists(p)]
    if missing:
        return _error(f"no such file or folder: {missing[0]}")
    if args.jobs < 0 or args.files_per_process < 1 or (args.timeout is not None and args.timeout <= 0) or \
            (args.memory_limit is not None and args.memory_limit <= 0):
        return _error("--jobs, --timeout and --memory-limit take positive numbers")
    return paths_main(args)


# -- PATH mode -------------------------------------------------------------------------------------

def paths_main(args) -> int:
    from jaxlint.verify.api import DEFAULT_MEMORY_MB, DEFAULT_TIMEOUT, verify_paths
    from jaxlint.verify.supervisor import VerifierUnavailable

    show_progress = not args.quiet and sys.stderr.isatty()

    def progress(done, total, path):
        if show_progress:
            shown = os.path.relpath(path) if not os.path.relpath(path).startswith("..") else path
            sys.stderr.write(f"\r\x1b[Kjaxlint verify: [{done}/{total}] {shown}")
            sys.stderr.flush()

    start = time.monotonic()
    try:
        results = verify_paths(args.paths, timeout=args.timeout or DEFAULT_TIMEOUT,
                               memory_mb=args.memory_limit or DEFAULT_MEMORY_MB,
                               jobs=args.jobs or None, compare_eager=args.compare_eager,
                               progress=progress, files_per_process=args.files_per_process,
                               directives=not args.no_directives, main=args.main)
    except VerifierUnavailable as exc:
        if show_progress:
            sys.stderr.write("\r\x1b[K")
        return _error(str(exc))
    if show_progress:
        sys.stderr.write("\r\x1b[K")
        sys.stderr.flush()
    elapsed = time.monotonic() - start
    if not args.no_store:
        from jaxlint.verify import store
        for fv in results:
            if fv.error is None and fv.content:
                store.save(fv.path, fv.content, fv.findings, args.cache_dir)
    report = (json.dumps(paths_json(results, elapsed), indent=2) + "\n" if args.format == "json"
              else paths_text(results, elapsed))
    if not _write_report(report, args.output_file):
        return 2
    refuted = any(v.verdict == "not reproduced" for r in results for v in r.findings)
    broken = any(r.error is not None for r in results)
    return 1 if refuted or broken else 0


def _write_report(report: str, output_file) -> bool:
    if not output_file:
        sys.stdout.write(report)
        return True
    try:
        with open(output_file, "w", encoding="utf-8") as handle:
            handle.write(report)
    except OSError as exc:
        _error(f"--output-file {output_file}: {exc.strerror or exc}")
        return False
    return True


# The names the verifier gives its own helpers in the child process, and how a user writes the
# same thing: `__jaxlint_trace__('head', x=__jaxlint_jnp__.ones((4,)))` is `head(x=jnp.ones((4,)))`.
_INTERNAL = (
    (re.compile(r"__jaxlint_trace__\(\s*(['\"])([\w.]+)\1\s*(?:,\s*)?"), r"\2("),
    (re.compile(r"__jaxlint_guess__\(\s*([\w.]+)\s*(?:,\s*)?"), r"\1("),
    (re.compile(r"__jaxlint_jnp__"), "jnp"),
    (re.compile(r"__jaxlint_jax__"), "jax"),
    (re.compile(r"__jaxlint_mark__\(\d+\);?\s*"), ""),
    (re.compile(r"\b_jaxlint_verify_\d+_(\w+)"), r"\1"),
    (re.compile(r"__jaxlint_(\w+?)__"), r"\1"),
)


def public(value):
    """`value` (a string, or lists and dicts of them) with the verifier's internal names written
    as the user would write them."""
    if isinstance(value, str):
        if "jaxlint_" not in value:
            return value
        for pattern, replacement in _INTERNAL:
            value = pattern.sub(replacement, value)
        return value
    if isinstance(value, dict):
        return {key: public(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [public(item) for item in value]
    return value


def shown_verdict(v) -> str:
    """The verdict a report counts: a confirmation that needed guessed inputs is "confirmed on
    guessed inputs", never "confirmed", whatever the guess chose."""
    from jaxlint.verify.verdicts import CONFIRMED, GUESSED
    return GUESSED if v.verdict == CONFIRMED and v.basis == "guessed" else v.verdict


def _shown(path: str) -> str:
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


def paths_text(results, elapsed: float) -> str:
    from jaxlint.verify.verdicts import GUESSED, NOT_REPRODUCED, VERDICTS
    lines, refuted = [], []
    counts = {verdict: 0 for verdict in VERDICTS}
    ran = 0
    for fv in results:
        path = _shown(fv.path)
        ran += fv.status not in ("skipped", "no-examples", "lint-error")
        if fv.error is not None:
            error = fv.error
            lines.append(public(f"{path}:{error['line']}:{error['col']}: {error['code']} "
                                f"{error['message']} (not verified)"))
        for v in fv.findings:
            verdict = shown_verdict(v)
            counts[verdict] += 1
            f = v.finding
            label = {NOT_REPRODUCED: "NOT REPRODUCED", GUESSED: "confirmed on guessed inputs"}.get(verdict, verdict)
            reason = v.reason
            if verdict == GUESSED and reason.startswith("on guessed inputs "):
                reason = reason[len("on guessed inputs "):]      # the label says it
            line = public(f"{path}:{f.line}:{f.col + 1}: {f.code} {label}: {reason}")
            if v.verdict == NOT_REPRODUCED:
                line += " -- the finding looks like a false alarm"
                refuted.append(line)
            lines.append(line)
        for note in fv.notes:
            lines.append(public(f"{path}: note: {note['text']}"))
    if refuted:
        lines.append("")
        lines.append(f"NOT REPRODUCED ({len(refuted)}): the program's own inputs ran these lines under the "
                     f"conditions the finding names, and JAX did not do what it predicts; please report "
                     f"them as jaxlint bugs if the inputs are right:")
        lines.extend("  " + line for line in refuted)
    total = sum(counts.values())
    errors = sum(1 for fv in results if fv.error is not None)
    lines.append(f"verified {len(results)} file{'s' * (len(results) != 1)} ({ran} run), {total} "
                 f"finding{'s' * (total != 1)}: {counts['confirmed']} confirmed, "
                 f"{counts[GUESSED]} confirmed on guessed inputs, "
                 f"{counts['not reproduced']} not reproduced, {counts['inconclusive']} inconclusive"
                 + (f", {errors} file{'s' * (errors != 1)} not verified" if errors else "")
                 + f" in {elapsed:.1f} s")
    return "\n".join(lines) + "\n"


def paths_json(results, elapsed: float) -> dict:
    from jaxlint.verify.verdicts import VERDICTS
    files = []
    counts = {verdict: 0 for verdict in VERDICTS}
    for fv in results:
        findings = []
        for v in fv.findings:
            counts[shown_verdict(v)] += 1
            f = v.finding
            findings.append({"code": f.code, "line": f.line, "col": f.col + 1, "message": f.message,
                             "detail": f.detail, "function": f.function, "entry": f.entry, "param": f.param,
                             "verdict": shown_verdict(v), "basis": v.basis, "reason": v.reason,
                             "evidence": v.evidence})
        files.append({"path": fv.path, "status": fv.status, "seconds": fv.seconds, "cpu_seconds": fv.cpu_seconds,
                      "error": fv.error, "findings": findings, "examples": fv.examples, "notes": fv.notes,
                      "compiles": fv.compiles, "expected_compiles": fv.expected_compiles})
    return public({"files": files, "summary": dict(counts, files=len(results), seconds=round(elapsed, 2))})


# -- --run mode ------------------------------------------------------------------------------------

def run_main(args, target: str, program_args, module: bool) -> int:
    from jaxlint.verify.runreport import format_text, run_program, to_json
    if not module and not os.path.exists(target):
        return _error(f"no such script: {target}")
    if args.max_compiles is not None and args.max_compiles < 1:
        return _error("--max-compiles takes a positive number")
    # a JSON report on stdout must be the only thing there: the program's output goes to stderr
    separate = args.format == "json" and not args.output_file
    report = run_program(target, program_args, module=module, timeout=args.timeout,
                         memory_mb=args.memory_limit, stdout_to_stderr=separate)
    over = [fr for fr in report.functions if args.max_compiles is not None and fr.compiles > args.max_compiles]
    if args.format == "json":
        payload = public(to_json(report))
        payload["max_compiles"] = args.max_compiles
        payload["over_max_compiles"] = [fr.stats.qualname for fr in over]
        text = json.dumps(payload, indent=2) + "\n"
    else:
        text = public(format_text(report))
        for fr in over:
            text += (f"\nFAILED --max-compiles {args.max_compiles}: `{fr.stats.qualname}` compiled "
                     f"{fr.compiles} times")
        text += "\n"
    if not _write_report(text, args.output_file):
        return 2
    if over or report.exit or report.problem:
        return 1
    return 0
