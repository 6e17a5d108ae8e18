"""The rule registry: the only place codes are assigned. Codes are public; never renumber."""

from __future__ import annotations

from jaxlint.rules.call_signature_drift import CallSignatureDrift
from jaxlint.rules.data_dependent_shape import DataDependentShape
from jaxlint.rules.donated_reuse import DonatedReuse
from jaxlint.rules.dtype_drift import DtypeDrift
from jaxlint.rules.jit_per_call import JitPerCall
from jaxlint.rules.prng_key_reuse import PrngKeyReuse
from jaxlint.rules.pytree_drift import PytreeDrift
from jaxlint.rules.ragged_batch import RaggedBatch
from jaxlint.rules.shape_drift import ShapeDrift
from jaxlint.rules.static_identity_hash import StaticIdentityHash
from jaxlint.rules.static_spec_invalid import StaticSpecInvalid
from jaxlint.rules.static_unbounded import StaticUnbounded
from jaxlint.rules.static_unhashable import StaticUnhashable
from jaxlint.rules.trace_leak import TraceLeak
from jaxlint.rules.trace_time_print import TraceTimePrint
from jaxlint.rules.traced_bool import TracedBool
from jaxlint.rules.traced_self import TracedSelf
from jaxlint.rules.traced_shape import TracedShape
from jaxlint.rules.traced_slice import TracedSlice
from jaxlint.rules.traced_to_python import TracedToPython
from jaxlint.rules.traced_type_test import TracedTypeTest
from jaxlint.rules.unrolled_loop import UnrolledLoop
from jaxlint.rules.x64_truncation import X64Truncation

RULES = (
    TracedBool, TracedToPython, TracedShape, TracedSlice, DataDependentShape, TracedTypeTest,
    TraceTimePrint, TracedSelf, TraceLeak,
    StaticUnbounded, StaticUnhashable, StaticSpecInvalid, StaticIdentityHash,
    JitPerCall, UnrolledLoop, RaggedBatch, CallSignatureDrift, ShapeDrift, DtypeDrift, PytreeDrift,
    PrngKeyReuse, X64Truncation, DonatedReuse,
)
BY_CODE = {rule.code: rule for rule in RULES}


def all_rules():
    return [rule() for rule in RULES]
