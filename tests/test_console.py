"""`jaxlint` as a user meets it, through the installed console script: the version and the
configuration on every supported Python, what JSON says about fixes, files that use only a
configured jit wrapper, and the output habits shared with ruff (paths, the all-clear line,
colour, command-line selection, --show-settings, --help)."""

import json
import pathlib
import sys

import pytest

from console import BAD, check, environment, flake8, jaxlint, write

pytestmark = pytest.mark.portable

FIX_FIXTURES = pathlib.Path(__file__).parent / "fix_fixtures"
SAFE = FIX_FIXTURES / "JAX104" / "decorator_without_functools.py"     # one safe fix
WRAPPED = "import mylib\n\n\n@mylib.jit\ndef f(x, n):\n    return x[:n]\n"   # no "jax" in it


def test_version_and_pyproject_work_on_this_python(tmp_path):
    version = jaxlint("--version")
    assert version.code == 0 and version.out.startswith("jaxlint "), version.err
    write(tmp_path, {"pyproject.toml": '[tool.jaxlint]\nignore = ["JAX104"]\n', "bad.py": BAD})
    assert check("bad.py", cwd=tmp_path).code == 0            # the table was read: JAX104 off
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nselct = ["JAX"]\n')
    broken = check("bad.py", cwd=tmp_path)
    assert broken.code == 2 and "selct: unknown key (did you mean 'select'?)" in broken.err
    assert "Traceback" not in broken.err


def test_flake8_loads_every_plugin_on_this_python(tmp_path):
    write(tmp_path, {"bad.py": BAD.replace("import jax", "import jax\nimport os")})
    result = flake8("--select=JAX,F401", "bad.py", cwd=tmp_path)
    assert result.code == 1, result.err
    assert {line.split()[1] for line in result.lines()} == {"F401", "JAX104"}


# -- JSON carries fixes -----------------------------------------------------------------------------

def test_json_includes_each_findings_fix_without_show_fixes(tmp_path):
    (tmp_path / "safe.py").write_bytes(SAFE.read_bytes())
    result = check("--format", "json", "safe.py", cwd=tmp_path)
    [finding] = json.loads(result.out)["findings"]
    assert finding["code"] == "JAX104"
    assert finding["fix"]["safe"] is True
    assert finding["fix"]["description"].startswith("Make `keep` static")
    plain = check("--format", "json", "--quiet", "safe.py", cwd=tmp_path)
    assert json.loads(plain.out)["findings"][0]["fix"] == finding["fix"]


def test_json_statistics_say_which_codes_are_fixable(tmp_path):
    (tmp_path / "safe.py").write_bytes(SAFE.read_bytes())
    (tmp_path / "mask.py").write_text("import jax\n\n@jax.jit\ndef f(x):\n    return x[x > 0]\n")
    rows = json.loads(check("--statistics", "--format", "json", ".", cwd=tmp_path).out)
    assert {row["code"]: row["fixable"] for row in rows} == {"JAX104": True, "JAX105": False}
    text = check("--statistics", ".", cwd=tmp_path).out
    assert "JAX104  [*] traced-slice" in text and "[*] data-dependent-shape" not in text


# -- files that only use a configured wrapper ------------------------------------------------------

def test_a_file_using_only_a_configured_wrapper_is_linted(tmp_path):
    write(tmp_path, {"pyproject.toml": '[tool.jaxlint]\njit-decorators = ["mylib.jit"]\n',
                     "wrapped.py": WRAPPED, "plain.py": "x = 1\n"})
    result = check("-v", cwd=tmp_path)
    assert result.code == 1
    assert [line.split(" ")[:2] for line in result.lines()] == [["wrapped.py:6:12:", "JAX104"]]
    assert ("plain.py: note: skipped: mentions neither jax, flax, equinox nor a configured jit "
            "wrapper (jit-decorators)") in result.err.splitlines()
    assert "wrapped.py: note" not in result.err
    quiet = check(cwd=tmp_path)
    assert "note:" not in quiet.err                          # notes only under -v


def test_flake8_lints_a_file_using_only_a_configured_wrapper(tmp_path):
    write(tmp_path, {"wrapped.py": WRAPPED,
                     "setup.cfg": "[flake8]\njaxlint-jit-decorators = mylib.jit\n"})
    result = flake8("--select=JAX", "wrapped.py", cwd=tmp_path)
    assert result.code == 1 and result.out.startswith("wrapped.py:6:12: JAX104 "), result.err
    (tmp_path / "setup.cfg").write_text("[flake8]\n")
    assert flake8("--select=JAX", "wrapped.py", cwd=tmp_path).out == ""     # not configured
