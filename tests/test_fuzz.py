"""A fixed-seed fuzz run (issue 7): scripts/fuzz.py, a few hundred inputs, every one clean.

The same script does the long runs (`python scripts/fuzz.py --count 5000 --seed N`). Here the
mutation pool is the test fixtures only, so the run is the same on every machine.
"""

import importlib.util
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("jaxlint_fuzz_script", ROOT / "scripts" / "fuzz.py")
fuzz = sys.modules["jaxlint_fuzz_script"] = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fuzz)


@pytest.mark.slow
def test_fixed_seed_fuzz_run_finds_no_crash_and_no_hang(tmp_path):
    summary = fuzz.fuzz(count=300, seed=20261202, out_dir=tmp_path, timeout=20.0,
                        pools=[ROOT / "tests" / "fixtures"])
    report = summary.report()
    assert summary.tried == 300, report
    assert not summary.crashes and not summary.hangs, report
    # The run must reach the analysis and the rules, not only the parser's error path.
    assert summary.parsed >= 100 and summary.findings >= 20, report
    assert set(summary.by_origin) == {"hypothesmith.from_grammar()", "hypothesmith.from_node()", "mutated"}


def test_check_reports_internal_errors_of_the_engine_and_the_plugin(monkeypatch):
    import jaxlint.engine
    import jaxlint.flake8_plugin

    def broken(*args, **kwargs):
        raise KeyError("planted bug")

    monkeypatch.setattr(jaxlint.engine, "analyse_tree", broken)
    monkeypatch.setattr(jaxlint.flake8_plugin, "analyse_tree", broken)
    problem = fuzz.check("import jax\n")["problem"]
    assert "internal error" in problem and "planted bug" in problem
    assert "flake8 plugin: JAX000" in problem


def test_worker_reports_a_hang_and_recovers():
    class SleepyWorker(fuzz.Worker):
        def start(self):
            self.proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    worker = SleepyWorker()
    answer = worker.run("x = 1\n", timeout=1.0)
    assert answer["hang"] and answer["problem"].startswith("hang")
    assert worker.proc is None            # killed: the next input starts a fresh worker


def test_mutations_are_deterministic_for_a_seed():
    pools = fuzz.pool_files([ROOT / "tests" / "fixtures"])
    runs = []
    for _ in range(2):
        mutator = fuzz.Mutator(pools, fuzz.random.Random(5))
        runs.append([mutator.mutate(mutator.base()[0]) for _ in range(50)])
    assert runs[0] == runs[1]
