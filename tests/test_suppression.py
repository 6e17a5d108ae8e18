"""Suppression as flake8 and ruff users know it, in `jaxlint check` and the flake8 plugin:
`# flake8: noqa` and `# jaxlint: noqa[: CODES]` for a whole file, and `--add-noqa` to adopt
jaxlint on code that has findings today. Through the installed console script."""

import pytest

from console import check, flake8, write

pytestmark = pytest.mark.portable

TWO = ("import jax\n\n@jax.jit\ndef f(x, n):\n    if n > 0:\n        x = x + 1\n"
       "    return x[:n]\n")                              # JAX101 at 5:8, JAX104 at 7:12


def codes(result) -> list:
    return sorted(line.split(" ")[1] for line in result.lines() if ": JAX" in line)


@pytest.mark.parametrize("comment", ["# flake8: noqa", "# flake8: noqa: E501", "# jaxlint: noqa",
                                     "#jaxlint:noqa", "# JAXLINT: NOQA"])
def test_a_file_level_comment_suppresses_the_whole_file(tmp_path, comment):
    write(tmp_path, {"a.py": f"{comment}\n{TWO}"})
    result = check("a.py", cwd=tmp_path)
    assert (result.code, codes(result)) == (0, [])


def test_file_level_codes_suppress_only_those_codes(tmp_path):
    write(tmp_path, {"a.py": TWO + "# jaxlint: noqa: JAX101\n",
                     "b.py": "# jaxlint: noqa: JAX104, JAX101\n" + TWO,
                     "c.py": "x = 1  # flake8: noqa\n" + TWO,        # flake8: not at a line start
                     "d.py": "s = '# jaxlint: noqa'\n" + TWO})
    assert codes(check("a.py", cwd=tmp_path)) == ["JAX104"]
    assert check("b.py", cwd=tmp_path).code == 0
    assert codes(check("c.py", cwd=tmp_path)) == ["JAX101", "JAX104"]
    assert codes(check("d.py", cwd=tmp_path)) == ["JAX101", "JAX104"]


def test_flake8_agrees_on_file_level_comments(tmp_path):
    write(tmp_path, {"a.py": "# flake8: noqa\n" + TWO, "b.py": TWO + "# jaxlint: noqa: JAX101\n",
                     "c.py": "x = 1  # flake8: noqa\n" + TWO})
    for name in ("a.py", "b.py", "c.py"):
        assert codes(flake8("--select=JAX", name, cwd=tmp_path)) == codes(
            check(name, cwd=tmp_path)), name


def test_add_noqa_suppresses_every_finding_and_merges_existing_comments(tmp_path):
    source = ("import jax\n\n@jax.jit\ndef f(x, n):\n    if n > 0:  # the sign matters\r\n"
              "        x = x + 1\n    s = '''text\n    '''\n    return x[:n]  # noqa: E501\n")
    write(tmp_path, {"a.py": source, "clean.py": "import jax\n"})
    (tmp_path / "a.py").write_bytes(source.encode())
    result = check("--add-noqa", ".", cwd=tmp_path)
    assert result.code == 0 and result.err == "Added 2 noqa directives in 1 file.\n"
    assert (tmp_path / "a.py").read_bytes().decode() == source.replace(
        "# the sign matters\r\n", "# the sign matters  # noqa: JAX101\r\n").replace(
        "# noqa: E501", "# noqa: E501, JAX104")
    after = check(".", cwd=tmp_path)
    assert (after.code, after.out) == (0, "All checks passed!\n")
    again = check("--add-noqa", ".", cwd=tmp_path)
    assert again.err == "Added 0 noqa directives.\n"
    assert check("--add-noqa", "--fix", ".", cwd=tmp_path).code == 2
