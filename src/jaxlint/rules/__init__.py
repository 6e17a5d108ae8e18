"""The rule registry: the only place codes are assigned. Codes are public; never renumber."""

from __future__ import annotations

from jaxlint.rules.data_dependent_shape import DataDependentShape
from jaxlint.rules.trace_time_print import TraceTimePrint
from jaxlint.rules.traced_bool import TracedBool
from jaxlint.rules.traced_self import TracedSelf
from jaxlint.rules.traced_shape import TracedShape
from jaxlint.rules.traced_slice import TracedSlice
from jaxlint.rules.traced_to_python import TracedToPython
from jaxlint.rules.traced_type_test import TracedTypeTest

RULES = (
    TracedBool, TracedToPython, TracedShape, TracedSlice, DataDependentShape, TracedTypeTest,
    TraceTimePrint, TracedSelf,
)
BY_CODE = {rule.code: rule for rule in RULES}


def all_rules():
    return [rule() for rule in RULES]
