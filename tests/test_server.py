"""`jaxlint server`, started as a subprocess and spoken to over stdio by pygls's language client:
diagnostics, hover, code actions whose edits remove the finding, configuration as the CLI reads
it, the cache, and a server that outlives bad files and bad requests."""

import asyncio
import json
import os
import re
import shutil
import sys

import pytest

lsp = pytest.importorskip("lsprotocol.types")
from pygls.exceptions import JsonRpcMethodNotFound  # noqa: E402
from pygls.lsp.client import LanguageClient  # noqa: E402

import console  # noqa: E402

pytestmark = pytest.mark.slow     # subprocesses, JAX or a language server: seconds each


JAXLINT = (shutil.which("jaxlint", path=os.path.dirname(sys.executable))
           or shutil.which("jaxlint"))
TIMEOUT = 120           # seconds for any one answer: generous for a loaded two-core machine
SOURCE = ("import jax\n\n\n@jax.jit\ndef head(x, n):\n    return x[:n]\n\n\n"
          "def run(x):\n    return head(x, 3)\n")        # JAX104 at 6:12, with a safe fix
BROKEN = "import jax\ndef f(:\n"


class Client(LanguageClient):
    """pygls's client, keeping every publishDiagnostics so that a test can wait for one."""

    def __init__(self):
        super().__init__("jaxlint-tests", "0")
        self.published = []
        self.changed = asyncio.Event()
        self.exit_code = None

        @self.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def publish(params):
            self.published.append(params)
            self.changed.set()

    async def server_exit(self, server):
        self.exit_code = server.returncode

    async def diagnostics(self, uri, version, after=0):
        """The first publication for `uri` at `version` among those after the first `after`."""
        async def wait():
            while True:
                for params in self.published[after:]:
                    if params.uri == uri and params.version == version:
                        return list(params.diagnostics)
                self.changed.clear()
                await self.changed.wait()
        return await asyncio.wait_for(wait(), TIMEOUT)

    def open(self, path, text, version=1):
        self.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=lsp.TextDocumentItem(
            uri=path.as_uri(), language_id="python", version=version, text=text)))

    def change(self, path, text, version):
        self.text_document_did_change(lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=path.as_uri(), version=version),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)]))

    async def actions(self, path, diagnostic=None, only=None):
        rng = diagnostic.range if diagnostic else lsp.Range(start=lsp.Position(line=0, character=0),
                                                            end=lsp.Position(line=0, character=0))
        return list(await asyncio.wait_for(self.text_document_code_action_async(
            lsp.CodeActionParams(text_document=lsp.TextDocumentIdentifier(uri=path.as_uri()),
                                 range=rng, context=lsp.CodeActionContext(
                                     diagnostics=[diagnostic] if diagnostic else [],
                                     only=only))), TIMEOUT) or [])

    async def hover(self, path, line, character):
        return await asyncio.wait_for(self.text_document_hover_async(lsp.HoverParams(
            text_document=lsp.TextDocumentIdentifier(uri=path.as_uri()),
            position=lsp.Position(line=line, character=character))), TIMEOUT)


def session(tmp_path, scenario, *server_args):
    """Start `jaxlint server`, initialise it with tmp_path as the workspace, run `scenario(client)`,
    then shut down and exit; returns the server's exit code."""
    assert JAXLINT, "the jaxlint console script is not installed next to this Python"
    assert console.script() == JAXLINT          # and it runs this tree's code

    async def main():
        client = Client()
        await client.start_io(JAXLINT, "server", *server_args, cwd=str(tmp_path),
                              env=console.environment())
        try:
            caps = lsp.ClientCapabilities(
                workspace=lsp.WorkspaceClientCapabilities(
                    workspace_edit=lsp.WorkspaceEditClientCapabilities(document_changes=True)),
                general=lsp.GeneralClientCapabilities(position_encodings=["utf-16"]))
            result = await asyncio.wait_for(client.initialize_async(lsp.InitializeParams(
                capabilities=caps, root_uri=tmp_path.as_uri(), process_id=os.getpid())), TIMEOUT)
            assert result.server_info.name == "jaxlint"
            assert "quickfix" in result.capabilities.code_action_provider.code_action_kinds
            assert result.capabilities.hover_provider
            client.initialized(lsp.InitializedParams())
            await scenario(client)
            await asyncio.wait_for(client.shutdown_async(None), TIMEOUT)
            client.exit(None)
            await asyncio.wait_for(client.stop(), TIMEOUT)
        finally:
            process = getattr(client, "_server", None)      # only when something went wrong
            if process is not None and process.returncode is None:
                process.kill()
                await process.wait()
        return client.exit_code

    return asyncio.run(main())


def apply(text, edits):
    """Apply LSP TextEdits (UTF-16 positions; these texts are ASCII) to `text`."""
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    offset = lambda p: starts[p.line] + p.character      # noqa: E731
    for edit in sorted(edits, key=lambda e: offset(e.range.start), reverse=True):
        text = text[:offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end):]
    return text


def edits_of(action, uri, version):
    change, = action.edit.document_changes
    assert change.text_document.uri == uri and change.text_document.version == version
    return change.edits


def test_diagnose_hover_fix_and_noqa_over_stdio(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(SOURCE)
    uri = path.as_uri()

    async def scenario(client):
        client.open(path, SOURCE)
        diagnostic, = await client.diagnostics(uri, 1)
        assert diagnostic.code == "JAX104" and diagnostic.source == "jaxlint"
        assert (diagnostic.range.start.line, diagnostic.range.start.character,
                diagnostic.range.end.line, diagnostic.range.end.character) == (5, 11, 5, 16)
        assert diagnostic.severity == lsp.DiagnosticSeverity.Error
        assert diagnostic.message == "slice bound `n` is traced in jitted `head`"
        related, = diagnostic.related_information      # the detail, at the finding's own place
        assert related.location.uri == uri and related.location.range == diagnostic.range
        assert related.message.startswith("Traced parameter `n` in jitted function `head`")
        assert "Fix: " in related.message
        assert diagnostic.code_description.href.endswith("docs/rules.md#jax104-traced-slice")

        hover = await client.hover(path, 5, 13)
        text = hover.contents.value
        assert hover.contents.kind == lsp.MarkupKind.Markdown
        for part in ("JAX104 traced-slice", "**Why is this bad**", "**Use instead**",
                     "lax.dynamic_slice", "#jax104-traced-slice", related.message):
            assert part in text
        assert await client.hover(path, 0, 0) is None

        fix, noqa = await client.actions(path, diagnostic)
        assert fix.title.startswith("Fix JAX104: Make `n` static") and fix.is_preferred
        assert fix.kind == lsp.CodeActionKind.QuickFix and list(fix.diagnostics) == [diagnostic]
        assert noqa.title.startswith("Add `# noqa: JAX104`")
        fixed = apply(SOURCE, edits_of(fix, uri, 1))
        assert '@functools.partial(jax.jit, static_argnames=("n",))\ndef head' in fixed
        client.change(path, fixed, 2)
        assert await client.diagnostics(uri, 2) == []        # the fix removed the finding

        client.change(path, SOURCE, 3)
        diagnostic, = await client.diagnostics(uri, 3)
        _, noqa = await client.actions(path, diagnostic)
        silenced = apply(SOURCE, edits_of(noqa, uri, 3))
        assert "    return x[:n]  # noqa: JAX104\n" in silenced
        client.change(path, silenced, 4)
        assert await client.diagnostics(uri, 4) == []

        client.change(path, SOURCE, 5)
        await client.diagnostics(uri, 5)
        everything, = await client.actions(path, only=[lsp.CodeActionKind.SourceFixAll])
        assert everything.kind == "source.fixAll.jaxlint"
        assert apply(SOURCE, edits_of(everything, uri, 5)) == fixed

    assert session(tmp_path, scenario, "--no-cache") == 0
    assert path.read_text() == SOURCE                        # edits are the client's to apply


def test_unsafe_fix_is_labelled_unsafe(tmp_path):
    path = tmp_path / "m.py"
    text = SOURCE.replace("head(x, 3)", "head(x, len(x))")    # the value varies: unsafe

    async def scenario(client):
        client.open(path, text)
        diagnostic, = await client.diagnostics(path.as_uri(), 1)
        fix, _ = await client.actions(path, diagnostic)
        assert fix.title.startswith("Unsafe fix JAX104: Make `n` static") and not fix.is_preferred

    assert session(tmp_path, scenario, "--no-cache") == 0


def test_bad_files_and_bad_requests_never_stop_the_server(tmp_path):
    broken, nul, never_opened = tmp_path / "broken.py", tmp_path / "nul.py", tmp_path / "no.py"

    async def scenario(client):
        client.open(broken, BROKEN)
        diagnostic, = await client.diagnostics(broken.as_uri(), 1)   # one, and only one
        assert diagnostic.code == "E999" and diagnostic.range.start.line == 1
        assert diagnostic.message.startswith("syntax error")
        assert await client.actions(broken, diagnostic) == []
        assert await client.hover(broken, 1, 6) is None
        client.open(nul, "import jax\nx = '\x00'\n")
        diagnostic, = await client.diagnostics(nul.as_uri(), 1)
        assert diagnostic.code == "E999" and "NUL byte" in diagnostic.message

        assert await client.actions(never_opened) == []
        assert await client.hover(never_opened, 0, 0) is None
        with pytest.raises(JsonRpcMethodNotFound):        # a method nobody implements
            await asyncio.wait_for(client.protocol.send_request_async(
                "jaxlint/noSuchMethod", {}), TIMEOUT)

        notes = tmp_path / "notes.md"                        # not Python: never linted
        client.text_document_did_open(lsp.DidOpenTextDocumentParams(
            text_document=lsp.TextDocumentItem(uri=notes.as_uri(), language_id="markdown",
                                               version=1, text="# jax\n\nif x:\n")))
        client.change(broken, SOURCE, 2)                     # ...and it still lints
        diagnostic, = await client.diagnostics(broken.as_uri(), 2)
        assert diagnostic.code == "JAX104"
        assert not [p for p in client.published if p.uri == notes.as_uri()]

    assert session(tmp_path, scenario, "--no-cache") == 0


def test_configuration_is_read_as_the_command_line_reads_it(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.jaxlint]\nper-file-ignores = { "tests/*" = ["JAX1"] }\n'
        'extend-exclude = ["generated/*"]\n')
    bad_config = tmp_path / "other"
    bad_config.mkdir()
    (bad_config / "pyproject.toml").write_text('[tool.jaxlint]\nselct = ["JAX1"]\n')
    files = {name: tmp_path / name for name in
             ("src/m.py", "tests/test_m.py", "generated/m.py", "other/m.py")}

    async def scenario(client):
        for path in files.values():
            client.open(path, SOURCE)
        got = {name: await client.diagnostics(path.as_uri(), 1) for name, path in files.items()}
        assert [d.code for d in got["src/m.py"]] == ["JAX104"]
        assert got["tests/test_m.py"] == [] and got["generated/m.py"] == []
        problem, = got["other/m.py"]
        assert problem.severity == lsp.DiagnosticSeverity.Error and problem.range.start.line == 0
        assert "pyproject.toml: [tool.jaxlint] selct: unknown key" in problem.message

    assert session(tmp_path, scenario, "--no-cache") == 0


def test_results_come_from_the_cache_which_only_open_and_save_write(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
    cache = tmp_path / "cache"
    path = tmp_path / "m.py"
    uri = path.as_uri()
    edited = SOURCE.replace("x[:n]", "x[:n] + 1")

    def entries():
        return sorted(cache.rglob("*.json"))

    async def scenario(client):
        client.open(path, SOURCE)
        await client.diagnostics(uri, 1)
        entry_path, = entries()                          # the result for SOURCE
        client.change(path, edited, 2)
        await client.diagnostics(uri, 2)
        assert len(entries()) == 1                       # an unsaved edit is not stored
        seen = len(client.published)
        client.text_document_did_save(lsp.DidSaveTextDocumentParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri), text=edited))
        await client.diagnostics(uri, 2, after=seen)
        assert len(entries()) == 2                       # a saved one is
        entry = json.loads(entry_path.read_text())
        entry["payload"]["findings"][0]["message"] = "served from the cache"
        entry_path.write_text(json.dumps(entry))
        client.change(path, SOURCE, 3)
        diagnostic, = await client.diagnostics(uri, 3)
        assert diagnostic.message == "served from the cache"

    assert session(tmp_path, scenario, "--cache-dir", str(cache)) == 0


def test_saving_a_module_re_diagnoses_the_open_modules_that_read_it(tmp_path):
    """A helper's finding comes from the jitted step of the module importing it: when that module
    is saved with the argument made static, the helper's buffer, untouched, is linted again and
    its finding goes."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = \"pkg\"\n")
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    ops, train = package / "ops.py", package / "train.py"
    ops_text = ("import jax.numpy as jnp\n\n\ndef clip_positive(x, limit):\n    if limit > 0:\n"
                "        return jnp.clip(x, 0, limit)\n    return x\n")
    traced = ("import jax\n\nfrom pkg.ops import clip_positive\n\n\n@jax.jit\ndef step(x, limit):\n"
              "    return clip_positive(x, limit) * 2\n")
    static = traced.replace("@jax.jit\n", "@partial(jax.jit, static_argnames=\"limit\")\n").replace(
        "import jax\n", "from functools import partial\n\nimport jax\n")
    ops.write_text(ops_text)
    train.write_text(traced)

    async def scenario(client):
        client.open(ops, ops_text)
        found, = await client.diagnostics(ops.as_uri(), 1)
        assert (found.code, found.range.start.line) == ("JAX101", 4)      # `if limit > 0`
        client.open(train, traced)
        await client.diagnostics(train.as_uri(), 1)
        seen = len(client.published)
        train.write_text(static)
        client.change(train, static, 2)
        client.text_document_did_save(lsp.DidSaveTextDocumentParams(
            text_document=lsp.TextDocumentIdentifier(uri=train.as_uri()), text=static))
        assert await client.diagnostics(ops.as_uri(), 1, after=seen) == []

    assert session(tmp_path, scenario) == 0


def test_an_unsaved_edit_re_diagnoses_the_open_modules_that_read_it(tmp_path):
    """What the user types in one module, not yet saved, is what the other open modules are
    linted against: making the importer's argument traced gives the helper's buffer its finding
    at once, and closing the importer without saving takes it back to the file on disk."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = \"pkg\"\n")
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    ops, train = package / "ops.py", package / "train.py"
    ops_text = ("import jax.numpy as jnp\n\n\ndef clip_positive(x, limit):\n    if limit > 0:\n"
                "        return jnp.clip(x, 0, limit)\n    return x\n")
    static = ("from functools import partial\n\nimport jax\n\nfrom pkg.ops import clip_positive\n\n\n"
              "@partial(jax.jit, static_argnames=\"limit\")\ndef step(x, limit):\n"
              "    return clip_positive(x, limit) * 2\n")
    traced = static.replace("@partial(jax.jit, static_argnames=\"limit\")\n", "@jax.jit\n")
    ops.write_text(ops_text)
    train.write_text(static)

    async def scenario(client):
        client.open(train, static)
        await client.diagnostics(train.as_uri(), 1)
        client.open(ops, ops_text)
        assert await client.diagnostics(ops.as_uri(), 1) == []
        seen = len(client.published)
        client.change(train, traced, 2)                       # typed, not saved
        found, = await client.diagnostics(ops.as_uri(), 1, after=seen)
        assert (found.code, found.range.start.line) == ("JAX101", 4)
        assert "train.py" in str(found.related_information)
        assert train.read_text() == static
        seen = len(client.published)
        client.text_document_did_close(lsp.DidCloseTextDocumentParams(
            text_document=lsp.TextDocumentIdentifier(uri=train.as_uri())))
        assert await client.diagnostics(ops.as_uri(), 1, after=seen) == []

    assert session(tmp_path, scenario) == 0


def test_notebook_documents_get_diagnostics_per_cell(tmp_path):
    """LSP 3.17 notebook sync: the code cells are linted together (a jitted function in one cell,
    the helper it calls in another), each finding lands on its own cell at the cell's line, a
    message names other places as `cell_N:line`, and a change to one cell updates them all."""
    path = tmp_path / "train.ipynb"
    uri = path.as_uri()
    sources = ["# Training\n",                                   # markdown: counted, not linted
               "import jax\n%matplotlib inline\n",               # IPython syntax is skipped
               "@jax.jit\ndef step(x, n):\n    return shift(x, n)\n",
               "def shift(x, n):\n    return x[:n]\n",
               "%%bash\necho not python\n"]
    cells = [f"vscode-notebook-cell:{path}#cell{i}" for i in range(len(sources))]

    def document(version):
        return lsp.NotebookDocument(uri=uri, notebook_type="jupyter-notebook", version=version, cells=[
            lsp.NotebookCell(kind=lsp.NotebookCellKind.Markup if i == 0 else lsp.NotebookCellKind.Code,
                             document=cell) for i, cell in enumerate(cells)])

    def published(client, after):
        return {params.uri: params for params in client.published[after:]}

    async def wait_for(client, after, wanted):
        async def wait():
            while not set(wanted) <= set(published(client, after)):
                client.changed.clear()
                await client.changed.wait()
        await asyncio.wait_for(wait(), TIMEOUT)
        return published(client, after)

    async def scenario(client):
        client.notebook_document_did_open(lsp.DidOpenNotebookDocumentParams(
            notebook_document=document(1),
            cell_text_documents=[lsp.TextDocumentItem(
                uri=cell, language_id="markdown" if i == 0 else "python", version=1, text=text)
                for i, (cell, text) in enumerate(zip(cells, sources))]))
        found = await wait_for(client, 0, cells[1:])
        diagnostic, = found[cells[3]].diagnostics               # the helper's slice, in cell 4
        assert found[cells[3]].version == 1
        assert diagnostic.code == "JAX104" and diagnostic.source == "jaxlint"
        assert (diagnostic.range.start.line, diagnostic.range.start.character,
                diagnostic.range.end.line, diagnostic.range.end.character) == (1, 11, 1, 16)
        assert diagnostic.message == "slice bound `n` is traced in `shift` (under jitted `step`)"
        related, = diagnostic.related_information
        assert related.location.uri == cells[3]
        assert "via `shift` (cell_3:3)" in related.message, related.message
        assert not re.search(r"\bline \d", related.message)
        for other in (cells[1], cells[2], cells[4]):
            assert list(found[other].diagnostics) == []

        # the user makes `n` static in cell 3: cell 4's finding goes away
        seen = len(client.published)
        fixed = "import functools\n\n@functools.partial(jax.jit, static_argnames=('n',))\n" \
                "def step(x, n):\n    return shift(x, n)\n"
        client.notebook_document_did_change(lsp.DidChangeNotebookDocumentParams(
            notebook_document=lsp.VersionedNotebookDocumentIdentifier(uri=uri, version=2),
            change=lsp.NotebookDocumentChangeEvent(cells=lsp.NotebookDocumentCellChanges(
                text_content=[lsp.NotebookDocumentCellContentChanges(
                    document=lsp.VersionedTextDocumentIdentifier(uri=cells[2], version=2),
                    changes=[lsp.TextDocumentContentChangeWholeDocument(text=fixed)])]))))
        found = await wait_for(client, seen, cells[1:])
        assert all(list(found[cell].diagnostics) == [] for cell in cells[1:])
        assert found[cells[2]].version == 2

        # a syntax error lands on its own cell
        seen = len(client.published)
        client.notebook_document_did_change(lsp.DidChangeNotebookDocumentParams(
            notebook_document=lsp.VersionedNotebookDocumentIdentifier(uri=uri, version=3),
            change=lsp.NotebookDocumentChangeEvent(cells=lsp.NotebookDocumentCellChanges(
                text_content=[lsp.NotebookDocumentCellContentChanges(
                    document=lsp.VersionedTextDocumentIdentifier(uri=cells[3], version=3),
                    changes=[lsp.TextDocumentContentChangeWholeDocument(text="def shift(x, n:\n")])]))))
        found = await wait_for(client, seen, cells[1:])
        error, = found[cells[3]].diagnostics
        assert error.code == "E999" and error.range.start.line == 0

        client.notebook_document_did_close(lsp.DidCloseNotebookDocumentParams(
            notebook_document=lsp.NotebookDocumentIdentifier(uri=uri),
            cell_text_documents=[lsp.TextDocumentIdentifier(uri=cell) for cell in cells]))
        seen = len(client.published)
        found = await wait_for(client, seen, [cells[3]])
        assert list(found[cells[3]].diagnostics) == []

    assert session(tmp_path, scenario, "--no-cache") == 0
    assert not path.exists()                      # nothing was written for the notebook


def test_without_pygls_the_server_says_how_to_install_it(tmp_path):
    import subprocess
    blocker = tmp_path / "block"
    blocker.mkdir()
    (blocker / "pygls").mkdir()
    (blocker / "pygls" / "__init__.py").write_text("raise ImportError('pygls is not installed')\n")
    proc = subprocess.run([sys.executable, "-m", "jaxlint", "server"], capture_output=True,
                          text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL,
                          env={**os.environ, "PYTHONPATH": str(blocker)})
    assert proc.returncode == 2
    assert "pip install 'flake8-jaxlint[server]'" in proc.stderr


def test_malformed_requests_get_an_error_answer_and_the_server_goes_on(tmp_path):
    """No client library sends malformed messages, so this one test writes the JSON-RPC frames
    itself: parameters of the wrong type, a body that is not JSON, then valid requests."""
    import queue
    import subprocess
    import threading

    proc = subprocess.Popen([JAXLINT, "server", "--no-cache"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=tmp_path)
    answers: queue.Queue = queue.Queue()

    def read():
        while True:
            headers = {}
            while (line := proc.stdout.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode().partition(":")
                headers[name.strip().lower()] = value.strip()
            if not headers:
                return
            answers.put(json.loads(proc.stdout.read(int(headers["content-length"]))))

    def send(body):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
        proc.stdin.flush()

    def answer(request_id):
        while True:
            message = answers.get(timeout=TIMEOUT)
            if message.get("id") == request_id:
                return message

    threading.Thread(target=read, daemon=True).start()
    try:
        send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}}})
        assert "capabilities" in answer(1)["result"]
        send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        send({"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover",
              "params": {"textDocument": 5, "position": "here"}})
        assert answer(2)["error"]["code"] == -32602     # invalid params, with the request's id
        send(b"{this is not json")
        send({"jsonrpc": "2.0", "id": 3, "method": "textDocument/codeAction",
              "params": {"textDocument": {"uri": "file:///nowhere.py"},
                         "range": {"start": {"line": 0, "character": 0},
                                   "end": {"line": 10 ** 9, "character": 0}},
                         "context": {"diagnostics": []}}})
        assert answer(3)["result"] == []                 # a document it never saw: no actions
        uri = (tmp_path / "m.py").as_uri()
        send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
              "params": {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                          "text": SOURCE}}})
        send({"jsonrpc": "2.0", "id": 4, "method": "textDocument/hover",
              "params": {"textDocument": {"uri": uri}, "position": {"line": 5, "character": 12}}})
        assert "JAX104 traced-slice" in answer(4)["result"]["contents"]["value"]
        send({"jsonrpc": "2.0", "id": 5, "method": "shutdown"})
        assert answer(5)["result"] is None
        send({"jsonrpc": "2.0", "method": "exit"})
        assert proc.wait(timeout=TIMEOUT) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_code_action_checks_only_the_fixes_under_the_cursor(tmp_path, monkeypatch):
    """Checking a fix lints the buffer again; a buffer with many findings must not be analysed
    once per finding when the user asks about one of them."""
    from jaxlint import engine, server
    functions = "".join(f"\n\n@jax.jit\ndef f{i}(x, n):\n    return x[:n]\n" for i in range(40))
    many = "import jax\n" + functions + "\n\nf7(1, 2)\n"
    path = tmp_path / "many.py"
    linted = server.diagnose(many, 1, str(path), str(path), str(tmp_path), None, False, "utf-16")
    assert len(linted.items) == 40
    item = linted.items[7][0]
    real, calls = engine.lint_source, []
    monkeypatch.setattr(engine, "lint_source", lambda *a, **k: calls.append(1) or real(*a, **k))
    fixes = server.compute_fixes(linted, [item.finding])
    assert list(fixes) == [("JAX104", item.finding.line, item.finding.col)]
    assert fixes[("JAX104", item.finding.line, item.finding.col)].safe     # f7(1, 2): literals
    assert len(calls) <= 3
    assert server.fix_all(linted) is None        # more fixable findings than CHECK_LIMIT
