"""Linting never runs the linted code (issue 7): only `jaxlint verify` may.

Each file below would write a marker file if it were imported, run as a script, or had any of
its module-level expressions (decorators, defaults, class bodies) evaluated; a sibling module it
imports would write one too. After `jaxlint check` and flake8 have linted them, and reported
their findings (so the files were analysed, not skipped), no marker may exist.
"""

import json

import pytest

from hostile_support import assert_sound, flake8, jaxlint

PLANTED = '''import jax
import pathlib
import planted_helper

pathlib.Path({marker!r}, "imported").write_text("module body ran")


def _mark(name):
    pathlib.Path({marker!r}, name).write_text("ran")
    return lambda f: f


@_mark("decorator")
@jax.jit
def f(x, n, default=_mark("default")):
    return x[:n]


class Model:
    _mark("class body")


if __name__ == "__main__":
    _mark("main")
'''

HELPER = 'import pathlib\npathlib.Path({marker!r}, "helper imported").write_text("ran")\n'


def plant(tmp_path):
    markers = tmp_path / "markers"
    markers.mkdir()
    project = tmp_path / "project"
    project.mkdir()
    (project / "planted.py").write_text(PLANTED.format(marker=str(markers)))
    (project / "planted_helper.py").write_text(HELPER.format(marker=str(markers)))
    cell = PLANTED.format(marker=str(markers))
    notebook = {"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                           "source": cell.splitlines(True)}],
                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (project / "planted.ipynb").write_text(json.dumps(notebook))
    return project, markers


def test_jaxlint_check_never_runs_the_code(tmp_path):
    project, markers = plant(tmp_path)
    result = jaxlint(project, ".")
    assert_sound(result)
    assert "planted.py:16:12: JAX104" in result.out          # analysed, not skipped
    assert "planted.ipynb:" in result.out and "JAX104" in result.out.split("planted.ipynb:")[1]
    assert list(markers.iterdir()) == []


def test_flake8_never_runs_the_code(tmp_path):
    project, markers = plant(tmp_path)
    result = flake8(project, ".")
    assert_sound(result)
    assert "planted.py:16:12: JAX104" in result.out
    assert list(markers.iterdir()) == []


@pytest.mark.slow
def test_the_markers_would_be_written_if_the_code_ran(tmp_path):
    """The test above is only meaningful if running the file does write the markers."""
    import subprocess
    import sys
    project, markers = plant(tmp_path)
    subprocess.run([sys.executable, "planted.py"], cwd=project, capture_output=True, timeout=120)
    assert {p.name for p in markers.iterdir()} >= {"imported", "helper imported", "decorator",
                                                   "default", "class body", "main"}
