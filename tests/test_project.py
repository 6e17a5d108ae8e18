"""The whole project: the index of modules (against the import system) and traces that cross
module boundaries (against the `# expect:` comments of small projects under tests/projects)."""

from __future__ import annotations

import ast
import collections
import importlib.util
import io
import json
import os
import pathlib
import random
import re
import shutil
import subprocess
import sys

import pytest

from console import check, jaxlint
from fixture_expectations import expected_findings
from jaxlint.project import Project, find_root, import_bindings, next_run

PROJECTS = pathlib.Path(__file__).resolve().parent / "projects"
CASES = sorted(p for p in PROJECTS.iterdir() if p.is_dir())


def _expected(folder) -> set:
    found = set()
    for path in sorted(folder.rglob("*.py")):
        for line, code in expected_findings(path):
            found.add((str(path.relative_to(folder)), line, code))
    return found


def _reported(result, folder) -> set:
    found = set()
    for line in result.out.splitlines():
        parts = line.split(":", 3)
        if len(parts) == 4 and parts[3].strip().startswith("JAX"):
            path = pathlib.Path(parts[0])
            path = path if path.is_absolute() else folder / path
            found.add((str(path.resolve().relative_to(folder.resolve())), int(parts[1]),
                       parts[3].split()[0]))
    return found


@pytest.mark.parametrize("folder", CASES, ids=lambda p: p.name)
def test_a_project_linted_whole_reports_its_expectations(folder):
    result = check(".", cwd=folder)
    assert _reported(result, folder) == _expected(folder), result.out + result.err


@pytest.mark.parametrize("folder", CASES, ids=lambda p: p.name)
def test_a_helper_linted_alone_sees_the_trace_from_the_module_importing_it(folder):
    # the editor's and pre-commit's case: one file named, the project around it read
    for path, line, code in sorted(_expected(folder)):
        result = check(path, cwd=folder)
        assert (path, line, code) in _reported(result, folder), result.out + result.err


def test_file_local_analysis_is_one_switch_away(tmp_path):
    folder = tmp_path / "p"
    shutil.copytree(PROJECTS / "helper_bool", folder)
    assert _reported(check("--no-project", ".", cwd=folder), folder) == set()
    (folder / "pyproject.toml").write_text('[project]\nname = "p"\n[tool.jaxlint]\nproject-analysis = false\n')
    assert _reported(check(".", cwd=folder), folder) == set()


def test_a_change_in_one_module_is_seen_through_the_cache(tmp_path):
    folder = tmp_path / "p"
    shutil.copytree(PROJECTS / "helper_bool", folder)
    cache = ["check", "--cache-dir", str(tmp_path / "cache")]     # the cache on: `check` turns it off
    first = jaxlint(*cache, ".", cwd=folder)
    assert _reported(first, folder) == {("mypkg/ops.py", 5, "JAX101")}
    # the caller stops jitting: the helper's finding goes, though ops.py did not change
    train = folder / "mypkg" / "train.py"
    train.write_text(train.read_text().replace("@jax.jit\n", ""))
    assert _reported(jaxlint(*cache, ".", cwd=folder), folder) == set()
    train.write_text((PROJECTS / "helper_bool" / "mypkg" / "train.py").read_text())
    assert _reported(jaxlint(*cache, ".", cwd=folder), folder) == {("mypkg/ops.py", 5, "JAX101")}


def test_a_deleted_or_broken_module_leaves_the_others_linted(tmp_path):
    folder = tmp_path / "p"
    shutil.copytree(PROJECTS / "helper_bool", folder)
    ops = folder / "mypkg" / "ops.py"
    ops.write_text("import jax\n\ndef clip_positive(x, limit:\n")
    result = check(".", cwd=folder)
    assert "E999" in result.out and "Traceback" not in result.err, result.out + result.err
    ops.unlink()
    result = check(".", cwd=folder)
    assert result.code == 0 and "Traceback" not in result.err, result.out + result.err


def _run_driver(folder, *flags):
    """`python [flags] run.py` in `folder` on CPU: what JAX makes of the requested dtype."""
    return subprocess.run([sys.executable, *flags, "run.py"], cwd=folder, capture_output=True, text=True,
                          env={**os.environ, "JAX_PLATFORMS": "cpu"}, timeout=300)


def test_a_module_registering_at_import_is_decided_by_the_program_importing_it(tmp_path):
    # `tables.py` runs a call at import (a registration) and asks for float64; it is not a program
    # of its own: the driver importing it enables x64, so nothing truncates
    folder = tmp_path / "lab"
    folder.mkdir()
    (folder / "tables.py").write_text(
        "import jax.numpy as jnp\n\nREGISTRY = {}\n\n\ndef register(name, value):\n    REGISTRY[name] = value\n\n\n"
        "register(\"grid\", jnp.linspace(0.0, 1.0, 5, dtype=jnp.float64))\n")
    run_py = folder / "run.py"
    run_py.write_text('import jax\n\njax.config.update("jax_enable_x64", True)\n\nimport tables\n\n'
                      'print(tables.REGISTRY["grid"].dtype)\n')
    result = check(".", "--no-cache", cwd=folder)
    assert result.code == 0 and "JAX402" not in result.out, result.out + result.err
    run = _run_driver(folder, "-W", "error")
    assert run.returncode == 0 and "float64" in run.stdout, run.stderr[-2000:]
    # the driver no longer enables it: the request in the imported module truncates
    run_py.write_text('import tables\n\nprint(tables.REGISTRY["grid"].dtype)\n')
    result = check(".", "--no-cache", cwd=folder)
    assert "tables.py:10:18: JAX402" in result.out, result.out + result.err
    run = _run_driver(folder)
    assert run.returncode == 0 and "float32" in run.stdout and "truncated" in run.stderr, run.stderr[-2000:]


def test_a_program_whose_package_enables_x64_at_import_is_not_told_it_truncates(tmp_path):
    # a folder of a driver and its package, no root marker: the package's __init__.py switches
    # x64 on when the driver imports it (from a submodule: the package runs first)
    folder = tmp_path / "sim"
    (folder / "orbits").mkdir(parents=True)
    init = folder / "orbits" / "__init__.py"
    init.write_text('import jax\n\njax.config.update("jax_enable_x64", True)\n')
    (folder / "orbits" / "kepler.py").write_text(
        "import jax.numpy as jnp\n\n\ndef energy(q):\n    return 1.0 / jnp.linalg.norm(q)\n")
    (folder / "run.py").write_text(
        "import jax.numpy as jnp\n\nfrom orbits.kepler import energy\n\n"
        "q = jnp.array([1.0, 0.0], dtype=jnp.float64)\nprint(energy(q).dtype)\n")
    result = check("run.py", "--no-cache", cwd=folder)
    assert result.code == 0 and "JAX402" not in result.out, result.out + result.err
    run = _run_driver(folder, "-W", "error")
    assert run.returncode == 0 and "float64" in run.stdout, run.stderr[-2000:]
    init.write_text("")         # the package no longer enables it: the request truncates
    result = check("run.py", "--no-cache", cwd=folder)
    assert "run.py:5:5: JAX402" in result.out, result.out + result.err
    # its docstring telling how to enable it does not enable it either
    init.write_text('"""Orbits: call ``jax.config.update("jax_enable_x64", True)`` first."""\n')
    result = check("run.py", "--no-cache", cwd=folder)
    assert "run.py:5:5: JAX402" in result.out, result.out + result.err
    run = _run_driver(folder)
    assert run.returncode == 0 and "float32" in run.stdout and "truncated" in run.stderr, run.stderr[-2000:]


def test_an_import_cycle_between_user_modules_ends(tmp_path):
    folder = tmp_path / "p"
    (folder / "cyc").mkdir(parents=True)
    (folder / "pyproject.toml").write_text('[project]\nname = "cyc"\n')
    (folder / "cyc" / "__init__.py").write_text("")
    (folder / "cyc" / "a.py").write_text(
        "import jax\nfrom cyc import b\n\n\ndef back(n):\n    if n > 1:  # expect: JAX101\n"
        "        return b.forth(n - 1)\n    return n\n\n\n@jax.jit\ndef entry(n):\n    return b.forth(n)\n")
    (folder / "cyc" / "b.py").write_text(
        "from cyc import a\n\n\ndef forth(n):\n    return a.back(n * 2)\n")
    result = check(".", cwd=folder)
    assert _reported(result, folder) == {("cyc/a.py", 6, "JAX101")}, result.out + result.err


def _chain_project(folder, hops: int):
    """A jitted step in m0.py whose traced argument reaches `if n > 0` in m{hops}.py through a
    plain function of each module between them."""
    (folder / "chain").mkdir(parents=True)
    (folder / "pyproject.toml").write_text('[project]\nname = "chain"\n')
    (folder / "chain" / "__init__.py").write_text("")
    (folder / "chain" / "m0.py").write_text(
        "import jax\nfrom chain.m1 import f1\n\n\n@jax.jit\ndef step(n):\n    return f1(n)\n")
    for i in range(1, hops):
        (folder / "chain" / f"m{i}.py").write_text(
            f"from chain.m{i + 1} import f{i + 1}\n\n\ndef f{i}(n):\n    return f{i + 1}(n) + 1\n")
    (folder / "chain" / f"m{hops}.py").write_text(f"def f{hops}(n):\n    if n > 0:\n        return n\n    return -n\n")
    return f"chain/m{hops}.py"


@pytest.mark.parametrize("hops", [1, 2, 3, 4])
def test_every_front_end_follows_a_trace_through_as_many_modules(tmp_path, hops):
    # `check` links a whole project through MAX_BOUNDARIES module boundaries; the helper linted
    # alone (pre-commit), through flake8 (one file at a time) or as an editor buffer sees as far
    from jaxlint.config import Config
    from jaxlint.project import MAX_BOUNDARIES
    from jaxlint.runner import lint_text
    folder = tmp_path / "p"
    helper = _chain_project(folder, hops)
    expected = {(helper, 2, "JAX101")} if hops <= MAX_BOUNDARIES else set()
    assert _reported(check(".", cwd=folder), folder) == expected
    assert _reported(check(helper, cwd=folder), folder) == expected
    flake8 = subprocess.run([sys.executable, "-m", "flake8", "--select=JAX", helper], cwd=folder,
                            capture_output=True, text=True, timeout=300)
    assert {(helper, int(line.split(":")[1]), line.split()[1]) for line in flake8.stdout.splitlines()
            if ": JAX" in line} == expected, flake8.stdout + flake8.stderr
    buffer = lint_text(str(folder / helper), (folder / helper).read_text(), Config())
    assert {(helper, f.line, f.code) for f in buffer.result.findings} == expected


def test_a_file_linted_alone_after_a_run_over_its_project_keeps_the_importers_traces(tmp_path):
    # `check .` caches each module's own analysis and completes it with the other modules'
    # traces afterwards; standard input (as an editor's buffer) must not take that entry for
    # its own answer, which needs the importers' traces in it
    folder = tmp_path / "p"
    helper = _chain_project(folder, 2)
    text = (folder / helper).read_text()
    (folder / helper).write_text("import jax.numpy as jnp\n" + text.replace("return -n", "return jnp.abs(n)"))
    cache = tmp_path / "cache"
    expected = {(helper, 3, "JAX101")}
    assert _reported(jaxlint("check", "--cache-dir", cache, ".", cwd=folder), folder) == expected
    for _ in range(2):          # the second time from the cache
        alone = jaxlint("check", "--cache-dir", cache, "--stdin-filename", helper, "-", cwd=folder,
                        stdin=(folder / helper).read_text())
        assert _reported(alone, folder) == expected, alone.out + alone.err
    assert _reported(jaxlint("check", "--cache-dir", cache, ".", cwd=folder), folder) == expected


def test_module_imports_are_kept_between_processes_and_read_again_when_a_file_changes(tmp_path, monkeypatch):
    # A helper linted alone needs its importers, found from every module's imports: a new process
    # (a file linted alone, a flake8 worker) takes them from the store instead of every file.
    from jaxlint import project as project_module
    from jaxlint.cache import Cache
    folder = tmp_path / "p"
    shutil.copytree(PROJECTS / "helper_bool", folder, ignore=shutil.ignore_patterns(".jaxlint_cache"))
    for k in range(5):
        (folder / "mypkg" / f"other{k}.py").write_text(f"import os\nfrom mypkg import ops\nX = {k}\n")
    ops = str(folder / "mypkg" / "ops.py")
    cache = Cache(cache_dir=str(tmp_path / "cache"))
    monkeypatch.setattr(project_module, "_CACHE", [cache])
    read = collections.Counter()
    top_level_imports = project_module.top_level_imports

    def counted(data):
        read[data] += 1
        return top_level_imports(data)

    monkeypatch.setattr(project_module, "top_level_imports", counted)

    def importers_in_a_new_process():
        project_module._SHARED.clear()
        project_module.next_run()
        return [os.path.basename(p) for p in Project.at(str(folder)).importers(ops)]

    first = importers_in_a_new_process()
    assert "train.py" in first and "other0.py" in first and sum(read.values()) >= 7
    assert list((tmp_path / "cache").rglob("*.imports"))
    read.clear()
    assert importers_in_a_new_process() == first and not read           # no file read
    other = folder / "mypkg" / "other3.py"
    other.write_text("import os\nX = 3\n")        # no longer imports ops (and its size changed)
    assert importers_in_a_new_process() == [n for n in first if n != "other3.py"]
    assert list(read) == [other.read_bytes()]               # only the changed file read
    form = project_module._IMPORTS_FORMAT
    for damaged in (b"{not json", b'{"format": %d, "root": "elsewhere", "modules": {}}' % form,
                    b'{"format": %d, "root": %s, "modules": {"x": [1]}}' % (form, json.dumps(str(folder)).encode()),
                    b'{"format": %d, "root": %s, "modules": {%s: [1, 2, {}, 3, true]}}'
                    % (form, json.dumps(str(folder)).encode(), json.dumps(ops).encode())):
        next(iter((tmp_path / "cache").rglob("*.imports"))).write_bytes(damaged)
        read.clear()
        assert importers_in_a_new_process() == [n for n in first if n != "other3.py"] and read
    monkeypatch.setattr(project_module, "_CACHE", [None])     # --no-cache: nothing kept
    shutil.rmtree(tmp_path / "cache")
    read.clear()
    importers_in_a_new_process()
    assert read and not (tmp_path / "cache").exists()


def test_importers_traced_calls_are_kept_between_processes_and_analysed_again_when_one_changes(
        tmp_path, monkeypatch):
    # A helper linted alone (a flake8 worker, a pre-commit hook) needs the traced calls its
    # importers make into it; a new process takes them from the cache instead of analysing every
    # importer again, and analyses again only the importer that changed.
    from jaxlint import project as project_module
    from jaxlint.analysis import crossmodule, incoming
    from jaxlint.cache import Cache
    from jaxlint.config import Config
    folder = tmp_path / "p"
    helper = str(folder / _chain_project(folder, 3))
    cache = Cache(cache_dir=str(tmp_path / "cache"))
    monkeypatch.setattr(project_module, "_CACHE", [cache])
    analysed = collections.Counter()
    analysis = incoming.Analysis

    def counted(tree, path, *args, **kwargs):
        analysed[os.path.basename(path)] += 1
        return analysis(tree, path, *args, **kwargs)

    monkeypatch.setattr(incoming, "Analysis", counted)
    read = collections.Counter()
    read_file = project_module._read

    def counted_read(path):
        read[os.path.basename(path)] += 1
        return read_file(path)

    monkeypatch.setattr(project_module, "_read", counted_read)

    def calls_in_a_new_process():
        project_module._SHARED.clear()
        project_module.next_run()
        crossmodule._DIGESTS.clear()
        analysed.clear()
        read.clear()
        return incoming.incoming_calls(Project.at(str(folder)), helper, Config())

    first = calls_in_a_new_process()
    assert [call.name for call in first] == ["f3"] and first[0].entry == "step"
    assert sorted(analysed) == ["m0.py", "m1.py", "m2.py"]
    assert list((tmp_path / "cache").rglob("*.calls"))
    assert calls_in_a_new_process() == first and not analysed            # all from the cache
    assert not {"m0.py", "m1.py", "m2.py"} & set(read)      # nor read: their digests were kept
    # m0's step now marks `n` static: nothing traced reaches the helper any more
    (folder / "chain" / "m0.py").write_text(
        "import functools\n\nimport jax\nfrom chain.m1 import f1\n\n\n"
        "@functools.partial(jax.jit, static_argnums=0)\ndef step(n):\n    return f1(n)\n")
    assert calls_in_a_new_process() == () and "m0.py" in analysed and read["m0.py"]
    for entry in (tmp_path / "cache").rglob("*.calls"):
        entry.write_bytes(b"{not json")                                   # a damaged entry: a miss
    assert calls_in_a_new_process() == () and "m0.py" in analysed
    monkeypatch.setattr(project_module, "_CACHE", [None])               # --no-cache: nothing kept
    shutil.rmtree(tmp_path / "cache")
    assert calls_in_a_new_process() == () and not (tmp_path / "cache").exists()


def test_the_jit_sites_of_an_imported_module_are_named_from_the_cache_in_a_new_process(tmp_path, monkeypatch):
    # A module imported for one name is parsed to learn whether that name is a jit site; a new
    # process learns it from the cache, and parses again only a module that changed.
    from jaxlint import project as project_module
    from jaxlint.analysis import crossmodule
    from jaxlint.cache import Cache
    from jaxlint.config import Config
    folder = tmp_path / "p"
    shutil.copytree(PROJECTS / "ragged_loader", folder, ignore=shutil.ignore_patterns(".jaxlint_cache"))
    model = folder / "fitpkg" / "model.py"
    cache = tmp_path / "cache"
    monkeypatch.setattr(project_module, "_CACHE", [Cache(cache_dir=str(cache))])
    parsed = []
    read = crossmodule._read_jit_entries

    def counted(path, wrappers):
        parsed.append(os.path.basename(path))
        return read(path, wrappers)

    monkeypatch.setattr(crossmodule, "_read_jit_entries", counted)

    def names_in_a_new_process():
        project_module._SHARED.clear()
        project_module.next_run()
        parsed.clear()
        return crossmodule.jit_entry_names(Project.at(str(folder)), str(model), Config())

    assert names_in_a_new_process() == {"fit_step"} and parsed == ["model.py"]
    assert names_in_a_new_process() == {"fit_step"} and parsed == []
    model.write_text(model.read_text() + "\n\n@jax.jit\ndef predict(w, x):\n    return x @ w\n")
    assert names_in_a_new_process() == {"fit_step", "predict"} and parsed == ["model.py"]
    monkeypatch.setattr(project_module, "_CACHE", [None])
    assert names_in_a_new_process() == {"fit_step", "predict"} and parsed == ["model.py"]
    # the caller's finding through the kept names, after an edit of the caller
    train = os.path.join("fitpkg", "train.py")
    expected = {(train, 16, "JAX303")}
    assert _reported(jaxlint("check", "--cache-dir", cache, train, cwd=folder), folder) == expected
    assert list(cache.rglob("*.names"))
    (folder / train).write_text((folder / train).read_text() + "\n# edited\n")
    assert _reported(jaxlint("check", "--cache-dir", cache, train, cwd=folder), folder) == expected
    assert _reported(jaxlint("check", "--no-cache", train, cwd=folder), folder) == expected


def test_projects_sharing_a_cache_folder_do_not_take_each_others_answers(tmp_path):
    # Two projects hold the same `deqsolve/model.py` (same bytes), whose trace calls the helper
    # `deqsolve/ops.py`: unrolled where the count comes from a config module, bounded in the
    # other. One `--cache-dir` for both (a CI cache, a flake8 option) keeps an answer per project:
    # the model's cached traces must not point into the other project's helper.
    cache = tmp_path / "cache"
    ops = os.path.join("deqsolve", "ops.py")
    model = os.path.join("deqsolve", "model.py")
    assert (PROJECTS / "refine_bounded" / model).read_bytes() == (PROJECTS / "refine_from_config" / model).read_bytes()
    answers = {}
    for case in ("refine_bounded", "refine_from_config", "refine_bounded"):
        folder = tmp_path / case
        if not folder.exists():
            shutil.copytree(PROJECTS / case, folder, ignore=shutil.ignore_patterns(".jaxlint_cache"))
        answers.setdefault(case, []).append(
            _reported(jaxlint("check", "--cache-dir", cache, ops, cwd=folder), folder))
        assert answers[case][-1] == _reported(check(ops, cwd=folder), folder)
    assert answers == {"refine_bounded": [set(), set()], "refine_from_config": [{(ops, 5, "JAX302")}]}


def test_check_keeps_module_imports_only_in_its_cache(tmp_path):
    folder = tmp_path / "p"
    shutil.copytree(PROJECTS / "helper_bool", folder, ignore=shutil.ignore_patterns(".jaxlint_cache"))
    ops = os.path.join("mypkg", "ops.py")
    cache = tmp_path / "cache"
    jaxlint("check", "--no-cache", ops, cwd=folder)
    assert not list(folder.rglob("*.imports")) and not cache.exists()
    jaxlint("check", "--cache-dir", cache, ops, cwd=folder)
    [kept] = cache.rglob("*.imports")
    modules = json.loads(kept.read_text())["modules"]
    assert str(folder / "mypkg" / "train.py") in modules
    other = tmp_path / "q"              # a second project with the same --cache-dir: its own store
    shutil.copytree(folder, other, ignore=shutil.ignore_patterns(".jaxlint_cache"))
    jaxlint("check", "--cache-dir", cache, ops, cwd=other)
    stores = {json.loads(p.read_text())["root"]: p for p in cache.rglob("*.imports")}
    assert set(stores) == {str(folder), str(other)} and stores[str(folder)] == kept


def test_roots_and_module_names(tmp_path):
    layout = tmp_path / "proj"
    (layout / "src" / "pkg" / "sub").mkdir(parents=True)
    (layout / "pyproject.toml").write_text("")
    for init in ("src/pkg/__init__.py", "src/pkg/sub/__init__.py"):
        (layout / init).write_text("")
    (layout / "src" / "pkg" / "sub" / "mod.py").write_text("from .. import x\nfrom ..sub import mod as m\n")
    (layout / "src" / "pkg" / "x.py").write_text("def f():\n    pass\n")
    assert find_root(str(layout / "src" / "pkg" / "sub" / "mod.py")) == str(layout)
    project = Project.at(str(layout))
    mod = str(layout / "src" / "pkg" / "sub" / "mod.py")
    assert project.module_name(mod) == "pkg.sub.mod"
    assert project.module_path("pkg.x") == str(layout / "src" / "pkg" / "x.py")
    assert project.absolute("..x", mod) == "pkg.x"
    assert project.resolve("..x.f", mod).path == str(layout / "src" / "pkg" / "x.py")
    assert project.resolve("numpy.zeros", mod) is None       # installed packages stay outside
    loose = tmp_path / "loose"
    (loose / "pkg").mkdir(parents=True)
    (loose / "pkg" / "__init__.py").write_text("")
    (loose / "pkg" / "a.py").write_text("")
    assert find_root(str(loose / "pkg" / "a.py")) == str(loose)   # no marker: above the package


def test_module_names_and_relative_imports_agree_with_the_import_system():
    # the installed jax package as a project rooted at its site-packages folder: every sampled
    # module's file is what importlib finds, and every relative import resolves as Python would
    import jax
    site = pathlib.Path(jax.__file__).resolve().parent.parent
    project = Project(root=str(site), source_roots=[str(site)])
    files = sorted((site / "jax").rglob("*.py"))
    sample = random.Random(0).sample(files, min(120, len(files)))
    relative = 0
    for path in sample:
        name = project.module_name(str(path))
        assert name is not None, path
        try:        # a parent package may import an optional dependency that is not installed
            spec = importlib.util.find_spec(name) if "tests" not in name else None
        except ImportError:
            spec = None
        if spec is not None and spec.origin:
            assert os.path.realpath(spec.origin) == os.path.realpath(project.module_path(name)), name
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        import ast
        for dotted in import_bindings(ast.parse(path.read_text(encoding="utf-8")).body).values():
            if dotted.startswith("."):
                level = len(dotted) - len(dotted.lstrip("."))
                expected = importlib.util.resolve_name("." * level + dotted[level:], package) \
                    if dotted[level:] else importlib.util.resolve_name("." * level, package)
                assert project.absolute(dotted, str(path)) == expected, (path, dotted)
                relative += 1
    assert relative > 20
    assert sys.modules.get("jax") is jax


# What JAX says for each expected code when the project's driver (`run.py`) runs: an error raised
# at the expected line, or, for a recompilation, the jitted function compiled more than once.
RAISES = {"JAX101": ("TracerBoolConversionError",), "JAX102": ("TracerIntegerConversionError",),
          "JAX104": ("Slice entries must be static", "slice indices must have static"),
          "JAX401": ("KeyReuseError",),
          "JAX108": ("Error interpreting argument",),
          "JAX202": ("Non-hashable static arguments",),
          "JAX403": ("Array has been deleted", "deleted or donated"),
          "JAX109": ("UnexpectedTracerError",)}
# Findings on a definition (the jit decorator) whose error JAX raises at each call: the error
# names the function instead of the line.
AT_DEFINITION = {"JAX108"}
# Findings on a store that leaks a tracer: JAX raises where the leaked value is used later (the
# traceback shows that use, and the error names the function that was being traced).
USED_LATER = {"JAX109"}
RECOMPILES = ("JAX201", "JAX204", "JAX301", "JAX303", "JAX304", "JAX305", "JAX306", "JAX307")
RUNNABLE = [c for c in CASES if (c / "run.py").exists()]
LOOK_ALIKES_PINNED = [c for c in RUNNABLE if not _expected(c) and "expected compiles:" in (c / "run.py").read_text()]


@pytest.mark.slow
@pytest.mark.parametrize("folder", RUNNABLE, ids=lambda p: p.name)
def test_each_project_does_under_jax_what_its_expectations_say(folder):
    expected = _expected(folder)
    roots = [str(folder / "src")] if (folder / "src").is_dir() else [str(folder)]
    env = {**os.environ, "JAX_PLATFORMS": "cpu", "JAX_LOG_COMPILES": "1",
           "PYTHONPATH": os.pathsep.join(roots)}
    run = subprocess.run([sys.executable, "run.py"], cwd=folder, env=env, capture_output=True,
                         text=True, timeout=600)
    compiles = collections.Counter(re.findall(r"Compiling jit\(([^)]+)\)", run.stderr))
    findings = {(f["path"], f["line"]): f for f in _json_findings(folder)}
    if not expected:
        assert run.returncode == 0, run.stderr[-3000:]
    from jaxlint.verify.directives import parse_expected_compiles
    for function, count in parse_expected_compiles((folder / "run.py").read_text()).items():
        assert compiles[function] == count, (function, compiles)     # a look-alike compiles as it says
    for path, line, code in sorted(expected):
        if code in RAISES:
            assert run.returncode != 0 and any(text in run.stderr for text in RAISES[code]), run.stderr[-3000:]
            if code in AT_DEFINITION:
                function = next(f["function"] for (file, at), f in findings.items()
                                if file.endswith(path) and at == line)
                assert f"function {function} at" in run.stderr, run.stderr[-3000:]
                continue
            if code in USED_LATER:
                traced = next(f["entry"] for (file, at), f in findings.items() if file.endswith(path) and at == line)
                assert f"was {traced.rsplit('.', 1)[-1]} at" in run.stderr, (traced, run.stderr[-3000:])
                continue
            assert f'{path}", line {line}' in run.stderr, run.stderr[-3000:]
        elif code == "JAX402":
            # JAX warns and truncates (the warning names JAX's frame, not the request's line)
            assert "Explicitly requested dtype" in run.stderr and "will be truncated" in run.stderr, run.stderr[-3000:]
        elif code == "JAX302":
            # run.py stages the jitted function at two trip counts: unrolled, the program grows
            sizes = [(int(n), int(e)) for n, e in re.findall(r"equations at (\d+) iterations: (\d+)", run.stdout)]
            assert len(sizes) >= 2, run.stdout[-2000:]
            (n1, e1), (n2, e2) = sorted(sizes)[0], sorted(sizes)[-1]
            assert n2 > n1 and e2 - e1 >= n2 - n1, sizes      # at least one equation per extra iteration
        else:
            assert code in RECOMPILES, code
            function = next(f["function"] for (file, at), f in findings.items()
                            if file.endswith(path) and at == line).rsplit(".", 1)[-1]
            assert compiles[function] > 1, (function, compiles)


def _json_findings(folder) -> list:
    import json
    result = check(".", "--format", "json", cwd=folder)
    return json.loads(result.out)["findings"]


def test_a_jit_signature_changed_in_another_module_is_seen_through_the_cache(tmp_path):
    folder = tmp_path / "p"
    shutil.copytree(PROJECTS / "rollout_static", folder)
    cache = ["check", "--cache-dir", str(tmp_path / "cache")]     # the cache on: `check` turns it off
    assert _reported(jaxlint(*cache, ".", cwd=folder), folder) == {("sim/experiment.py", 10, "JAX201")}
    # `n_steps` traced now: the caller's unchanged file has nothing left to report
    dynamics = folder / "sim" / "dynamics.py"
    original = dynamics.read_text()
    dynamics.write_text(original.replace('static_argnames=("n_steps",)', "static_argnames=()"))
    assert _reported(jaxlint(*cache, ".", cwd=folder), folder) == set()
    dynamics.write_text(original)
    assert _reported(jaxlint(*cache, "sim/experiment.py", cwd=folder), folder) == {("sim/experiment.py", 10, "JAX201")}


def test_a_module_two_hops_away_changed_is_seen_through_the_cache(tmp_path):
    # loop.py calls update.momentum_step, whose returned state reads settings.BETA: the cached
    # result for loop.py depends on settings.py, which loop.py never imports
    folder = tmp_path / "p"
    shutil.copytree(PROJECTS / "momentum_none", folder)
    cache = ["check", "--cache-dir", str(tmp_path / "cache")]     # the cache on: `check` turns it off
    assert _reported(jaxlint(*cache, "optim/loop.py", cwd=folder), folder) == {("optim/loop.py", 9, "JAX307")}
    settings = folder / "optim" / "settings.py"
    settings.write_text(settings.read_text().replace("BETA = 0.9", "BETA = 1"))   # `1 * mom`: may be a tuple
    assert _reported(jaxlint(*cache, "optim/loop.py", cwd=folder), folder) == set()


def test_a_local_name_hiding_the_imported_jit_is_not_its_call(tmp_path):
    folder = tmp_path / "p"
    shutil.copytree(PROJECTS / "rollout_static", folder)
    experiment = folder / "sim" / "experiment.py"
    experiment.write_text(experiment.read_text().replace(
        "    results = []\n", "    results = []\n    rollout = lambda s, n_steps: s * n_steps\n"))
    assert _reported(check(".", cwd=folder), folder) == set()


@pytest.mark.parametrize("folder", CASES, ids=lambda p: p.name)
def test_flake8_reports_what_check_reports_across_modules(folder, tmp_path):
    # the plugin's cache on, kept out of the source tree
    flake8 = subprocess.run([sys.executable, "-m", "flake8", "--select=JAX", f"--jaxlint-cache-dir={tmp_path}",
                             "."], cwd=folder, capture_output=True, text=True, timeout=300)
    found = {(line.split(":")[0].removeprefix("./"), int(line.split(":")[1]), line.split()[1])
             for line in flake8.stdout.splitlines() if ": JAX" in line}
    assert found == _expected(folder), flake8.stdout + flake8.stderr
    alone = subprocess.run([sys.executable, "-m", "flake8", "--select=JAX", "--jaxlint-no-project",
                            f"--jaxlint-cache-dir={tmp_path}", "."],
                           cwd=folder, capture_output=True, text=True, timeout=300)
    assert ": JAX" not in alone.stdout, alone.stdout + alone.stderr


def test_an_editor_buffer_of_a_helper_sees_the_trace_from_its_importer(tmp_path):
    # the language server's and stdin's path: one buffer, the project read around it from disk
    from jaxlint.config import Config
    from jaxlint.runner import lint_text
    folder = tmp_path / "p"
    shutil.copytree(PROJECTS / "helper_bool", folder)
    ops = folder / "mypkg" / "ops.py"
    report = lint_text(str(ops), ops.read_text(), Config())
    assert [(f.line, f.code) for f in report.result.findings] == [(5, "JAX101")]
    assert "train.py" in "".join(str(hop) for f in report.result.findings for hop in f.chain)
    alone = lint_text(str(ops), ops.read_text(), Config(project_analysis=False))
    assert alone.result.findings == []


def test_a_buffer_of_a_helper_that_never_names_jax_is_still_linted_under_its_importer(tmp_path):
    from jaxlint.config import Config
    from jaxlint.runner import lint_text
    folder = tmp_path / "p"
    shutil.copytree(PROJECTS / "schedule_from_config", folder)
    schedule = folder / "lrsched" / "schedule.py"
    assert b"jax" not in schedule.read_bytes()
    report = lint_text(str(schedule), schedule.read_text(), Config())
    assert [(f.line, f.code) for f in report.result.findings] == [(5, "JAX102")]


def test_every_runnable_look_alike_pins_its_compiles():
    # a clean project must show that JAX compiles its jitted functions no more often than meant
    assert {c.name for c in RUNNABLE if not _expected(c)} == {c.name for c in LOOK_ALIKES_PINNED}


def test_a_long_lived_project_sees_a_new_importer_after_refresh(tmp_path):
    # the language server keeps one Project: a module that starts importing the helper is found
    from jaxlint.config import Config
    from jaxlint.project import project_of
    from jaxlint.runner import lint_text
    folder = tmp_path / "p"
    shutil.copytree(PROJECTS / "helper_bool", folder)
    train, ops = folder / "mypkg" / "train.py", folder / "mypkg" / "ops.py"
    original = train.read_text()
    train.write_text(original.replace("from mypkg.ops import clip_positive\n", "")
                     .replace("clip_positive(x, limit)", "x"))
    assert lint_text(str(ops), ops.read_text(), Config()).result.findings == []
    train.write_text(original)
    project = project_of(str(ops), Config())
    assert project.refresh()
    assert [f.code for f in lint_text(str(ops), ops.read_text(), Config()).result.findings] == ["JAX101"]
    assert not project.refresh()


def test_a_long_lived_project_sees_a_change_two_modules_up(tmp_path):
    # the server keeps the answer for the helper; the jitted step two modules up stops jitting
    # (or its buffer does, unsaved): the answer is read again, not served stale
    from jaxlint.config import Config
    from jaxlint.project import project_of, set_buffer
    from jaxlint.runner import lint_text
    folder = tmp_path / "p"
    shutil.copytree(PROJECTS / "helper_two_hops", folder)
    train, ops = folder / "mypkg" / "train.py", folder / "mypkg" / "ops.py"
    project = project_of(str(ops), Config())

    def codes():
        project.refresh()
        return [f.code for f in lint_text(str(ops), ops.read_text(), Config()).result.findings]

    assert codes() == ["JAX101"]
    original = train.read_text()
    set_buffer(str(train), original.replace("@jax.jit\n", "").encode())
    try:
        assert codes() == []
    finally:
        set_buffer(str(train), None)
    assert codes() == ["JAX101"]
    train.write_text(original.replace("@jax.jit\n", ""))
    assert codes() == []


def test_a_constant_of_another_module_keeps_its_line_there():
    from jaxlint.analysis.crossmodule import _statement_value
    data = b'"""Settings."""\nimport os\n\nLAYERS = [\n    64, 64]\n'
    value = _statement_value(data, data.index(b"LAYERS"), "LAYERS")
    assert value is not None and value.lineno == 4 and value.end_lineno == 5


def test_a_finding_names_the_other_module_a_yield_is_in():
    folder = PROJECTS / "mask_none_loader"
    [finding] = _json_findings(folder)
    assert finding["code"] == "JAX307" and "data.py:8" in finding["detail"] and "data.py:12" in finding["detail"], \
        finding["detail"]


def test_flake8_keeps_results_in_the_cache_and_an_edit_of_another_module_reanalyses(tmp_path):
    # The plugin answers an unchanged file from jaxlint's cache, and a cached answer depends on
    # the modules its analysis read: editing the jitted step in m0.py changes the helper's finding.
    folder = tmp_path / "p"
    helper = _chain_project(folder, 1)
    cache = tmp_path / "cache"

    def flake8(*extra):
        proc = subprocess.run([sys.executable, "-m", "flake8", "--select=JAX", f"--jaxlint-cache-dir={cache}",
                               *extra, "."], cwd=folder, capture_output=True, text=True, timeout=300)
        return {(line.split(":")[0].removeprefix("./"), int(line.split(":")[1]), line.split()[1])
                for line in proc.stdout.splitlines() if ": JAX" in line}, proc

    first, proc = flake8()
    assert first == {(helper, 2, "JAX101")}, proc.stdout + proc.stderr
    entries = {p.name: p.stat().st_mtime_ns for p in cache.rglob("*.json")}
    assert entries, "the plugin wrote no cache entry"
    again, _ = flake8()
    assert again == first
    assert {p.name: p.stat().st_mtime_ns for p in cache.rglob("*.json")} == entries   # all hits
    # the jitted step now marks `n` static: the helper's condition is concrete
    (folder / "chain" / "m0.py").write_text(
        "import functools\n\nimport jax\nfrom chain.m1 import f1\n\n\n"
        "@functools.partial(jax.jit, static_argnums=0)\ndef step(n):\n    return f1(n)\n")
    after, proc = flake8()
    assert after == set(), proc.stdout
    uncached, _ = flake8("--jaxlint-no-cache")
    assert uncached == set()


def test_a_file_changed_while_the_run_waits_is_analysed_as_it_is_and_not_cached(tmp_path, monkeypatch):
    # A pending file holds only the size and hash of the bytes its cache key was computed from,
    # and is read again when its turn comes; if it changed meanwhile, the new text is analysed
    # and its result is not stored under the key of the old text.
    from jaxlint import runner
    from jaxlint.cache import Cache
    from jaxlint.config import Config
    path = tmp_path / "step.py"
    old = "import jax\n\n@jax.jit\ndef f(x, n):\n    if n > 0:\n        return x\n    return -x\n"
    path.write_text(old)
    new = old.replace("    if n > 0:\n        return x\n    return -x\n", "    return x * n\n")
    read_again = runner._read_again

    def edited_meanwhile(item):
        path.write_text(new)
        return read_again(item)

    monkeypatch.setattr(runner, "_read_again", edited_meanwhile)
    cache = Cache(str(tmp_path / "cache"))
    [report] = runner.run([(str(path), Config())], jobs=1, cache=cache)
    assert [f.code for f in report.result.findings] == []             # what the file holds now
    monkeypatch.setattr(runner, "_read_again", read_again)
    path.write_text(old)
    [again] = runner.run([(str(path), Config())], jobs=1, cache=cache)
    assert [f.code for f in again.result.findings] == ["JAX101"]      # not the stale result
    assert cache.hits == 0


def test_another_module_asked_again_is_read_once_per_analysis(tmp_path):
    # More modules asked than the shared cache keeps: each is still analysed once for the file
    # asking (a file that rotates through them used to re-read every module at every question).
    from jaxlint.analysis import file as file_analysis
    from jaxlint.analysis.file import Analysis
    from jaxlint.project import next_run, project_at
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\n')
    helpers = []
    for k in range(file_analysis.MAX_MODULES + 2):
        helper = tmp_path / f"helper{k}.py"
        helper.write_text(f"def value():\n    return {k}\n")
        helpers.append(str(helper))
    main = tmp_path / "main.py"
    text = "import jax\n" + "".join(f"from helper{k} import value as v{k}\n" for k in range(len(helpers)))
    main.write_text(text)
    analysis = Analysis(ast.parse(text), str(main), lines=text.splitlines(), project=project_at(str(tmp_path)))
    first = [analysis.other_module(path) for path in helpers]
    again = [analysis.other_module(path) for path in helpers]
    assert all(a is not None and a is b for a, b in zip(first, again))
    assert len(analysis.read_modules) == len(helpers)
    pathlib.Path(helpers[0]).write_text("def value():\n    return 10\n\n\nX = 1\n")
    next_run()          # a run reads each file once: the next one sees the change
    assert analysis.other_module(helpers[0]) is not first[0]         # the file changed: read anew


def test_kept_answers_are_bounded_by_count_and_by_their_source_bytes():
    # The caches of other modules' trees and analyses: a few of jax's largest modules would
    # otherwise hold tens of megabytes at once.
    from jaxlint.analysis.crossmodule import Kept
    kept = Kept(3, 1000)
    for k in range(4):
        kept.put(k, f"tree{k}", 100)
    assert 0 not in kept and [kept.get(k) for k in (1, 2, 3)] == ["tree1", "tree2", "tree3"]
    kept.get(1)                          # asked again: now the newest
    kept.put("big", "big tree", 850)     # 100 + 100 + 850 > 1000: the oldest asked go first
    assert 2 not in kept and 3 not in kept and kept.get(1) == "tree1" and kept.get("big") == "big tree"
    kept.put("huge", "huge tree", 5000)  # larger than the whole budget: kept alone, as the newest
    assert len(kept) == 1 and kept.get("huge") == "huge tree"
    kept.put("huge", "again", 10)        # the same key replaced: its bytes counted once
    kept.put("small", "small tree", 990)
    assert kept.get("huge") == "again" and kept.get("small") == "small tree"


def test_other_modules_kept_for_later_questions_fit_the_source_budget(tmp_path):
    # Two large helper modules: the analysis of the first is dropped when the second would
    # exceed the bytes kept (it is analysed again when asked again); a small one stays.
    from jaxlint.analysis import file as file_analysis
    from jaxlint.project import project_at
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\n')
    budget = file_analysis._MODULES.source_bytes
    filler = "X = 0\n" * (budget // 10)           # 0.6 of the budget
    big = []
    for k in range(2):
        helper = tmp_path / f"big{k}.py"
        helper.write_text(f"def value():\n    return {k}\n" + filler)
        big.append(str(helper))
    assert all(budget // 2 < os.path.getsize(p) < budget for p in big)
    small = tmp_path / "small.py"
    small.write_text("def value():\n    return 7\n")
    project = project_at(str(tmp_path))
    big0 = file_analysis.module_analysis(project, big[0])
    assert big0 is not None and file_analysis.module_analysis(project, big[0]) is big0   # kept while it fits
    kept_small = file_analysis.module_analysis(project, str(small))
    file_analysis.module_analysis(project, big[1])
    assert file_analysis.module_analysis(project, str(small)) is kept_small
    again = file_analysis.module_analysis(project, big[0])
    assert again is not None and again is not big0                       # dropped, read anew


def test_a_file_deleted_while_the_run_waits_is_reported_as_unreadable(tmp_path, monkeypatch):
    from jaxlint import runner
    from jaxlint.config import Config
    path = tmp_path / "step.py"
    path.write_text("import jax\n\n@jax.jit\ndef f(x, n):\n    if n > 0:\n        return x\n    return -x\n")
    read_again = runner._read_again

    def deleted_meanwhile(item):
        path.unlink()
        return read_again(item)

    monkeypatch.setattr(runner, "_read_again", deleted_meanwhile)
    [report] = runner.run([(str(path), Config())], jobs=1)
    assert report.result.findings == []
    assert "cannot read file" in (report.result.error or "")


def test_a_long_lived_project_sees_a_root_marker_come_and_go(tmp_path):
    # a folder of loose scripts is not one program; adding pyproject.toml makes it one project
    (tmp_path / "a.py").write_text("import jax\njax.config.update('jax_enable_x64', True)\n")
    (tmp_path / "b.py").write_text("x = 1\n")
    project = Project(str(tmp_path))
    project.refresh()
    assert not project.marked and not project.mentions(["enable_x64"])
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    assert project.refresh()
    assert project.marked and project.mentions(["enable_x64"])
    assert not project.refresh()
    (tmp_path / "pyproject.toml").unlink()
    assert project.refresh()
    assert not project.marked and not project.mentions(["enable_x64"])


def _lint_in_process(folder, cache, monkeypatch) -> tuple:
    """(findings as _reported gives them, basenames of the files analysed) of `jaxlint check -j1`
    over `folder` in this process, as a new process would run it (nothing kept in memory)."""
    from jaxlint import engine
    from jaxlint import project as project_module
    from jaxlint.analysis import crossmodule
    from jaxlint.cli import main
    analysed = []
    analyse_tree = engine.analyse_tree

    def counted(tree, path, *args, **kwargs):
        analysed.append(os.path.basename(path))
        return analyse_tree(tree, path, *args, **kwargs)

    monkeypatch.setattr(engine, "analyse_tree", counted)
    project_module._SHARED.clear()
    project_module.next_run()
    crossmodule._DIGESTS.clear()
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    args = ["--no-cache"] if cache is None else ["--cache-dir", str(cache)]
    monkeypatch.chdir(folder)
    main(["check", "-j1", *args, "."])
    monkeypatch.setattr(sys, "stdout", sys.__stdout__)

    class Result:
        pass
    result = Result()
    result.out = out.getvalue()
    return _reported(result, folder), sorted(set(analysed))


def test_an_edit_that_jits_no_called_name_keeps_the_importers_cached_results(tmp_path, monkeypatch):
    # train.py learnt from model.py only that `init` is no jit site; an edit of model.py that
    # keeps it so does not analyse train.py again, one that jits it does (and JAX202 appears)
    folder = tmp_path / "p"
    (folder / "pkg").mkdir(parents=True)
    (folder / "pyproject.toml").write_text('[project]\nname = "pkg"\n')
    (folder / "pkg" / "__init__.py").write_text("")
    model = folder / "pkg" / "model.py"
    model.write_text("import jax\n\n\ndef init(key, widths):\n    keys = jax.random.split(key, len(widths))\n"
                     "    return [jax.random.normal(k, (w,)) for k, w in zip(keys, widths)]\n")
    (folder / "pkg" / "train.py").write_text(
        "import jax\n\nfrom pkg.model import init\n\n\ndef build(seed):\n"
        "    return init(jax.random.key(seed), widths=[4, 8])\n")
    cache = tmp_path / "cache"
    assert _lint_in_process(folder, cache, monkeypatch) == (set(), ["model.py", "train.py"])
    model.write_text(model.read_text() + "\n\ndef width(n):\n    return 2 * n\n")
    assert _lint_in_process(folder, cache, monkeypatch) == (set(), ["model.py"])
    model.write_text("from functools import partial\n\n" + model.read_text().replace(
        "def init", '@partial(jax.jit, static_argnames=("widths",))\ndef init'))
    found, analysed = _lint_in_process(folder, cache, monkeypatch)
    assert found == {("pkg/train.py", 7, "JAX202")} and "train.py" in analysed
    assert _lint_in_process(folder, None, monkeypatch)[0] == found


def test_an_edit_that_makes_a_helper_keep_state_is_seen_through_the_cached_results(tmp_path, monkeypatch):
    # the jitted init's result read from seeding.py that fresh_key keeps no state; once it does
    # (a global key split under jit, JAX109), the cached result no longer holds
    folder = tmp_path / "p"
    shutil.copytree(PROJECTS / "jit_init_global_seed", folder, ignore=shutil.ignore_patterns(".jaxlint_cache"))
    seeding = folder / "nets" / "seeding.py"
    storing = seeding.read_text()
    seeding.write_text("import jax\n\n\ndef fresh_key():\n    return jax.random.PRNGKey(42)\n")
    cache = tmp_path / "cache"
    found, analysed = _lint_in_process(folder, cache, monkeypatch)
    assert found == set() and "model.py" in analysed
    seeding.write_text(seeding.read_text() + "\n\nSEED = 42\n")       # still keeps no state
    assert _lint_in_process(folder, cache, monkeypatch) == (set(), ["seeding.py"])
    seeding.write_text(storing)
    expected = _lint_in_process(folder, None, monkeypatch)[0]
    assert expected == {("nets/seeding.py", 8, "JAX109")}
    assert _lint_in_process(folder, cache, monkeypatch)[0] == expected


def _edits_of_a_module_read_by_an_importer(tmp_path, monkeypatch, case, module, expected, keep, change):
    """In a copy of test project `case`, the importer whose finding is `expected` (one) read a fact
    of `module`: the edit `keep` leaves that fact as it was, so a warm run does not analyse the
    importer again and reports the same; the edit `change` changes it, so the importer is
    analysed again and the finding goes, as a run without cache says."""
    folder = tmp_path / "p"
    shutil.copytree(PROJECTS / case, folder, ignore=shutil.ignore_patterns(".jaxlint_cache"))
    edited = folder / module
    cache = tmp_path / "cache"
    [(importer, _, _)] = expected
    importer = os.path.basename(importer)
    assert _lint_in_process(folder, None, monkeypatch)[0] == expected
    assert _lint_in_process(folder, cache, monkeypatch)[0] == expected
    edited.write_text(keep(edited.read_text()))
    found, analysed = _lint_in_process(folder, cache, monkeypatch)
    assert found == expected and importer not in analysed
    edited.write_text(change(edited.read_text()))
    found, analysed = _lint_in_process(folder, cache, monkeypatch)
    assert found == set() == _lint_in_process(folder, None, monkeypatch)[0] and importer in analysed


def test_an_edit_of_a_config_module_analyses_again_only_the_modules_whose_constant_changed(tmp_path, monkeypatch):
    # train.py passes hparams.WIDTHS (a list) as a static argument (JAX202): a new name in
    # hparams.py leaves its cached result valid, a tuple for WIDTHS does not
    _edits_of_a_module_read_by_an_importer(
        tmp_path, monkeypatch, "static_from_config", "net/hparams.py", {("net/train.py", 8, "JAX202")},
        keep=lambda text: text + "DEPTH = 3\n", change=lambda text: "WIDTHS = (4, 8, 2)\nDEPTH = 3\n")


def test_an_edit_beside_an_imported_class_keeps_the_results_that_read_it(tmp_path, monkeypatch):
    # main.py passes a ModelConfig of settings.py (an eq dataclass, unhashable) as a static
    # argument (JAX202): a new function in settings.py keeps main.py's cached result, a frozen
    # ModelConfig does not
    _edits_of_a_module_read_by_an_importer(
        tmp_path, monkeypatch, "static_config_class", "exp/settings.py", {("exp/main.py", 9, "JAX202")},
        keep=lambda text: text + "\n\ndef default():\n    return ModelConfig()\n",
        change=lambda text: text.replace("@dataclasses.dataclass", "@dataclasses.dataclass(frozen=True)"))


def test_a_fact_entry_of_unknown_kind_or_shape_is_a_changed_module(tmp_path):
    from jaxlint.analysis.crossmodule import (compact_depends, dependency_holds, depended_files, file_digest,
                                              record_not_jit)
    module = tmp_path / "m.py"
    module.write_text("def f():\n    return 1\n")
    depends: dict = {}
    record_not_jit(depends, str(module), "f", None)
    [(key, digest)] = depends.items()
    assert dependency_holds(key, digest) and depended_files(depends) == {str(module)}
    assert dependency_holds(str(module), file_digest(str(module)))
    module.write_text("def f():\n    return 2\n\n\nX = 1\n")
    next_run()                      # a new run looks at the files again
    assert dependency_holds(key, digest) and not dependency_holds(str(module), digest)
    both = dict(depends)
    both[str(module)] = digest
    assert compact_depends(both) == {str(module): digest} and compact_depends(depends) == depends
    for damaged in (key.replace("not jit", "no such fact"), key.rsplit("\0", 2)[0]):
        with pytest.raises((KeyError, ValueError, TypeError)):
            dependency_holds(damaged, digest)
