"""What the analysis reports: findings, fixes and per-file results, as plain frozen data (and
NoFix, which a rule's fix raises when a finding has none).

Everything downstream (reporters, the flake8 adapter, the fixer, the verifier) reads these and
nothing else, so they stay small and serialisable.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional


@dataclass(frozen=True)
class Fix:
    """A text edit that resolves a finding: replace [start, end) offsets of the source."""

    description: str
    safe: bool
    edits: tuple  # tuple of (start_offset, end_offset, replacement)
    why_unsafe: str = ""

    @classmethod
    def unsafe(cls, what: str, why: str, edits) -> "Fix":
        """A fix that changes what the program does: `what` it does, and `why` that is unsafe."""
        return cls(description=f"{what} (unsafe: {why})", safe=False, edits=tuple(edits), why_unsafe=why)


class NoFix(Exception):
    """Raised by a rule's fix when this finding has no fix here; the message says why (for
    debugging and tests)."""


@dataclass(frozen=True)
class Finding:
    """One problem at one place. `line` is 1-based, `col` 0-based (flake8 adds 1 when printing).

    `message` is one short sentence naming the problem, the function and the parameter: what a
    one-line report shows. `detail` is the rest: the path the value took, what JAX does (the
    error, or the recompilation) and the fix, for --show-source, JSON, SARIF, GitHub annotations
    and the language server's hover."""

    code: str
    line: int
    col: int
    message: str
    function: str = ""      # the traced (jitted) function the finding is about, qualified name
    param: str = ""         # the parameter whose value causes it, if any
    entry: str = ""         # the function the analysis started from (a jit site), if different
    fix: Optional[Fix] = None
    # The facts behind a trace-time finding, for the JSON output, the fixer and the verifier
    # (which read these, never the message): what kind of entry traced the value
    # ("jitted function", "lax.scan body", ...), the path the value took from the parameter
    # (("x", ".max()")), and the calls from the entry to `function` ((callee, call line, file),
    # ...; the file is "" for a call in this file).
    entry_kind: str = ""
    path: tuple = ()
    chain: tuple = ()
    detail: str = ""
    # The last line of the code the finding is about, when it spans lines (a loop): where
    # another finding stands inside it, precedence may drop this one (Rule.yields_inside).
    end_line: int = 0

    @property
    def full_message(self) -> str:
        """The short message and its detail, as one text."""
        return f"{self.message}. {self.detail}" if self.detail else self.message

    @property
    def through_attribute(self) -> bool:
        """Did the value come through an attribute of the parameter (`cfg.n`)? A static field of
        a pytree class stays a Python value under jit, whatever the parameter is."""
        if len(self.path) < 2:
            return False
        head = self.path[0]
        return "." in head and head.split(".", 1)[0].isidentifier()

    @property
    def in_lax_body(self) -> bool:
        """Traced as the body of lax control flow (or reached from one)."""
        return self.entry_kind.endswith(" body") and self.entry_kind.split(".")[0] in ("lax", "jax")

    def sort_key(self):
        return (self.line, self.col, self.code, self.message)


@dataclass
class FileResult:
    """The outcome of linting one file: findings, or an error saying why there are none."""

    path: str
    findings: list = field(default_factory=list)
    error: Optional[str] = None        # a user-facing problem with the file (syntax, encoding)
    error_line: int = 1
    error_col: int = 0
    internal_error: Optional[str] = None  # a jaxlint bug, reported so other files still lint
    notes: list = field(default_factory=list)  # --verbose information (skipped, parse fallback)
    # calls this file's traces make into other modules of the project (crossmodule.ExternalCall)
    outgoing: list = field(default_factory=list)
    # other modules' files the findings depend on (their jitted functions' signatures) -> digest
    # of their bytes: a cached result is stale when one of them changed
    depends: dict = field(default_factory=dict)
    # the other modules' traced calls into this file that its analysis ran (ExternalCall), when a
    # run over the project handed them in: a later link of the project compares them with its own
    linked: list = field(default_factory=list)
