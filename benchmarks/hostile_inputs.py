"""CPU time of jaxlint on the generated inputs of tests/test_hostile_inputs.py, against the
floor of `ast.parse` on the same text: the timing those tests used to assert (a pass/fail test
on a shared machine must not depend on its load; a benchmark reports instead).

    python benchmarks/hostile_inputs.py            # a table: input, ast.parse, check, plugin

`check` is the CPU of a `jaxlint check --no-cache -j1` child; `plugin` the flake8 plugin's
`run()` on flake8's tree, in this process.
"""

from __future__ import annotations

import ast
import os
import pathlib
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests")]

from hostile_support import run  # noqa: E402
from test_hostile_inputs import generated_blob, generated_table  # noqa: E402

from jaxlint.flake8_plugin import JaxlintChecker  # noqa: E402


def cpu(fn):
    before = os.times()
    out = fn()
    after = os.times()
    return after.user - before.user + after.system - before.system, out


def inputs():
    yield "5 MB table", generated_table()
    yield "5 MB blob (_pb2)", generated_blob()
    yield "10,000 jitted functions", "import jax\n" + "".join(
        f"\n\n@jax.jit\ndef f{i}(x, n):\n    return x[:n]\n" for i in range(10_000))


def main() -> int:
    print(f"{'input':<26}{'ast.parse':>10}{'check':>10}{'plugin':>10}  (CPU seconds)")
    env_path = os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])
    os.environ["PYTHONPATH"] = env_path
    with tempfile.TemporaryDirectory() as tmp:
        for name, source in inputs():
            path = pathlib.Path(tmp) / "input.py"
            path.write_text(source)
            parse, tree = cpu(lambda: ast.parse(source))
            cli = run([sys.executable, "-m", "jaxlint", "check", "--no-cache", "-j1", "-q",
                       str(path)], tmp, timeout=1800)
            lines = source.splitlines(True)
            plugin, _ = cpu(lambda: list(JaxlintChecker(tree, str(path), lines).run()))
            print(f"{name:<26}{parse:>10.2f}{cli.cpu:>10.2f}{plugin:>10.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
