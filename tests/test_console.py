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


# -- output habits ----------------------------------------------------------------------------------

def test_all_checks_passed_when_there_is_nothing_to_report(tmp_path):
    write(tmp_path, {"good.py": "import jax\n\nx = jax.numpy.ones(3)\n"})
    result = check(cwd=tmp_path)
    assert (result.code, result.out, result.err) == (0, "All checks passed!\n", "")
    assert check("--quiet", cwd=tmp_path).out == ""
    write(tmp_path, {"bad.py": BAD})
    assert "All checks passed!" not in check(cwd=tmp_path).out


def test_colour_follows_force_color_and_no_color(tmp_path):
    write(tmp_path, {"bad.py": BAD})
    plain = check("bad.py", cwd=tmp_path)                     # a pipe: no colour
    assert "\x1b[" not in plain.out and plain.out.startswith("bad.py:5:12: JAX104 ")
    forced = check("bad.py", cwd=tmp_path, env=environment(FORCE_COLOR="1"))
    assert forced.out.startswith("\x1b[1mbad.py:5:12\x1b[0m: \x1b[1;31mJAX104\x1b[0m ")
    both = check("bad.py", cwd=tmp_path, env=environment(FORCE_COLOR="1", NO_COLOR="1"))
    assert both.out == plain.out
    empty = check("bad.py", cwd=tmp_path, env=environment(FORCE_COLOR=""))
    assert empty.out == plain.out


def test_extend_ignore_extend_select_and_per_file_ignores_on_the_command_line(tmp_path):
    two = BAD.replace("    return", "    if n > 0:\n        x = x + 1\n    return")
    write(tmp_path, {"pyproject.toml": '[tool.jaxlint]\nignore = ["JAX101"]\n',
                     "src/m.py": two, "tests/test_m.py": two})

    def codes(*args):
        return sorted({(line.split(":")[0], line.split(" ")[1])
                       for line in check(*args, cwd=tmp_path).lines() if ": JAX" in line})

    assert codes() == [("src/m.py", "JAX104"), ("tests/test_m.py", "JAX104")]
    assert codes("--extend-ignore", "JAX104") == []                    # added to the file's
    assert codes("--ignore", "JAX104") == [("src/m.py", "JAX101"), ("tests/test_m.py", "JAX101")]
    assert codes("--extend-select", "JAX1", "--select", "JAX3") == [
        ("src/m.py", "JAX104"), ("tests/test_m.py", "JAX104")]
    assert codes("--per-file-ignores", "tests/*:JAX104 other.py:JAX1") == [("src/m.py", "JAX104")]
    assert codes("--per-file-ignores", "m.py:JAX1,test_m.py:JAX104") == []
    bad = check("--per-file-ignores", "tests/*", cwd=tmp_path)
    assert bad.code == 2 and "--per-file-ignores: expected PATTERN:CODES pairs" in bad.err
    bad = check("--per-file-ignores", "tests/*:JAX999", cwd=tmp_path)
    assert bad.code == 2 and "unknown rule code 'JAX999'" in bad.err


def test_show_settings_prints_the_configuration_of_a_file(tmp_path):
    write(tmp_path, {"pyproject.toml": '[tool.jaxlint]\nignore = ["JAX101"]\n'
                                       'jit-decorators = ["mylib.jit"]\n', "src/m.py": BAD})
    result = jaxlint("check", "--show-settings", "--extend-ignore", "JAX3", "src/m.py",
                     cwd=tmp_path)
    assert result.code == 0 and result.err == ""
    lines = result.out.splitlines()
    assert lines[:2] == ["Resolved settings for: src/m.py",
                         f"Settings path: {tmp_path / 'pyproject.toml'}"]
    assert 'ignore = ["JAX101"]' in lines and 'extend-ignore = ["JAX3"]' in lines
    assert ('jit-decorators = { "mylib.jit" = { "static_argnums" = "static_argnums", '
            '"static_argnames" = "static_argnames" } }') in lines
    assert "respect-gitignore = true" in lines and "unrolled-loop-threshold = 16" in lines
    toml = "\n".join(lines[lines.index("[tool.jaxlint]"):])
    if sys.version_info >= (3, 11):                   # the output is a [tool.jaxlint] table
        import tomllib
        assert tomllib.loads(toml)["tool"]["jaxlint"]["ignore"] == ["JAX101"]


def test_help_is_written_for_users():
    result = jaxlint("--help")
    assert result.code == 0
    text = result.out
    assert "Find JAX trace-time failures and silent recompilation" in text
    for command in ("check", "rules", "rule", "server", "verify"):
        assert f"\n    {command} " in text, command
    for option in ("--fix", "--select", "--format", "--add-noqa", "--show-settings"):
        assert option in text, option
    assert "jaxlint check src/" in text
    assert "argument parsing" not in text and "No analysis here" not in text
    check_help = jaxlint("check", "--help").out
    for option in ("--force-exclude", "--no-respect-gitignore", "--extend-ignore",
                   "--per-file-ignores", "--add-noqa", "--show-settings"):
        assert option in check_help, option
