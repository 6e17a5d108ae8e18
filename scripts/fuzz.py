#!/usr/bin/env python
"""Fuzz jaxlint: no input may crash it, report an internal error, or make it hang.

    python scripts/fuzz.py --count 5000 --seed 1 --out fuzz-out

Inputs come from three places: programs generated from Python's grammar by hypothesmith
(`from_grammar()`, `from_node()`), each also rewritten to be jitted (its functions decorated with
`jax.jit`, or the whole program made the body of a jitted function whose parameters are all its
names, so the dataflow sees traced values everywhere); and mutations of real files (the test
fixtures, and the downloaded corpus in .corpus/src when present): lines deleted, duplicated,
swapped, re-indented, spliced from another file, tokens such as `jax.jit`, `if`, `(`, `lambda`
inserted, decorators added, line endings changed.

Each input goes through `engine.lint_source` and, when `ast` parses it, the flake8 plugin class,
in a worker process with a per-input timeout. A failure is: an exception escaping either, an
internal error (FileResult.internal_error or a JAX000 line: they are bugs too), a finding outside
the file, global state left changed (recursion limit, gc), or the timeout (a hang). Each failure's
input is saved under --out with what happened; so is the slowest input.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import random
import re
import select
import subprocess
import sys
import textwrap
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_POOLS = [ROOT / "tests" / "fixtures", ROOT / ".corpus" / "src"]
HEADER = "import jax\nimport jax.numpy as jnp\nfrom jax import lax\nfrom functools import partial\n\n"

TOKENS = ["jax.jit", "@jax.jit", "if", "(", ")", "[", "]", "{", "}", "lambda", "lambda x:", ":",
          ",", "=", "==", "not", "and", "or", "yield", "await", "async", "*", "**", "return",
          "jnp.zeros(n)", "x[:n]", "int(x)", "static_argnums=(0,)", "static_argnames='n'",
          "lax.scan(", "jax.vmap(", "for i in range(n):", "while x:", "\\", "'", '"', '"""', "#",
          "\t", "\x0c", "0x" + "f" * 40, "1e999", "...", "match x:", "case _:", ":=", "del",
          "global x", "nonlocal x", "print(x)", "isinstance(x, int)", "self", "@", "->",
          # extremes: an int too long to print, deep nesting, long chains
          "0x" + "f" * 4000, "(" * 150, ")" * 150, "x" + " + x" * 1200, "lambda: " * 300,
          "range(99999999999999999999999)", "1 << 100000", "-" * 500 + "x"]
DECORATORS = ["@jax.jit", "@partial(jax.jit, static_argnums=(0,))", "@partial(jax.jit, static_argnames='n')",
              "@jax.vmap", "@jax.checkpoint", "@jax.jit(static_argnums=1)", "@jax.pmap"]


# == inputs ==========================================================================================

def pool_files(dirs) -> list:
    """One sorted list of .py files per folder that exists (each folder is drawn from equally:
    the few hundred fixtures are as likely a base as the thousands of corpus files)."""
    pools = []
    for top in dirs:
        if Path(top).is_dir():
            files = sorted(str(p) for p in Path(top).rglob("*.py") if p.is_file())
            if files:
                pools.append(files)
    return pools


class Mutator:
    """Real files, cut to a window and damaged a little, a lot, or not at all."""

    def __init__(self, pools, rnd: random.Random):
        self.pools = pools
        self.rnd = rnd

    def pick(self) -> str:
        return self.rnd.choice(self.rnd.choice(self.pools))

    def read(self, path) -> str:
        try:
            return Path(path).read_text(encoding="utf-8", errors="surrogateescape")
        except OSError:
            return ""

    def base(self) -> tuple:
        path = self.pick()
        lines = self.read(path).splitlines(True)
        if len(lines) > 200 and self.rnd.random() < 0.8:   # a window keeps inputs quick; dedent
            start = self.rnd.randrange(len(lines))
            lines = textwrap.dedent("".join(lines[start:start + self.rnd.randint(20, 200)])).splitlines(True)
            lines = HEADER.splitlines(True) + lines
        return "".join(lines), os.path.relpath(path, ROOT)

    def mutate(self, text: str) -> tuple:
        applied = []
        for _ in range(self.rnd.choice([0, 1, 1, 2, 2, 3, 4, 6])):
            op = self.rnd.choice(OPERATIONS)
            text = op(self, text)
            applied.append(op.__name__)
        return text, applied

    # -- operations: text -> text ------------------------------------------------------------------
    def _lines(self, text):
        lines = text.splitlines(True) or ["\n"]
        return lines, self.rnd.randrange(len(lines))

    def delete_line(self, text):
        lines, i = self._lines(text)
        del lines[i]
        return "".join(lines)

    def duplicate_line(self, text):
        lines, i = self._lines(text)
        lines.insert(i, lines[i])
        return "".join(lines)

    def swap_lines(self, text):
        lines, i = self._lines(text)
        j = self.rnd.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
        return "".join(lines)

    def insert_token(self, text):
        lines, i = self._lines(text)
        line = lines[i]
        at = self.rnd.randint(0, len(line.rstrip("\r\n")))
        lines[i] = line[:at] + self.rnd.choice(TOKENS) + self.rnd.choice(["", " "]) + line[at:]
        return "".join(lines)

    def reindent(self, text):
        lines, i = self._lines(text)
        end = min(len(lines), i + self.rnd.choice([1, 1, 3, 10]))
        change = self.rnd.choice(["    ", "\t", " ", "-"])
        for k in range(i, end):
            if change == "-":
                lines[k] = lines[k][4:] if lines[k].startswith("    ") else lines[k].lstrip(" \t")
            else:
                lines[k] = change + lines[k]
        return "".join(lines)

    def decorate(self, text):
        lines = text.splitlines(True)
        defs = [k for k, line in enumerate(lines) if re.match(r"\s*(async\s+)?def ", line)]
        if not defs:
            return text
        k = self.rnd.choice(defs)
        indentation = re.match(r"\s*", lines[k]).group(0)
        lines.insert(k, indentation + self.rnd.choice(DECORATORS) + "\n")
        return "".join(lines)

    def guard_line(self, text):
        lines, i = self._lines(text)
        indentation = re.match(r"[ \t]*", lines[i]).group(0)
        lines[i:i + 1] = [f"{indentation}if x > 0:\n", "    " + lines[i]]
        return "".join(lines)

    def rename(self, text):
        names = sorted(set(re.findall(r"\b[A-Za-z_]\w*\b", text)))
        if len(names) < 2:
            return text
        old, new = self.rnd.sample(names, 2)
        return re.sub(rf"\b{re.escape(old)}\b", new, text, count=self.rnd.choice([1, 0]))

    def splice(self, text):
        other = self.read(self.pick()).splitlines(True)
        if not other:
            return text
        start = self.rnd.randrange(len(other))
        lines, i = self._lines(text)
        lines[i:i] = other[start:start + self.rnd.randint(1, 30)]
        return "".join(lines)

    def wrap_name(self, text):
        """A name used where JAX needs a concrete value, or passed through a transform."""
        spots = list(re.finditer(r"\b[a-z_]\w*\b", text))
        if not spots:
            return text
        spot = self.rnd.choice(spots)
        wrapper = self.rnd.choice(WRAPPERS).replace("{}", spot.group(0))
        return text[:spot.start()] + wrapper + text[spot.end():]

    def literal_for_name(self, text):
        """A name replaced by an extreme literal: huge, negative, a string, a container... Half the
        time a whole call argument (`range(n)`, `zeros(n)`): where JAX needs a concrete value."""
        spots = []
        if self.rnd.random() < 0.5:
            spots = list(re.finditer(r"(?<=[(,])\s*\b[a-z_]\w*\b(?=\s*[,)])", text))
        spots = spots or list(re.finditer(r"\b[a-z_]\w*\b", text))
        if not spots:
            return text
        spot = self.rnd.choice(spots)
        return text[:spot.start()] + self.rnd.choice(LITERALS) + text[spot.end():]

    def static_spec(self, text):
        return re.sub(r"(static_arg(?:nums|names)\s*=\s*)([^,)\n]+)",
                      lambda m: m.group(1) + self.rnd.choice(STATIC_SPECS), text, count=1)

    def truncate(self, text):
        return text[:self.rnd.randint(0, len(text))]

    def line_endings(self, text):
        return text.replace("\n", self.rnd.choice(["\r\n", "\r", "\x0c\n", "\n\n"]))

    def insert_char(self, text):
        at = self.rnd.randint(0, len(text))
        char = self.rnd.choice(["\x00", "\ufeff", "\u2028", "\x85", "\x1c", "\t", "é", "\U0001f600",
                                "\\", "\r", chr(self.rnd.randint(0, 0x2FFFF))])
        return text[:at] + char + text[at:]


OPERATIONS = [Mutator.delete_line, Mutator.duplicate_line, Mutator.swap_lines, Mutator.insert_token,
              Mutator.insert_token, Mutator.reindent, Mutator.decorate, Mutator.decorate,
              Mutator.guard_line, Mutator.rename, Mutator.splice, Mutator.truncate,
              Mutator.line_endings, Mutator.insert_char, Mutator.wrap_name, Mutator.wrap_name,
              Mutator.static_spec, Mutator.literal_for_name]
LITERALS = ["0x" + "f" * 4000, "99999999999999999999999", "-99999999999999999999999", "-1", "0",
            "1e999", "-0.0", "()", "[]", "{}", "None", "True", "'s'", "b''", "...", "1j", "(1, 2)",
            "[1, [2, [3]]]", "{'k': 1}", "float('nan')"]
WRAPPERS = ["int({})", "jnp.zeros({})", "range({})", "x[:{}]", "bool({})", "print({})", "{}.item()",
            "isinstance({}, int)", "jnp.nonzero({})", "{}[{} > 0]", "lax.dynamic_slice(x, (0,), ({},))",
            "jax.jit({})", "({} if {} else 0)", "jax.vmap({})", "lax.scan({}, {}, xs)", "[*{}]",
            "{}.shape", "len({})", "f'{{{}}}'", "(lambda: {})()", "{}.reshape({}, -1)"]
STATIC_SPECS = ["0", "1", "-1", "(0, 1)", "()", "99", "0x" + "f" * 30, "'n'", "('x', 'n')", "None",
                "[0]", "N", "(0, 0)", "-99", "1.5", "('n', 0)", "{'n'}"]


def generated_programs(kind: str, count: int, seed: int) -> list:
    """`count` programs from hypothesmith, deterministic for a seed (generation only, no shrinking)."""
    if count <= 0:
        return []
    import hypothesmith
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed
    strategy = hypothesmith.from_grammar() if kind == "grammar" else hypothesmith.from_node()
    found = []

    def collect(source):
        found.append(source)

    runner = given(strategy)(collect)
    runner = settings(max_examples=count, database=None, deadline=None, phases=[Phase.generate],
                      suppress_health_check=list(HealthCheck))(runner)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hypothesis_seed(seed)(runner)()
    return found[:count]


def jitify(program: str, rnd: random.Random) -> tuple:
    """A generated program, as is, with its functions jitted, or as a jitted function's body."""
    how = rnd.choice(["as-is", "decorated", "body"])
    if how == "as-is":
        return HEADER + program, how
    if how == "decorated":
        out = []
        for line in program.splitlines(True):
            match = re.match(r"([ \t]*)(async\s+)?def\b", line)
            if match:
                out.append(match.group(1) + rnd.choice(DECORATORS) + "\n")
            out.append(line)
        return HEADER + "".join(out), how
    names = sorted(set(re.findall(r"\b[A-Za-z_]\w*\b", program)) - _KEYWORDS)[:50]
    params = ", ".join(names + ["n"] if "n" not in names else names)
    body = "".join("    " + line for line in program.splitlines(True)) or "    pass\n"
    return f"{HEADER}@jax.jit\ndef fuzzed({params}):\n{body}\n", how


_KEYWORDS = set(__import__("keyword").kwlist) | set(__import__("keyword").softkwlist)


# == checking, in a worker process ===================================================================

def check(source: str) -> dict:
    """Lint one input the two ways users do; describe any failure."""
    import gc

    from jaxlint.engine import lint_source
    from jaxlint.flake8_plugin import JaxlintChecker
    limit, gc_on = sys.getrecursionlimit(), gc.isenabled()
    start_cpu, start = time.process_time(), time.perf_counter()
    problems = []
    result = lint_source(source, "fuzzed.py")
    findings = len(result.findings)
    if result.internal_error:
        problems.append(f"internal error: {result.internal_error}")
    n_lines = len(re.split(r"\r\n|\r|\n", source))      # as Python counts them: \r ends a line too
    for f in result.findings:
        if not (1 <= f.line <= n_lines and f.col >= 0):
            problems.append(f"finding outside the file: {f.code} at {f.line}:{f.col}")
    tree = None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        pass
    if tree is not None:            # flake8 calls the plugin only with a tree it could parse
        for line, col, message, _ in JaxlintChecker(tree, "fuzzed.py", source.splitlines(True)).run():
            if message.startswith("JAX000"):
                problems.append(f"flake8 plugin: {message}")
            elif not (isinstance(line, int) and isinstance(col, int) and 1 <= line <= n_lines):
                problems.append(f"flake8 plugin: finding outside the file: {message[:7]} at {line}:{col}")
    if sys.getrecursionlimit() != limit or gc.isenabled() != gc_on:
        problems.append(f"global state changed: recursion limit {limit} -> {sys.getrecursionlimit()}, "
                        f"gc {gc_on} -> {gc.isenabled()}")
    return {"problem": "; ".join(problems) or None, "parsed": tree is not None, "findings": findings,
            "cpu": time.process_time() - start_cpu, "wall": time.perf_counter() - start}


def worker_main():
    """Read one JSON input per line from stdin, answer one JSON line each. Never raises."""
    import resource
    import traceback
    try:        # a runaway allocation becomes a MemoryError (a reported crash), not the OOM killer
        resource.setrlimit(resource.RLIMIT_AS, (6 * 1024 ** 3, resource.RLIM_INFINITY))
    except (ValueError, OSError):
        pass
    for line in sys.stdin:
        source = json.loads(line)
        try:
            answer = check(source)
        except BaseException as exc:  # noqa: BLE001 - exactly what we are looking for
            answer = {"problem": f"exception escaped: {type(exc).__name__}: {exc}",
                      "traceback": traceback.format_exc(), "parsed": None, "cpu": 0.0, "wall": 0.0}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


class Worker:
    """A child process running `check`, restarted after a hang or a death."""

    def __init__(self):
        self.proc = None

    def start(self):
        self.proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--worker"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                     bufsize=1)

    def run(self, source: str, timeout: float) -> dict:
        if self.proc is None or self.proc.poll() is not None:
            self.start()
        start = time.perf_counter()
        try:
            self.proc.stdin.write(json.dumps(source) + "\n")
            self.proc.stdin.flush()
            ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
            line = self.proc.stdout.readline() if ready else ""
        except (BrokenPipeError, OSError):
            line = ""
        if line:
            return json.loads(line)
        hung = self.proc.poll() is None
        self.stop()
        elapsed = time.perf_counter() - start
        return {"problem": f"hang: no answer after {elapsed:.1f} s" if hung else "worker died",
                "hang": hung, "parsed": None, "cpu": elapsed, "wall": elapsed}

    def stop(self):
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None


# == the run ===========================================================================================

@dataclass
class Summary:
    tried: int = 0
    parsed: int = 0
    findings: int = 0
    by_origin: dict = field(default_factory=dict)
    crashes: list = field(default_factory=list)       # (index, origin, problem, saved file)
    hangs: list = field(default_factory=list)
    slowest: tuple = (0.0, "", "")                      # (cpu seconds, origin, saved file)
    seconds: float = 0.0

    def report(self) -> str:
        origins = ", ".join(f"{k} {v}" for k, v in sorted(self.by_origin.items()))
        lines = [f"inputs tried: {self.tried} ({origins})",
                 f"parsed by ast (reached the analysis): {self.parsed}, findings reported: {self.findings}",
                 f"crashes: {len(self.crashes)}", f"hangs: {len(self.hangs)}",
                 f"slowest input: {self.slowest[0]:.2f} s CPU, {self.slowest[1]} -> {self.slowest[2]}",
                 f"total time: {self.seconds:.0f} s"]
        for index, origin, problem, saved in self.crashes + self.hangs:
            lines.append(f"  #{index} {origin}: {problem[:300]} -> {saved}")
        return "\n".join(lines)


def inputs(count: int, seed: int, pools, rnd: random.Random, generated_share: float = 0.35):
    """(origin, source) pairs: a share generated by hypothesmith (6 from the grammar for 1 from
    libcst nodes, which is ~4x slower to generate), the rest mutated real files."""
    files = pool_files(pools)
    n_generated = int(count * generated_share)
    n_node = n_generated // 7
    n_grammar = n_generated - n_node
    generated = [("grammar", p) for p in generated_programs("grammar", n_grammar, seed)]
    generated += [("node", p) for p in generated_programs("node", n_node, seed)]
    rnd.shuffle(generated)
    mutator = Mutator(files, rnd) if files else None
    for i in range(count):
        if generated and (mutator is None or rnd.random() < len(generated) / (count - i)):
            kind, program = generated.pop()
            source, how = jitify(program, rnd)
            yield f"hypothesmith.from_{kind}() {how}", source
        elif mutator is not None:
            base, path = mutator.base()
            source, applied = mutator.mutate(base)
            yield f"{path} {'+'.join(applied) or 'unchanged'}", source


def save(out_dir: Path, name: str, source: str, note: str) -> str:
    out_dir.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    path = out_dir / f"{name}-{digest}.py"
    path.write_bytes(source.encode("utf-8", "surrogatepass"))
    path.with_suffix(".txt").write_text(note)
    return str(path)


def fuzz(count: int, seed: int, out_dir, timeout: float = 20.0, pools=None, progress=None,
         generated_share: float = 0.35) -> Summary:
    rnd = random.Random(seed)
    out_dir = Path(out_dir)
    summary = Summary()
    worker = Worker()
    slowest_source = ""
    start = time.perf_counter()
    try:
        for index, (origin, source) in enumerate(inputs(count, seed, pools or DEFAULT_POOLS, rnd,
                                                        generated_share)):
            answer = worker.run(source, timeout)
            summary.tried += 1
            summary.parsed += bool(answer.get("parsed"))
            summary.findings += answer.get("findings", 0)
            key = origin.split(" ")[0] if origin.startswith("hypothesmith") else "mutated"
            summary.by_origin[key] = summary.by_origin.get(key, 0) + 1
            if answer["problem"]:
                note = f"origin: {origin}\n{answer['problem']}\n{answer.get('traceback', '')}"
                kind = "hang" if answer.get("hang") else "crash"
                saved = save(out_dir, kind, source, note)
                (summary.hangs if kind == "hang" else summary.crashes).append(
                    (index, origin, answer["problem"], saved))
            elif answer["cpu"] > summary.slowest[0]:
                summary.slowest = (answer["cpu"], origin, "")
                slowest_source = source
            if progress and (index + 1) % progress == 0:
                print(f"  {index + 1}/{count}: {len(summary.crashes)} crashes, {len(summary.hangs)} hangs, "
                      f"{time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    finally:
        worker.stop()
    if slowest_source:
        saved = save(out_dir, "slowest", slowest_source, f"origin: {summary.slowest[1]}\n"
                     f"{summary.slowest[0]:.2f} s CPU\n")
        summary.slowest = (summary.slowest[0], summary.slowest[1], saved)
    summary.seconds = time.perf_counter() - start
    return summary


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=5000, help="inputs to try (default 5000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="fuzz-out", help="folder for reproducers (default fuzz-out)")
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds per input before it is a hang")
    parser.add_argument("--pool", action="append", help="folder of .py files to mutate (repeatable; "
                        "default: tests/fixtures and .corpus/src)")
    parser.add_argument("--generated-share", type=float, default=0.35,
                        help="share of inputs generated by hypothesmith, the rest mutated (default 0.35; "
                             "generating is ~100x slower than mutating)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker_main()
        return 0
    summary = fuzz(args.count, args.seed, args.out, args.timeout, args.pool, progress=250,
                   generated_share=args.generated_share)
    print(summary.report())
    return 1 if summary.crashes or summary.hangs else 0


if __name__ == "__main__":
    sys.exit(main())
