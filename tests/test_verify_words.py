"""What `jaxlint verify` says, through the installed console script: the verifier's internal
helper names never reach the user, a confirmation on guessed inputs is never counted as
confirmed, and a `src/` layout project verifies without PYTHONPATH."""

import json
import re
import textwrap

import pytest

from console import run

pytest.importorskip("jax")
pytestmark = pytest.mark.slow

# Nothing in the file calls these: only guessed inputs reach the findings.
GUESSED_ONLY = textwrap.dedent("""\
    import jax
    import jax.numpy as jnp


    @jax.jit
    def head(x, n):
        return x[:n]


    @jax.jit
    def step(x, n):
        if n > 0:
            return x + 1
        return x


    def train(data, k):
        return head(data, k)
""")

INTERNAL = re.compile(r"__\w+__|_jaxlint_verify_")


def summary(text):
    line, = [line for line in text.splitlines() if line.startswith("verified ")]
    return line


def test_guessed_confirmations_are_not_counted_and_internal_names_stay_inside(tmp_path):
    (tmp_path / "lib.py").write_text(GUESSED_ONLY)
    proc = run("verify", "--no-store", "-j", "1", "lib.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr     # nothing refuted
    out = proc.stdout
    assert INTERNAL.search(out) is None, out
    assert "lib.py:7:12: JAX104 confirmed on guessed inputs:" in out
    assert "lib.py:12:8: JAX101 confirmed on guessed inputs:" in out
    assert not re.search(r"JAX10\d confirmed:", out), out
    assert ": 0 confirmed, 2 confirmed on guessed inputs," in summary(out)
    assert "`head(x=jnp.ones((4,)), n=3)`" in out          # the guess, as the user would write it

    proc = run("verify", "--no-store", "-j", "1", "--format", "json", "lib.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert INTERNAL.search(proc.stdout) is None
    payload = json.loads(proc.stdout)
    assert payload["summary"]["confirmed"] == 0
    assert payload["summary"]["confirmed on guessed inputs"] == 2
    findings = payload["files"][0]["findings"]
    assert {(f["verdict"], f["basis"]) for f in findings} == {("confirmed on guessed inputs", "guessed")}
    assert all(INTERNAL.search(example["expr"]) is None for example in payload["files"][0]["examples"])


def test_a_src_layout_project_verifies_without_pythonpath(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "mypkg"\nversion = "0"\n')
    package = tmp_path / "src" / "mypkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "util.py").write_text("WIDTH = 3\n")
    (package / "model.py").write_text(textwrap.dedent("""\
        import jax
        import jax.numpy as jnp

        from mypkg.util import WIDTH
        from .util import WIDTH as SAME


        @jax.jit
        def head(x, n):
            return x[:n]


        def run():
            return head(jnp.ones(8), WIDTH + SAME - 3)
    """))
    # the project's src/ is on no path: the console script's environment names only jaxlint's
    proc = run("verify", "--no-store", "-j", "1", "src/mypkg/model.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ModuleNotFoundError" not in proc.stdout and "ImportError" not in proc.stdout
    assert "src/mypkg/model.py:10:12: JAX104 confirmed: IndexError" in proc.stdout
    assert "`run()` of the file" in proc.stdout
    assert ": 1 confirmed, 0 confirmed on guessed inputs," in summary(proc.stdout)
