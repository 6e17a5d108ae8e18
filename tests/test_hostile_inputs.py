"""Hostile inputs (issue 7): each one through `jaxlint check` and through real flake8.

Every test lints the hostile file together with `good.py` in one run and asserts: no traceback
and no internal error, a clear message naming the file where the file is bad (or its findings
where it is fine), `good.py`'s finding still reported, and a bounded cost (see hostile_support).
"""

import ast
import os
import re
import sys

import libcst
import pytest

from hostile_support import (GOOD, as_ordinary_reader, assert_good_file_linted, assert_sound,
                             flake8, jaxlint, run)
from jaxlint.flake8_plugin import JaxlintChecker
from jaxlint.source import source_lines

pytestmark = pytest.mark.slow     # each test lints through `jaxlint check` and flake8 subprocesses

JIT_SLICE = "import jax\n\n@jax.jit\ndef f(x, n):\n    return x[:n]\n"   # JAX104 at 5:12


def setup(tmp_path, name, data):
    (tmp_path / "good.py").write_text(GOOD)
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return path


def both(tmp_path, name, data):
    """Lint `name` and good.py with each tool; return (jaxlint run, flake8 run)."""
    setup(tmp_path, name, data)
    runs = jaxlint(tmp_path, name, "good.py"), flake8(tmp_path, name, "good.py")
    for result in runs:
        assert_sound(result)
        assert_good_file_linted(result)
    return runs


def assert_one_error(result, name, code, line, pattern):
    """Exactly one line about `name`: `name:LINE:COL: CODE message`, the message matching.
    Line 0 is a file with no position: `name: CODE message` (flake8 writes `name:0:1: CODE`)."""
    lines = result.lines_for(name)
    assert len(lines) == 1, result.text
    where = rf"{re.escape(name)}(?::0:1)?" if line == 0 else rf"{re.escape(name)}:{line}:\d+"
    assert re.match(rf"{where}: {code} .*{pattern}", lines[0]), lines[0]
    assert result.rc != 0


def assert_finding(result, name, line, col, code="JAX104"):
    assert any(x.startswith(f"{name}:{line}:{col}: {code} ") for x in result.lines_for(name)), result.text


# -- syntax ---------------------------------------------------------------------------------------

def test_syntax_error_is_one_line_with_file_line_column_and_parser_message(tmp_path):
    cli, fl8 = both(tmp_path, "bad.py", "import jax\n\ndef f(:\n    pass\n")
    assert cli.lines_for("bad.py") == ["bad.py:3:7: E999 syntax error: invalid syntax"]
    assert cli.rc == 1
    assert_one_error(fl8, "bad.py", "E999", 3, "SyntaxError: invalid syntax")


def test_file_libcst_cannot_parse_but_python_can_is_linted(tmp_path):
    source = JIT_SLICE + "\n\n@jax.jit\ndef g(x, n):\n    y = () if 0 else(lambda:())\n    return x[:n]\n"
    ast.parse(source)
    with pytest.raises(Exception):      # the premise: a libcst bug (Instagram/LibCST#1061)
        libcst.parse_module(source)
    cli, fl8 = both(tmp_path, "newer.py", source)
    for result in (cli, fl8):
        assert_finding(result, "newer.py", 5, 12)
        assert_finding(result, "newer.py", 11, 12)


# -- encodings ------------------------------------------------------------------------------------

def test_undecodable_bytes(tmp_path):
    data = b"import jax\n\nBLOB = '\xff\xfe\xfd'\n" + JIT_SLICE.encode()
    cli, fl8 = both(tmp_path, "blob.py", data)
    assert cli.lines_for("blob.py") == [
        "blob.py:3:9: E999 cannot decode as utf-8: byte 0xff: invalid start byte"]
    # flake8 decodes what UTF-8 cannot as latin-1 and lints the file: the plugin must cope.
    assert_finding(fl8, "blob.py", 8, 12)


def test_unknown_encoding_cookie(tmp_path):
    cli, fl8 = both(tmp_path, "cookie.py", "# -*- coding: klingon -*-\n" + JIT_SLICE)
    assert_one_error(cli, "cookie.py", "E999", 1, "cannot decode: unknown encoding: klingon")
    assert_finding(fl8, "cookie.py", 6, 12)      # flake8 falls back to latin-1, as above


def test_cookie_that_does_not_match_the_bytes(tmp_path):
    data = "# coding: ascii\n".encode() + JIT_SLICE.encode() + "NAME = 'café'\n".encode("utf-8")
    cli, _ = both(tmp_path, "ascii.py", data)
    assert cli.lines_for("ascii.py") == [
        "ascii.py:7:12: E999 cannot decode as ascii: byte 0xc3: ordinal not in range(128)"]


def test_missing_cookie_on_latin1_bytes(tmp_path):
    data = JIT_SLICE.encode() + "NAME = 'café'\n".encode("latin-1")
    cli, _ = both(tmp_path, "nocookie.py", data)
    assert_one_error(cli, "nocookie.py", "E999", 6, "cannot decode as utf-8: byte 0xe9")


def test_latin1_cookie_works(tmp_path):
    data = ("# -*- coding: latin-1 -*-\nNAME = 'café'\n" + JIT_SLICE).encode("latin-1")
    cli, fl8 = both(tmp_path, "latin.py", data)
    for result in (cli, fl8):
        assert_finding(result, "latin.py", 7, 12)


def test_utf8_bom(tmp_path):
    cli, fl8 = both(tmp_path, "bom.py", b"\xef\xbb\xbf" + JIT_SLICE.encode())
    for result in (cli, fl8):
        assert_finding(result, "bom.py", 5, 12)


def test_nul_bytes(tmp_path):
    cli, fl8 = both(tmp_path, "nul.py", JIT_SLICE + "x = 1  \x00\n")
    assert cli.lines_for("nul.py") == ["nul.py:6:8: E999 source contains a NUL byte"]
    assert_one_error(fl8, "nul.py", "E999", 1, "null bytes")


# -- line endings and whitespace ------------------------------------------------------------------

def test_crlf_line_endings(tmp_path):
    cli, fl8 = both(tmp_path, "crlf.py", JIT_SLICE.replace("\n", "\r\n"))
    for result in (cli, fl8):
        assert_finding(result, "crlf.py", 5, 12)


def test_lone_cr_line_endings(tmp_path):
    cli, fl8 = both(tmp_path, "cr.py", JIT_SLICE.replace("\n", "\r"))
    for result in (cli, fl8):
        assert_finding(result, "cr.py", 5, 12)


def test_form_feeds_keep_line_numbers_and_noqa(tmp_path):
    # A form feed (and \x1c) is a line break for str.splitlines but not for Python: line
    # numbers, and the line a `# noqa` is read from, must follow Python.
    source = ("\x0cimport jax\n\x0c\n# section \x1c end\n@jax.jit\ndef f(x, n):\n"
              "    return x[:n]  # noqa: JAX104\n\x0c\n@jax.jit\ndef g(x, n):\n    return x[:n]\n")
    cli, fl8 = both(tmp_path, "ff.py", source)
    for result in (cli, fl8):
        assert [line.split(" ")[0] for line in result.lines_for("ff.py")] == ["ff.py:10:12:"]


def test_source_lines_split_where_python_does():
    text = "a\r\nb\rc\x0cd\x1ce\x85f\u2028g\n\nh\n"
    assert source_lines(text) == ["a", "b", "c\x0cd\x1ce\x85f\u2028g", "", "h"]
    assert source_lines("") == [] and source_lines("x") == ["x"] and source_lines("x\n\n") == ["x", ""]


def test_tab_indentation(tmp_path):
    cli, fl8 = both(tmp_path, "tabs.py", JIT_SLICE.replace("    ", "\t"))
    for result in (cli, fl8):
        assert_finding(result, "tabs.py", 5, 9)


def test_inconsistent_tabs_and_spaces(tmp_path):
    source = "import jax\n\n@jax.jit\ndef f(x, n):\n\tif n:\n\t\tpass\n        return x[:n]\n"
    cli, fl8 = both(tmp_path, "mixed.py", source)
    assert_one_error(cli, "mixed.py", "E999", 7, "inconsistent use of tabs and spaces")
    assert_one_error(fl8, "mixed.py", "E999", 7, "inconsistent use of tabs and spaces")


def test_empty_and_comment_only_files(tmp_path):
    (tmp_path / "comment.py").write_text("# uses jax, one day\n")
    for result in both(tmp_path, "empty.py", b""):
        assert not result.lines_for("empty.py")
    for result in (jaxlint(tmp_path, "empty.py", "comment.py"), flake8(tmp_path, "empty.py", "comment.py")):
        assert_sound(result)
        assert result.rc == 0 and not result.lines_for("comment.py")
        assert result.out in ("", "All checks passed!\n")      # jaxlint says so, flake8 nothing


# -- size -----------------------------------------------------------------------------------------

FIVE_MB = 5 * 1024 * 1024


def generated_blob() -> str:
    """The shape of a protobuf `_pb2.py`: a few statements around a 5 MB serialized literal."""
    payload = "".join(f"\\x{(i * 7919) % 256:02x}" for i in range(FIVE_MB // 4))
    return ("# Generated by the protocol buffer compiler.  DO NOT EDIT!\nimport jax\n"
            f"DESCRIPTOR = b'{payload}'\n" + JIT_SLICE.replace("import jax\n", ""))


def generated_table() -> str:
    """The shape of a generated data module: a 5 MB literal table, then code."""
    rows, size, i = [], 0, 0
    while size < FIVE_MB:
        row = f"    ({i}, {i * 0.5!r}, 'name{i}', (1, 2, 3)),\n"
        rows.append(row)
        size += len(row)
        i += 1
    return "# generated\nimport jax\n\nTABLE = [\n" + "".join(rows) + "]\n" + JIT_SLICE


def test_5mb_generated_file_with_one_huge_literal(tmp_path):
    source = generated_blob()
    assert len(source) > FIVE_MB
    cli, fl8 = both(tmp_path, "blob_pb2.py", source)
    for result in (cli, fl8):
        assert_finding(result, "blob_pb2.py", 7, 12)


def test_5mb_generated_table(tmp_path):
    """Through `jaxlint check`, and through the flake8 plugin on flake8's own tree: real flake8
    spends ~40 s of its own on a 120,000-line file (its tokenizer and pycodestyle), which would
    dominate the suite and measure flake8, not the plugin."""
    source = generated_table()
    lines = source.count("\n")
    setup(tmp_path, "table.py", source)
    cli = jaxlint(tmp_path, "table.py", "good.py")
    assert_sound(cli)
    assert_good_file_linted(cli)
    assert_finding(cli, "table.py", lines, 12)

    tree = ast.parse(source)
    found = list(JaxlintChecker(tree, "table.py", source.splitlines(True)).run())
    assert [(line, col, msg[:6]) for line, col, msg, _ in found] == [(lines, 11, "JAX104")]
    # its cost against ast.parse's: benchmarks/hostile_inputs.py


def test_10000_functions_in_one_file(tmp_path):
    source = "import jax\n" + "".join(f"\n\n@jax.jit\ndef f{i}(x, n):\n    return x[:n]\n"
                                      for i in range(10_000))
    cli, fl8 = both(tmp_path, "many.py", source)
    for result in (cli, fl8):
        findings = result.lines_for("many.py")
        assert len(findings) == 10_000 and all(" JAX104 " in line for line in findings)
        assert_finding(result, "many.py", 5 * 9_999 + 6, 12)


def test_very_long_lines(tmp_path):
    long_list = ", ".join(str(i) for i in range(40_000))             # a ~230 kB line
    prefix = "    y = g(" + "1, " * 20_000                            # a 60 kB call
    source = (f"import jax\n\nWEIGHTS = [{long_list}]\n\n@jax.jit\ndef f(x, n):\n"
              f"{prefix}x[:n])\n    return y\n")
    cli, fl8 = both(tmp_path, "long.py", source)
    for result in (cli, fl8):
        assert_finding(result, "long.py", 7, len(prefix) + 1)


# -- nesting --------------------------------------------------------------------------------------

NESTED_1000 = {
    "sum": "+".join(["x"] * 1000),
    "unary": "-" * 1000 + "x",
    "attribute": "x" + ".T" * 1000,
    "call": "g" + "(x)" * 1000,
    "subscript": "x" + "[0]" * 1000,
    "lambda": "lambda: " * 1000 + "x",
    "conditional": "x if x else " * 1000 + "x",
    "not": "not " * 1000 + "x",
}


def nested_source(expr: str) -> str:
    return f"import jax\n\n@jax.jit\ndef f(x, n):\n    y = {expr}\n    return x[:n], y\n"


@pytest.mark.parametrize("shape", sorted(NESTED_1000))
def test_expressions_nested_1000_deep(tmp_path, shape):
    setup(tmp_path, "deep.py", nested_source(NESTED_1000[shape]))
    cli = jaxlint(tmp_path, "deep.py", "good.py")
    assert_sound(cli)
    assert_good_file_linted(cli)
    assert_finding(cli, "deep.py", 6, 12)

    # Under flake8's default recursion limit pyflakes itself fails on this file and flake8
    # aborts the run, naming pyflakes: the plugin must not be the one that fails.
    fl8 = flake8(tmp_path, "deep.py", "good.py")
    assert_sound(fl8)
    # With the limit raised for pyflakes, the plugin reports the finding past the deep line.
    fl8 = flake8(tmp_path, "deep.py", "good.py", recursion_limit=12_000)
    assert_sound(fl8)
    assert_good_file_linted(fl8)
    assert_finding(fl8, "deep.py", 6, 12)


def test_nesting_deeper_than_python_parses_is_a_syntax_error(tmp_path):
    cli, fl8 = both(tmp_path, "deeper.py", nested_source("(" * 1000 + "x" + ")" * 1000))
    assert_one_error(cli, "deeper.py", "E999", 5, "too many nested parentheses")
    assert_one_error(fl8, "deeper.py", "E999", 5, "too many nested parentheses")


# -- newer Python ---------------------------------------------------------------------------------

NEWER = sys.version_info < (3, 12)


def test_pep695_type_parameters(tmp_path):
    source = JIT_SLICE + "\n\ndef first[T](items: list[T]) -> T:\n    return items[0]\n"
    cli, fl8 = both(tmp_path, "generic.py", source)
    if NEWER:
        assert_one_error(cli, "generic.py", "E999", 8, r"syntax error: .*Python 3\.12\+ syntax")
        assert_one_error(fl8, "generic.py", "E999", 8, "SyntaxError")
    else:
        assert_finding(cli, "generic.py", 5, 12)


def test_pep701_f_strings(tmp_path):
    source = JIT_SLICE + "\nsongs = ['a', 'b']\nline = f\"{', '.join([f\"'{s}'\" for s in songs])}\"\n"
    cli, fl8 = both(tmp_path, "fstr.py", source)
    if NEWER:
        assert_one_error(cli, "fstr.py", "E999", 8, r"syntax error: f-string.*Python 3\.12\+ syntax")
        assert_one_error(fl8, "fstr.py", "E999", 8, "SyntaxError")
    else:
        assert_finding(cli, "fstr.py", 5, 12)


def test_type_alias_statement(tmp_path):
    cli, _ = both(tmp_path, "alias.py", JIT_SLICE + "type Vector = list[float]\n")
    if NEWER:
        assert_one_error(cli, "alias.py", "E999", 6, r"Python 3\.12\+ syntax")


# -- files that cannot be read --------------------------------------------------------------------

def test_unreadable_file(tmp_path):
    path = setup(tmp_path, "secret.py", JIT_SLICE)
    path.chmod(0)
    prefix = as_ordinary_reader()
    cli = jaxlint(tmp_path, "secret.py", "good.py", prefix=prefix)
    fl8 = flake8(tmp_path, "secret.py", "good.py", prefix=prefix)
    for result in (cli, fl8):
        assert_sound(result)
        assert_good_file_linted(result)
    assert_one_error(cli, "secret.py", "E902", 0, "Permission denied")
    assert_one_error(fl8, "secret.py", "E902", 0, "Permission denied")


def test_fifo_is_refused_not_read(tmp_path):
    """Opening a FIFO for reading blocks until a writer comes: never. flake8 itself blocks on
    one (it opens every file it is given), so only `jaxlint check` is tested here."""
    (tmp_path / "good.py").write_text(GOOD)
    os.mkfifo(tmp_path / "pipe.py")
    for args, prefix in ((("pipe.py", "good.py"), ""), ((".",), "./")):   # named, and walked into
        cli = jaxlint(tmp_path, *args, timeout=60)
        assert_sound(cli)
        assert_good_file_linted(cli, prefix + "good.py")
        assert_one_error(cli, prefix + "pipe.py", "E902", 0, "not a regular file")


def test_symlink_loop(tmp_path):
    os.symlink("loop_b.py", tmp_path / "loop_a.py")
    os.symlink("loop_a.py", tmp_path / "loop_b.py")
    setup(tmp_path, "other.py", "x = 1\n")
    for result in (jaxlint(tmp_path, "loop_a.py", "good.py"), flake8(tmp_path, "loop_a.py", "good.py")):
        assert_sound(result)
        assert_good_file_linted(result)
        assert_one_error(result, "loop_a.py", "E902", 0, "Too many levels of symbolic links")


def test_broken_symlink(tmp_path):
    os.symlink("nowhere.py", tmp_path / "dangling.py")
    setup(tmp_path, "other.py", "x = 1\n")
    for result in (jaxlint(tmp_path, "dangling.py", "good.py"), flake8(tmp_path, "dangling.py", "good.py")):
        assert_sound(result)
        assert_good_file_linted(result)
        assert_one_error(result, "dangling.py", "E902", 0, "No such file or directory")


# -- a bug in jaxlint on one file -----------------------------------------------------------------

PLANT_A_BUG = '''import sys
import jaxlint.engine

class Planted:
    code = "JAX999"
    def check(self, analysis):
        if "planted" in analysis.path:
            raise ValueError("planted\\nbug " + "x" * 5000)
        return []

_rules = jaxlint.engine.all_rules
jaxlint.engine.all_rules = lambda: list(_rules()) + [Planted()]
if sys.argv.pop(1) == "jaxlint":
    from jaxlint.cli import main
else:
    from flake8.main.cli import main
raise SystemExit(main(sys.argv[1:]))
'''


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_internal_error_is_one_line_and_the_other_files_are_linted(tmp_path, jobs):
    """A rule that raises on one file (planted: no known input does it) must cost only that file:
    one line naming it, the version and where to report it; a non-zero exit in the CLI."""
    setup(tmp_path, "planted.py", JIT_SLICE)
    (tmp_path / "other.py").write_text(JIT_SLICE)
    (tmp_path / "plant.py").write_text(PLANT_A_BUG)
    runs = [run([sys.executable, "plant.py", "jaxlint", "check", "--no-cache", "-j", jobs,
                 "planted.py", "good.py", "other.py"], tmp_path),
            run([sys.executable, "plant.py", "flake8", "-j", jobs, "--select=JAX,E9",
                 "planted.py", "good.py", "other.py"], tmp_path)]
    for result in runs:
        assert "Traceback" not in result.text
        assert_good_file_linted(result)
        assert_finding(result, "other.py", 5, 12)
        lines = result.lines_for("planted.py")
        assert len(lines) == 1 and len(lines[0]) < 500, lines
        assert re.match(r"planted\.py:1:1: JAX000 internal error in jaxlint \d+\.\d+\.\d+\S* while analysing "
                        r"planted\.py: ValueError: planted bug x+\.\.\. at check:\d+\. Please report it at "
                        r"https://\S+ with the file\.$", lines[0]), lines[0]
        assert result.rc != 0


def test_an_integer_literal_too_long_to_print_reaches_a_jitted_call(tmp_path):
    """Python refuses to turn an int of more than 4,300 digits into text (ValueError): the
    signature reader used to print each literal argument of a jitted call for its messages."""
    source = ("import jax\n\nshift = jax.jit(lambda x: x + 1)\n\n\ndef run():\n"
              f"    return shift(0x{'f' * 4000})\n")
    cli, fl8 = both(tmp_path, "huge_int.py", source)       # both() asserts no internal error (JAX000)
    for result in (cli, fl8):
        assert "internal error" not in result.text, result.text[-3000:]
