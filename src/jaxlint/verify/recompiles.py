"""Why did a function trace again? Diffs of recorded trace signatures, in plain words.

PARENT SIDE, pure data: input is the list of trace records made by `recorder.Recorder` (one per
tracing cache miss, JSON-able dicts), output is per-function statistics and one `Recompile` per
trace after the first, with its cause. Shared by `verify` (JAX2xx/JAX3xx verdicts) and
`verify --run` (the recompilation report).

Each new trace is compared with every earlier trace of the same function object and explained by
the closest one (fewest differing arguments); a new function object at the same definition site
is a re-created function whatever its arguments. When a record has no signature (introspection
failed), JAX's own explanation text is parsed instead.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Optional

# kinds of causes, in the words the report uses
STATIC = "static"            # a static argument took a new value
SHAPE = "shape"              # an array argument changed shape
DTYPE = "dtype"              # an array argument changed dtype, or Python scalar vs array
STRUCTURE = "structure"      # a container argument changed structure (tuple vs list, keys)
SPELLING = "spelling"        # positional vs keyword, or a default left out vs passed
RECREATED = "recreated"      # a new function object for the same code (jit of a fresh lambda...)
UNKNOWN = "unknown"

_OBJECT = re.compile(r"^<([\w.]+) object at 0x[0-9a-f]+>")
_AVAL = re.compile(r"^(?P<dtype>[a-z]+\d*)\[(?P<shape>[^\]]*)\]")
_TEXT_STATIC = re.compile(r"\* at input path (?P<path>\S+), now .*?Static\(val=(?P<now>.*?)\) and before "
                          r".*?Static\(val=(?P<before>.*?)\), so")
_TEXT_TYPES = re.compile(r"\* at (?P<name>\S+), now (?P<now>\S+) and before (?P<before>\S+?)(?:https:|$)",
                         re.MULTILINE)


@dataclass
class Recompile:
    """One trace after a function's first, and why it happened."""

    kind: str
    function: str               # qualified name
    call_file: Optional[str]
    call_line: Optional[int]
    def_line: Optional[int]
    param: str = ""
    before: str = ""
    after: str = ""
    text: str = ""              # the cause in plain words
    record: dict = field(default_factory=dict, repr=False)
    nested: bool = False        # traced while another user function was being traced
    base_line: Optional[int] = None    # the call of the earlier trace this one differs from


@dataclass
class FunctionStats:
    name: str
    qualname: str
    def_file: Optional[str]
    def_line: Optional[int]
    traces: int = 0
    compiles: int = 0
    trace_s: float = 0.0
    compile_s: float = 0.0
    records: list = field(default_factory=list, repr=False)
    recompiles: list = field(default_factory=list)

    @property
    def key(self):
        return (self.def_file, self.def_line, self.name)


def _same_file(a, b) -> bool:
    if not a or not b:
        return False
    return a == b or os.path.realpath(a) == os.path.realpath(b)


def group(records: list) -> list:
    """Records grouped per function definition, in order of first trace, each explained."""
    by_key: dict = {}
    for rec in records:
        key = (rec.get("def_file"), rec.get("def_line"), rec.get("name"))
        stats = by_key.get(key)
        if stats is not None and _replay(stats.records, rec):
            continue
        if stats is None:
            stats = by_key[key] = FunctionStats(rec.get("name") or "?", rec.get("qualname") or rec.get("name") or "?",
                                                rec.get("def_file"), rec.get("def_line"))
        stats.records.append(rec)
        stats.traces += 1
        stats.compiles += int(rec.get("compiles") or 0)
        stats.trace_s += float(rec.get("trace_s") or 0.0)
        stats.compile_s += float(rec.get("lower_s") or 0.0) + float(rec.get("compile_s") or 0.0)
    for stats in by_key.values():
        stats.recompiles = [explain(stats, i) for i in range(1, len(stats.records))]
        for r in stats.recompiles:
            r.nested = r.record.get("parent") is not None
    return list(by_key.values())


def _replay(earlier: list, rec: dict) -> bool:
    """A trace made only because the verifier emptied JAX's caches (a later epoch) with the
    signature of an earlier trace of the same function object: the program would have hit the
    cache."""
    epoch = rec.get("epoch") or 0
    return any((other.get("epoch") or 0) < epoch and other.get("obj") == rec.get("obj")
               and signature_diffs(other.get("sig"), rec.get("sig")) == [] for other in earlier)


def top_level(stats: FunctionStats) -> list:
    """Recompiles that are calls of their own (not re-traces inside another function's trace)."""
    return [r for r in stats.recompiles if not r.nested]


def explain(stats: FunctionStats, index: int) -> Recompile:
    rec = stats.records[index]
    earlier = stats.records[:index]
    base = dict(function=stats.qualname, call_file=rec.get("call_file"), call_line=rec.get("call_line"),
                def_line=stats.def_line, record=rec)
    same_object = [r for r in earlier if r.get("obj") == rec.get("obj")]
    if not same_object:
        where = f" at line {rec['call_line']}" if rec.get("call_line") else ""
        return Recompile(RECREATED, text=(f"function re-created on every call{where}: a new "
                                          f"`{stats.name}` object (defined at line {stats.def_line}) "
                                          f"is traced again, and JAX caches per function object"),
                         **base)
    best, base_line = None, None
    for other in same_object:
        diffs = signature_diffs(other.get("sig"), rec.get("sig"))
        if diffs is None:
            continue
        if best is None or len(diffs) <= len(best):      # ties: the most recent call
            best, base_line = diffs, other.get("call_line")
    if best is None:
        return _from_text(rec, base)
    if not best:
        return Recompile(UNKNOWN, text="traced again with an identical signature (a tracing context such "
                                       "as a config flag or a context manager changed)", **base)
    kind, param, before, after = best[0]
    return Recompile(kind, param=param, before=before, after=after, base_line=base_line,
                     text=describe(kind, param, before, after, rec.get("call_line")), **base)


def signature_diffs(old, new) -> Optional[list]:
    """[(kind, param, before, after)] between two recorded signatures; None if one is missing."""
    if not old or not new:
        return None
    diffs = []
    old_args, new_args = old.get("args", {}), new.get("args", {})
    old_kw, new_kw = set(old.get("keywords", [])), set(new.get("keywords", []))
    for name in sorted(old_kw ^ new_kw):
        if name in old_args and name in new_args:
            was, now = ("by keyword", "positionally") if name in old_kw else ("positionally", "by keyword")
        elif name in new_kw:
            was, now = "left to its default", "passed"
        else:
            was, now = "passed", "left to its default"
        diffs.append((SPELLING, name, was, now))
    spelled = {d[1] for d in diffs}
    for name in sorted(set(old_args) | set(new_args)):
        root = re.split(r"[\[.]", name, maxsplit=1)[0]
        if root in spelled or name in spelled:
            continue
        a, b = old_args.get(name), new_args.get(name)
        if a is None or b is None:
            if "[" not in name:          # a positional parameter left out or passed
                was, now = ("left to its default", "passed") if a is None else ("passed", "left to its default")
                diffs.append((SPELLING, name, was, now))
            continue
        if a[0] != b[0]:
            diffs.append((STRUCTURE, name, a[1], b[1]))
        elif a[0] == "static" and (a[1] != b[1] or a[3:4] != b[3:4]):
            if a[1] == b[1]:
                what = "a new object equal in repr" if not a[4:5] or not a[4] else "a new object hashed by identity"
                diffs.append((STATIC, name, a[1], f"{b[1]} ({what})"))
            else:
                diffs.append((STATIC, name, a[1], b[1]))
        elif a[0] == "tree" and a[1] != b[1]:
            diffs.append((STRUCTURE, name, a[1], b[1]))
        elif a[0] == "array" and (a[1] != b[1] or a[2] != b[2]):
            diffs.append((_array_kind(a, b), name, _aval_words(a), _aval_words(b)))
    # the leaves of a container whose structure changed are noise next to that change
    roots = {d[1] for d in diffs if d[0] == STRUCTURE}
    diffs = [d for d in diffs if d[0] == STRUCTURE or not any(
        d[1].startswith(root + "[") or d[1].startswith(root + ".") for root in roots)]
    return diffs


def _array_kind(a, b) -> str:
    ma, mb = _AVAL.match(a[1]), _AVAL.match(b[1])
    if ma and mb and ma.group("dtype") == mb.group("dtype") and a[2] == b[2]:
        return SHAPE
    return DTYPE


def _aval_words(entry) -> str:
    text, weak = entry[1], entry[2]
    return f"{text} (a Python scalar)" if weak else text


def describe(kind, param, before, after, call_line=None) -> str:
    where = f" at line {call_line}" if call_line else ""
    if kind == STATIC:
        return f"static argument `{param}` changed value {before} -> {after}{where}"
    if kind == SHAPE:
        return f"argument `{param}` changed shape {before} -> {after}{where}"
    if kind == DTYPE:
        return f"argument `{param}` changed type {before} -> {after}{where}"
    if kind == STRUCTURE:
        return f"argument `{param}` changed structure {before} -> {after}{where}"
    if kind == SPELLING:
        return f"argument `{param}` {after}{where}, {before} at an earlier call (JAX caches each spelling separately)"
    return f"traced again{where}"


def _from_text(rec, base) -> Recompile:
    """Cause from JAX's own explanation (used when no signature was recorded)."""
    text = rec.get("explanation") or ""
    match = _TEXT_STATIC.search(text)
    if match:
        path, before, after = match.group("path"), match.group("before"), match.group("now")
        return Recompile(STATIC, param=path, before=before, after=after,
                         text=describe(STATIC, f"input {path}", before, after, rec.get("call_line")), **base)
    match = _TEXT_TYPES.search(text)
    if match and "different input types" in text:
        name, before, after = match.group("name"), match.group("before"), match.group("now")
        ma, mb = _AVAL.match(before), _AVAL.match(after)
        kind = SHAPE if ma and mb and ma.group("dtype") == mb.group("dtype") else DTYPE
        return Recompile(kind, param=name, before=before, after=after,
                         text=describe(kind, name, before, after, rec.get("call_line")), **base)
    if "different input pytree" in text:
        return Recompile(STRUCTURE if "types differ" in text else SPELLING,
                         text="the arguments' structure or spelling changed: " + _first_bullet(text), **base)
    if rec.get("redefined_hint") or rec.get("first"):
        return Recompile(RECREATED, text=f"function re-created on every call at line {rec.get('call_line')}",
                         **base)
    return Recompile(UNKNOWN, text=_first_bullet(text) or "traced again", **base)


def _first_bullet(text: str) -> str:
    for line in text.splitlines():
        if line.strip().startswith("*"):
            return line.strip()[1:].strip()
    return ""


# -- aggregation for reports -------------------------------------------------------------------

@dataclass
class Cause:
    """Recompilations of one function with one cause at one call site, summarised."""

    kind: str
    param: str
    call_file: Optional[str]
    call_line: Optional[int]
    count: int
    text: str
    recompiles: list = field(default_factory=list, repr=False)


def summarise(stats: FunctionStats) -> list:
    """The function's recompilations grouped by (cause, argument, call site), in plain words."""
    groups: dict = {}
    for rc in top_level(stats):
        key = (rc.kind, rc.param, rc.call_file, rc.call_line)
        groups.setdefault(key, []).append(rc)
    causes = []
    for (kind, param, call_file, call_line), items in groups.items():
        where = f" at line {call_line}" if call_line else ""
        n = len(items)
        times = "1 extra compile" if n == 1 else f"{n} extra compiles"
        if kind == STATIC:
            values = static_values(stats, param)
            objects = {m.group(1) for m in (_OBJECT.match(v) for v in values) if m}
            if len(objects) == 1 and all(_OBJECT.match(v) for v in values):
                shown = f"each a new `{objects.pop().split('.')[-1]}` object, hashed by identity"
            else:
                shown = ", ".join(values[:6]) + (", …" if len(values) > 6 else "")
            text = f"static argument `{param}` took {len(values)} values ({shown}){where}: {times}"
        elif kind == SHAPE:
            pairs = []
            for rc in items:
                pair = f"{rc.before} -> {rc.after}"
                if pair not in pairs:
                    pairs.append(pair)
            text = (f"argument `{param}` changed shape {'; '.join(pairs[:3])}"
                    f"{' …' if len(pairs) > 3 else ''}{where}: {times}")
        elif kind == RECREATED:
            text = (f"function re-created on every call{where} (a new `{stats.name}` object defined at "
                    f"line {stats.def_line} each time; JAX caches per function object): {times}")
        elif kind in (DTYPE, STRUCTURE):
            rc = items[0]
            word = "type" if kind == DTYPE else "structure"
            text = f"argument `{param}` changed {word} {rc.before} -> {rc.after}{where}: {times}"
        elif kind == SPELLING:
            rc = items[0]
            text = (f"argument `{param}` {rc.after}{where} but {rc.before} at an earlier call "
                    f"(JAX caches each call spelling separately): {times}")
        else:
            text = f"{items[0].text}: {times}"
        causes.append(Cause(kind, param, call_file, call_line, n, text, items))
    return causes


def static_values(stats: FunctionStats, param: str) -> list:
    values, seen = [], set()
    for rec in stats.records:
        entry = (rec.get("sig") or {}).get("args", {}).get(param)
        if entry and entry[0] == "static" and tuple(entry[1:2] + entry[3:4]) not in seen:
            seen.add(tuple(entry[1:2] + entry[3:4]))
            same_repr = sum(1 for v in values if v.split(" (object")[0] == entry[1])
            values.append(entry[1] if not same_repr else f"{entry[1]} (object {same_repr + 1})")
    if not values:      # text fallback: collect both sides of each explained difference
        for rc in stats.recompiles:
            if rc.param == param:
                for v in (rc.before, rc.after):
                    if v not in values:
                        values.append(v)
    return values
