"""The flake8 adapter: flake8's (tree, filename) in, (line, col, message, type) tuples out.

flake8 already parsed the file with `ast`; we reuse its tree, so the plugin costs only the
analysis. flake8 applies `# noqa`, --select, --ignore, per-file-ignores and exclude itself; the
plugin adds only the settings that change the analysis (`--jaxlint-unrolled-loop-threshold`,
`--jaxlint-jit-decorators`, `--jaxlint-no-project`) and where results are kept
(`--jaxlint-no-cache`, `--jaxlint-cache-dir`), readable from setup.cfg, tox.ini or .flake8.

Results are kept in jaxlint's cache (`.jaxlint_cache/` in the project root, as `jaxlint check`
keeps them): an entry holds a file's findings with the digests of the other modules its analysis
read (the jitted steps that call into it, the helpers it calls), so flake8 run again over an
unchanged project does not analyse again, and an edit of one module re-analyses the files that
read it.
"""

from __future__ import annotations

import os
import sys

from jaxlint import __version__, deepstack
from jaxlint.cache import Cache, encode
from jaxlint.config import (DEFAULT_THRESHOLD, Config, ConfigError, parse_jit_decorators,
                            parse_threshold)
from jaxlint.engine import analyse_tree, file_noqa, file_suppressed, internal_error_text
from jaxlint.findings import FileResult
from jaxlint.analysis.crossmodule import calls_project_jit
from jaxlint.analysis.incoming import incoming_calls
from jaxlint.project import next_run, project_of, use_cache
from jaxlint.source import markers, paused_gc


class JaxlintChecker:
    name = "flake8-jaxlint"
    version = __version__
    config = Config()
    cache = None
    _markers = tuple(m.decode() for m in markers())

    @classmethod
    def add_options(cls, manager):
        manager.add_option("--jaxlint-unrolled-loop-threshold", default=str(DEFAULT_THRESHOLD),
                           parse_from_config=True, metavar="N",
                           help="literal loop length from which JAX302 reports a Python loop "
                                "(default: %(default)s)")
        manager.add_option("--jaxlint-jit-decorators", default="", parse_from_config=True,
                           comma_separated_list=True, metavar="NAMES",
                           help="extra jit wrappers to treat like jax.jit: "
                                "NAME[:ARGNUMS_KW[:ARGNAMES_KW]],... (e.g. mylib.jit)")
        manager.add_option("--jaxlint-no-project", action="store_true", default=False,
                           parse_from_config=True,
                           help="analyse each file alone, without reading the project's other "
                                "modules (calls of jitted functions they define are not checked)")
        manager.add_option("--jaxlint-no-cache", action="store_true", default=False,
                           parse_from_config=True,
                           help="analyse every file, without reading or writing jaxlint's result cache")
        manager.add_option("--jaxlint-cache-dir", default="", parse_from_config=True, metavar="DIR",
                           help="keep jaxlint's results in DIR (default: .jaxlint_cache in the "
                                "project root)")

    @classmethod
    def parse_options(cls, options):
        """Validate once per run; a bad value stops flake8 with a message, not a traceback."""
        next_run()          # what other modules were found to hold is checked again this run
        where = "flake8-jaxlint: {} (command line, setup.cfg, tox.ini or .flake8)"
        try:
            threshold = parse_threshold(str(options.jaxlint_unrolled_loop_threshold),
                                        where.format("jaxlint-unrolled-loop-threshold"), "")
            wrappers = parse_jit_decorators(list(options.jaxlint_jit_decorators or []),
                                            where.format("jaxlint-jit-decorators"), "")
        except ConfigError as exc:
            print(exc, file=sys.stderr)
            raise SystemExit(2) from None
        cls.config = Config(unrolled_loop_threshold=threshold, jit_decorators=wrappers,
                            project_analysis=not getattr(options, "jaxlint_no_project", False))
        cls._markers = tuple(m.decode() for m in markers(cls.config))   # its wrappers' modules too
        cls.cache = None if getattr(options, "jaxlint_no_cache", False) else \
            Cache(cache_dir=getattr(options, "jaxlint_cache_dir", "") or None)
        use_cache(cls.cache)

    def __init__(self, tree, filename="<unknown>", lines=None):
        self.tree = tree
        self.filename = filename
        self.lines = lines

    def _mentions_jax(self) -> bool:
        if self.lines is None:
            return True
        text = "".join(self.lines)      # one C-speed search per marker: ~10 us on 1,000 lines
        return any(m in text for m in self._markers)

    def _cached(self):
        """(cache, key) for this file's entry, or (None, None): no cache, or no file on disk."""
        cache = self.cache
        if cache is None or self.lines is None or not os.path.isfile(self.filename):
            return None, None
        data = "".join(self.lines).encode("utf-8", "surrogatepass")
        return cache, cache.key(self.filename, data, f"{self.config.fingerprint()}\0flake8")

    def run(self):
        try:
            cache, key = self._cached()
        except (OSError, UnicodeError):
            cache = key = None
        found = cache.get(self.filename, key) if cache is not None else None
        if found is not None:
            findings = found[0].findings
        else:
            findings = []
            depends: dict = {}      # the other modules read: a change in one is a cache miss
            try:
                findings = self._analyse(depends)
            except RecursionError:
                pass
            except Exception as exc:  # noqa: BLE001 - a plugin that raises stops flake8's whole run
                yield 1, 0, f"JAX000 {internal_error_text(self.filename, exc)}", type(self)
                return
            if cache is not None:
                cache.put(os.path.abspath(self.filename), key,
                          encode(FileResult(path=self.filename, findings=findings, depends=depends), None))
        whole = file_noqa(self.lines) if self.lines is not None else None  # `# jaxlint: noqa`
        for f in findings:
            if not file_suppressed(f, whole):
                yield f.line, f.col, f"{f.code} {f.message}", type(self)

    def _analyse(self, depends: dict) -> list:
        project = project_of(self.filename, self.config)
        externals = None        # found by analyse_tree: the traces the file's importers make into it
        if not self._mentions_jax():
            # a helper that never names jax may still run under another module's jitted step
            externals = incoming_calls(project, self.filename, self.config, depends) if project is not None else ()
            if not externals and not (project is not None and calls_project_jit(
                    project, self.filename, "".join(self.lines).encode(), self.config, depends)):
                return []     # ... or call another module's jitted function
        with paused_gc():   # flake8's tree has no cycles: see source.paused_gc
            return deepstack.call(analyse_tree, self.tree, self.filename, self.config, None,
                                  self.lines, project=project, externals=externals, depends=depends)
