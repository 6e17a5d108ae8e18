"""From what each run showed to one verdict per finding.

PARENT SIDE, pure logic (unit-testable without JAX). The runs ("units") come from three
sources, and a verdict says which one decided it:

- example: the file's `# jaxlint-example:` directives;
- program: the program's own code made every value (its import, its tests, its main block when
  asked, its functions that need no argument);
- guessed: a function of the file called with inputs the verifier guessed.

A verdict is one of:
- confirmed: JAX did what the rule predicts on the program's own inputs or an example (raised
  the predicted error at the finding's line; printed a tracer once; took another branch under
  jit than eagerly; compiled again for the predicted reason, and for JAX201 more than twice;
  staged the loop body once per iteration); or on guessed inputs when what the finding is about
  (its traced parameter, the argument whose change recompiled) did not come from the guess;
- confirmed on guessed inputs: the same, but the guess chose the very value the finding is
  about, so it does not count as a confirmation;
- not reproduced: the program's own inputs (or an example) ran the flagged line under the
  conditions the finding names (under a trace; several distinct static values; a call that
  differs from an earlier one) and JAX did none of that: a likely false alarm;
- inconclusive: nothing decided it, with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from jaxlint.verify import recompiles as rc
from jaxlint.verify.checks import (ERROR_CODES, RECOMPILE_CODES, Judge, error_words,  # noqa: F401
                                   is_memory_error, predicted_error, recompile_kinds, repetitions,
                                   same_function)

CONFIRMED = "confirmed"
GUESSED = "confirmed on guessed inputs"
NOT_REPRODUCED = "not reproduced"
INCONCLUSIVE = "inconclusive"
VERDICTS = (CONFIRMED, GUESSED, NOT_REPRODUCED, INCONCLUSIVE)
RUN_HINT = "run the program under `jaxlint verify --run` to see its real compiles"
ALL = "*"


@dataclass
class FindingVerdict:
    finding: object                 # jaxlint.findings.Finding
    verdict: str
    reason: str
    evidence: dict = field(default_factory=dict)
    basis: str = ""                 # example | program | guessed: what the deciding run used


# -- what the guess chose --------------------------------------------------------------------------

def premise_guessed(judge: Judge, finding, unit, obs, evidence) -> str:
    """Why a confirmation on guessed inputs does not count ("" when it does): the guess itself
    chose the value the finding is about."""
    if finding.code == "JAX108":
        return ""           # about the class: any instance of it, built as the file builds it
    if _in_lax_body(finding):
        return ""           # a lax.scan/fori_loop/while_loop/cond/switch/map body gets tracers, whatever it is passed
    if unit.get("kind") == "synth":
        if finding.code == "JAX302" and not unit.get("loop_params") and not obs.get("traced_by_guess"):
            return ""       # a literal trip count in a function the program jits: no input decides it
        if _traced_by_the_program(finding, unit, obs):
            return ""       # the program's own jit traces this parameter, whatever value it passes
        return f"the guess chose every argument of `{unit.get('target')}`"
    tainted = unit.get("tainted", {})
    calls = obs.get("calls", [])
    if recompile_kinds(finding.code) is not None:
        if evidence.get("kind") == rc.SPELLING:
            return ""       # how the call is written, not what it passes
        param = (evidence.get("param") or "").split("[")[0].split(".")[0]
        lines = evidence.get("call_lines") or [finding.line]
        chosen = set()
        for line in lines:
            chosen |= set(tainted.get(str(line), []))
        for call in judge.calls_of(finding, calls, finding.function):
            if call.get("line") in lines:
                chosen |= set(call.get("guessed", []))
        names = {param} | set(filter(None, (finding.param or "").split(",")))
        hit = sorted(names & chosen) or (sorted(chosen) if ALL in chosen else [])
        return f"the guess chose `{'`, `'.join(hit)}`" if hit else ""
    entry = finding.entry or finding.function
    entry_calls = judge.calls_of(finding, calls, entry)
    chosen = set()
    for call in entry_calls:
        chosen |= set(tainted.get(str(call.get("line")), [])) | set(call.get("guessed", []))
    if not entry_calls:
        # not a jitted call (a vmap or scan body): what the calling code passes it, read statically
        callees = {name.replace(".<locals>", ""): params for name, params in unit.get("tainted_callees", {}).items()}
        mine = [params for name, params in callees.items() if same_function(name, entry)]
        if not mine:
            return "the calling code does not call the traced function itself, so what the guess decided is unknown"
        for params in mine:
            chosen |= set(params)
    if not chosen:
        return ""
    params = set(filter(None, (finding.param or "").split(",")))
    if ALL in chosen or not params or not same_function(finding.function, entry):
        return f"the guess chose `{'`, `'.join(sorted(chosen))}` of `{entry}`"
    hit = sorted(params & chosen)
    return f"the guess chose `{'`, `'.join(hit)}`" if hit else ""


_PARAMETER_RULES = {"JAX101", "JAX102", "JAX103", "JAX104", "JAX105", "JAX106", "JAX107"}


def _in_lax_body(finding) -> bool:
    """A trace-time finding in (or reached from) the body of lax control flow, on a value that
    does not come through an attribute: lax calls its body with tracers for the carry, the
    operands and the loop index, so no guessed input decided that they are traced (a static
    field of a dataclass carry stays static, hence the attribute exception)."""
    if finding.code not in _PARAMETER_RULES:
        return False
    return finding.in_lax_body and not finding.through_attribute


def _traced_by_the_program(finding, unit, obs) -> bool:
    """A finding about a parameter of the function the program itself jits (the guess traced it
    through the program's own jax.jit object, static arguments kept static), used as it is, not
    through an attribute (a static field of a pytree class stays a Python value under jit)."""
    params = [p for p in (finding.param or "").split(",") if p]
    if finding.code not in _PARAMETER_RULES or obs.get("traced_by_guess") or not params:
        return False
    if not set(params) <= set(unit.get("params", ())) or not same_function(finding.entry or finding.function,
                                                                           unit.get("target", "")):
        return False      # (a helper's finding names the jitted function's parameter it came from)
    return not finding.through_attribute


def _kept(finding, evidence, unit=None, obs=None) -> str:
    """Why a confirmation on guessed inputs still counts: what the guess did not choose."""
    if _in_lax_body(finding):
        return "lax control flow traces its body's arguments whatever values it is given"
    if unit is not None and _traced_by_the_program(finding, unit, obs or {}):
        shown = "`, `".join(p for p in finding.param.split(",") if p)
        return f"the program's own jit traces `{shown}` whatever value it passes"
    if finding.code == "JAX108":
        return "the finding is about the class, and any instance of it fails"
    if finding.code == "JAX302":
        return "the loop's trip count is no input"
    param = (evidence.get("param") or finding.param or "").split("[")[0]
    if evidence.get("kind") == rc.SPELLING:
        return "the finding is about how the calls are written"
    if param:
        return f"`{param}` made by the program's own code"
    return "the value the finding is about made by the program's own code"


# -- one finding over all of a file's units --------------------------------------------------------

def judge_finding(judge: Judge, finding, runs: list, stop_reason: str = "", import_error=None,
                  reasons_without_units: str = "") -> FindingVerdict:
    """Combine the per-run checks of `runs` ([(unit, obs)], the module's import first):
    a confirmation on the program's own inputs or an example wins; then a clean run of those
    (not reproduced); then a confirmation on guessed inputs; otherwise inconclusive with the
    most telling reason."""
    if import_error is not None:
        if predicted_error(finding.code, import_error) and (
                judge.at_finding(finding, import_error)
                or finding.line in import_error.get("file_lines", [])):
            return FindingVerdict(finding, CONFIRMED, f"importing the module raised {error_words(import_error)}",
                                  {"exception": import_error.get("type"), "line": import_error.get("line")},
                                  basis="program")
        return FindingVerdict(finding, INCONCLUSIVE, f"the module failed to import: {error_words(import_error)}")
    found = {"confirmed": [], "clean": [], "weak": [], "other": [], "unreached": []}
    guessed_confirmed, guessed_clean, program_premise_clean = [], [], []
    for unit, obs in runs:
        if obs is None:
            continue
        state, text, evidence = judge.check(finding, unit, obs)
        basis = unit.get("basis", "program")
        if basis == "guessed":
            if state == "confirmed":
                guessed_confirmed.append((unit, obs, text, evidence))
                continue
            if state == "clean":
                if not premise_guessed(judge, finding, unit, obs, evidence):
                    # the calling code passed its own value for what the finding is about
                    program_premise_clean.append(f"{text}, with the value the finding is about made by the "
                                                 f"program (its other inputs guessed)")
                else:
                    guessed_clean.append(f"{text} (on guessed inputs, which says nothing about the program's)")
                continue
        found[state].append((unit, text, evidence))
    if found["confirmed"]:
        unit, text, evidence = found["confirmed"][0]
        label = judge.unit_label(unit)
        return FindingVerdict(finding, CONFIRMED, f"{text} [{label}]", dict(evidence, unit=label),
                              basis=unit.get("basis", "program"))
    if found["clean"]:
        unit, text, evidence = found["clean"][0]
        return FindingVerdict(finding, NOT_REPRODUCED, text, dict(evidence, unit=judge.unit_label(unit)),
                              basis=unit.get("basis", "program"))
    for unit, obs, text, evidence in guessed_confirmed:
        label = judge.unit_label(unit)
        why = premise_guessed(judge, finding, unit, obs, evidence)
        if not why:
            return FindingVerdict(finding, CONFIRMED, f"on guessed inputs ({_kept(finding, evidence, unit, obs)}), {text} "
                                                      f"[{label}]", dict(evidence, unit=label), basis="guessed")
    if program_premise_clean:
        # the program's own value ran cleanly; only a guess of that value made JAX fail
        return FindingVerdict(finding, INCONCLUSIVE, program_premise_clean[0])
    if guessed_confirmed:
        unit, obs, text, evidence = guessed_confirmed[0]
        label = judge.unit_label(unit)
        why = premise_guessed(judge, finding, unit, obs, evidence)
        return FindingVerdict(finding, GUESSED, f"{text} [{label}]; {why}, so it does not count as a "
                                                f"confirmation", dict(evidence, unit=label, premise=why),
                              basis="guessed")
    if found["weak"]:
        return FindingVerdict(finding, INCONCLUSIVE, found["weak"][0][1])
    if stop_reason:
        return FindingVerdict(finding, INCONCLUSIVE, stop_reason)
    if found["other"]:
        return FindingVerdict(finding, INCONCLUSIVE, found["other"][0][1])
    if guessed_clean:
        return FindingVerdict(finding, INCONCLUSIVE, guessed_clean[0])
    if found["unreached"]:
        # the most telling: a run that got there eagerly, then the runs made for this finding
        unreached = sorted(found["unreached"],
                           key=lambda item: (not item[2].get("eagerly"), item[0].get("kind") == "import"))
        text = unreached[0][1]
        if reasons_without_units:
            text = f"{text}; {reasons_without_units}"
        return FindingVerdict(finding, INCONCLUSIVE, text)
    if reasons_without_units:
        return FindingVerdict(finding, INCONCLUSIVE, reasons_without_units)
    if recompile_kinds(finding.code) is not None or finding.code == "JAX302":
        return FindingVerdict(finding, INCONCLUSIVE, f"no run reached it; {RUN_HINT}")
    return FindingVerdict(finding, INCONCLUSIVE, "no run reached it")
