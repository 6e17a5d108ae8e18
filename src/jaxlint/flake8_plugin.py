"""The flake8 adapter: flake8's (tree, filename) in, (line, col, message, type) tuples out.

flake8 already parsed the file with `ast`; we reuse its tree, so the plugin costs only the
analysis. flake8 applies `# noqa`, --select and --ignore itself.
"""

from __future__ import annotations

from jaxlint import __version__
from jaxlint.engine import analyse_tree, internal_error_text
from jaxlint.source import RELEVANT_MARKERS


class JaxlintChecker:
    name = "flake8-jaxlint"
    version = __version__

    def __init__(self, tree, filename="<unknown>", lines=None):
        self.tree = tree
        self.filename = filename
        self.lines = lines

    def _mentions_jax(self) -> bool:
        if self.lines is None:
            return True
        markers = [m.decode() for m in RELEVANT_MARKERS]
        return any(m in line for line in self.lines for m in markers)

    def run(self):
        if not self._mentions_jax():
            return
        try:
            findings = analyse_tree(self.tree, self.filename)
        except RecursionError:
            return
        except Exception as exc:  # noqa: BLE001 - a plugin that raises stops flake8's whole run
            yield 1, 0, f"JAX000 {internal_error_text(self.filename, exc)}", type(self)
            return
        for f in findings:
            yield f.line, f.col, f"{f.code} {f.message}", type(self)
