"""A repeated `jaxlint check` replays the record of the same command's last run, and only when
nothing the run read has changed (jaxlint.replay)."""

import glob
import json
import os
import subprocess
import sys
import time

import pytest

from jaxlint import replay
from jaxlint.cli import main

pytestmark = pytest.mark.portable    # needs no JAX: .ci/other-pythons runs it

JITTED_IF = "import jax\n\n@jax.jit\ndef f(x):\n    if x > 0:\n        return x\n    return -x\n"
OPS = ("import jax.numpy as jnp\n\n\ndef clip_positive(x, limit):\n    if limit > 0:\n"
       "        return jnp.clip(x, 0, limit)\n    return x\n")
TRAIN = ("import jax\n\nfrom mypkg.ops import clip_positive\n\n\n@jax.jit\ndef step(x, limit):\n"
         "    return clip_positive(x, limit) * 2\n")


def age(top, seconds=3600):
    """Every file and folder under `top` (and `top`) last modified `seconds` ago: an edit made
    now is then a different stat whatever the file system's timestamp resolution."""
    then = time.time_ns() - int(seconds * 1e9)
    for root, dirs, files in os.walk(top, topdown=False):
        for name in files + dirs:
            os.utime(os.path.join(root, name), ns=(then, then))
    os.utime(top, ns=(then, then))


def project(tmp_path):
    root = tmp_path / "proj"
    (root / "mypkg").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'mypkg'\n")
    (root / "mypkg" / "__init__.py").write_text("")
    (root / "mypkg" / "ops.py").write_text(OPS)
    (root / "mypkg" / "train.py").write_text(TRAIN)
    age(root)
    return root


def records(cache):
    return glob.glob(os.path.join(cache, "*", "runs", "*.json"))


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def no_analysis(monkeypatch):
    """Make any analysis fail loudly: a replayed run must not reach it."""
    import jaxlint.runner

    def refuse(*args, **kwargs):
        raise AssertionError("the run was analysed, not replayed")
    monkeypatch.setattr(jaxlint.runner, "run", refuse)
    monkeypatch.setattr("jaxlint.cli.check_once", refuse)


def test_the_same_command_over_unchanged_files_is_replayed(tmp_path, capsys, monkeypatch):
    root = project(tmp_path)
    cache = str(tmp_path / "cache")
    first = run(capsys, "check", "--cache-dir", cache, str(root))
    assert first[0] == 1 and "ops.py:5:8: JAX101" in first[1], first
    assert len(records(cache)) == 1
    no_analysis(monkeypatch)
    assert run(capsys, "check", "--cache-dir", cache, str(root)) == first
    # another command (here another format) is another record: it runs
    with pytest.raises(AssertionError, match="not replayed"):
        main(["check", "--cache-dir", cache, "--format", "json", str(root)])


def test_a_changed_module_is_read_again_even_when_only_another_file_is_linted(tmp_path, capsys):
    root = project(tmp_path)
    cache = str(tmp_path / "cache")
    ops = str(root / "mypkg" / "ops.py")
    code, out, _ = run(capsys, "check", "--cache-dir", cache, ops)
    assert code == 1 and "JAX101" in out and "step" in out    # reached from train.py's step
    # the importer, not the file linted, changes: the step is no longer jitted
    (root / "mypkg" / "train.py").write_text(TRAIN.replace("@jax.jit\n", ""))
    code, out, _ = run(capsys, "check", "--cache-dir", cache, ops)
    assert code == 0 and "JAX101" not in out, out


def test_a_file_added_to_a_walked_folder_is_linted(tmp_path, capsys):
    root = project(tmp_path)
    cache = str(tmp_path / "cache")
    sub = root / "mypkg" / "more"
    sub.mkdir()
    age(root)
    before = run(capsys, "check", "--cache-dir", cache, str(root))
    assert "more" not in before[1]
    (sub / "late.py").write_text(JITTED_IF)
    code, out, _ = run(capsys, "check", "--cache-dir", cache, str(root))
    assert f"{sub / 'late.py'}:5:8: JAX101" in out, out


def test_a_changed_configuration_is_read_again(tmp_path, capsys):
    root = project(tmp_path)
    cache = str(tmp_path / "cache")
    assert run(capsys, "check", "--cache-dir", cache, str(root))[0] == 1
    with open(root / "pyproject.toml", "a") as fh:
        fh.write("\n[tool.jaxlint]\nignore = ['JAX101']\n")
    assert run(capsys, "check", "--cache-dir", cache, str(root))[0] == 0


def test_a_file_edited_just_now_is_not_recorded(tmp_path, capsys):
    fresh = tmp_path / "fresh.py"
    fresh.write_text(JITTED_IF)                 # its stat may not change on a second quick edit
    cache = str(tmp_path / "cache")
    assert run(capsys, "check", "--cache-dir", cache, str(fresh))[0] == 1
    assert records(cache) == []


@pytest.mark.parametrize("flags", [["--no-cache"], ["--diff"], ["--fix"], ["--add-noqa"],
                                   ["--output-file", "OUT"], ["--show-settings"]])
def test_runs_that_write_files_or_skip_the_cache_are_not_recorded(tmp_path, capsys, flags):
    root = project(tmp_path)
    cache = str(tmp_path / "cache")
    flags = [str(tmp_path / "report.txt") if f == "OUT" else f for f in flags]
    main(["check", "--cache-dir", cache] + flags + [str(root / "mypkg" / "train.py")])
    capsys.readouterr()
    assert records(cache) == []


def test_a_damaged_record_is_a_plain_run_that_records_again(tmp_path, capsys):
    root = project(tmp_path)
    cache = str(tmp_path / "cache")
    first = run(capsys, "check", "--cache-dir", cache, str(root))
    [record] = records(cache)
    for damage in (b"{not json", b'{"format": 1, "key": "another command"}', b""):
        with open(record, "wb") as fh:
            fh.write(damage)
        assert run(capsys, "check", "--cache-dir", cache, str(root)) == first
    assert records(cache) == [record] and os.path.getsize(record) > 100


def test_only_the_most_recent_records_are_kept(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(replay, "KEEP", 2)
    root = project(tmp_path)
    cache = str(tmp_path / "cache")
    for fmt in ("text", "json", "github", "sarif"):
        main(["check", "--cache-dir", cache, "--format", fmt, str(root)])
    capsys.readouterr()
    assert len(records(cache)) == 2


def test_a_replayed_run_imports_neither_the_configuration_nor_the_analysis(tmp_path):
    root = project(tmp_path)
    cache = str(tmp_path / "cache")
    argv = ["check", "--cache-dir", cache, str(root)]
    program = ("import sys, json; from jaxlint.cli import main; code = main(%r); "
               "open(sys.argv[1], 'w').write(json.dumps([code, sorted(m for m in sys.modules "
               "if m.startswith('jaxlint'))]))" % argv)
    seen = []
    for name in ("first", "second"):
        out = tmp_path / name
        done = subprocess.run([sys.executable, "-c", program, str(out)], capture_output=True, text=True)
        seen.append((done.stdout, done.stderr, *json.loads(out.read_text())))
    assert seen[0][:3] == seen[1][:3] and "JAX101" in seen[1][0] and seen[1][2] == 1
    assert "jaxlint.runner" in seen[0][3]      # the first run lints (its workers analyse)
    assert not {"jaxlint.config", "jaxlint.engine", "jaxlint.cache", "jaxlint.runner"} & set(seen[1][3]), seen[1][3]
