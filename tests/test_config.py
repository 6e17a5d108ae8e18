"""[tool.jaxlint] in pyproject.toml, command-line overrides, and errors that name file and key."""

import pytest

from jaxlint.cli import main
from jaxlint.config import Config, ConfigError, ConfigFinder, parse_jit_decorators

pytestmark = pytest.mark.portable    # needs no JAX: .ci/other-pythons runs it

SLICE = "import jax\n\n@jax.jit\ndef f(x, n):\n    return x[:n]\n"            # JAX104 at 5:12
BOTH = "import jax\n\n@jax.jit\ndef f(x, n):\n    if n > 0:\n        pass\n    return x[:n]\n"
LOOP = "import jax\n\n@jax.jit\ndef f(x):\n    for i in range(8):\n        x = x + i\n    return x\n"
WRAPPED = "import jax\nimport mylib\n\n@mylib.jit\ndef f(x, n):\n    return x[:n]\n"


def project(tmp_path, toml, files):
    (tmp_path / "pyproject.toml").write_text(toml)
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def codes(capsys, *argv):
    code = main(["check", "--no-cache", *map(str, argv)])
    out = capsys.readouterr().out
    return code, sorted(line.split(": ")[1].split()[0] for line in out.splitlines()
                        if line != "All checks passed!")


def test_select_and_ignore_from_pyproject(tmp_path, capsys):
    project(tmp_path, '[tool.jaxlint]\nselect = ["JAX1"]\nignore = ["JAX104"]\n', {"a.py": BOTH})
    assert codes(capsys, tmp_path) == (1, ["JAX101"])


def test_longest_prefix_wins(tmp_path, capsys):
    project(tmp_path, '[tool.jaxlint]\nselect = ["JAX104"]\nignore = ["JAX1"]\n', {"a.py": BOTH})
    assert codes(capsys, tmp_path) == (1, ["JAX104"])


def test_extend_select_adds_to_select(tmp_path, capsys):
    project(tmp_path, '[tool.jaxlint]\nselect = ["JAX101"]\nextend-select = ["JAX104"]\n',
            {"a.py": BOTH})
    assert codes(capsys, tmp_path) == (1, ["JAX101", "JAX104"])


def test_per_file_ignores(tmp_path, capsys):
    project(tmp_path, '[tool.jaxlint]\nper-file-ignores = {"tests/*" = ["JAX104"], "gen_*.py" = ["JAX"]}\n',
            {"tests/t.py": SLICE, "src/gen_x.py": SLICE, "src/m.py": SLICE})
    code = main(["check", "--no-cache", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1 and "m.py:5:12: JAX104" in out and "t.py" not in out and "gen_x" not in out


def test_exclude_and_extend_exclude(tmp_path, capsys):
    project(tmp_path, '[tool.jaxlint]\nextend-exclude = ["generated", "src/legacy/*.py"]\n',
            {"generated/a.py": SLICE, "src/legacy/b.py": SLICE, "src/c.py": SLICE,
             "build/d.py": SLICE})
    main(["check", "--no-cache", str(tmp_path)])
    out = capsys.readouterr().out
    assert "c.py" in out and "a.py" not in out and "b.py" not in out and "d.py" not in out
    # a file named on the command line honours exclude with --force-exclude (pre-commit's hook
    # passes it); without, it is linted and a note says why
    named = str(tmp_path / "generated" / "a.py")
    assert main(["check", "--no-cache", "--force-exclude", named]) == 0
    assert main(["check", "--no-cache", named]) == 1
    assert f"{named}: note: linted although excluded by " in capsys.readouterr().err


def test_bare_name_patterns_match_as_pathspec_matches_them():
    # Bare names (the default excludes, `tests`, `*_pb2.py`) are matched without importing
    # pathspec; every answer must be the one .gitignore's rules give.
    import random
    import subprocess
    import sys

    import pathspec

    from jaxlint.config import DEFAULT_EXCLUDE, _NameSpec, spec
    rng = random.Random(7)
    names = ["build", "a", "b.py", ".git", "x.egg-info", "gen_pb2.py", "tests", "t_test.py", "ab", "a.b", "..."]
    patterns = ["build", "a", "*.py", "*.egg-info", "*_pb2.py", "t*", "?b", "a.*", "*", ".git", "tests", "..."]
    for _ in range(3000):
        chosen = rng.sample(patterns, rng.randint(1, 3))
        path = "/".join(rng.choice(names) for _ in range(rng.randint(1, 4))) + rng.choice(["", "/"])
        ours = spec(chosen)
        assert isinstance(ours, _NameSpec)
        assert ours.match_file(path) == pathspec.GitIgnoreSpec.from_lines(chosen).match_file(path), (chosen, path)
    assert isinstance(spec(DEFAULT_EXCLUDE), _NameSpec)
    for other in (["src/gen/*"], ["!keep.py"], ["build/"], ["[ab].py"], ["**/gen"], ["."], [".."]):
        assert not isinstance(spec(other), _NameSpec)       # left to pathspec
    code = ("import sys; from jaxlint.config import Config; c = Config(); "
            "assert c.excluded('build/x.py') and not c.excluded('src/x.py'); "
            "print('pathspec' in sys.modules)")
    imported = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert imported.stdout.strip() == "False"


def test_exclude_replaces_the_defaults(tmp_path, capsys):
    project(tmp_path, '[tool.jaxlint]\nexclude = ["other"]\n', {"build/d.py": SLICE})
    assert codes(capsys, tmp_path) == (1, ["JAX104"])


def test_nearest_pyproject_with_a_jaxlint_table_wins(tmp_path, capsys):
    project(tmp_path, '[tool.jaxlint]\nignore = ["JAX104"]\n', {"top.py": SLICE})
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "pyproject.toml").write_text('[tool.jaxlint]\nignore = ["JAX101"]\n')
    (sub / "s.py").write_text(SLICE)
    nested = sub / "nested"
    nested.mkdir()
    (nested / "pyproject.toml").write_text('[project]\nname = "x"\n')   # no table: skipped
    (nested / "n.py").write_text(SLICE)
    main(["check", "--no-cache", str(tmp_path)])
    out = capsys.readouterr().out
    assert "top.py" not in out and "s.py:5:12: JAX104" in out and "n.py:5:12: JAX104" in out


def test_command_line_overrides_the_file(tmp_path, capsys):
    project(tmp_path, '[tool.jaxlint]\nignore = ["JAX104"]\nunrolled-loop-threshold = 4\n',
            {"a.py": SLICE, "loop.py": LOOP})
    assert codes(capsys, tmp_path) == (1, ["JAX302"])
    assert codes(capsys, "--ignore", "JAX3", tmp_path) == (1, ["JAX104"])
    assert codes(capsys, "--unrolled-loop-threshold", "9", "--ignore", "JAX1", tmp_path) == (0, [])
    assert codes(capsys, "--isolated", tmp_path) == (1, ["JAX104"])


def test_unrolled_loop_threshold_reaches_the_analysis(tmp_path, capsys):
    project(tmp_path, '[tool.jaxlint]\nunrolled-loop-threshold = 8\n', {"loop.py": LOOP})
    assert codes(capsys, tmp_path) == (1, ["JAX302"])
    project(tmp_path, '[tool.jaxlint]\nunrolled-loop-threshold = 9\n', {})
    assert codes(capsys, tmp_path) == (0, [])


def test_jit_decorators_reach_the_analysis(tmp_path, capsys):
    project(tmp_path, '[tool.jaxlint]\njit-decorators = ["mylib.jit"]\n', {"a.py": WRAPPED})
    assert codes(capsys, tmp_path) == (1, ["JAX104"])
    assert codes(capsys, "--isolated", tmp_path) == (0, [])
    assert codes(capsys, "--isolated", "--jit-decorators", "mylib.jit", tmp_path) == (1, ["JAX104"])


def test_jit_decorator_spellings():
    default = ("static_argnums", "static_argnames")
    assert parse_jit_decorators(["a.jit"], "f", "k") == {"a.jit": default}
    assert parse_jit_decorators("a.jit::names, b.jit:nums", "f", "k") == {
        "a.jit": (None, "names"), "b.jit": ("nums", "static_argnames")}
    assert parse_jit_decorators({"a.jit": {"static_argnums": False, "static_argnames": "sn"},
                                 "b.jit": {}}, "f", "k") == {"a.jit": (None, "sn"), "b.jit": default}
    for bad in (["not a name"], {"a.jit": {"static_argnum": "x"}}, {"a.jit": 3}, 3, ["a:b:c:d"]):
        with pytest.raises(ConfigError):
            parse_jit_decorators(bad, "f", "k")


@pytest.mark.parametrize("toml, key, accepted", [
    ('selct = ["JAX1"]', "selct", "did you mean 'select'"),
    ('select = ["JAX9"]', "select", "JAX101"),
    ('select = "JAX1"', None, None),   # a string is accepted as a comma-separated list
    ('unrolled-loop-threshold = 0', "unrolled-loop-threshold", "positive integer"),
    ('unrolled-loop-threshold = "many"', "unrolled-loop-threshold", "positive integer"),
    ('exclude = "build"', "exclude", "list of glob patterns"),
    ('per-file-ignores = ["x"]', "per-file-ignores", "table of glob -> codes"),
    ('jit-decorators = 3', "jit-decorators", "dotted names or a table"),
    ('jit-decorators = {"m.jit" = {argnums = "a"}}', "jit-decorators", "static_argnums, static_argnames"),
])
def test_bad_configuration_names_file_key_and_accepted_values(tmp_path, capsys, toml, key, accepted):
    project(tmp_path, f"[tool.jaxlint]\n{toml}\n", {"a.py": SLICE})
    code = main(["check", "--no-cache", str(tmp_path)])
    err = capsys.readouterr().err
    if key is None:
        assert code == 1
        return
    assert code == 2
    assert str(tmp_path / "pyproject.toml") in err and key in err and accepted in err


def test_invalid_toml_and_bad_flags(tmp_path, capsys):
    project(tmp_path, "[tool.jaxlint\n", {"a.py": SLICE})
    assert main(["check", "--no-cache", str(tmp_path)]) == 2
    assert "not valid TOML" in capsys.readouterr().err
    assert main(["check", "--no-cache", "--isolated", "--select", "JAX77", str(tmp_path)]) == 2
    assert "--select" in capsys.readouterr().err
    assert main(["check", "--isolated", "--unrolled-loop-threshold", "x", str(tmp_path)]) == 2
    assert main(["check", "--isolated", "-j", "-1", str(tmp_path)]) == 2


def test_explicit_config_file(tmp_path, capsys):
    project(tmp_path, "", {"a.py": BOTH})
    other = tmp_path / "other.toml"
    other.write_text('[tool.jaxlint]\nselect = ["JAX101"]\n')
    assert codes(capsys, "--config", other, tmp_path) == (1, ["JAX101"])


def test_config_defaults_and_fingerprint():
    config = Config()
    assert config.unrolled_loop_threshold == 16 and config.jit_decorators == {}
    assert Config(unrolled_loop_threshold=4).fingerprint() != config.fingerprint()
    assert Config(select=("JAX1",)).fingerprint() == config.fingerprint()  # filters, not analysis
    finder = ConfigFinder({"unrolled_loop_threshold": 3}, isolated=True)
    assert finder.for_path("x.py").unrolled_loop_threshold == 3
