"""The runtime verifier: `jaxlint verify` checks static findings against JAX itself.

Unlike `jaxlint check`, this package RUNS the user's code, always in a child process with a time
and memory limit. The parent side (planning, verdicts, reports) never imports JAX or user code;
the child side (`child`, `recorder`, `zygote`, `runharness`) does.

- `verify_paths(paths)` -> list of FileVerdicts: each finding confirmed / not reproduced /
  inconclusive, from the file's `# jaxlint-example:` directives or from synthesized inputs.
- `run_program(...)` -> RunReport: a user's program run with its compiles and cache misses
  recorded, each recompilation explained and cross-referenced with the static findings.

Names are imported lazily so that the child processes load only what they use.
"""

from __future__ import annotations

_LAZY = {
    "verify_paths": "jaxlint.verify.api",
    "FileVerdicts": "jaxlint.verify.api",
    "run_program": "jaxlint.verify.runreport",
    "RunReport": "jaxlint.verify.runreport",
}


def __getattr__(name):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(name)
    import importlib
    return getattr(importlib.import_module(module), name)
