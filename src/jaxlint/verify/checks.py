"""Per-rule checks: what one run (a unit) showed about one finding.

PARENT SIDE, pure logic over the child's JSON observations (`child.py`, `instrument.py`) and the
file's AST (`context.py`); unit-testable without JAX. Each check returns (state, text, evidence):

- confirmed: JAX did what the rule predicts;
- clean: the run met the conditions the finding names and JAX did not do it (evidence of a
  false alarm, when the run used the program's own inputs);
- weak: the run reached the finding but not under the conditions it names (one value where it
  predicts many, data that divides evenly where it predicts a ragged last batch, ...);
- other: the run failed elsewhere, or the check could not be made;
- unreached: the run never ran the flagged line (under a trace, for trace-time rules).
"""

from __future__ import annotations

import ast
import os
import re

from jaxlint.verify import recompiles as rc

ERROR_CODES = {"JAX101", "JAX102", "JAX103", "JAX104", "JAX105", "JAX108", "JAX202", "JAX203", "JAX403"}
# rules about code that runs eagerly (a call, a read after it): their lines need not run traced
EAGER_CODES = {"JAX202", "JAX203", "JAX402", "JAX403"}
# rules confirmed by an error JAX raises elsewhere than the flagged line: code -> (exception
# names, whether the flagged line must be in the error's traceback chain)
LATE_ERROR_CODES = {"JAX109": (("UnexpectedTracerError",), False), "JAX401": (("KeyReuseError",), True)}
# rules whose confirmation is a warning JAX emits at the flagged line: code -> words of its message
WARNING_CODES = {"JAX402": "Explicitly requested dtype"}
# causes of a recompilation each rule predicts; JAX2xx/JAX3xx codes not listed here (rules added
# later) are checked the same way and accept any cause at the call they flag
RECOMPILE_CODES = {"JAX201": {rc.STATIC}, "JAX204": {rc.STATIC}, "JAX301": {rc.RECREATED},
                   "JAX303": {rc.SHAPE}, "JAX304": {rc.SPELLING, rc.DTYPE, rc.STATIC, rc.STRUCTURE},
                   "JAX305": {rc.SHAPE}, "JAX306": {rc.DTYPE}, "JAX307": {rc.STRUCTURE, rc.SPELLING}}
ANY_CAUSE = frozenset({rc.STATIC, rc.SHAPE, rc.DTYPE, rc.STRUCTURE, rc.SPELLING, rc.RECREATED})
NOT_RECOMPILATION = {"JAX202", "JAX203", "JAX302"}
# extra compiles a rule needs to see: JAX201 claims growth, which two values do not show
GROWTH = {"JAX201": 2}
HASH_MESSAGE = "parameters to jaxpr equations must have __hash__"
_SELF_PATH = re.compile(r"at path (?:self|cls)\.(\s|$)")


def recompile_kinds(code: str):
    """The causes a recompilation rule predicts, or None for rules that are not about them."""
    if code in RECOMPILE_CODES:
        return RECOMPILE_CODES[code]
    if code[:4] in ("JAX2", "JAX3") and code not in NOT_RECOMPILATION:
        return ANY_CAUSE
    return None


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
        # `self` (or the class, under @classmethod) is not an array (not one of its fields: `at path self.w`)
        return _is(err, "TypeError") and bool(_SELF_PATH.search(err.get("message", "")))
    if code == "JAX202":
        return _is(err, "ValueError") and _says(err, "Non-hashable static arguments")
    if code == "JAX403":
        # RuntimeError (Array has been deleted), or from a cached call's fast path ValueError /
        # JaxRuntimeError (Buffer has been deleted or donated): which one depends on JAX's caches
        return _says(err, "has been deleted", "deleted or donated")
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


def clip(text: str, limit: int = 60) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def short_name(qualname: str) -> str:
    return (qualname or "").replace(".<locals>", "").split(".")[-1]


def same_function(a: str, b: str) -> bool:
    """Whether two qualified names (one maybe with `<locals>`, one maybe shortened) agree."""
    a, b = (a or "").replace(".<locals>", ""), (b or "").replace(".<locals>", "")
    if not a or not b:
        return False
    return a == b or a.endswith("." + b) or b.endswith("." + a) or short_name(a) == short_name(b)


class Judge:
    def __init__(self, ctx, path: str):
        self.ctx = ctx
        self.path = path

    # -- what a unit ran -------------------------------------------------------------------------
    @staticmethod
    def unit_label(unit) -> str:
        return unit.get("label") or f"unit `{clip(unit.get('expr', ''), 80)}`"

    def span(self, finding) -> tuple:
        return self.ctx.statement_span(finding.line)

    def reached(self, finding, obs, traced: bool = None) -> bool:
        """Whether the unit ran the finding's line; for trace-time claims, while JAX was tracing
        (a line run eagerly, e.g. under jax.disable_jit, does not exercise the finding)."""
        if traced is None:
            traced = recompile_kinds(finding.code) is None and finding.code not in EAGER_CODES
        lines = obs.get("traced_lines") if traced else None
        lines = set(obs.get("lines", []) if lines is None else lines)
        if finding.code == "JAX108":
            body = self.ctx.body_lines(finding.function)
            return bool(body) and any(body[0] <= line <= body[1] for line in lines)
        start, end = self.span(finding)
        return any(start <= line <= end for line in lines) or finding.line in lines or \
            self.ctx.mark_line(finding.line) in lines

    def not_reached(self, finding, unit, obs) -> tuple:
        if self.reached(finding, obs, traced=False):
            return "unreached", (f"{self.unit_label(unit)} ran line {finding.line} only eagerly (JAX was not "
                                 f"tracing), so it does not exercise the finding"), {"eagerly": True}
        return "unreached", f"{self.unit_label(unit)} did not reach line {finding.line}", {}

    def at_finding(self, finding, err) -> bool:
        line = err.get("line")
        if line is None:
            return False
        if line == finding.line:
            return True
        start, end = self.span(finding)
        return start <= line <= end

    def calls_of(self, finding, calls, function=None) -> list:
        name = function or finding.entry or finding.function
        return [c for c in calls if same_function(c.get("function"), name)]

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
        if code in WARNING_CODES:
            return self._warning(finding, unit, obs)
        if code in LATE_ERROR_CODES:
            return self._late_error(finding, unit, obs)
        if recompile_kinds(code) is not None:
            return self._recompile(finding, unit, obs)
        return "other", f"jaxlint verify has no check for {code}", {}

    # -- trace-time errors -----------------------------------------------------------------------
    def _located(self, finding, err) -> str:
        """The confirmation text when `err` is the predicted error at the finding, else ""."""
        if not predicted_error(finding.code, err):
            return ""
        if finding.code == "JAX108":
            name = short_name(finding.function)
            message = err.get("message", "")
            if not name or f"{name} at 0x" in message or f".{name} " in message:
                return f"{err['type']} at the call ({error_head(err)})"
            return ""
        if finding.code in ("JAX202", "JAX203"):
            lines = err.get("file_lines", [])
            start, end = self.span(finding)
            if any(start <= line <= end for line in lines):
                return f"{err['type']} at line {finding.line}: {error_head(err)}"
            names = self.ctx.aliases(short_name(finding.function))
            calls = [line for line in lines if self.ctx.calls_on_line(line, names)]
            if calls:
                return f"{err['type']} at the call of `{finding.function}` at line {calls[-1]}: {error_head(err)}"
            return ""
        if self.at_finding(finding, err):
            return f"{err['type']} at line {err['line']}: {error_head(err)}"
        return ""

    def _error(self, finding, unit, obs):
        err = obs.get("error")
        # an error the program caught still crossed the jitted call: the call records keep it
        candidates = ([err] if err else []) + [c["error"] for c in obs.get("calls", []) if c.get("error")]
        for candidate in candidates:
            text = self._located(finding, candidate)
            if text:
                evidence = {"exception": candidate.get("type"), "message": error_head(candidate),
                            "line": candidate.get("line")}
                return "confirmed", text, evidence
        if not err:
            if finding.code == "JAX203" and self._negative_argnums(finding):
                # a negative index fails only at a call passing arguments by keyword
                keyword_calls = [c for c in self.calls_of(finding, obs.get("calls", []), finding.function)
                                 if (c.get("spelling") or [0, []])[1]]
                if keyword_calls:       # the shifted static slot held a hashable value: no error to see
                    return "weak", (f"{self.unit_label(unit)} called `{finding.function}` with keyword arguments "
                                    f"at line {keyword_calls[0].get('line')} without an error"), {}
                if self.reached(finding, obs):
                    return "weak", (f"{self.unit_label(unit)} applied jax.jit at line {finding.line}, but made no call "
                                    f"passing arguments by keyword, where a negative static_argnums goes wrong"), {}
                return self.not_reached(finding, unit, obs)
            if self.reached(finding, obs):
                return "clean", f"{self.unit_label(unit)} traced line {finding.line} without an error", {}
            return self.not_reached(finding, unit, obs)
        evidence = {"exception": err.get("type"), "message": error_head(err), "line": err.get("line")}
        if is_memory_error(err):
            return "other", f"{self.unit_label(unit)} ran out of memory", evidence
        if err.get("type") == "Unreachable":
            return "other", error_head(err), evidence
        return "other", f"{self.unit_label(unit)} raised {error_words(err)}", evidence

    # -- errors raised later: JAX109 (a leaked tracer used), JAX401 (typed key reused) ------------
    def _late_error(self, finding, unit, obs):
        names, at_line = LATE_ERROR_CODES[finding.code]
        err = obs.get("error")
        candidates = ([err] if err else []) + [c["error"] for c in obs.get("calls", []) if c.get("error")]
        start, end = self.span(finding)
        for candidate in candidates:
            if not _is(candidate, *names):
                continue
            if at_line and not any(start <= line <= end for line in candidate.get("chain_lines", ())):
                continue
            if not at_line and not self.reached(finding, obs):
                continue
            return ("confirmed", f"{candidate['type']}: {error_head(candidate)}",
                    {"exception": candidate.get("type"), "message": error_head(candidate)})
        if err:
            return "other", f"{self.unit_label(unit)} raised {error_words(err)}", {}
        if finding.code == "JAX401":
            return "other", (f"{self.unit_label(unit)} raised no KeyReuseError (a key made from raw data, "
                             f"not by PRNGKey or key, draws the same numbers silently when reused)"), {}
        if self.reached(finding, obs):
            ran = int((obs.get("mark_counts") or {}).get(str(self.ctx.mark_line(finding.line)), 0))
            calls = len(self.calls_of(finding, obs.get("calls", [])))
            if 1 <= ran < calls:
                return ("confirmed", f"the store at line {finding.line} ran {ran} time(s) for {calls} calls of "
                                     f"`{short_name(finding.entry or finding.function)}`: only while tracing",
                        {"stores": ran, "calls": calls})
            return "weak", f"{self.unit_label(unit)} stored at line {finding.line} but never used what it stored", {}
        return self.not_reached(finding, unit, obs)

    # -- warnings: JAX402 ------------------------------------------------------------------------
    def _warning(self, finding, unit, obs):
        words = WARNING_CODES[finding.code]
        start, end = self.span(finding)
        for category, message, line in obs.get("warnings", ()):
            if words in message and start <= line <= end:
                return ("confirmed", f"{category} at line {line}: {clip(message, 100)}",
                        {"warning": category, "message": message, "line": line})
        if self.reached(finding, obs, traced=False):
            return "clean", f"{self.unit_label(unit)} ran line {finding.line} without the warning", {}
        return self.not_reached(finding, unit, obs)

    def _negative_argnums(self, finding) -> bool:
        """Whether the jit at the finding passes a negative `static_argnums`."""
        if self.ctx.tree is None:
            return False
        start, end = self.span(finding)
        for node in ast.walk(self.ctx.tree):
            if isinstance(node, ast.keyword) and node.arg == "static_argnums" and \
                    start <= getattr(node.value, "lineno", 0) <= end:
                for sub in ast.walk(node.value):
                    if isinstance(sub, ast.UnaryOp) and isinstance(sub.op, ast.USub):
                        return True
        return False

    # -- JAX106: isinstance on a tracer ----------------------------------------------------------
    def branches(self, line: int):
        """Line spans of the alternatives decided at `line` (the if body and the else body, or the
        match cases), or None when they cannot be told apart by line (a conditional expression,
        a body on the line of its test)."""
        tree = self.ctx.tree
        if tree is None:
            return None
        best = None
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and node.lineno <= line <= (node.test.end_lineno or node.lineno):
                test_end = node.test.end_lineno or node.lineno
                spans = [(node.body[0].lineno, node.body[-1].end_lineno)]
                if node.orelse:
                    spans.append((node.orelse[0].lineno, node.orelse[-1].end_lineno))
                best = None if any(a <= test_end for a, _ in spans) else spans
            elif isinstance(node, ast.Match) and node.lineno <= line <= node.end_lineno and best is None:
                spans = [(case.body[0].lineno, case.body[-1].end_lineno) for case in node.cases]
                best = None if any(a <= case.pattern.end_lineno for (a, _), case in zip(spans, node.cases)) \
                    else spans
        return best

    def _type_test(self, finding, unit, obs):
        spans = self.branches(finding.line)
        start, end = self.span(finding)
        compared = []
        for call in obs.get("calls", []):
            eager = call.get("eager")
            if not eager or not call.get("traced"):
                continue
            jit_lines, eager_lines = set(call.get("lines", [])), set(eager.get("lines", []))
            if not any(start <= line <= end for line in jit_lines) and \
                    self.ctx.mark_line(finding.line) not in jit_lines:
                continue
            if eager.get("error"):
                compared.append(("other", f"the eager run raised {error_words(eager['error'])}"))
                continue
            if spans:
                taken_jit = [i for i, (a, b) in enumerate(spans) if any(a <= x <= b for x in jit_lines)]
                taken_eager = [i for i, (a, b) in enumerate(spans) if any(a <= x <= b for x in eager_lines)]
                if taken_jit != taken_eager:
                    def where(taken):
                        return " and ".join(f"the branch at line {spans[i][0]}" for i in taken) or "neither branch"
                    where_jit, where_eager = where(taken_jit), where(taken_eager)
                    return "confirmed", (f"on the same arguments, `{call['function']}` ran {where_jit} under jit and "
                                         f"{where_eager} eagerly (jax.disable_jit)"), \
                        {"jit_branch": where_jit, "eager_branch": where_eager, "function": call["function"]}
            if eager.get("same") is False:
                return "confirmed", (f"jit and jax.disable_jit() give different results on the same arguments "
                                     f"({eager['detail']})"), {"difference": eager["detail"]}
            if spans or eager.get("same") is True:
                compared.append(("clean", f"{self.unit_label(unit)}: `{call['function']}` takes the same branch "
                                          f"under jit and eagerly at line {finding.line}"))
            else:
                compared.append(("other", "the branch taken cannot be told by line and the results were not "
                                          "compared"))
        for state, text in compared:
            if state == "clean":
                return state, text, {}
        if compared:
            return compared[0][0], compared[0][1], {}
        if not obs.get("ok") and obs.get("error"):
            return "other", f"{self.unit_label(unit)} raised {error_words(obs['error'])}", {}
        if self.reached(finding, obs):
            return "other", "no jit-versus-eager comparison was made of the call that traced the line", {}
        return self.not_reached(finding, unit, obs)

    # -- JAX107: print at trace time -------------------------------------------------------------
    def _print(self, finding, unit, obs):
        start, end = self.span(finding)
        writes = obs.get("writes", [])

        def at_line(first=0, last=None):
            chunk = writes[first:last] if last is not None else writes[first:]
            return "".join(text for line, text in chunk if line and start <= line <= end)

        calls = obs.get("calls", [])
        if obs.get("staged"):       # under staging only prints inside a jitted call are the program's
            printed = "".join(at_line(*c["writes"]) for c in calls if c.get("writes") and c.get("traced"))
        else:
            printed = at_line()
        if "Tracer" not in printed:
            if not obs.get("ok") and obs.get("error"):
                return "other", f"{self.unit_label(unit)} raised {error_words(obs['error'])}", {}
            if self.reached(finding, obs):
                return "clean", f"line {finding.line} ran under tracing but printed no tracer", {}
            return self.not_reached(finding, unit, obs)
        once = again = None
        for call in calls:
            repeat = call.get("repeat")
            if repeat and not repeat.get("error") and not repeat.get("traced"):
                text = at_line(*repeat["writes"])
                once, again = (once or not text), (again or text or None)
        printer = [c for c in calls if c.get("writes") and "Tracer" in at_line(*c["writes"])]
        if printer:
            later = [c for c in calls[calls.index(printer[0]) + 1:]
                     if same_function(c["function"], printer[0]["function"]) and not c.get("traced")]
            for call in later:
                text = at_line(*call["writes"]) if call.get("writes") else ""
                once, again = (once or not text), (again or text or None)
        second = obs.get("second")
        if second is not None and second.get("ok"):
            text = "".join(t for line, t in second.get("writes", []) if line and start <= line <= end)
            once, again = (once or not text), (again or text or None)
        if again:
            return "clean", f"line {finding.line} prints on every call (`{clip(again.strip(), 60)}`)", {}
        if once:
            return "confirmed", (f"line {finding.line} printed `{clip(printed.strip(), 60)}` while tracing and "
                                 f"nothing on a later cached call"), {"printed": printed.strip()[:200]}
        why = "the run failed" if not obs.get("ok") else "the function was never called again"
        return "other", f"printed a tracer, but {why}, so the once-only print is unchecked", {}

    # -- recompilation rules ---------------------------------------------------------------------
    def _recompile(self, finding, unit, obs):
        records = self.in_file(obs.get("_prior_traces", []) + obs.get("traces", []))
        calls = obs.get("_prior_calls", []) + obs.get("calls", [])
        stats = rc.group(records)
        start, end = self.span(finding)
        kinds = recompile_kinds(finding.code)
        name = short_name(finding.function)
        at_line, by_name = [], []
        # a rule about two calls that JAX caches apart (JAX304-JAX307, and rules added later) is
        # shown by the second call to run, whichever of the two the finding points at
        pair = finding.code not in ("JAX201", "JAX204", "JAX301", "JAX303")
        for fs in stats:
            for r in rc.top_level(fs):
                here = (r.call_line is not None and start <= r.call_line <= end) or r.def_line == finding.line \
                    or (pair and r.base_line is not None and start <= r.base_line <= end)
                if here:
                    at_line.append((fs, r))
                elif name and fs.name == name:
                    by_name.append((fs, r))
        verb = "traced" if obs.get("staged") else "compiled"      # staged: each trace = a compile
        need = GROWTH.get(finding.code, 1)
        # a recompilation elsewhere confirms nothing about this call; only a function re-created
        # at the flagged line may be called (and recompile) on another line
        for group in (at_line, by_name if finding.code == "JAX301" else []):
            matching = [(fs, r) for fs, r in group if r.kind in kinds]
            if not matching:
                continue
            fs, first = matching[0]
            same_fn = [r for f, r in matching if f is fs]
            if len(same_fn) < need:
                values = rc.static_values(fs, first.param) if first.kind == rc.STATIC else []
                shown = f" ({', '.join(values[:4])})" if values else ""
                return "weak", (f"`{fs.qualname}` {verb} {fs.traces} times at line {finding.line}{shown}: "
                                f"{finding.code} claims growth, which needs more than {need} distinct values"), {}
            lines = {r.call_line for _, r in matching}
            causes = [c.text for c in rc.summarise(fs) if c.kind in kinds and c.call_line in lines]
            if pair and first.call_line is not None and not start <= first.call_line <= end:
                causes = [f"{c} (against the call at line {finding.line})" for c in causes]
            cause = causes[0] if causes else first.text
            return "confirmed", f"`{fs.qualname}` {verb} {fs.traces} times: {cause}", \
                {"function": fs.qualname, "traces": fs.traces, "compiles": fs.compiles,
                 "causes": [c.text for c in rc.summarise(fs)], "param": first.param, "kind": first.kind,
                 "call_lines": sorted({r.call_line for _, r in matching if r.call_line})}
        if at_line:
            fs, r = at_line[0]
            return "other", f"`{fs.qualname}` recompiled at line {finding.line}, but because {r.text}", {}
        if not obs.get("ok") and obs.get("error"):
            return "other", f"{self.unit_label(unit)} raised {error_words(obs['error'])}", {}
        if not self.reached(finding, obs):
            return "unreached", f"{self.unit_label(unit)} did not reach line {finding.line}", {}
        return self._conditions(finding, unit, calls, stats, start, end)

    def _conditions(self, finding, unit, calls, stats, start, end):
        """Whether the calls the run made are those the finding is about (clean: not reproduced),
        or too few to tell (weak)."""
        mine = self.calls_of(finding, calls, finding.function)
        at = [c for c in mine if c.get("line") is not None and start <= c["line"] <= end]
        counts = ", ".join(f"{fs.qualname}: {fs.traces}" for fs in stats) or "no traces"
        label = self.unit_label(unit)
        code = finding.code
        if code == "JAX301":
            proxies = {c.get("proxy") for c in calls if c.get("created") is not None and start <= c["created"] <= end}
            if len(proxies) >= 2:
                return "clean", (f"{label} applied jax.jit at line {finding.line} {len(proxies)} times and the "
                                 f"function traced only once ({counts})"), {}
            if not at and not proxies:
                return "weak", f"{label} made no call of a function jitted at line {finding.line}", {}
            return "weak", f"{label} applied jax.jit at line {finding.line} only once", {}
        if not at:
            return "weak", f"{label} ran line {finding.line} but recorded no call of `{finding.function}` there", {}
        if code == "JAX201":
            param = (finding.param or "").split(",")[0]
            values = sorted({c["args"].get(param, ["", "?"])[1] for c in at})
            if len(values) >= 3:
                return "clean", (f"{label} passed {len(values)} distinct values of `{param}` at line {finding.line} "
                                 f"({', '.join(clip(v, 20) for v in values[:4])}) with no extra compile "
                                 f"({counts})"), {}
            return "weak", (f"{label} passed only {len(values)} distinct value{'s' * (len(values) != 1)} of "
                            f"`{param}` at line {finding.line}: growth cannot be shown"), {}
        if code == "JAX204":
            if len(at) >= 2:
                return "clean", (f"{label} called `{finding.function}` {len(at)} times at line {finding.line} "
                                 f"with no extra compile ({counts})"), {}
            return "weak", f"{label} called `{finding.function}` only once at line {finding.line}", {}
        # a call that differs from another one (shape, dtype, structure, spelling, value): the
        # second of the two to run would compile again
        for call in at:
            for other in mine:
                if other is not call and (other.get("args") != call.get("args")
                                          or other.get("spelling") != call.get("spelling")):
                    return "clean", (f"{label}: the call at line {finding.line} differs from the one at line "
                                     f"{other.get('line')} and neither compiled again ({counts})"), {}
        what = {"JAX303": "every batch had the same shape (no uneven last batch in this run)",
                "JAX305": "every call passed the same shapes", "JAX306": "every call passed the same dtypes",
                "JAX307": "every call passed the same structure"}.get(
            code, "no call there differed from an earlier call")
        return "weak", f"{label} called `{finding.function}` {len(at)} time{'s' * (len(at) != 1)} at line " \
                       f"{finding.line}, but {what}", {}

    # -- JAX302: unrolled loops ------------------------------------------------------------------
    def _unrolled(self, finding, unit, obs):
        body = self.ctx.loop_body(finding.line)
        if body is None:
            return "other", f"no `for` loop found at line {finding.line}", {}
        if not obs.get("ok") and obs.get("error"):
            return "other", f"{self.unit_label(unit)} raised {error_words(obs['error'])}", {}
        best = None
        for staged in obs.get("eqns", []):
            seq = [tuple(e) for e in staged.get("seq", []) if body[0] <= e[0] <= body[1]]
            if seq:
                copies, period = repetitions(seq)
                if best is None or copies > best[0]:
                    best = (copies, period, len(seq), staged.get("function"))
        iterations = int((obs.get("mark_counts") or {}).get(str(self.ctx.mark_line(body[0])), 0))
        if best is None:
            if self.reached(finding, obs) and iterations >= 2:
                return "weak", (f"the loop at line {finding.line} ran {iterations} times under a trace, but no "
                                f"staged equation could be attributed to it"), {}
            errors = "; ".join(obs.get("eqn_errors", []))
            return "unreached", (f"no staged equation comes from the loop body (lines {body[0]}-{body[1]})"
                                 + (f" ({errors})" if errors else "")), {}
        copies, period, total, function = best
        evidence = {"copies": copies, "equations": total, "per_iteration": period, "function": function}
        if copies >= 2:
            return "confirmed", (f"the loop body was staged {copies} times into `{function}` "
                                 f"({total} equations, {period} per iteration)"), evidence
        if iterations >= 2:
            return "clean", (f"the loop at line {finding.line} ran {iterations} times under a trace and its body "
                             f"was staged once ({total} equations)"), evidence
        return "weak", (f"the loop at line {finding.line} ran {iterations} time{'s' * (iterations != 1)} under "
                        f"a trace: too few to show unrolling"), evidence

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
