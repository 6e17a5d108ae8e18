"""Autofix: rewrite the code for findings that have a mechanical fix (`jaxlint check --fix`).

A fix is computed from one finding and a fresh analysis of the file's current text (the jit
sites, their static arguments and the calls of each jitted function), never from the message.
It is a list of text edits: the span of one syntax node (a decorator, a call, a list display)
is parsed with libcst, changed as a tree and printed back, so the code inside the span keeps its
layout and comments, and everything outside it is left byte for byte as it was; an import, when
one is needed, is one inserted line.

Every fix is checked by linting the edited text again before it is kept, and fixes are applied
one at a time, re-analysing after each, so they never conflict and a second run changes nothing.

Safe fixes keep what the program computes; unsafe ones (`--unsafe-fixes`) can change behaviour
in a way the user should review, and their description says how.

Each fix lives beside its rule, as the rule's `fix_finding` (JAX101-JAX104 share
rules/make_static.py), and the fixer finds it through the rule registry. This package holds what
all fixes share: edits.py (text edits and offsets, string literals), syntax.py (libcst helpers),
context.py (`Context`, one analysed version of a file) and apply.py (checking fixes and applying
them to text and files).
"""

from jaxlint.findings import NoFix
from jaxlint.fixer.apply import (FIXABLE_CODES, MAX_FIXES_PER_FILE, STATIC_CODES, Check, Outcome, Summary,
                                 check_fix, checked_fix, checked_fixes, compute_fix, fix_file, fix_reports,
                                 fix_source, unified_diff)
from jaxlint.fixer.context import Context
from jaxlint.fixer.edits import Text, apply_edits, map_offset, preferred_quote

__all__ = [
    "FIXABLE_CODES", "MAX_FIXES_PER_FILE", "STATIC_CODES", "Check", "Context", "NoFix", "Outcome",
    "Summary", "Text", "apply_edits", "check_fix", "checked_fix", "checked_fixes", "compute_fix", "fix_file",
    "fix_reports", "fix_source", "map_offset", "preferred_quote", "unified_diff",
]
