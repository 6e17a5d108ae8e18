"""`jaxlint server`: the Language Server Protocol on stdio, so an editor shows findings as you type.

Built on pygls (`pip install "flake8-jaxlint[server]"`). What it offers:

- diagnostics on open, change (debounced) and save: code, the one-line message, a link to the
  rule's documentation, the range of the flagged expression, and the finding's detail (the path
  of the value, what JAX does, the fix) as related information;
- code actions: each finding's checked fix (unsafe ones say so in their title), "add
  `# noqa: CODE`", and `source.fixAll.jaxlint` (every safe fix at once);
- hover on a finding: the message and its detail, the rule's "why is this bad" and "use instead";
- notebooks (LSP 3.17 notebook documents): the code cells are joined in order as `jaxlint check`
  joins a `.ipynb`, and each cell gets its own diagnostics, at its own lines, with messages that
  name other places as `cell_N:line`.

A buffer is linted as the file at its path would be by `jaxlint check`: the configuration found
above it, its per-file-ignores and excludes, and the cache (read always; written when the
buffer is opened or saved, so unsaved keystrokes leave no entries). Analysis runs on one worker
thread, so the server keeps answering while it works, and a result that arrives for an older
version of the buffer is dropped. Errors are results: a file that fails to parse is one
diagnostic, a bad `[tool.jaxlint]` is one diagnostic naming the problem, a jaxlint bug on a
file is one JAX000 diagnostic, and a bad request gets an empty answer; none stops the server.
"""

from __future__ import annotations

import asyncio
import bisect
import concurrent.futures
import io
import logging
import os
import re
import sys
import textwrap
import tokenize
import warnings
from dataclasses import dataclass, field
from typing import Optional

from jaxlint import __version__
from jaxlint.analysis.crossmodule import depended_files
from jaxlint.project import set_buffer

try:
    from lsprotocol import types as lsp
    from pygls.exceptions import JsonRpcException
    from pygls.lsp.server import LanguageServer
    from pygls.protocol import LanguageServerProtocol
    from pygls.uris import to_fs_path
except ImportError as exc:      # the optional dependency: main() says how to install it
    MISSING = exc
    LanguageServer = LanguageServerProtocol = object    # keeps the classes below importable
else:
    MISSING = None

DEBOUNCE = 0.15         # seconds of quiet typing before a changed buffer is linted again
SOURCE = "jaxlint"
FIX_ALL = "source.fixAll.jaxlint"
_NEWLINE = re.compile(r"\r\n|\r|\n")
_NOQA_CODES = re.compile(r"#\s*noqa\s*:\s*[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*", re.IGNORECASE)
logger = logging.getLogger("jaxlint.server")


def main(args=None) -> int:
    """Serve on stdin/stdout until the client says exit (or goes away)."""
    if MISSING is not None:
        print(f"jaxlint: error: `jaxlint server` needs pygls ({MISSING}); install it with "
              f"pip install 'flake8-jaxlint[server]'", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                        format="jaxlint server: %(levelname)s: %(message)s")
    cache = None
    if not getattr(args, "no_cache", False):
        from jaxlint.cache import Cache
        cache = Cache(cache_dir=getattr(args, "cache_dir", None))
    from jaxlint.project import use_cache
    use_cache(cache)
    server = JaxlintServer(cache)
    server.start_io()
    return 0 if server.shut_down else 1


# -- one analysed version of a buffer ------------------------------------------------------------

@dataclass
class Linted:
    """The findings of one version of a buffer, with what the requests about it need."""

    version: Optional[int]
    text: str
    diagnostics: list = field(default_factory=list)
    items: list = field(default_factory=list)      # [(reporters.Item, lsp.Diagnostic)]
    report: object = None                          # runner.FileReport, when linted
    fixes: dict = field(default_factory=dict)     # (code, line, col) -> Fix or None, checked


class Positions:
    """Character offsets and columns of one text as LSP positions in the negotiated encoding.
    Lines end at \\n, \\r\\n or \\r, as in both Python and the protocol."""

    def __init__(self, text: str, encoding: str = "utf-16"):
        self.text = text
        self.starts = [0] + [m.end() for m in _NEWLINE.finditer(text)]
        self.encoding = encoding

    def units(self, chars: str) -> int:
        if self.encoding == "utf-8":
            return len(chars.encode("utf-8", "surrogatepass"))
        if self.encoding == "utf-32":
            return len(chars)
        return len(chars) + sum(1 for c in chars if ord(c) > 0xFFFF)

    def line_text(self, line: int) -> str:
        """0-based line without its line break."""
        if not 0 <= line < len(self.starts):
            return ""
        end = self.starts[line + 1] if line + 1 < len(self.starts) else len(self.text)
        return self.text[self.starts[line]:end].rstrip("\r\n")

    def position(self, line: int, char: int) -> "lsp.Position":
        """0-based line and character column -> Position."""
        line = max(0, min(line, len(self.starts) - 1))
        raw = self.line_text(line)
        return lsp.Position(line=line, character=self.units(raw[:max(0, min(char, len(raw)))]))

    def at_offset(self, offset: int) -> "lsp.Position":
        offset = max(0, min(offset, len(self.text)))
        line = bisect.bisect_right(self.starts, offset) - 1
        return self.position(line, offset - self.starts[line])

    def char(self, position: "lsp.Position") -> int:
        """A Position's column as a character index into its line."""
        raw = self.line_text(position.line)
        units = 0
        for i, c in enumerate(raw):
            if units >= position.character:
                return i
            units += self.units(c)
        return len(raw)


def severity(code: str) -> "lsp.DiagnosticSeverity":
    """Errors for what fails at trace time (and for broken files); warnings for recompilation."""
    from jaxlint.reporters import rule
    found = rule(code)
    if found is None or found.family == "trace-time failure":
        return lsp.DiagnosticSeverity.Error
    return lsp.DiagnosticSeverity.Warning


def diagnose(text: str, version, path: Optional[str], name: str, root: str, cache,
             store: bool, encoding: str) -> Linted:
    """Lint one buffer as `jaxlint check` would lint the file at `path` (None: not a file, such
    as an untitled buffer, configured from `root`). Never raises."""
    linted = Linted(version, text)
    positions = Positions(text, encoding)
    try:
        _diagnose(linted, positions, path, name, root, cache, store)
    except Exception as exc:  # noqa: BLE001 - a jaxlint bug on one buffer is a diagnostic
        from jaxlint.engine import internal_error_text
        linted.items = []
        linted.diagnostics = [_file_diagnostic(positions, 0, 0, "JAX000",
                                               internal_error_text(name, exc))]
    return linted


def _diagnose(linted, positions, path, name, root, cache, store):
    from jaxlint.config import ConfigError, ConfigFinder
    from jaxlint.reporters import collect, docs_url
    from jaxlint.runner import lint_text
    from jaxlint.spans import Spans
    try:
        finder = ConfigFinder()
        config = finder.for_path(path) if path else finder.for_dir(os.path.abspath(root))
    except ConfigError as exc:
        linted.diagnostics = [_file_diagnostic(positions, 0, 0, "config",
                                               f"jaxlint configuration error: {exc}")]
        return
    if path and (config.excluded(path) or path.endswith(".ipynb")):
        return                          # excluded as in `jaxlint check`; notebooks: not here
    if path and config.project_analysis:
        from jaxlint.project import project_of
        project = project_of(path, config)
        if project is not None:
            project.refresh()        # other modules may have changed on disk since the last edit
    report = lint_text(name, linted.text, config, cache if path else None, store)
    linted.report = report
    findings, errors = collect([report])
    for error in errors:
        line = max(error.line - 1, 0)
        linted.diagnostics.append(_file_diagnostic(positions, line, max(error.column - 1, 0),
                                                   error.code, error.message))
    spans = Spans(linted.text)
    for item in findings:
        f = item.finding
        start, end = spans.span(f.line, f.col)
        diagnostic = lsp.Diagnostic(
            range=lsp.Range(start=positions.position(f.line - 1, start),
                            end=positions.position(f.line - 1, end)),
            message=item.message, severity=severity(item.code), code=item.code, source=SOURCE,
            code_description=lsp.CodeDescription(href=docs_url(item.code)))
        linted.items.append((item, diagnostic))
        linted.diagnostics.append(diagnostic)


def relate(items, uri: str) -> None:
    """Attach each finding's detail (the path of the value, what JAX does, the fix) to its
    diagnostic as related information at the same place: editors show it under the one-line
    message. The hover shows it too."""
    for item, diagnostic in items:
        if item.detail:
            diagnostic.related_information = [lsp.DiagnosticRelatedInformation(
                location=lsp.Location(uri=uri, range=diagnostic.range), message=item.detail)]


def _file_diagnostic(positions, line, char, code, message) -> "lsp.Diagnostic":
    """A problem with the whole file (syntax, configuration, internal error), from its position
    to the end of that line."""
    raw = positions.line_text(line)
    start = min(char, len(raw))
    end = len(raw) if len(raw) > start else start
    return lsp.Diagnostic(range=lsp.Range(start=positions.position(line, start),
                                          end=positions.position(line, end)),
                          message=message, severity=lsp.DiagnosticSeverity.Error, code=code,
                          source=SOURCE)


# -- notebooks --------------------------------------------------------------------------------------

@dataclass
class Cell:
    """One cell of a notebook document as the client last sent it."""

    uri: str
    code: bool                  # a code cell in Python (markdown and other languages are not linted)
    text: str


def notebook_json(cells) -> bytes:
    """The cells as an nbformat 4 notebook, so that the notebook is linted exactly as `jaxlint
    check` lints a `.ipynb` file: same joining, same IPython handling, same cell numbers."""
    import json
    entries = []
    for cell in cells:
        entry = {"cell_type": "code" if cell.code else "raw", "metadata": {}, "source": cell.text}
        if cell.code:
            entry.update(outputs=[], execution_count=None)
        entries.append(entry)
    return json.dumps({"cells": entries, "metadata": {}, "nbformat": 4,
                       "nbformat_minor": 5}).encode("utf-8")


def diagnose_notebook(cells: list, path: Optional[str], name: str, root: str, cache, store: bool,
                      encoding: str) -> dict:
    """{cell uri: [Diagnostic]} for every cell of a notebook document (an empty list clears a
    cell). Never raises: a jaxlint bug is one JAX000 diagnostic on the first cell."""
    found = {cell.uri: [] for cell in cells}
    if not cells:
        return found
    try:
        _diagnose_notebook(found, cells, path, name, root, cache, store, encoding)
    except Exception as exc:  # noqa: BLE001 - a jaxlint bug on one notebook is a diagnostic
        from jaxlint.engine import internal_error_text
        found = {cell.uri: [] for cell in cells}
        first = next((cell for cell in cells if cell.code), cells[0])
        found[first.uri] = [_file_diagnostic(Positions(first.text, encoding), 0, 0, "JAX000",
                                             internal_error_text(name, exc))]
    return found


def _diagnose_notebook(found, cells, path, name, root, cache, store, encoding):
    from jaxlint.config import ConfigError, ConfigFinder
    from jaxlint.notebooks import extract
    from jaxlint.reporters import collect, docs_url
    from jaxlint.runner import lint_data
    from jaxlint.spans import Spans
    first = next((cell for cell in cells if cell.code), cells[0])
    try:
        finder = ConfigFinder()
        config = finder.for_path(path) if path else finder.for_dir(os.path.abspath(root))
    except ConfigError as exc:
        found[first.uri] = [_file_diagnostic(Positions(first.text, encoding), 0, 0, "config",
                                             f"jaxlint configuration error: {exc}")]
        return
    if path and config.excluded(path):
        return
    if not name.endswith(".ipynb"):     # an untitled notebook: linted as one all the same
        name += ".ipynb"
    data = notebook_json(cells)
    report = lint_data(name, data, config, cache if path else None, store)
    findings, errors = collect([report])
    joined = extract(data)
    spans = Spans(joined[0]) if joined is not None else None
    positions = {}

    def cell_of(item):
        if item.cell is None or not 1 <= item.cell <= len(cells):
            return first
        return cells[item.cell - 1]

    def at(cell):
        if cell.uri not in positions:
            positions[cell.uri] = Positions(cell.text, encoding)
        return positions[cell.uri]

    for error in errors:
        cell = cell_of(error)
        found[cell.uri].append(_file_diagnostic(at(cell), max(error.line - 1, 0),
                                                max(error.column - 1, 0), error.code, error.message))
    for item in findings:
        f, cell = item.finding, cell_of(item)
        start, end = spans.span(f.line, f.col) if spans is not None else (item.column - 1, item.column)
        where = at(cell)
        found[cell.uri].append(lsp.Diagnostic(
            range=lsp.Range(start=where.position(item.line - 1, start),
                            end=where.position(item.line - 1, end)),
            message=item.message, severity=severity(item.code), code=item.code, source=SOURCE,
            code_description=lsp.CodeDescription(href=docs_url(item.code))))
        relate([(item, found[cell.uri][-1])], cell.uri)


# -- code actions ---------------------------------------------------------------------------------

def compute_fixes(linted: Linted, findings: list) -> dict:
    """(code, line, col) -> checked Fix, or None when it has none, for `findings` of the
    buffer: only those under the cursor, since checking a fix lints the buffer again."""
    from jaxlint import deepstack, fixer
    report = linted.report
    if report is None or report.result.error or report.result.internal_error or report.cells:
        return {_key(f): None for f in findings}
    found = deepstack.call(fixer.checked_fixes, linted.text, report.path, report.config,
                           report.result.findings, findings)
    wanted = {_key(f) for f in findings}
    return {_key(f): f.fix for f in found if _key(f) in wanted}


def _key(finding) -> tuple:
    return finding.code, finding.line, finding.col


def fix_all(linted: Linted) -> Optional[str]:
    """The buffer with every safe fix applied, or None when none applies (or the buffer has
    more fixable findings than the summary would check: `jaxlint check --fix` does those)."""
    from jaxlint import deepstack, fixer
    from jaxlint.runner import CHECK_LIMIT
    report = linted.report
    if report is None or report.result.error or report.result.internal_error or report.cells:
        return None
    if sum(item.finding.code in fixer.FIXABLE_CODES for item, _ in linted.items) > CHECK_LIMIT:
        return None
    outcome = deepstack.call(fixer.fix_source, linted.text, report.path, report.config, False)
    return outcome.after if outcome.changed else None


def noqa_edit(text: str, line: int, code: str) -> Optional[tuple]:
    """(start, end, replacement) offsets that add `code` to the `# noqa` of 1-based `line`, or
    None where a comment cannot go (the line ends inside a string, or continues with `\\`)."""
    from jaxlint.engine import noqa_codes
    starts = [0] + [m.end() for m in _NEWLINE.finditer(text)]
    if not 1 <= line <= len(starts):
        return None
    begin = starts[line - 1]
    end = starts[line] if line < len(starts) else len(text)
    raw = text[begin:end].rstrip("\r\n")
    body = raw.rstrip()
    if body.endswith("\\") or _ends_inside_string(text, line):
        return None
    codes = noqa_codes(raw)
    if codes is None:
        edit = (begin + len(body), begin + len(raw), f"  # noqa: {code}")
    else:
        match = _NOQA_CODES.search(raw)
        if match is None:             # a bare `# noqa` already silences everything
            return None
        edit = (begin + match.end(), begin + match.end(), f", {code}")
    start, stop, insert = edit
    found = noqa_codes(raw[:start - begin] + insert + raw[stop - begin:])
    if not found or not any(code.startswith(c) for c in found) \
            or not _parses(text[:start] + insert + text[stop:]):
        return None
    return edit


def _ends_inside_string(text: str, line: int) -> bool:
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.start[0] > line:
                return False
            if tok.start[0] <= line < tok.end[0] and tok.type in (
                    tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", -1)):
                return True
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return True
    return False


def _parses(text: str) -> bool:
    import ast
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def wanted(kind: str, only) -> bool:
    """Whether the client asked for actions of `kind` (`only` lists kinds or their prefixes)."""
    return not only or any(kind == k or kind.startswith(f"{k}.") for k in only)


def overlaps(a: "lsp.Range", b: "lsp.Range") -> bool:
    start = lambda p: (p.line, p.character)     # noqa: E731
    return start(a.start) <= start(b.end) and start(b.start) <= start(a.end)


def short_description(fix) -> str:
    tail = f" (unsafe: {fix.why_unsafe})"
    return fix.description[:-len(tail)] if fix.why_unsafe and fix.description.endswith(tail) \
        else fix.description


def hover_text(item) -> str:
    """Markdown for a finding: the message and its detail, then the rule's why, use-instead
    and docs link."""
    from jaxlint.reporters import docs_url, rule
    cls = rule(item.code)
    said = f"{item.message}\n\n{item.detail}" if item.detail else item.message
    if cls is None:
        return f"**{item.code}** {said}"
    parts = [f"**{cls.code} {cls.name}** ({cls.family}): {cls.summary}", "", said, "",
             "**Why is this bad**", "", textwrap.dedent(cls.why).strip(), "",
             "**Use instead**", "", "```python", textwrap.dedent(cls.use_instead).strip(), "```",
             "", f"[{cls.code} documentation]({docs_url(cls.code)})"]
    return "\n".join(parts)


# -- the server ------------------------------------------------------------------------------------

@dataclass
class Document:
    uri: str
    path: Optional[str]
    version: Optional[int]
    text: str
    python: bool = True                    # a Python buffer (others are never linted)
    linted: Optional[Linted] = None
    task: Optional[object] = None          # asyncio.Task linting the latest version


@dataclass
class Notebook:
    uri: str
    task: Optional[object] = None          # asyncio.Task linting the latest version
    published: set = field(default_factory=set)    # cell uris that were sent diagnostics


class Protocol(LanguageServerProtocol):
    """pygls's protocol, except that a request whose parameters cannot be read gets an error
    answer: pygls logs such a message and drops it, which leaves the client waiting forever."""

    def structure_message(self, data):
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if isinstance(data, dict) and "method" in data and isinstance(data.get("id"), (int, str)):
                self._send_response(data["id"], error=exc.to_response_error())
            raise


class JaxlintServer(LanguageServer):
    """The pygls server with jaxlint's documents and handlers."""

    def __init__(self, cache=None):
        super().__init__(SOURCE, __version__, text_document_sync_kind=lsp.TextDocumentSyncKind.Full,
                         notebook_document_sync=lsp.NotebookDocumentSyncOptions(
                             notebook_selector=[lsp.NotebookDocumentFilterWithCells(
                                 notebook="*", cells=[lsp.NotebookCellLanguage(language="python")])],
                             save=True),
                         protocol_cls=Protocol)
        self.cache = cache
        self.documents: dict = {}
        self.notebooks: dict = {}           # notebook uri -> Notebook
        self.shut_down = False
        self.warmed = False
        self.worker = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="jaxlint-lsp")
        _register(self)

    # -- what the handlers share -------------------------------------------------------------
    @property
    def encoding(self) -> str:
        try:
            kind = self.workspace.position_encoding
        except Exception:  # noqa: BLE001 - before initialize: the protocol's default
            return "utf-16"
        return str(getattr(kind, "value", kind) or "utf-16").lower()

    @property
    def root(self) -> str:
        try:
            return self.workspace.root_path or os.getcwd()
        except Exception:  # noqa: BLE001 - not initialised
            return os.getcwd()

    def open(self, uri: str, version, text: str, language: Optional[str] = None) -> Document:
        path = None
        if uri.startswith("file:"):
            path = to_fs_path(uri)
        doc = self.documents.get(uri)
        if doc is None:
            doc = Document(uri, path, version, text, python=uri.endswith((".py", ".pyi")))
            self.documents[uri] = doc
        doc.version, doc.text = version, text
        if language is not None:        # what the editor says, else what the name says
            doc.python = language == "python" or uri.endswith((".py", ".pyi"))
        return doc

    def schedule(self, doc: Document, delay: float = 0.0, store: bool = False) -> None:
        """Lint the document's current version after `delay` (cancelling a pending lint of an
        older one) and publish the result if it is still current."""
        if doc.task is not None and not doc.task.done():
            doc.task.cancel()
        if not doc.python:
            return
        doc.task = asyncio.ensure_future(self._lint(doc, doc.version, doc.text, delay, store))

    async def _lint(self, doc, version, text, delay, store):
        if delay:
            await asyncio.sleep(delay)
        loop = asyncio.get_running_loop()
        name = doc.path or doc.uri
        try:
            linted = await loop.run_in_executor(self.worker, diagnose, text, version, doc.path,
                                                name, self.root, self.cache, store, self.encoding)
        except RuntimeError:                # shutting down: the worker takes no more work
            return None
        if self.documents.get(doc.uri) is not doc or doc.version != version or doc.text != text:
            return None                     # edited (or closed) meanwhile: a newer lint follows
        doc.linted = linted
        relate(linted.items, doc.uri)
        self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(
            uri=doc.uri, diagnostics=linted.diagnostics, version=version))
        if not self.warmed:             # the fixer (libcst) loads while the user reads
            self.warmed = True
            loop.run_in_executor(self.worker, _load_fixer)
        return linted

    def dependents(self, path: str) -> list:
        """The other open Python documents whose last lint read the module at `path` (a helper
        it calls, an importer whose traces reach it): a saved change there can change their
        findings."""
        full = os.path.abspath(path)
        found = []
        for doc in self.documents.values():
            report = doc.linted.report if doc.linted is not None else None
            if doc.path and os.path.abspath(doc.path) != full and report is not None \
                    and full in depended_files(report.result.depends):
                found.append(doc)
        return found

    def schedule_notebook(self, uri: str, delay: float = 0.0, store: bool = False) -> None:
        """Lint the notebook's current cells after `delay` (cancelling a pending lint of an older
        version) and publish each cell's diagnostics if the notebook has not changed since."""
        state = self.notebooks.setdefault(uri, Notebook(uri))
        if state.task is not None and not state.task.done():
            state.task.cancel()
        state.task = asyncio.ensure_future(self._lint_notebook(state, delay, store))

    def notebook_cells(self, uri: str) -> Optional[tuple]:
        """(version, [Cell]) of the notebook as pygls keeps it, or None once it is closed."""
        notebook = self.workspace.get_notebook_document(notebook_uri=uri)
        if notebook is None:
            return None
        cells = []
        for cell in notebook.cells:
            document = self.workspace.get_text_document(cell.document)
            code = cell.kind == lsp.NotebookCellKind.Code and \
                (document.language_id or "python").lower() in ("python", "python3", "ipython")
            cells.append(Cell(cell.document, code, document.source))
        return notebook.version, cells

    async def _lint_notebook(self, state, delay, store):
        if delay:
            await asyncio.sleep(delay)
        snapshot = self.notebook_cells(state.uri)
        if snapshot is None:
            return
        version, cells = snapshot
        path = to_fs_path(state.uri) if state.uri.startswith("file:") else None
        loop = asyncio.get_running_loop()
        try:
            found = await loop.run_in_executor(self.worker, diagnose_notebook, cells, path,
                                               path or state.uri, self.root, self.cache, store,
                                               self.encoding)
        except RuntimeError:                # shutting down
            return
        now = self.notebook_cells(state.uri)
        if now is None or now[0] != version or [c.text for c in now[1]] != [c.text for c in cells]:
            return                          # edited (or closed) meanwhile: a newer lint follows
        for uri in state.published - set(found):    # cells deleted since: cleared
            self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
        for uri, diagnostics in found.items():
            document = self.workspace.get_text_document(uri)
            self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(
                uri=uri, diagnostics=diagnostics, version=document.version))
        state.published = set(found)

    def close_notebook(self, uri: str, cell_uris) -> None:
        state = self.notebooks.pop(uri, None)
        published = set(cell_uris)
        if state is not None:
            if state.task is not None:
                state.task.cancel()
            published |= state.published
        for cell in sorted(published):
            self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=cell, diagnostics=[]))

    async def current(self, uri: str) -> Optional[Linted]:
        """The lint of the document's current text, waiting for it if it is under way."""
        doc = self.documents.get(uri)
        if doc is None:
            return None
        for _ in range(3):                  # a change may arrive while waiting: try again
            if doc.linted is not None and doc.linted.text == doc.text:
                return doc.linted
            task = doc.task
            if not doc.python:
                return None
            if task is None:
                self.schedule(doc)
                task = doc.task
            try:
                await asyncio.shield(task)
            except asyncio.CancelledError:
                if doc.task is task:
                    raise
        return doc.linted if doc.linted is not None and doc.linted.text == doc.text else None

    async def in_worker(self, fn, *args):
        return await asyncio.get_running_loop().run_in_executor(self.worker, fn, *args)

    def edit(self, uri: str, version, edits: list) -> "lsp.WorkspaceEdit":
        caps = self.client_capabilities
        versioned = bool(caps and caps.workspace and caps.workspace.workspace_edit
                         and caps.workspace.workspace_edit.document_changes)
        if versioned:
            return lsp.WorkspaceEdit(document_changes=[lsp.TextDocumentEdit(
                text_document=lsp.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
                edits=edits)])
        return lsp.WorkspaceEdit(changes={uri: edits})


def _load_fixer() -> None:
    """Import the fixer ahead of the first code action, which would otherwise wait for it."""
    import jaxlint.fixer  # noqa: F401


def _text_edits(positions: Positions, edits) -> list:
    return [lsp.TextEdit(range=lsp.Range(start=positions.at_offset(start),
                                         end=positions.at_offset(end)), new_text=replacement)
            for start, end, replacement in sorted(edits)]


def _register(server: JaxlintServer) -> None:
    """The LSP handlers. Each one answers something (possibly nothing) for any input."""

    @server.feature(lsp.SHUTDOWN)
    def shutdown(ls: JaxlintServer, *args):
        ls.shut_down = True
        ls.worker.shutdown(wait=False, cancel_futures=True)

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: JaxlintServer, params: lsp.DidOpenTextDocumentParams):
        item = params.text_document
        ls.schedule(ls.open(item.uri, item.version, item.text, item.language_id), store=True)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: JaxlintServer, params: lsp.DidChangeTextDocumentParams):
        uri = params.text_document.uri
        if uri in ls.workspace.text_documents:      # pygls has applied the change to it
            text = ls.workspace.get_text_document(uri).source
        elif params.content_changes and not hasattr(params.content_changes[-1], "range"):
            text = params.content_changes[-1].text  # a whole text for a buffer never opened
        else:
            return
        doc = ls.open(uri, params.text_document.version, text)
        ls.schedule(doc, delay=DEBOUNCE)
        if doc.path and doc.python:         # the other open modules read this buffer, not the file
            set_buffer(doc.path, text.encode("utf-8", "surrogatepass"))
            for other in ls.dependents(doc.path):
                ls.schedule(other, delay=DEBOUNCE)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE, lsp.SaveOptions(include_text=True))
    def did_save(ls: JaxlintServer, params: lsp.DidSaveTextDocumentParams):
        uri = params.text_document.uri
        if uri.endswith("/pyproject.toml"):
            for doc in list(ls.documents.values()):     # the configuration of every buffer
                ls.schedule(doc)
            for notebook in list(ls.notebooks):
                ls.schedule_notebook(notebook)
            return
        doc = ls.documents.get(uri)
        if doc is not None:
            if params.text is not None:
                doc.text = params.text
            ls.schedule(doc, store=True)
            if doc.path:                                # the modules whose findings read this one
                set_buffer(doc.path, None)              # the file holds the text now
                for other in ls.dependents(doc.path):
                    ls.schedule(other)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: JaxlintServer, params: lsp.DidCloseTextDocumentParams):
        doc = ls.documents.pop(params.text_document.uri, None)
        if doc is not None and doc.task is not None:
            doc.task.cancel()
        if doc is not None and doc.path:                # closed unsaved: the file is what stays
            set_buffer(doc.path, None)
            for other in ls.dependents(doc.path):
                ls.schedule(other, delay=DEBOUNCE)
        ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(
            uri=params.text_document.uri, diagnostics=[]))

    @server.feature(lsp.NOTEBOOK_DOCUMENT_DID_OPEN)
    def notebook_did_open(ls: JaxlintServer, params: lsp.DidOpenNotebookDocumentParams):
        ls.schedule_notebook(params.notebook_document.uri, store=True)

    @server.feature(lsp.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def notebook_did_change(ls: JaxlintServer, params: lsp.DidChangeNotebookDocumentParams):
        ls.schedule_notebook(params.notebook_document.uri, delay=DEBOUNCE)

    @server.feature(lsp.NOTEBOOK_DOCUMENT_DID_SAVE)
    def notebook_did_save(ls: JaxlintServer, params: lsp.DidSaveNotebookDocumentParams):
        ls.schedule_notebook(params.notebook_document.uri, store=True)

    @server.feature(lsp.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def notebook_did_close(ls: JaxlintServer, params: lsp.DidCloseNotebookDocumentParams):
        ls.close_notebook(params.notebook_document.uri,
                          [cell.uri for cell in params.cell_text_documents])

    @server.feature(lsp.TEXT_DOCUMENT_CODE_ACTION, lsp.CodeActionOptions(
        code_action_kinds=[lsp.CodeActionKind.QuickFix, FIX_ALL], resolve_provider=False))
    async def code_action(ls: JaxlintServer, params: lsp.CodeActionParams):
        try:
            return await _code_actions(ls, params)
        except Exception:  # noqa: BLE001 - a failed request is an empty answer, never a crash
            logger.exception("code action failed")
            return []

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    async def hover(ls: JaxlintServer, params: lsp.HoverParams):
        try:
            linted = await ls.current(params.text_document.uri)
            if linted is None:
                return None
            pos = (params.position.line, params.position.character)
            for item, diagnostic in linted.items:
                r = diagnostic.range
                if (r.start.line, r.start.character) <= pos <= (r.end.line, r.end.character):
                    return lsp.Hover(contents=lsp.MarkupContent(
                        kind=lsp.MarkupKind.Markdown, value=hover_text(item)), range=r)
        except Exception:  # noqa: BLE001
            logger.exception("hover failed")
        return None


async def _code_actions(ls: JaxlintServer, params) -> list:
    uri = params.text_document.uri
    linted = await ls.current(uri)
    if linted is None:
        return []
    doc = ls.documents.get(uri)
    version = doc.version if doc is not None else None
    positions = Positions(linted.text, ls.encoding)
    only = params.context.only if params.context is not None else None
    actions = []
    if wanted(lsp.CodeActionKind.QuickFix, only):
        hits = [(item, d) for item, d in linted.items if overlaps(d.range, params.range)]
        missing = [item.finding for item, _ in hits if item.finding.code in _fixable_codes()
                   and _key(item.finding) not in linted.fixes][:_check_limit()]
        if missing:
            linted.fixes.update(await ls.in_worker(compute_fixes, linted, missing))
        for item, diagnostic in hits:
            f = item.finding
            fix = linted.fixes.get(_key(f))
            if fix is not None:
                label = "Fix" if fix.safe else "Unsafe fix"
                actions.append(lsp.CodeAction(
                    title=f"{label} {f.code}: {short_description(fix)}",
                    kind=lsp.CodeActionKind.QuickFix, diagnostics=[diagnostic],
                    is_preferred=fix.safe,
                    edit=ls.edit(uri, version, _text_edits(positions, fix.edits))))
            noqa = noqa_edit(linted.text, f.line, f.code)
            if noqa is not None:
                actions.append(lsp.CodeAction(
                    title=f"Add `# noqa: {f.code}` (suppress on this line)",
                    kind=lsp.CodeActionKind.QuickFix, diagnostics=[diagnostic],
                    edit=ls.edit(uri, version, _text_edits(positions, [noqa]))))
    if only and wanted(FIX_ALL, only) and linted.items:
        fixed = await ls.in_worker(fix_all, linted)
        if fixed is not None:
            actions.append(lsp.CodeAction(
                title="jaxlint: apply every safe fix", kind=FIX_ALL,
                edit=ls.edit(uri, version, _text_edits(positions,
                                                       [(0, len(linted.text), fixed)]))))
    return actions


def _check_limit() -> int:
    from jaxlint.runner import CHECK_LIMIT
    return CHECK_LIMIT


def _fixable_codes():
    from jaxlint.fixer import FIXABLE_CODES
    return FIXABLE_CODES
