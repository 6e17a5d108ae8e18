"""`jaxlint verify` against real JAX (CPU): every fixture's findings must be what JAX does.

The fixture run verifies every file of every rule folder in one call (one zygote, two workers,
a few files per child process) and each fixture is then checked on its own:
- a positive's expected findings must all be *confirmed* by JAX;
- a negative must have no finding, and its examples must run cleanly: no exception, no tracer
  printed, the same result under jit and eagerly (JAX106), and no recompilation beyond the
  fixture's `# expected compiles:` (recompilation rules).
Then one test per verdict (timeout, import error, memory limit, crash, not reproduced, guessed
inputs), the `--run` report, and the command line. The program's own inputs (no directives)
are tested in test_verify_programs.py.
"""

from __future__ import annotations

import json
import os
import pathlib

import pytest

from fixture_expectations import FIXTURES, expected_findings
from jaxlint.cli import main
from jaxlint.engine import lint_file
from jaxlint.findings import Finding
from jaxlint.verify import command
from jaxlint.verify import recompiles as rc
from jaxlint.verify.api import verify_paths
from jaxlint.verify.directives import parse_examples, parse_expected_compiles
from jaxlint.verify.runreport import format_text, run_program
from jaxlint.verify.verdicts import (CONFIRMED, GUESSED, INCONCLUSIVE, NOT_REPRODUCED, predicted_error,
                                     repetitions)

pytestmark = pytest.mark.slow     # subprocesses, JAX or a language server: seconds each

CASES = pathlib.Path(__file__).parent / "verify_cases"
FOLDERS = sorted(p for p in FIXTURES.glob("JAX[1234]*") if p.is_dir())
FILES = sorted(p for folder in FOLDERS for p in folder.glob("*.py"))
RECOMPILE_RULES = {"JAX201", "JAX204", "JAX301", "JAX303", "JAX304", "JAX305", "JAX306", "JAX307"}


@pytest.fixture(scope="module")
def fixture_results():
    results = verify_paths([str(f) for f in FOLDERS], jobs=2, files_per_process=8,
                           compare_eager=lambda path: os.sep + "JAX106" + os.sep in path)
    return {pathlib.Path(r.path).resolve(): r for r in results}


def _show(fv) -> str:
    lines = [f"{v.finding.line} {v.finding.code} {v.verdict}: {v.reason}" for v in fv.findings]
    lines += [f"note[{n['kind']}]: {n['text']}" for n in fv.notes]
    lines += [f"example {e}" for e in fv.examples]
    return f"{fv.path} ({fv.status})\n  " + "\n  ".join(lines)


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fixture_is_what_jax_does(fixture_results, path):
    fv = fixture_results[path.resolve()]
    expected = expected_findings(path)
    assert fv.status == "ok", _show(fv)
    assert fv.examples and all(e["evaluated"] for e in fv.examples), _show(fv)
    if path.name.startswith("pos_"):
        verdicts = {(v.finding.line, v.finding.code): v for v in fv.findings}
        for key in sorted(expected):
            assert key in verdicts, f"no finding {key}\n{_show(fv)}"
            # (a raw key reused draws the same numbers silently: the verifier makes the program's
            # PRNGKey a typed key, which raises KeyReuseError)
            assert verdicts[key].verdict == CONFIRMED, _show(fv)
    else:
        assert not fv.findings, _show(fv)
        for example in fv.examples:
            assert example["ok"], _show(fv)
            if "jit_equals_eager" in example:
                assert example["jit_equals_eager"] is True, _show(fv)
        kinds = {n["kind"] for n in fv.notes}
        assert not kinds & {"error", "tracer", "eager", "problem"}, _show(fv)
        if path.parent.name in RECOMPILE_RULES and not fv.expected_compiles:
            assert "recompile" not in kinds, _show(fv)
    assert "expected-compiles" not in {n["kind"] for n in fv.notes}, _show(fv)


def test_every_rule_folder_was_verified(fixture_results):
    from jaxlint.rules import RULES
    assert FOLDERS, "no fixture folders"
    for rule in RULES:
        if (FIXTURES / rule.code).is_dir():
            assert any(p.parent.name == rule.code for p in FILES)
    assert len(fixture_results) == len(FILES)


# -- one test per verdict ----------------------------------------------------------------------------

NOT_REPRODUCED_LINE = next(i for i, line in enumerate((CASES / "not_reproduced.py").read_text().splitlines(), 1)
                           if line.strip().startswith("if x.shape"))


def _lint_with_planted_finding(path):
    """The engine's findings, plus a JAX101 on not_reproduced.py's static `if` (no rule flags
    that line: it stands for a false alarm)."""
    result = lint_file(path)
    if pathlib.Path(path).name == "not_reproduced.py":
        result.findings.append(Finding("JAX101", NOT_REPRODUCED_LINE, 7, "planted false alarm",
                                       function="widen", param="n"))
    return result


@pytest.fixture(scope="module")
def case_results():
    names = ["hang.py", "import_error.py", "memory_hog.py", "crash.py", "not_reproduced.py",
             "eager_only.py", "synthesized.py", "synthesized_more.py", "no_example_recompile.py"]
    paths = [str(CASES / n) for n in names] + [str(FIXTURES / "JAX101" / "pos_helper_interprocedural.py")]
    # four files per child: the hang and the crash must not take the others down with them
    results = verify_paths(paths, timeout=5, memory_mb=1024, jobs=2, files_per_process=4,
                           lint=_lint_with_planted_finding)
    return {pathlib.Path(r.path).name: r for r in results}


def _only(fv):
    assert len(fv.findings) == 1, _show(fv)
    return fv.findings[0]


def test_hanging_module_times_out_and_the_run_goes_on(case_results):
    v = _only(case_results["hang.py"])
    assert v.verdict == INCONCLUSIVE and "timed out after 5 s" in v.reason
    assert "example at line 17" in v.reason
    assert case_results["hang.py"].status == "timeout"
    assert _only(case_results["pos_helper_interprocedural.py"]).verdict == CONFIRMED


def test_module_raising_at_import_is_inconclusive(case_results):
    v = _only(case_results["import_error.py"])
    assert v.verdict == INCONCLUSIVE
    assert "failed to import" in v.reason and "RuntimeError at line 11" in v.reason


def test_module_over_the_memory_limit_is_inconclusive(case_results):
    fv = case_results["memory_hog.py"]
    assert fv.status == "memory"
    v = _only(fv)
    assert v.verdict == INCONCLUSIVE and "memory limit (1024 MB)" in v.reason


def test_process_that_dies_is_inconclusive(case_results):
    v = _only(case_results["crash.py"])
    assert v.verdict == INCONCLUSIVE and "SIGABRT" in v.reason


def test_finding_that_traces_cleanly_is_not_reproduced(case_results):
    v = _only(case_results["not_reproduced.py"])
    assert v.verdict == NOT_REPRODUCED
    assert f"traced line {NOT_REPRODUCED_LINE} without an error" in v.reason


def test_line_run_only_eagerly_does_not_refute_the_finding(case_results):
    v = _only(case_results["eager_only.py"])
    assert v.verdict == INCONCLUSIVE and "only eagerly" in v.reason


def test_guessed_inputs_confirm_only_what_the_guess_did_not_choose(case_results):
    verdicts = {v.finding.code: v for v in case_results["synthesized.py"].findings}
    # `n` and `keep` are parameters of functions the program itself jits, used as they are: the
    # program's jax.jit traces them whatever it passes, so the guess did not choose the premise.
    # (A guess that does choose it, through vmap's in_axes=None, a static pytree field or a
    # partial, is never confirmed: test_verify_programs.test_look_alikes_are_never_confirmed.)
    for code, param, error in (("JAX103", "n", "Shapes must be 1D"), ("JAX104", "keep", "Slice entries")):
        verdict = verdicts[code]
        assert verdict.verdict == CONFIRMED and verdict.basis == "guessed", verdict.reason
        assert error in verdict.reason and f"the program's own jit traces `{param}`" in verdict.reason
    # `row_scale` is vmapped by the program, not jitted: whether `k` is batched (in_axes) is
    # the program's choice, and the guess made it traced, so the confirmation does not count
    assert verdicts["JAX102"].verdict == GUESSED and "the guess chose" in verdicts["JAX102"].reason
    # `self` traced is about the class: an instance built from it, whatever its arguments
    assert verdicts["JAX108"].verdict == CONFIRMED and verdicts["JAX108"].basis == "guessed"
    assert verdicts["JAX108"].reason.startswith("on guessed inputs (the finding is about the class")


def test_guessed_inputs_follow_use_in_helpers_keys_prints_and_loops(case_results):
    verdicts = {v.finding.code: v for v in case_results["synthesized_more.py"].findings}
    assert set(verdicts) == {"JAX102", "JAX103", "JAX107", "JAX302"}
    # each finding is about a parameter of a function the program jits (or a value derived from
    # it inside the trace): confirmed on guessed inputs, and it says so
    assert all(v.verdict == CONFIRMED and v.basis == "guessed" for v in verdicts.values()), \
        [v.reason for v in verdicts.values()]
    assert "{'b': __jaxlint_jnp__.ones((4,)), 'w'" in verdicts["JAX102"].evidence["unit"]
    assert "random.PRNGKey(0)" in verdicts["JAX103"].evidence["unit"]
    assert "printed `x is JitTracer" in verdicts["JAX107"].reason
    # a literal trip count: no input decides it, so the guess confirms it
    assert verdicts["JAX302"].verdict == CONFIRMED and verdicts["JAX302"].evidence["copies"] == 20


def test_recompile_finding_is_confirmed_through_its_calling_code(case_results):
    # `sweep(x)` is called with a guessed `x`; the static values come from its own loop
    v = _only(case_results["no_example_recompile.py"])
    assert v.verdict == CONFIRMED and v.basis == "guessed", v.reason
    assert "static argument `k` took 3 values" in v.reason and "`sweep` called with guessed `x`" in v.reason


def test_text_and_json_reports(case_results):
    results = list(case_results.values())
    text = command.paths_text(results, 1.0)
    assert f"not_reproduced.py:{NOT_REPRODUCED_LINE}:8: JAX101 NOT REPRODUCED:" in text
    assert "synthesized.py:26:18: JAX102 confirmed on guessed inputs:" in text
    assert "NOT REPRODUCED (1)" in text
    # a confirmation that needed guessed inputs is counted as one, never as confirmed
    counts = {verdict: sum(command.shown_verdict(v) == verdict for r in results for v in r.findings)
              for verdict in (CONFIRMED, GUESSED, NOT_REPRODUCED, INCONCLUSIVE)}
    assert counts[NOT_REPRODUCED] == 1
    assert counts[GUESSED] == sum(v.basis == "guessed" and v.verdict in (CONFIRMED, GUESSED)
                                  for r in results for v in r.findings) > 1
    assert counts[CONFIRMED] == sum(v.verdict == CONFIRMED and v.basis != "guessed"
                                    for r in results for v in r.findings)
    assert (f"{counts[CONFIRMED]} confirmed, {counts[GUESSED]} confirmed on guessed inputs, 1 not reproduced, "
            f"{counts[INCONCLUSIVE]} inconclusive") in text
    # a process that died is said, even in a file whose other verdicts stand
    assert "crash.py: note: the child process was killed by SIGABRT" in text
    payload = json.loads(json.dumps(command.paths_json(results, 1.0)))
    assert payload["summary"]["not reproduced"] == 1
    assert payload["summary"][GUESSED] == counts[GUESSED]
    by_name = {pathlib.Path(f["path"]).name: f for f in payload["files"]}
    assert by_name["hang.py"]["findings"][0]["verdict"] == INCONCLUSIVE
    assert by_name["synthesized.py"]["findings"][0]["basis"] == "guessed"


def test_command_line_exit_codes(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr("jaxlint.engine.lint_file", _lint_with_planted_finding)
    assert main(["verify", "--no-store", "--format", "json", str(CASES / "not_reproduced.py"),
                 str(CASES / "eager_only.py")]) == 1
    payload = json.loads(capsys.readouterr().out)
    verdicts = [f["findings"][0]["verdict"] for f in payload["files"]]
    assert verdicts == [NOT_REPRODUCED, INCONCLUSIVE]
    assert main(["verify", "--no-store", "-q", str(CASES / "eager_only.py")]) == 0
    assert "JAX101 inconclusive" in capsys.readouterr().out
    assert main(["verify"]) == 2
    assert main(["verify", str(CASES / "no_such_file.py")]) == 2
    assert main(["verify", "--max-compiles", "2", str(CASES / "hang.py")]) == 2
    assert main(["verify", "--run"]) == 2
    err = capsys.readouterr().err
    assert "nothing to verify" in err and "no such file" in err


def test_help_says_verify_runs_code(capsys):
    assert main(["verify", "--help"]) == 0
    assert "RUNS YOUR CODE" in capsys.readouterr().out


# -- verify --run -----------------------------------------------------------------------------------

def test_run_report_names_each_recompilation_cause_and_line():
    report = run_program(str(CASES / "train_script.py"), ["3"], capture=True)
    assert report.exit == 0 and not report.problem, report.stderr
    assert "epoch 2: loss" in report.stdout
    text = format_text(report)
    assert "train_step (" in text and "train_script.py:15): 6 traces, 6 compiles" in text
    assert "static argument `epoch` took 3 values (0, 1, 2) at line 32: 2 extra compiles" in text
    assert "argument `batch` changed shape f32[4,3] -> f32[2,3] at line 32: 3 extra compiles" in text
    assert "function re-created on every call at line 23" in text
    assert "predicted by JAX201 at line 32" in text
    assert "predicted by JAX303 at line 32" in text
    assert "predicted by JAX301 at line 23" in text
    assert "32 | w = train_step(w, data[i:i + 4], epoch)" in text
    assert not report.unpredicted and not report.unobserved


def test_run_report_predicts_each_signature_drift_of_issue_13():
    report = run_program(str(CASES / "signature_drift.py"), capture=True)
    assert report.exit == 0 and not report.problem, report.stderr
    predicted = {}
    for fr in report.functions:
        for cr in fr.causes:
            predicted.setdefault(cr.cause.call_line, set()).update(f.code for f in cr.predicted_by)
    assert predicted == {25: {"JAX305"}, 27: {"JAX305"}, 29: {"JAX307"}, 30: set(), 31: {"JAX306"},
                         33: {"JAX306"}}
    [unpredicted] = report.unpredicted          # a fixed shape at another call site: by design
    assert unpredicted.cause.call_line == 30 and unpredicted.cause.kind == rc.SHAPE
    assert not report.unobserved
    assert "16 recompilations from 7 causes, 15 predicted by static findings, 1 not" in format_text(report)


DRIFT_DRIVER = """
import importlib.util, re, sys
for number, path in enumerate(sys.argv[1:]):
    spec = importlib.util.spec_from_file_location(f"fixture_{number}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for line in open(path):
        example = re.match(r"\\s*#\\s*jaxlint-example:\\s*(.+)", line)
        if example:
            eval(example.group(1), vars(module))
"""


def test_run_report_predicts_every_recompilation_of_the_drift_fixtures(tmp_path):
    positives = sorted(p for code in ("JAX305", "JAX306", "JAX307") for p in (FIXTURES / code).glob("pos_*.py"))
    driver = tmp_path / "drive_fixtures.py"
    driver.write_text(DRIFT_DRIVER)
    report = run_program(str(driver), [str(p) for p in positives], capture=True)
    assert report.exit == 0 and not report.problem, report.stderr
    recompiles = sum(c.cause.count for fr in report.functions for c in fr.causes)
    expected = sum(n - 1 for p in positives for n in parse_expected_compiles(p.read_text()).values())
    assert recompiles == expected
    assert f"{expected} recompilations" in format_text(report) and f"{expected} predicted" in format_text(report)
    assert not report.unpredicted, format_text(report)
    assert not report.unobserved, format_text(report)


def test_run_module_reports_unpredicted_recompilation_and_max_compiles(capfd, monkeypatch):
    monkeypatch.chdir(CASES)
    code = main(["verify", "--max-compiles", "1", "--format", "json", "-m", "drift_module", "--flag"])
    captured = capfd.readouterr()
    payload = json.loads(captured.out)      # the report alone: the program printed to stderr
    assert "done ['--flag']" in captured.err
    assert code == 1
    assert payload["over_max_compiles"] == ["total", "main.<locals>.<lambda>"]
    functions = {f["function"]: f for f in payload["functions"]}
    drift = functions["total"]["recompilations"]
    assert [r["cause"] for r in drift] == ["dtype"] and drift[0]["line"] == 17
    assert "changed type i32[8] -> f32[8]" in drift[0]["text"] and not drift[0]["predicted_by"]
    lam = functions["main.<locals>.<lambda>"]["recompilations"]
    assert lam[0]["cause"] == "recreated" and lam[0]["predicted_by"][0]["code"] == "JAX301"


# -- pure logic -------------------------------------------------------------------------------------

def test_directives():
    text = "# jaxlint-example: f(1, 2)\nx = 1\n  #jaxlint-example:  g(\n# expected compiles: f=3, g=1 (why)\n"
    examples = parse_examples(text)
    assert [(e.line, e.expr, bool(e.error)) for e in examples] == [(1, "f(1, 2)", False), (3, "g(", True)]
    assert parse_expected_compiles(text) == {"f": 3, "g": 1}
    # a lambda is named as JAX names it in its compile log
    assert parse_expected_compiles("# expected compiles: apply=1, <lambda>=4 (why)\n") == {"apply": 1, "<lambda>": 4}


def test_signature_diffs_name_the_cause():
    old = {"positional": 2, "keywords": [], "args": {"x": ["array", "f32[32,4]", False],
                                                     "step": ["static", "1", False, "1", False]}}
    shape = {"positional": 2, "keywords": [], "args": {"x": ["array", "f32[16,4]", False],
                                                       "step": ["static", "1", False, "1", False]}}
    static = {"positional": 2, "keywords": [], "args": {"x": ["array", "f32[32,4]", False],
                                                        "step": ["static", "2", False, "2", False]}}
    keyword = {"positional": 1, "keywords": ["step"], "args": old["args"]}
    assert rc.signature_diffs(old, shape) == [(rc.SHAPE, "x", "f32[32,4]", "f32[16,4]")]
    assert rc.signature_diffs(old, static) == [(rc.STATIC, "step", "1", "2")]
    assert rc.signature_diffs(old, keyword) == [(rc.SPELLING, "step", "positionally", "by keyword")]
    identity = {"positional": 2, "keywords": [], "args": {"x": old["args"]["x"],
                                                          "step": ["static", "Cfg()", False, "99", True]}}
    first = {"positional": 2, "keywords": [], "args": {"x": old["args"]["x"],
                                                       "step": ["static", "Cfg()", False, "98", True]}}
    assert rc.signature_diffs(first, identity)[0][0] == rc.STATIC


def test_recreated_function_is_its_own_cause():
    recs = [{"name": "<lambda>", "def_file": "a.py", "def_line": 3, "call_file": "a.py", "call_line": 3,
             "obj": i, "sig": None, "parent": None} for i in range(3)]
    [stats] = rc.group(recs)
    assert [r.kind for r in stats.recompiles] == [rc.RECREATED, rc.RECREATED]
    [cause] = rc.summarise(stats)
    assert cause.text.startswith("function re-created on every call at line 3")


def test_loop_repetitions():
    body = [(5, "mul"), (5, "add")]
    assert repetitions(body * 20) == (20, 2)
    assert repetitions(body) == (1, 2)
    assert repetitions([(5, "mul"), (6, "add"), (5, "mul"), (7, "sub")])[0] == 2


def test_predicted_errors_follow_the_rules():
    bool_err = {"mro": ["TracerBoolConversionError", "ConcretizationTypeError", "TypeError"], "message": ""}
    slice_err = {"mro": ["IndexError"], "message": "Slice entries must be static integers."}
    assert predicted_error("JAX101", bool_err) and not predicted_error("JAX104", {"mro": ["IndexError"],
                                                                                  "message": "out of range"})
    assert predicted_error("JAX104", slice_err) and not predicted_error("JAX101", slice_err)
    assert predicted_error("JAX203", {"mro": ["ValueError"], "message": "Jitted function has invalid argnames"})


def test_check_and_the_parser_never_import_jax():
    import subprocess
    import sys
    code = ("import sys; from jaxlint.cli import build_parser; build_parser(); "
            "from jaxlint.verify import (api, checks, command, plan, programs, recompiles, runreport, store, "
            "synth, verdicts); "
            "assert not any(m == 'jax' or m.startswith('jax.') for m in sys.modules), 'jax imported'")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_run_applies_the_memory_limit_inside_the_program(tmp_path):
    # the harness sets the limit itself: nothing runs between fork and exec in the caller
    script = tmp_path / "hog.py"
    script.write_text("buffer = bytearray(3 << 30)\nprint('allocated')\n")
    limited = run_program(str(script), memory_mb=1024, capture=True)
    assert limited.exit == 1 and limited.error.startswith("MemoryError"), limited.stderr
    assert "allocated" not in limited.stdout


@pytest.mark.parametrize("fixture, in_body", [
    ("JAX101/pos_in_tuple_scan_body.py", True),          # a scan carry, unpacked
    ("JAX103/pos_fori_body_iota.py", True),              # the fori_loop index
    ("JAX101/pos_while_carry_unpacked.py", True),
    ("JAX101/pos_all_builtin_list.py", False),           # a jitted function, not a lax body
    ("JAX101/pos_min_vmap_batched.py", False),           # vmap: the program chooses in_axes
])
def test_lax_body_findings_are_read_from_the_findings_facts(fixture, in_body):
    # the verifier reads the entry kind and the value's path from the finding's facts, not from
    # its message: rewording a message cannot turn these confirmations back into guesses
    import dataclasses
    from jaxlint.verify.verdicts import _in_lax_body
    [finding] = lint_file(str(FIXTURES / fixture)).findings
    assert _in_lax_body(finding) is in_body, (finding.entry_kind, finding.path)
    reworded = dataclasses.replace(finding, message="reworded")
    assert _in_lax_body(reworded) is in_body
    field = Finding(finding.code, finding.line, finding.col, "...", entry_kind="lax.scan body",
                    path=("carry.width", "width"))
    assert not _in_lax_body(field)      # a dataclass carry's static field stays static
