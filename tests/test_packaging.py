"""What a user installing from PyPI gets: the licence and its metadata, project URLs that agree,
classifiers that match `requires-python`, one version shared by the package, the metadata and
the changelog, README links that work off GitHub, and an sdist that holds the package and leaves
the test suite (which needs a clone) out."""

import email
import importlib.util
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

import jaxlint

ROOT = Path(__file__).resolve().parent.parent
REPOSITORY = "https://github.com/jaxlint/jaxlint"

if sys.version_info >= (3, 11):
    import tomllib
else:                                           # pragma: no cover - 3.10
    tomllib = pytest.importorskip("tomli")

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
PROJECT = PYPROJECT["project"]


def test_licence_file_matches_the_declared_licence():
    assert PROJECT["license"] == "Apache-2.0"
    assert PROJECT["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION" in text


def test_project_urls_point_at_one_repository():
    urls = PROJECT["urls"]
    assert set(urls) >= {"Homepage", "Documentation", "Changelog", "Issues"}
    assert all(url.startswith(REPOSITORY) for url in urls.values()), urls
    from jaxlint.engine import ISSUE_URL
    from jaxlint.reporters import DOCS_URL
    assert ISSUE_URL == urls["Issues"] and DOCS_URL.startswith(REPOSITORY + "/blob/main/")


def test_classifiers_name_every_supported_python():
    classifiers = PROJECT["classifiers"]
    assert PROJECT["requires-python"] == ">=3.10"
    versions = sorted(c.rsplit(" ", 1)[-1] for c in classifiers
                      if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c))
    assert versions == ["3.10", "3.11", "3.12", "3.13"]
    for wanted in ("Operating System :: OS Independent", "Intended Audience :: Developers"):
        assert wanted in classifiers
    assert any(c.startswith("Development Status :: ") for c in classifiers)


def test_version_is_one_constant_and_the_newest_release():
    assert PROJECT["dynamic"] == ["version"] and "version" not in PROJECT
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "jaxlint.__version__"}
    assert jaxlint.__version__ == "0.1.0"
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## \[([^\]]+)\](.*)$", changelog, re.MULTILINE)
    assert headings[0] == ("Unreleased", "")
    assert headings[1][0] == jaxlint.__version__
    assert re.fullmatch(r" - \d{4}-\d{2}-\d{2}", headings[1][1])
    # Unreleased is empty until something changes after the release
    between = changelog.split("## [Unreleased]", 1)[1].split(f"## [{jaxlint.__version__}]", 1)[0]
    assert between.strip() == ""
    # every heading has its link reference at the bottom
    references = dict(re.findall(r"^\[([^\]]+)\]: (\S+)$", changelog, re.MULTILINE))
    assert set(references) >= {name for name, _ in headings}
    assert all(url.startswith(REPOSITORY) for url in references.values())


def test_readme_links_work_on_pypi():
    """PyPI shows the README without the repository around it: a relative link is broken there."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)\s]+)\)", readme)
    assert targets, "the README links to its documentation"
    relative = [t for t in targets if not re.match(r"[a-z]+:|#", t)]
    assert relative == []
    for target in targets:
        if target.startswith(REPOSITORY + "/blob/main/"):
            path = target[len(REPOSITORY + "/blob/main/"):].split("#")[0]
            assert (ROOT / path).exists(), target


@pytest.mark.slow
def test_sdist_holds_the_package_and_leaves_the_tests_out(tmp_path):
    if importlib.util.find_spec("build") is None:
        pytest.skip("`build` is not installed (pip install build, or the `test` extra)")
    # built from a copy: building writes metadata (src/*.egg-info) into the tree it builds
    tree = tmp_path / "tree"
    shutil.copytree(ROOT, tree, ignore=shutil.ignore_patterns(
        ".git", "__pycache__", "*.egg-info", ".jaxlint_cache", ".hypothesis", ".pytest_cache",
        "build", "dist", ".corpus", "fuzz-out"))
    out = tmp_path / "dist"
    proc = subprocess.run([sys.executable, "-m", "build", "--sdist", "--outdir", str(out),
                           str(tree)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    sdist, = out.glob("*.tar.gz")
    assert sdist.name == f"flake8_jaxlint-{jaxlint.__version__}.tar.gz"
    with tarfile.open(sdist) as tar:
        names = {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}
        pkg_info = email.message_from_bytes(
            tar.extractfile(f"flake8_jaxlint-{jaxlint.__version__}/PKG-INFO").read())
    for wanted in ("LICENSE", "README.md", "CHANGELOG.md", "pyproject.toml", "docs/rules.md"):
        assert wanted in names
    package = {p.relative_to(ROOT).as_posix() for p in (ROOT / "src" / "jaxlint").rglob("*.py")
               if "__pycache__" not in p.parts}
    assert package <= names, sorted(package - names)
    # the test suite needs a clone (git, the example, the hook file): it is not shipped half-way
    assert not [n for n in names if n.startswith(("tests/", "benchmarks/", ".ci/"))]
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
    assert pkg_info["Version"] == jaxlint.__version__
    assert pkg_info["License-Expression"] == "Apache-2.0"
    assert pkg_info.get_all("License-File") == ["LICENSE"]
    urls = dict(u.split(", ", 1) for u in pkg_info.get_all("Project-URL"))
    assert urls == PROJECT["urls"]


README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_readme_opens_with_the_newcomers_commands_then_the_users_first_screen():
    lines = README.splitlines()
    assert lines[0] == "# jaxlint"
    commands = [line.strip() for line in lines[1:6] if line.startswith("    ")]
    assert commands == ["pip install -e . && jaxlint check examples/train.py",
                        'pip install -e ".[test]" && python -m pytest -q']
    headings = re.findall(r"^## (.+)$", README, re.MULTILINE)
    first_screen = ["Install", "Run", "In CI: GitHub Actions with code scanning", "Develop",
                    "What it does not do yet"]
    assert headings[:len(first_screen)] == first_screen
    for family in ("trace-time failures", "static-argument mistakes", "silent recompilation"):
        assert family in README.split("## Install")[0]
    develop = README.split("## Develop")[1].split("\n## ")[0]
    assert 'python -m pytest -q -m "not slow"' in develop and "python -m pytest -q " in develop


@pytest.mark.slow
def test_readme_ci_snippet_writes_sarif_that_the_upload_step_reads(tmp_path):
    """The workflow's jaxlint step, run as written on the shipped example."""
    from console import run
    snippet = README.split("```yaml", 1)[1].split("```", 1)[0]
    assert "uses: github/codeql-action/upload-sarif@" in snippet
    step, = [line.strip()[len("- run: "):] for line in snippet.splitlines()
             if line.strip().startswith("- run: jaxlint ")]
    sarif_file, = re.findall(r"sarif_file: (\S+)", snippet)
    (tmp_path / "train.py").write_text((ROOT / "examples" / "train.py").read_text())
    proc = run(*step.split()[1:], cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr            # findings fail the job
    import json
    report = json.loads((tmp_path / sarif_file).read_text())
    assert report["version"] == "2.1.0" and len(report["runs"][0]["results"]) == 3
