"""The result cache cannot lie or break, parallel runs are deterministic, progress stays quiet
off a terminal."""

import io
import json
import os
import stat
import subprocess
import sys

import pytest

from jaxlint import runner
from jaxlint.cache import CACHE_DIR, Cache, source_digest
from jaxlint.cli import main
from jaxlint.config import Config, ConfigFinder
from jaxlint.discovery import iter_targets

BAD = "import jax\n\n@jax.jit\ndef f{i}(x, n):\n    if n > {i}:\n        x = x + 1\n    return x[:n]\n"
# What a run of the tree below caches: the analyses of its 25 modules that name jax, and for
# plain.py the answer that it calls no jitted function of the project.
ENTRIES = 26

LOOP = "import jax\n\n@jax.jit\ndef f(x):\n    for i in range(8):\n        x = x + i\n    return x\n"


@pytest.fixture
def tree(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
    for i in range(24):
        (tmp_path / f"m{i:02d}.py").write_text(BAD.format(i=i))
    (tmp_path / "loop.py").write_text(LOOP)
    (tmp_path / "plain.py").write_text("x = 1\n")
    return tmp_path


def lint(tree, cache=None, jobs=1, config=None):
    finder = ConfigFinder(config or {})
    reports = runner.run(list(iter_targets([str(tree)], finder)), jobs=jobs, cache=cache)
    return [(r.path, [(f.line, f.col, f.code, f.message, f.detail) for f in r.result.findings],
             r.result.error) for r in reports]


def entries(tree):
    folder = tree / CACHE_DIR
    return sorted(p for p in folder.rglob("*.json"))


def test_warm_run_is_served_from_the_cache_with_identical_findings(tree):
    cold_cache = Cache()
    cold = lint(tree, cold_cache)
    # plain.py never needs analysis: what is cached for it is the answer that it calls no
    # jitted function of the project (an entry of its own, so that a warm run need not ask)
    assert cold_cache.hits == 0 and cold_cache.misses == ENTRIES
    warm_cache = Cache()
    assert lint(tree, warm_cache) == cold and warm_cache.hits == ENTRIES and warm_cache.misses == 0
    assert lint(tree) == cold                                   # and equal to uncached
    assert (tree / CACHE_DIR / ".gitignore").read_text().endswith("*\n")
    assert (tree / CACHE_DIR / "CACHEDIR.TAG").exists()


def test_changed_file_misses_only_itself(tree):
    lint(tree, Cache())
    (tree / "m03.py").write_text(BAD.format(i=3) + "\n# changed\n")
    cache = Cache()
    lint(tree, cache)
    assert (cache.hits, cache.misses) == (ENTRIES - 1, 1)


@pytest.mark.parametrize("damage", [
    lambda text: "{not json",                               # corrupted
    lambda text: text[: len(text) // 2],                    # truncated
    lambda text: "",                                        # empty
    lambda text: json.dumps({"format": 1, "jaxlint": "0", "key": "x", "payload": {}}),  # foreign
    lambda text: text.replace('"error_col":0', '"error_col":"zero"'),         # wrong types
    lambda text: text.replace('"line":', '"line":"x","old":'),                # (findings only)
    lambda text: json.dumps([1, 2, 3]),
])
def test_damaged_entries_are_ignored_and_rebuilt(tree, damage):
    expected = lint(tree, Cache())
    intact = 0
    for entry in entries(tree):
        text = entry.read_text()
        entry.write_text(damage(text))
        intact += damage(text) == text
    cache = Cache()
    assert lint(tree, cache) == expected
    assert cache.hits == intact <= 2 and cache.misses == ENTRIES - intact   # at most plain's and loop's
    again = Cache()
    assert lint(tree, again) == expected and again.hits == ENTRIES


def test_changed_analysis_config_invalidates(tree):
    lint(tree, Cache())
    cache = Cache()
    findings = lint(tree, cache, config={"unrolled_loop_threshold": 4})
    assert cache.hits == 0 and cache.misses == ENTRIES
    assert any("JAX302" in str(f) for f in findings)
    cache = Cache()
    lint(tree, cache, config={"jit_decorators": {"mylib.jit": ("static_argnums", None)}})
    assert cache.hits == 0
    cache = Cache()     # select/ignore only filter the output: entries stay valid
    lint(tree, cache, config={"ignore": ("JAX101",)})
    assert cache.misses == 0


def test_changed_version_invalidates(tree, monkeypatch):
    lint(tree, Cache())
    cache = Cache(version="99.0.0")
    lint(tree, cache)
    assert cache.hits == 0 and cache.misses == ENTRIES
    import jaxlint
    monkeypatch.setattr(jaxlint, "__version__", "99.0.1")
    cache = Cache()
    lint(tree, cache)
    assert cache.version == "99.0.1" and cache.hits == 0
    monkeypatch.setattr("jaxlint.cache.source_digest", lambda: "edited analysis")
    cache = Cache()     # a development checkout whose source changed under the same version
    lint(tree, cache)
    assert cache.hits == 0


@pytest.mark.slow
def test_two_concurrent_runs_leave_a_consistent_cache(tree):
    cmd = [sys.executable, "-m", "jaxlint", "check", "-j", "2", "--format", "json", str(tree)]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [1, 1]
    assert outs[0][0] == outs[1][0] and "Traceback" not in outs[0][1] + outs[1][1]
    assert not [p for p in (tree / CACHE_DIR).rglob(".tmp-*")]
    for entry in entries(tree):
        json.loads(entry.read_text())
    source_digest.cache_clear()     # the subprocesses hashed jaxlint's source as it is now
    cache = Cache()
    lint(tree, cache)
    assert cache.hits == ENTRIES and cache.misses == 0
    warm = subprocess.run(cmd, capture_output=True, text=True)
    assert warm.stdout == outs[0][0]


def test_no_cache_neither_reads_nor_writes(tree, capsys):
    assert main(["check", "--no-cache", str(tree)]) == 1
    assert not (tree / CACHE_DIR).exists()
    custom = tree / "elsewhere"
    assert main(["check", "--cache-dir", str(custom), str(tree)]) == 1
    assert list(custom.rglob("*.json")) and not (tree / CACHE_DIR).exists()


def test_unwritable_cache_does_not_stop_the_run(tree, capsys, monkeypatch):
    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")
    monkeypatch.setattr("jaxlint.atomic._create", refuse)
    cache = Cache()
    assert lint(tree, cache) == lint(tree)
    assert not cache.writable and not entries(tree)


def test_project_root_is_the_nearest_pyproject_or_git(tmp_path, monkeypatch):
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    (tmp_path / "repo" / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "repo" / "pkg" / "pyproject.toml").write_text("")
    cache = Cache()
    assert cache.project_root(str(tmp_path / "repo" / "pkg" / "sub")) == str(tmp_path / "repo" / "pkg")
    assert cache.project_root(str(tmp_path / "repo")) == str(tmp_path / "repo")
    monkeypatch.setattr(os.path, "exists", lambda path: False)    # no marker anywhere upward
    monkeypatch.chdir(tmp_path)
    assert Cache().project_root(str(tmp_path / "repo")) == str(tmp_path)


def test_parallel_output_is_deterministic(tree, capsys):
    outputs = []
    for jobs in ("1", "2", "4"):
        assert main(["check", "--no-cache", "-j", jobs, str(tree)]) == 1
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1] == outputs[2]
    assert outputs[0].index("m00.py") < outputs[0].index("m23.py")


def test_progress_only_after_half_a_second_and_erased(monkeypatch):
    clock = iter([0.0, 0.1, 0.7, 0.75, 0.9])
    monkeypatch.setattr(runner.time, "monotonic", lambda: next(clock))
    stream = io.StringIO()
    meter = runner.Progress(10, stream)      # t=0.0
    meter.update(1)                          # t=0.1: too early
    meter.update(5)                          # t=0.7: drawn
    meter.update(6)                          # t=0.75: throttled
    meter.update(9)                          # t=0.9: drawn
    meter.close()
    assert stream.getvalue() == ("\rjaxlint: 5/10 files analysed\rjaxlint: 9/10 files analysed"
                                 "\r\x1b[K")


@pytest.mark.slow
def test_no_progress_when_stderr_is_not_a_terminal(tree):
    proc = subprocess.run([sys.executable, "-m", "jaxlint", "check", "--no-cache", "-j", "1",
                           str(tree)], capture_output=True, text=True)
    assert "\r" not in proc.stderr and "files analysed" not in proc.stderr


def test_config_objects_pickle_for_workers():
    import pickle
    config = Config(jit_decorators={"a.jit": ("n", None)}, unrolled_loop_threshold=3)
    assert pickle.loads(pickle.dumps(config)) == config


def test_a_module_that_calls_no_jitted_function_is_linted_once_one_does(tmp_path):
    """The cached answer "runner.py, which never names jax, calls no jitted function" holds only
    while the module it imports from is unchanged."""
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
    (tmp_path / "helpers.py").write_text("def g(x, n):\n    return x * n\n")
    (tmp_path / "runner.py").write_text(
        "from helpers import g\n\n\ndef run(xs):\n    for i, x in enumerate(xs):\n        g(x, i)\n")
    before = lint(tmp_path, Cache())
    assert [found for path, found, _ in before if path.endswith("runner.py")] == [[]]
    warm = Cache()
    assert lint(tmp_path, warm) == before and warm.misses == 0 and warm.hits == 2   # both
    (tmp_path / "helpers.py").write_text(
        "import jax\nfrom functools import partial\n\n\n"
        "@partial(jax.jit, static_argnums=1)\ndef g(x, n):\n    return x * n\n")
    after = lint(tmp_path, Cache())
    assert after == lint(tmp_path)          # as an uncached run: the stale answer is not used
    assert [[code for _, _, code, _, _ in found] for path, found, _ in after
            if path.endswith("runner.py")] == [["JAX201"]]


def test_an_entry_is_a_miss_once_a_module_it_was_read_from_changes(tmp_path):
    # Every kind of entry (a file's result, an importer's traced calls) names the other modules
    # it was computed from; the cache checks them in one place before handing a payload out.
    from jaxlint.analysis.crossmodule import file_digest
    from jaxlint.project import next_run
    main_file, helper = tmp_path / "main.py", tmp_path / "helper.py"
    main_file.write_text("import helper\n")
    helper.write_text("def f(n):\n    return n\n")
    cache = Cache(cache_dir=str(tmp_path / "cache"))
    key = cache.key(str(main_file), main_file.read_bytes(), "test")
    payload = {"outgoing": [], "depends": {str(helper): file_digest(str(helper))}}
    cache.put(str(main_file), key, payload, ".calls")
    assert cache.get_payload(str(main_file), key, ".calls") == payload
    assert cache.get_payload(str(main_file), key) is None          # another kind of entry
    helper.write_text("def f(n):\n    return -n\n")
    next_run()                      # files are looked at once per run
    assert cache.get_payload(str(main_file), key, ".calls") is None


def test_atomic_write_replaces_whole_files_and_leaves_no_temporary_behind(tmp_path, monkeypatch):
    from jaxlint import atomic
    target = tmp_path / "entry.json"
    atomic.write_atomically(str(target), b"first", suffix=".json")
    assert target.read_bytes() == b"first" and stat.S_IMODE(target.stat().st_mode) == 0o600
    script = tmp_path / "run.sh"
    script.write_bytes(b"old")
    script.chmod(0o755)
    atomic.write_atomically(str(script), b"new", keep_mode=True)
    assert script.read_bytes() == b"new" and stat.S_IMODE(script.stat().st_mode) == 0o755
    (tmp_path / "folder").mkdir()
    with pytest.raises(OSError):            # os.replace onto a folder fails: nothing stays behind
        atomic.write_atomically(str(tmp_path / "folder"), b"x")
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["entry.json", "folder", "run.sh"]
    draws = iter([b"\0" * 6, b"\0" * 6, b"\1" * 6])      # a name in use is never taken over
    monkeypatch.setattr(atomic.os, "urandom", lambda n: next(draws))
    busy = tmp_path / f".tmp-{os.getpid()}-{'00' * 6}"
    busy.write_bytes(b"another writer's")
    atomic.write_atomically(str(target), b"second")
    assert target.read_bytes() == b"second" and busy.read_bytes() == b"another writer's"
