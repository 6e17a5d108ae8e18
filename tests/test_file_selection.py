"""Which files `jaxlint check` lints, as ruff chooses them: .gitignore and .ignore honoured
(`--no-respect-gitignore` / `respect-gitignore = false` turn that off), `**` matching zero
folders, --force-exclude for files named on the command line, and a missing file reported
without a made-up position. Through the installed console script."""

import subprocess

import pytest

from console import BAD, check, write

pytestmark = pytest.mark.portable


def linted(result) -> list:
    """The files with findings, in report order."""
    return sorted({line.split(":")[0] for line in result.lines() if ": JAX" in line})


def git_init(folder):
    subprocess.run(["git", "init", "-q", str(folder)], check=True)


def test_gitignore_and_ignore_files_are_honoured_by_default(tmp_path):
    git_init(tmp_path)
    write(tmp_path, {".gitignore": "generated/\n*_pb2.py\n!keep_pb2.py\n",
                     "sub/.gitignore": "local.py\n", ".ignore": "scratch.py\n",
                     "generated/a.py": BAD, "model_pb2.py": BAD, "keep_pb2.py": BAD,
                     "sub/local.py": BAD, "sub/ok.py": BAD, "local.py": BAD, "scratch.py": BAD,
                     "main.py": BAD})
    result = check(cwd=tmp_path)
    assert result.code == 1
    assert linted(result) == ["keep_pb2.py", "local.py", "main.py", "sub/ok.py"]
    everything = check("--no-respect-gitignore", cwd=tmp_path)
    assert linted(everything) == ["generated/a.py", "keep_pb2.py", "local.py", "main.py",
                                  "model_pb2.py", "scratch.py", "sub/local.py", "sub/ok.py"]
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\nrespect-gitignore = false\n")
    assert linted(check(cwd=tmp_path)) == linted(everything)
    assert linted(check("--respect-gitignore", cwd=tmp_path)) == linted(result)


def test_gitignore_counts_only_inside_a_repository_and_ignore_everywhere(tmp_path):
    write(tmp_path, {".gitignore": "a.py\n", ".ignore": "b.py\n", "a.py": BAD, "b.py": BAD})
    assert linted(check(cwd=tmp_path)) == ["a.py"]
    git_init(tmp_path)
    write(tmp_path, {"c.py": BAD})
    assert linted(check(cwd=tmp_path)) == ["c.py"]


def test_double_star_matches_zero_folders(tmp_path):
    write(tmp_path, {"pyproject.toml": '[tool.jaxlint]\nextend-exclude = ["src/**/gen_*.py"]\n'
                                       'per-file-ignores = { "tests/**/test_*.py" = ["JAX104"] }\n',
                     "src/gen_a.py": BAD, "src/deep/er/gen_b.py": BAD, "src/model.py": BAD,
                     "tests/test_top.py": BAD, "tests/unit/test_deep.py": BAD})
    assert linted(check(cwd=tmp_path)) == ["src/model.py"]


def test_force_exclude_applies_excludes_to_named_files(tmp_path):
    write(tmp_path, {"pyproject.toml": '[tool.jaxlint]\nextend-exclude = ["generated"]\n',
                     "generated/gen.py": BAD, "main.py": BAD})
    named = check("generated/gen.py", "main.py", cwd=tmp_path)
    assert linted(named) == ["generated/gen.py", "main.py"]
    assert ("generated/gen.py: note: linted although excluded by "
            f"{tmp_path / 'pyproject.toml'} because it is named on the command line "
            "(--force-exclude skips it)") in named.err.splitlines()
    forced = check("--force-exclude", "generated/gen.py", "main.py", cwd=tmp_path)
    assert linted(forced) == ["main.py"] and "note:" not in forced.err
    assert "(1 file checked)" in forced.err
    alone = check("--force-exclude", "generated/gen.py", cwd=tmp_path)
    assert (alone.code, alone.out) == (0, "")


def test_a_missing_file_is_reported_without_a_position(tmp_path):
    write(tmp_path, {"main.py": BAD})
    result = check("main.py", "missing.py", cwd=tmp_path)
    assert result.code == 1
    assert "missing.py: E902 No such file or directory" in result.err.splitlines()
    assert ":0:" not in result.out + result.err


def test_no_path_means_the_working_directory_without_a_dot_prefix(tmp_path):
    write(tmp_path, {"pkg/a.py": BAD, "b.py": BAD})
    result = check(cwd=tmp_path)
    assert [line.split(" ")[0] for line in result.lines()] == ["b.py:5:12:", "pkg/a.py:5:12:"]
    explicit = check(".", cwd=tmp_path)           # a path given is printed as given (flake8)
    assert [line.split(" ")[0] for line in explicit.lines()] == ["./b.py:5:12:",
                                                                  "./pkg/a.py:5:12:"]
