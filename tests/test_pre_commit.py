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


def try_repo(project, env):
    pre_commit = shutil.which("pre-commit") or pytest.fail("pre-commit is not installed")
    return subprocess.run([pre_commit, "try-repo", str(ROOT), "jaxlint", "--files", "bad.py"],
                          cwd=project, env=env, capture_output=True, text=True, timeout=900)


def test_pre_commit_hook_fails_on_a_finding_and_passes_after_the_fix(tmp_path):
    assert (ROOT / ".pre-commit-hooks.yaml").exists()
    project = tmp_path / "project"
    project.mkdir()
    env = hook_env(tmp_path)
    subprocess.run(["git", "init", "-q"], cwd=project, env=env, check=True)
    (project / "bad.py").write_text(BAD)
    subprocess.run(["git", "add", "bad.py"], cwd=project, env=env, check=True)

    failed = try_repo(project, env)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "jaxlint" in failed.stdout and "Failed" in failed.stdout
    assert "bad.py:6:12: JAX104" in failed.stdout

    (project / "bad.py").write_text(GOOD)
    subprocess.run(["git", "add", "bad.py"], cwd=project, env=env, check=True)
    passed = try_repo(project, env)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "Passed" in passed.stdout and "JAX104" not in passed.stdout
