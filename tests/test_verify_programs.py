"""`jaxlint verify` on the program's own inputs, against real JAX (CPU).

No `# jaxlint-example:` in these cases (tests/verify_cases/): the verifier must reach each finding
through the code of the file itself (its import, its tests, its functions, the instance it builds,
the function a nested def lives in, its main block when asked), refuse to count a guess of the
very value a finding is about, and call a finding "not reproduced" only when the program's own
inputs ran it under the conditions it names. Look-alikes (planted false findings whose naive
guessed inputs make JAX fail) must never come out confirmed.
"""

from __future__ import annotations

import io
import json
import pathlib
import sys

import pytest

from jaxlint.cli import main
from jaxlint.engine import lint_file
from jaxlint.findings import Finding
from jaxlint.verify import store
from jaxlint.verify.api import verify_paths
from jaxlint.verify.runreport import format_text, run_program
from jaxlint.verify.verdicts import CONFIRMED, GUESSED, INCONCLUSIVE, NOT_REPRODUCED

pytestmark = pytest.mark.slow     # subprocesses, JAX or a language server: seconds each

CASES = pathlib.Path(__file__).parent / "verify_cases"
NAMES = ["program_calls.py", "methods_and_nested.py", "type_test_program.py", "growth_and_batches.py",
         "shape_drift.py", "lookalike_vmap_int.py", "lookalike_static_field.py", "lookalike_partial_bound.py",
         "hang_then_more.py", "confirm_then_crash.py", "long_loop.py", "lookalike_jit_in_loop.py",
         "lookalike_scan_static_field.py"]
# false findings the analysis does not (or no longer) make: planted so the verifier is tested on them
PLANTED = {
    "lookalike_vmap_int.py": Finding("JAX101", 9, 7, "planted: `k` traced", function="top_k_mask", param="k"),
    "lookalike_partial_bound.py": Finding("JAX102", 11, 13, "planted: `n_inner` traced", function="update",
                                          param="n_inner"),
    "lookalike_static_field.py": Finding("JAX101", 18, 7, "planted: `depth` traced", function="_stack",
                                         param="depth", entry="apply"),
    "lookalike_jit_in_loop.py": Finding("JAX301", 15, 12, "planted: jit per call", function="_scale"),
    "lookalike_scan_static_field.py": Finding(
        "JAX103", 20, 10, "a traced value (via carry.width -> width) in lax.scan body `step` is used as "
        "`shape` of jnp.zeros(), which must be a concrete integer (planted)", function="step", param="carry"),
    "shape_drift.py": Finding("JAX305", 19, 15, "planted: new shape per call", function="total", param="x"),
}


def line_of(name, text):
    return next(i for i, line in enumerate((CASES / name).read_text().splitlines(), 1) if text in line)


def plant(path):
    result = lint_file(path)
    extra = PLANTED.get(pathlib.Path(path).name)
    if extra is not None and not any((f.line, f.code) == (extra.line, extra.code) for f in result.findings):
        result.findings.append(extra)
    return result


def _show(fv) -> str:
    lines = [f"{v.finding.line} {v.finding.code} {v.verdict} [{v.basis}]: {v.reason}" for v in fv.findings]
    lines += [f"note[{n['kind']}]: {n['text']}" for n in fv.notes]
    lines += [f"unit {e['label']}: ok={e.get('ok')} staged={e.get('staged')} error={e.get('error')}"
              for e in fv.examples]
    return f"{fv.path} ({fv.status})\n  " + "\n  ".join(lines)


@pytest.fixture(scope="module")
def results():
    out = verify_paths([str(CASES / n) for n in NAMES], timeout=6, jobs=2, lint=plant)
    return {pathlib.Path(r.path).name: r for r in out}


def verdicts(fv) -> dict:
    return {(v.finding.line, v.finding.code): v for v in fv.findings}


def test_the_programs_own_calls_confirm_findings(results):
    fv = results["program_calls.py"]
    # a module-level argparse sees the program's argv, not the verifier's: the import works
    assert fv.status == "ok", _show(fv)
    found = verdicts(fv)
    growth = found[(line_of("program_calls.py", "TABLE = "), "JAX201")]
    assert growth.verdict == CONFIRMED and growth.basis == "program", _show(fv)
    assert "importing the module" in growth.reason and "took 4 values" in growth.reason
    window = found[(line_of("program_calls.py", "return x[:n]"), "JAX104")]
    assert window.verdict == CONFIRMED and "test `test_window()`" in window.reason, _show(fv)
    # only the main block calls `as_index`: not run by default. `i` is a parameter the program's
    # own jax.jit traces whatever it passes, so guessed inputs confirm it, saying so and how to
    # run the program's own call
    main_only = found[(line_of("program_calls.py", "int(i)"), "JAX102")]
    assert main_only.verdict == CONFIRMED and main_only.basis == "guessed", _show(fv)
    assert "the program's own jit traces `i`" in main_only.reason and "--main" in main_only.reason, _show(fv)


def test_the_main_block_runs_when_asked():
    [fv] = verify_paths([str(CASES / "program_calls.py")], timeout=30, main=True)
    main_only = verdicts(fv)[(line_of("program_calls.py", "int(i)"), "JAX102")]
    assert main_only.verdict == CONFIRMED and main_only.basis == "program", _show(fv)
    assert "main block (line" in main_only.reason


def test_methods_and_nested_functions_are_reached(results):
    fv = results["methods_and_nested.py"]
    found = verdicts(fv)
    method = found[(line_of("methods_and_nested.py", "@jax.jit"), "JAX108")]
    assert method.verdict == CONFIRMED and "built as the file builds it" in method.reason, _show(fv)
    nested = found[(line_of("methods_and_nested.py", "if limit > 0"), "JAX101")]
    assert nested.verdict == CONFIRMED and nested.basis == "program", _show(fv)
    assert "`clip_all()` of the file" in nested.reason


def test_type_test_compares_the_branch_under_jit_and_eagerly(results):
    [v] = results["type_test_program.py"].findings
    assert v.verdict == CONFIRMED and v.basis == "program", v.reason
    assert "neither branch under jit and the branch at line 10 eagerly" in v.reason


def test_too_small_a_run_is_inconclusive_never_not_reproduced(results):
    fv = results["growth_and_batches.py"]
    found = verdicts(fv)
    two = found[(line_of("growth_and_batches.py", "x = power(x, degree)"), "JAX201")]
    assert two.verdict == INCONCLUSIVE and "needs more than 2 distinct values" in two.reason, _show(fv)
    many_line = [i for i, line in enumerate((CASES / "growth_and_batches.py").read_text().splitlines(), 1)
                 if "x = power(x, degree)" in line][1]
    assert found[(many_line, "JAX201")].verdict == CONFIRMED, _show(fv)
    batches = found[(line_of("growth_and_batches.py", "w = sgd_step(w, data"), "JAX303")]
    assert batches.verdict == INCONCLUSIVE and "same shape" in batches.reason, _show(fv)


def test_a_long_loop_is_cut_short_once_the_finding_is_shown(results):
    fv = results["long_loop.py"]
    [v] = fv.findings
    assert v.verdict == CONFIRMED and "static argument `epoch`" in v.reason, _show(fv)
    [unit] = [e for e in fv.examples if e["label"].startswith("`train()`")]
    assert unit["stopped"] == "what the findings need was seen" and unit["seconds"] < 6, _show(fv)


def test_a_recompilation_rule_is_confirmed_by_counting_compiles_whatever_its_code(results):
    [v] = results["shape_drift.py"].findings
    assert v.finding.code == "JAX305"
    assert v.verdict == CONFIRMED and "changed shape f32[1] -> f32[2]" in v.reason, v.reason


def test_a_main_block_ending_with_sys_exit_0_ends_normally():
    [fv] = verify_paths([str(CASES / "shape_drift.py")], timeout=30, main=True, lint=plant)
    [main_unit] = [e for e in fv.examples if e["kind"] == "main"]
    assert main_unit["ok"] and main_unit["error"] is None, _show(fv)
    assert not [n for n in fv.notes if n["kind"] == "error"], _show(fv)


def test_run_links_a_recompilation_to_a_rule_it_does_not_know_by_name(monkeypatch):
    monkeypatch.setattr("jaxlint.verify.runreport.lint_file", plant)
    report = run_program(str(CASES / "shape_drift.py"), capture=True)
    assert report.exit == 0, report.stderr
    assert f"predicted by JAX305 at line {PLANTED['shape_drift.py'].line}" in format_text(report)


@pytest.mark.parametrize("name", ["lookalike_vmap_int.py", "lookalike_static_field.py",
                                  "lookalike_partial_bound.py", "lookalike_jit_in_loop.py",
                                  "lookalike_scan_static_field.py"])
def test_look_alikes_are_never_confirmed(results, name):
    fv = results[name]
    [v] = [v for v in fv.findings if (v.finding.line, v.finding.code) ==
           (PLANTED[name].line, PLANTED[name].code)]
    assert v.verdict in (NOT_REPRODUCED, INCONCLUSIVE), _show(fv)
    if name == "lookalike_vmap_int.py":
        # the naive guess (`k` traced) makes JAX fail on the flagged line ...
        naive = [e for e in fv.examples if e["kind"] == "synth" and e.get("error")
                 and e["error"]["type"] == "TracerBoolConversionError" and e["error"]["line"] == v.finding.line]
        assert naive, _show(fv)
        # ... but the calling code's own `k` runs it cleanly under vmap
        assert v.verdict == INCONCLUSIVE and "made by the program" in v.reason, _show(fv)
    else:
        assert v.verdict == NOT_REPRODUCED and v.basis == "program", _show(fv)
    if name == "lookalike_jit_in_loop.py":
        assert "applied jax.jit at line 15 3 times" in v.reason, _show(fv)


def test_a_naive_guess_of_the_static_field_would_have_confirmed_it():
    # in a subprocess: the test process itself stays free of JAX (it forks other processes)
    import subprocess
    code = ("import sys, jax; sys.path.insert(0, sys.argv[1]); import lookalike_static_field as case\n"
            "try:\n    jax.make_jaxpr(case._stack)(1.0, 2.0, 3)\n"
            "except jax.errors.TracerBoolConversionError:\n    print('guess fails')\n"
            "print('program runs', case.run().shape)\n")
    out = subprocess.run([sys.executable, "-c", code, str(CASES)], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == ["guess fails", "program runs (3,)"], out.stderr


def test_one_hanging_example_does_not_cost_the_others(results):
    fv = results["hang_then_more.py"]
    [v] = fv.findings
    assert v.verdict == CONFIRMED, _show(fv)
    assert any("timed out after 6 s" in n["text"] and "fresh process" in n["text"] for n in fv.notes), _show(fv)


def test_a_crash_after_a_confirmation_is_reported(results, capsys):
    fv = results["confirm_then_crash.py"]
    [v] = fv.findings
    assert v.verdict == CONFIRMED, _show(fv)
    from jaxlint.verify.command import paths_text
    text = paths_text([fv], 1.0)
    assert "confirm_then_crash.py: note:" in text and "SIGABRT" in text


def test_directives_can_be_ignored(capsys):
    fixture = pathlib.Path(__file__).parent / "fixtures" / "JAX201" / "pos_counter_langevin.py"
    assert main(["verify", "--no-store", "--format", "json", str(fixture)]) == 0
    [finding] = json.loads(capsys.readouterr().out)["files"][0]["findings"]
    assert finding["verdict"] == CONFIRMED and finding["basis"] == "example"
    assert main(["verify", "--no-store", "--no-directives", "--format", "json", str(fixture)]) == 0
    [finding] = json.loads(capsys.readouterr().out)["files"][0]["findings"]
    assert finding["verdict"] == CONFIRMED and finding["basis"] == "program"


def test_a_file_that_does_not_parse_is_an_error_with_its_position(tmp_path, capsys):
    broken = tmp_path / "broken.py"
    broken.write_text("import jax\n\ndef f(x:\n    return x\n")
    assert main(["verify", "--no-store", str(broken)]) == 1
    out = capsys.readouterr().out
    assert f"{broken}:3:" in out and "E999" in out and "not verified" in out


def test_verify_saves_its_verdicts_by_content(tmp_path, monkeypatch):
    target = tmp_path / "case.py"
    target.write_text((CASES / "lookalike_static_field.py").read_text())
    cache = tmp_path / "cache"
    monkeypatch.setattr("jaxlint.engine.lint_file",
                        lambda path: _planted_at(path, PLANTED["lookalike_static_field.py"]))
    assert main(["verify", "--cache-dir", str(cache), "-o", str(tmp_path / "report.txt"), str(target)]) == 1
    assert "NOT REPRODUCED" in (tmp_path / "report.txt").read_text()
    assert store.load(str(target), target.read_bytes(), str(cache)) == {("JAX101", 18, 8): NOT_REPRODUCED}
    assert store.load(str(target), target.read_bytes() + b"\n", str(cache)) == {}


def test_check_confirmed_only_hides_what_verify_did_not_reproduce(tmp_path, capsys, monkeypatch):
    fixture = pathlib.Path(__file__).parent / "fixtures" / "JAX104" / "pos_prefix_truncate.py"
    target = tmp_path / "prefix.py"
    target.write_text(fixture.read_text())
    (tmp_path / "pyproject.toml").write_text("")
    [finding] = lint_file(str(target)).findings
    cache = tmp_path / "cache"
    # what `verify` would save for a finding it ran without the predicted error
    from jaxlint.verify.verdicts import FindingVerdict
    store.save(str(target), target.read_bytes(), [FindingVerdict(finding, NOT_REPRODUCED, "ran cleanly")], str(cache))
    where = f":{finding.line}:{finding.col + 1}: {finding.code}"
    assert main(["check", "--no-cache", "-j", "1", str(target)]) == 1
    assert where in capsys.readouterr().out
    assert main(["check", "--no-cache", "-j", "1", "--confirmed-only", "--cache-dir", str(cache), str(target)]) == 0
    captured = capsys.readouterr()
    assert where not in captured.out and "1 finding hidden" in captured.err
    # the same from the configuration file
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\nconfirmed-only = true\n")
    assert main(["check", "--no-cache", "-j", "1", "--cache-dir", str(cache), str(target)]) == 0
    # another content: the saved verdict no longer applies ...
    verified = target.read_bytes()
    target.write_text(fixture.read_text() + "\n")
    assert main(["check", "--no-cache", "-j", "1", "--cache-dir", str(cache), str(target)]) == 1
    assert where in capsys.readouterr().out
    # ... but standard input carrying the verified text is judged by that text, not the file
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(verified)))
    assert main(["check", "--no-cache", "--cache-dir", str(cache), "--stdin-filename", str(target)]) == 0
    assert where not in capsys.readouterr().out
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(target.read_bytes())))
    assert main(["check", "--no-cache", "--cache-dir", str(cache), "--stdin-filename", str(target)]) == 1
    assert where in capsys.readouterr().out


def _planted_at(path, finding):
    result = lint_file(path)
    if not any((f.line, f.code) == (finding.line, finding.code) for f in result.findings):
        result.findings.append(finding)
    return result


def test_guessed_verdicts_never_count_what_the_guess_chose(results):
    for fv in results.values():
        for v in fv.findings:
            if v.verdict == GUESSED:
                assert v.basis == "guessed" and "the guess chose" in v.reason, _show(fv)


def test_processes_the_program_leaves_running_are_stopped(tmp_path):
    import os
    import time
    case = tmp_path / "leaves.py"
    pid_file = tmp_path / "worker.pid"
    case.write_text((CASES / "leaves_a_process.py").read_text()
                    + f"\n# jaxlint-example: start_and_leave({str(pid_file)!r})\n")
    [fv] = verify_paths([str(case)], timeout=30)
    assert [v.verdict for v in fv.findings] == [CONFIRMED], _show(fv)
    pid = int(pid_file.read_text())
    for _ in range(50):                      # the zygote stops the child's whole session
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        os.kill(pid, 9)
        pytest.fail(f"process {pid} started by the verified program was left running")
