"""From observations to verdicts: is each finding what JAX actually does?

PARENT SIDE, pure logic over the child's JSON observations (`child.py`) and the file's AST
(`context.py`); unit-testable without JAX.

A verdict is one of:
- confirmed: JAX did what the rule predicts (raised the predicted error with the innermost frame
  in the file on the finding's line; printed a tracer once; computed another result under jit
  than eagerly; compiled again for the predicted reason; staged the loop body once per
  iteration);
- not reproduced: an example reached the finding's line and JAX did none of that: a likely
  false alarm;
- inconclusive: nothing decided it, with the reason (import failed, timed out, no example, the
  example failed elsewhere first, the line was never reached, ...).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from jaxlint.verify import recompiles as rc

CONFIRMED = "confirmed"
NOT_REPRODUCED = "not reproduced"
INCONCLUSIVE = "inconclusive"

ERROR_CODES = {"JAX101", "JAX102", "JAX103", "JAX104", "JAX105", "JAX108", "JAX202", "JAX203"}
RECOMPILE_CODES = {"JAX201": {rc.STATIC}, "JAX204": {rc.STATIC}, "JAX301": {rc.RECREATED},
                   "JAX303": {rc.SHAPE}, "JAX304": {rc.SPELLING, rc.DTYPE, rc.STATIC, rc.STRUCTURE}}
HASH_MESSAGE = "parameters to jaxpr equations must have __hash__"
RUN_HINT = "run the program under `jaxlint verify --run` to see its real compiles"


@dataclass
class FindingVerdict:
    finding: object                 # jaxlint.findings.Finding
    verdict: str
    reason: str
    evidence: dict = field(default_factory=dict)


# -- predicted errors ------------------------------------------------------------------------------

def _is(err, *names) -> bool:
    return any(n in err.get("mro", []) for n in names)


def _says(err, *fragments) -> bool:
    message = err.get("message", "")
    return any(f in message for f in fragments)


def predicted_error(code: str, err: dict) -> bool:
    """Whether an exception is the one rule `code` predicts (reference, Key fact 2)."""
    if code == "JAX101":
        return _is(err, "TracerBoolConversionError")
    if code == "JAX102":
        return _is(err, "ConcretizationTypeError", "TracerIntegerConversionError",
                   "TracerArrayConversionError") or _is(err, "TypeError")
    if code == "JAX103":
        return (_is(err, "ConcretizationTypeError", "TracerIntegerConversionError")
                or (_is(err, "TypeError") and _says(err, "Shapes must be 1D", HASH_MESSAGE))
                or (_is(err, "ValueError") and _says(err, "Non-hashable static")))
    if code == "JAX104":
        return ((_is(err, "IndexError") and _says(err, "Slice entries must be static"))
                or (_is(err, "TypeError") and _says(err, "Shapes must be 1D", HASH_MESSAGE))
                or _is(err, "TracerIntegerConversionError", "ConcretizationTypeError"))
    if code == "JAX105":
        return _is(err, "NonConcreteBooleanIndexError", "ConcretizationTypeError")
    if code == "JAX108":
        return _is(err, "TypeError") and _says(err, "at path self")
    if code == "JAX202":
        return _is(err, "ValueError") and _says(err, "Non-hashable static arguments")
    if code == "JAX203":
        # at jax.jit(...) creation; for a negative static_argnums, at the call whose keyword
        # arguments shift the static slot onto an array
        return _is(err, "ValueError") and _says(err, "Jitted function has", "Non-hashable static arguments")
    return False


def is_memory_error(err: dict) -> bool:
    return _is(err, "MemoryError") or _says(err, "RESOURCE_EXHAUSTED", "Out of memory")


def error_head(err: dict) -> str:
    first = (err.get("message") or "").strip().splitlines()
    text = first[0] if first else ""
    return text if len(text) <= 140 else text[:139] + "…"


def error_words(err: dict) -> str:
    where = f" at line {err['line']}" if err.get("line") else " outside the file"
    head = error_head(err)
    return f"{err.get('type')}{where}" + (f": {head}" if head else "")


# -- per-unit checks -------------------------------------------------------------------------------
# Each returns (state, text, evidence) with state in confirmed / clean / other / unreached.

class Judge:
    def __init__(self, ctx, path: str):
        self.ctx = ctx
        self.path = path

    def unit_label(self, unit) -> str:
        if unit["kind"] == "example":
            return f"example at line {unit['line']} (`{_clip(unit['expr'])}`)"
        return f"synthesized call `{_clip(unit['expr'], 90)}`"

    def reached(self, finding, obs, traced: bool = None) -> bool:
        """Whether the unit ran the finding's line; for trace-time claims, while JAX was tracing
        (a line run eagerly, e.g. under jax.disable_jit, does not exercise the finding)."""
        if traced is None:
            traced = finding.code not in RECOMPILE_CODES and finding.code not in ("JAX202", "JAX203")
        lines = obs.get("traced_lines") if traced else None
        lines = set(obs.get("lines", []) if lines is None else lines)
        if finding.code == "JAX108":
            body = self.ctx.body_lines(finding.function)
            return bool(body) and any(body[0] <= line <= body[1] for line in lines)
        start, end = self.ctx.statement_span(finding.line)
        return any(start <= line <= end for line in lines) or finding.line in lines

    def not_reached(self, finding, unit, obs) -> tuple:
        if self.reached(finding, obs, traced=False):
            return "unreached", (f"{self.unit_label(unit)} ran line {finding.line} only eagerly (JAX was not "
                                 f"tracing), so it does not exercise the finding"), {}
        return "unreached", f"{self.unit_label(unit)} did not reach line {finding.line}", {}

    def at_finding(self, finding, err) -> bool:
        line = err.get("line")
        if line is None:
            return False
        if line == finding.line:
            return True
        start, end = self.ctx.statement_span(finding.line)
        return start <= line <= end

    def check(self, finding, unit, obs):
        code = finding.code
        if code in ERROR_CODES:
            return self._error(finding, unit, obs)
        if code == "JAX106":
            return self._type_test(finding, unit, obs)
        if code == "JAX107":
            return self._print(finding, unit, obs)
        if code == "JAX302":
            return self._unrolled(finding, unit, obs)
        if code in RECOMPILE_CODES:
            return self._recompile(finding, unit, obs)
        return "other", f"jaxlint verify has no check for {code}", {}

    def _error(self, finding, unit, obs):
        err = obs.get("error")
        if obs.get("ok") or not err:
            if self.reached(finding, obs):
                return "clean", f"{self.unit_label(unit)} traced line {finding.line} without an error", {}
            return self.not_reached(finding, unit, obs)
        evidence = {"exception": err.get("type"), "message": error_head(err), "line": err.get("line")}
        if is_memory_error(err):
            return "other", f"{self.unit_label(unit)} ran out of memory", evidence
        if predicted_error(finding.code, err):
            if finding.code == "JAX108":
                name = (finding.function or "").split(".")[-1]
                if not name or f"{name} at 0x" in err.get("message", "") or f".{name} " in err.get("message", ""):
                    return "confirmed", f"{err['type']} at the call ({error_head(err)})", evidence
            elif finding.code in ("JAX202", "JAX203"):
                lines = err.get("file_lines", [])
                start, end = self.ctx.statement_span(finding.line)
                if any(start <= line <= end for line in lines):
                    return "confirmed", f"{err['type']} at line {finding.line}: {error_head(err)}", evidence
                names = self.ctx.aliases((finding.function or "").split(".")[-1])
                calls = [line for line in lines if self.ctx.calls_on_line(line, names)]
                if calls:
                    return "confirmed", (f"{err['type']} at the call of `{finding.function}` at line "
                                         f"{calls[-1]}: {error_head(err)}"), evidence
            elif self.at_finding(finding, err):
                return "confirmed", f"{err['type']} at line {err['line']}: {error_head(err)}", evidence
        if err.get("type") == "Unreachable":
            return "other", error_head(err), evidence
        return "other", f"{self.unit_label(unit)} raised {error_words(err)}", evidence

    def _type_test(self, finding, unit, obs):
        if not obs.get("ok"):
            return "other", f"{self.unit_label(unit)} raised {error_words(obs['error'])}", {}
        if not self.reached(finding, obs):
            return self.not_reached(finding, unit, obs)
        eager = obs.get("eager")
        if not eager:
            return "other", "no jit-versus-eager comparison was made", {}
        if eager.get("same") is False:
            return "confirmed", f"jit and jax.disable_jit() give different results ({eager['detail']})", \
                {"difference": eager["detail"]}
        if eager.get("same") is True:
            return "clean", f"{self.unit_label(unit)} gives the same result under jit and eagerly", {}
        return "other", eager.get("detail", "the eager run failed"), {}

    def _print(self, finding, unit, obs):
        start, end = self.ctx.statement_span(finding.line)
        first = "".join(text for line, text in obs.get("writes", []) if line and start <= line <= end)
        if "Tracer" in first:
            second = obs.get("second")
            if second is None:
                why = "the example failed" if not obs.get("ok") else "no second run was made"
                return "other", f"printed a tracer, but {why}, so the once-only print is unchecked", {}
            again = "".join(text for line, text in second.get("writes", []) if line and start <= line <= end)
            if not again:
                return "confirmed", (f"line {finding.line} printed `{_clip(first.strip(), 60)}` on the first "
                                     f"call and nothing on the second"), {"printed": first.strip()[:200]}
            return "clean", f"line {finding.line} prints on every call (`{_clip(again.strip(), 60)}`)", {}
        if not obs.get("ok"):
            return "other", f"{self.unit_label(unit)} raised {error_words(obs['error'])}", {}
        if self.reached(finding, obs):
            return "clean", f"line {finding.line} ran under tracing but printed no tracer", {}
        return self.not_reached(finding, unit, obs)

    def _recompile(self, finding, unit, obs):
        stats = rc.group(self.in_file(obs.get("traces", [])))
        start, end = self.ctx.statement_span(finding.line)
        kinds = RECOMPILE_CODES[finding.code]
        name = (finding.function or "").split(".")[-1]
        at_line, by_name = [], []
        for fs in stats:
            for r in rc.top_level(fs):
                here = (r.call_line is not None and start <= r.call_line <= end) or r.def_line == finding.line
                if here:
                    at_line.append((fs, r))
                elif name and fs.name == name:
                    by_name.append((fs, r))
        for group in (at_line, by_name):
            matching = [(fs, r) for fs, r in group if r.kind in kinds]
            if matching:
                fs = matching[0][0]
                causes = [c.text for c in rc.summarise(fs) if c.kind in kinds]
                cause = causes[0] if causes else matching[0][1].text
                verb = "traced" if obs.get("staged") else "compiled"      # staged: each trace = a compile
                return "confirmed", f"`{fs.qualname}` {verb} {fs.traces} times: {cause}", \
                    {"function": fs.qualname, "traces": fs.traces, "compiles": fs.compiles,
                     "causes": [c.text for c in rc.summarise(fs)]}
        if at_line:
            fs, r = at_line[0]
            return "other", f"`{fs.qualname}` recompiled at line {finding.line}, but because {r.text}", {}
        if not obs.get("ok"):
            return "other", f"{self.unit_label(unit)} raised {error_words(obs['error'])}", {}
        if self.reached(finding, obs):
            counts = ", ".join(f"{fs.qualname}: {fs.traces}" for fs in stats) or "no traces"
            return "clean", f"{self.unit_label(unit)} ran line {finding.line} with no extra compile ({counts})", {}
        return "unreached", f"{self.unit_label(unit)} did not reach line {finding.line}", {}

    def _unrolled(self, finding, unit, obs):
        body = self.ctx.loop_body(finding.line)
        if body is None:
            return "other", f"no `for` loop found at line {finding.line}", {}
        if not obs.get("ok"):
            return "other", f"{self.unit_label(unit)} raised {error_words(obs['error'])}", {}
        best = None
        for staged in obs.get("eqns", []):
            seq = [tuple(e) for e in staged.get("seq", []) if body[0] <= e[0] <= body[1]]
            if seq:
                copies, period = repetitions(seq)
                if best is None or copies > best[0]:
                    best = (copies, period, len(seq), staged.get("function"))
        if best is None:
            if self.reached(finding, obs):
                return "clean", f"the loop at line {finding.line} ran but staged no operations", {}
            errors = "; ".join(obs.get("eqn_errors", []))
            return "unreached", (f"no staged equation comes from the loop body (lines {body[0]}-{body[1]})"
                                 + (f" ({errors})" if errors else "")), {}
        copies, period, total, function = best
        evidence = {"copies": copies, "equations": total, "per_iteration": period, "function": function}
        if copies >= 2:
            return "confirmed", (f"the loop body was staged {copies} times into `{function}` "
                                 f"({total} equations, {period} per iteration)"), evidence
        return "clean", f"the loop body was staged once ({total} equations)", evidence

    def in_file(self, records):
        """Trace records of functions defined in the file, or called from it (functions without
        a known definition site are JAX's own helpers and are left out)."""
        return [r for r in records if r.get("def_file") and (
            _same(r.get("def_file"), self.path) or _same(r.get("call_file"), self.path))]


def repetitions(seq) -> tuple:
    """(copies, period) of a sequence made of one block repeated; (runs of its first element,
    length) when it is not exactly periodic (a body that branches on the loop index)."""
    n = len(seq)
    for period in range(1, n // 2 + 1):
        if n % period == 0 and all(seq[i] == seq[i - period] for i in range(period, n)):
            return n // period, period
    first = seq[0]
    runs = sum(1 for i, item in enumerate(seq) if item == first and (i == 0 or seq[i - 1] != first))
    return runs, (n // runs if runs else n)


def _same(a, b) -> bool:
    if not a or not b:
        return False
    return a == b or os.path.realpath(a) == os.path.realpath(b)


def _clip(text: str, limit: int = 60) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


# -- one finding over all of a file's units --------------------------------------------------------

def judge_finding(judge: Judge, finding, units: list, observations: dict, stop_reason: str,
                  import_error=None, reasons_without_units: str = "") -> FindingVerdict:
    """Combine the per-unit checks: any confirmation wins; then a clean run that reached the
    line (not reproduced); otherwise inconclusive with the most telling reason."""
    if import_error is not None:
        if predicted_error(finding.code, import_error) and (
                judge.at_finding(finding, import_error)
                or finding.line in import_error.get("file_lines", [])):
            return FindingVerdict(finding, CONFIRMED,
                                  f"importing the module raised {error_words(import_error)}",
                                  {"exception": import_error.get("type"), "line": import_error.get("line")})
        return FindingVerdict(finding, INCONCLUSIVE, f"the module failed to import: {error_words(import_error)}")
    if not units:
        if finding.code in RECOMPILE_CODES or finding.code == "JAX302":
            return FindingVerdict(finding, INCONCLUSIVE, f"no `# jaxlint-example:` in the file; {RUN_HINT}")
        return FindingVerdict(finding, INCONCLUSIVE, reasons_without_units or "no example inputs could be built")
    clean, others, unreached = [], [], []
    for index, unit in enumerate(units):
        obs = observations.get(index)
        if obs is None:
            continue
        state, text, evidence = judge.check(finding, unit, obs)
        if state == "confirmed":
            evidence = dict(evidence, unit=judge.unit_label(unit))
            return FindingVerdict(finding, CONFIRMED, f"{text} [{judge.unit_label(unit)}]", evidence)
        {"clean": clean, "other": others, "unreached": unreached}[state].append(text)
    if clean:
        return FindingVerdict(finding, NOT_REPRODUCED, clean[0])
    if stop_reason:
        return FindingVerdict(finding, INCONCLUSIVE, stop_reason)
    if others:
        return FindingVerdict(finding, INCONCLUSIVE, others[0])
    if unreached:
        return FindingVerdict(finding, INCONCLUSIVE, unreached[0])
    return FindingVerdict(finding, INCONCLUSIVE, "no example was evaluated")
