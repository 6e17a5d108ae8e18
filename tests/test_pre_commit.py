"""The published pre-commit hook, run by the real `pre-commit try-repo` against this checkout.

pre-commit builds the hook's environment by pip-installing this repository into a fresh
virtualenv (it needs the package index or a local mirror), once per try-repo run. To keep that
short we skip bytecode compilation and, where virtualenv seeds setuptools, build isolation.
"""

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow     # subprocesses, JAX or a language server: seconds each

ROOT = pathlib.Path(__file__).resolve().parent.parent
BAD = "import jax\n\n\n@jax.jit\ndef f(x, n):\n    return x[:n]\n"
GOOD = ("import functools\n\nimport jax\n\n\n@functools.partial(jax.jit, static_argnames=('n',))\n"
        "def f(x, n):\n    return x[:n]\n")


def hook_env(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"), PIP_NO_COMPILE="1",
               PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_PROGRESS_BAR="off", NO_COLOR="1")
    try:
        from virtualenv.seed.wheels.embed import BUNDLE_SUPPORT
        if "setuptools" in BUNDLE_SUPPORT.get(f"{sys.version_info[0]}.{sys.version_info[1]}", {}):
            env["PIP_NO_BUILD_ISOLATION"] = "0"     # pip's spelling of --no-build-isolation
    except ImportError:
        pass
    return env


PRE_COMMIT = shutil.which("pre-commit")
pytestmark = pytest.mark.skipif(PRE_COMMIT is None, reason="the pre-commit tool is not installed "
                                "(pip install pre-commit, or the project's [test] extra)")


def try_repo(project, env, *files):
    return subprocess.run([PRE_COMMIT, "try-repo", str(ROOT), "jaxlint", "--verbose",
                           "--files", *(files or ["bad.py"])],
                          cwd=project, env=env, capture_output=True, text=True, timeout=900)


def test_the_hook_runs_once_per_commit_with_the_projects_excludes():
    """ruff-pre-commit's settings: one process (so one summary and jaxlint's own parallelism)
    and --force-exclude (pre-commit names every staged file, excluded ones included)."""
    import yaml
    [hook] = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["require_serial"] is True
    assert hook["entry"].split() == ["jaxlint", "check", "--force-exclude"]


def test_pre_commit_hook_fails_on_a_finding_and_passes_after_the_fix(tmp_path):
    assert (ROOT / ".pre-commit-hooks.yaml").exists()
    project = tmp_path / "project"
    project.mkdir()
    env = hook_env(tmp_path)
    subprocess.run(["git", "init", "-q"], cwd=project, env=env, check=True)
    (project / "bad.py").write_text(BAD)
    subprocess.run(["git", "add", "bad.py"], cwd=project, env=env, check=True)

    (project / "pyproject.toml").write_text('[tool.jaxlint]\nextend-exclude = ["generated"]\n')
    (project / "generated").mkdir()
    (project / "generated" / "gen.py").write_text(BAD)     # excluded: --force-exclude skips it
    (project / "other.py").write_text(BAD)
    subprocess.run(["git", "add", "."], cwd=project, env=env, check=True)
    failed = try_repo(project, env, "bad.py", "other.py", "generated/gen.py")
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "jaxlint" in failed.stdout and "Failed" in failed.stdout
    assert "bad.py:6:12: JAX104" in failed.stdout and "other.py:6:12: JAX104" in failed.stdout
    assert "gen.py" not in failed.stdout
    # one process for every file: one summary (require_serial: true)
    assert failed.stdout.count("Found 2 findings in 2 files (2 files checked).") == 1, failed.stdout
    (project / "other.py").write_text(GOOD)
    subprocess.run(["git", "add", "other.py"], cwd=project, env=env, check=True)

    (project / "bad.py").write_text(GOOD)
    subprocess.run(["git", "add", "bad.py"], cwd=project, env=env, check=True)
    passed = try_repo(project, env, "bad.py", "other.py", "generated/gen.py")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "Passed" in passed.stdout and "JAX104" not in passed.stdout


def test_the_readmes_local_hook_runs_the_installed_jaxlint(tmp_path):
    """Until the first release the README points at `repo: local`: its snippet, as written,
    must run jaxlint with the published hook's settings."""
    import re
    readme = (ROOT / "README.md").read_text()
    [snippet] = [block for block in re.findall(r"```yaml\n(.*?)```", readme, re.S)
                 if "repo: local" in block]
    project = tmp_path / "project"
    project.mkdir()
    env = hook_env(tmp_path)
    subprocess.run(["git", "init", "-q"], cwd=project, env=env, check=True)
    (project / ".pre-commit-config.yaml").write_text(snippet)
    (project / "pyproject.toml").write_text('[tool.jaxlint]\nextend-exclude = ["gen.py"]\n')
    (project / "bad.py").write_text(BAD)
    (project / "gen.py").write_text(BAD)
    subprocess.run(["git", "add", "."], cwd=project, env=env, check=True)
    run = subprocess.run([PRE_COMMIT, "run", "--all-files", "--verbose"], cwd=project, env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 1 and "bad.py:6:12: JAX104" in run.stdout, run.stdout + run.stderr
    assert "gen.py" not in run.stdout
    assert run.stdout.count("Found 1 finding in 1 file (1 file checked).") == 1, run.stdout
