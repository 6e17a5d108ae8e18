"""Notebooks: code cells joined, IPython syntax skipped, findings mapped back to cells, and a
malformed notebook is one clear error line."""

import json

import pytest

from jaxlint.cli import main
from jaxlint.notebooks import NotebookError, extract, python_lines


def cell(source, kind="code", cell_id=None):
    out = {"cell_type": kind, "metadata": {}, "source": source}
    if kind == "code":
        out.update(outputs=[], execution_count=None)
    if cell_id:
        out["id"] = cell_id
    return out


def notebook(tmp_path, cells, language="python", name="nb.ipynb"):
    path = tmp_path / name
    meta = {"kernelspec": {"name": "k", "display_name": "k", "language": language}}
    path.write_text(json.dumps({"cells": cells, "metadata": meta, "nbformat": 4,
                                "nbformat_minor": 5}, indent=1))
    return path


CELLS = [
    cell(["# Training\n"], kind="markdown"),
    cell(["%matplotlib inline\n", "import jax\n", "!pip install optax\n"], cell_id="imports"),
    cell(["%%bash\n", "echo $((1 + 2))\n"]),
    cell("jax.jit?\n\n@jax.jit\ndef f(x, n):\n    if n > 0:\n        %time g()\n    return x[:n]\n",
         cell_id="model"),
]


def test_findings_are_reported_per_cell(tmp_path, capsys):
    path = notebook(tmp_path, CELLS)
    assert main(["check", "--no-cache", str(path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert [line.split(" ")[0] + " " + line.split(" ")[1] for line in out] == [
        f"{path}:cell_4:5:8: JAX101", f"{path}:cell_4:7:12: JAX104"]


def test_json_and_sarif_carry_the_cell(tmp_path, capsys):
    path = notebook(tmp_path, CELLS)
    main(["check", "--no-cache", "--format", "json", str(path)])
    first = json.loads(capsys.readouterr().out)["findings"][0]
    assert (first["cell"], first["cell_id"], first["line"], first["column"]) == (4, "model", 5, 8)
    main(["check", "--no-cache", "--format", "sarif", str(path)])
    location = json.loads(capsys.readouterr().out)["runs"][0]["results"][0]["locations"][0]
    assert location["physicalLocation"]["region"] == {"startLine": 5, "startColumn": 8}
    assert location["properties"] == {"cell": 4, "cellId": "model"}
    assert location["logicalLocations"][0]["name"] == "cell_4"


def test_noqa_works_in_cells(tmp_path, capsys):
    path = notebook(tmp_path, [cell("import jax\n@jax.jit\ndef f(x, n):\n    return x[:n]  # noqa\n")])
    assert main(["check", "--no-cache", str(path)]) == 0


def test_folder_walk_finds_notebooks_and_skips_checkpoints(tmp_path, capsys):
    source = "import jax\n@jax.jit\ndef f(x, n):\n    return x[:n]\n"
    notebook(tmp_path, [cell(source)])
    (tmp_path / ".ipynb_checkpoints").mkdir()
    notebook(tmp_path / ".ipynb_checkpoints", [cell(source)], name="nb-checkpoint.ipynb")
    assert main(["check", "--no-cache", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "nb.ipynb:cell_1:4:12: JAX104" in out and "checkpoint" not in out


def test_verbose_notes_name_cells_as_findings_do(tmp_path, capsys):
    # a note about a loop in the second code cell says `cell_2:1`, not the joined module's line
    path = notebook(tmp_path, [
        cell("import jax\nimport jax.numpy as jnp\nimport tensorflow_datasets as tfds\n\n"
             "@jax.jit\ndef step(w, xb):\n    return w + xb.sum()\n"),
        cell("builder = tfds.builder('glue/sst2')\n"
             "names = [str(i) for i in range(builder.info.features['label'].num_classes)]\n"
             "for i in range(0, len(names), 100):\n    w = step(0.0, jnp.ones(len(names[i:i + 100])))\n")])
    main(["check", "--no-cache", "--verbose", str(path)])
    err = capsys.readouterr().err
    notes = [line for line in err.splitlines() if "note: JAX303" in line]
    assert notes and all("cell_2:3" in line and "cell_2:1" in line and "line" not in line.split("note:")[1][:40]
                         for line in notes), err


def test_ipython_lines_become_pass_and_keep_positions():
    assert python_lines("%time f()\nx = !ls\n  !echo\nobj?\n??obj\ny = 1\n") == [
        "pass", "pass", "  pass", "pass", "pass", "y = 1"]
    assert python_lines("%%writefile a.py\nimport os\n") == ["", ""]
    assert python_lines("%%time\nimport os\n") == ["", "import os"]
    text, cells = extract(json.dumps({"cells": CELLS}).encode())
    assert text.splitlines()[0] == "pass" and cells.numbers == (2, 3, 4)
    assert cells.starts == (1, 4, 6) and cells.locate(7) == (4, "model", 2)


def test_other_languages_are_skipped(tmp_path, capsys):
    path = notebook(tmp_path, [cell("x <- c(1, 2) # jax")], language="R")
    assert main(["check", "--no-cache", str(path)]) == 0


@pytest.mark.parametrize("content, problem", [
    ('{"cells": [', "invalid JSON"),
    ("[1, 2]", "not a JSON object"),
    ('{"metadata": {}}', "no 'cells' list"),
    ('{"cells": {}}', "'cells' is not a list"),
    ('{"cells": [3]}', "cell 1 is not a JSON object"),
    ('{"cells": [{"cell_type": "code", "source": 5}]}', "'source' is neither"),
    ('{"worksheets": []}', "nbformat 3"),
    (b"\xff\xfe{}", "not UTF-8"),
    ("[" * 100000 + "]" * 100000, "nested too deeply"),
])
def test_malformed_notebooks_are_one_error_line(tmp_path, capsys, content, problem):
    path = tmp_path / "bad.ipynb"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    assert main(["check", "--no-cache", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.out.startswith(f"{path}:1:1: E999 ") and problem in captured.out
    assert len(captured.out.splitlines()) == 1 and "Traceback" not in captured.err


def test_extract_raises_only_notebook_errors():
    with pytest.raises(NotebookError):
        extract(b"null")


@pytest.mark.slow
def test_messages_name_cells_not_lines_of_the_joined_module(tmp_path):
    """A message that points at another place (the call that reaches a helper) names it as the
    user sees the notebook, `cell_N:line`, through the console script."""
    from console import run
    path = notebook(tmp_path, [
        cell("# Training\n", kind="markdown"),
        cell("import jax\n%matplotlib inline\n"),
        cell("@jax.jit\ndef step(x, n):\n    return shift(x, n)\n"),
        cell("def shift(x, n):\n    return x[:n]\n")])
    proc = run("check", "--no-cache", path, cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    line, = proc.stdout.splitlines()
    assert line.startswith(f"{path}:cell_4:2:12: JAX104 slice bound `n` is traced in `shift`")
    assert "(line " not in line
    # the detail names the call into the helper by its cell, in every format that shows it
    proc = run("check", "--no-cache", "--format", "json", path, cwd=tmp_path)
    detail = json.loads(proc.stdout)["findings"][0]["detail"]
    assert "via `shift` (cell_3:3)" in detail and "(line " not in detail, detail
