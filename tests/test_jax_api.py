"""The committed JAX API tables (jax_api, jax_api_details) say what the installed JAX does.

scripts/generate_api_tables.py writes them by probing JAX. These tests re-read every signature and
re-probe a fixed sample of functions with the same code, so they fail as soon as JAX (or the
script) and the committed tables disagree; the fix is to re-run the script, not to edit the tables.
The hand entries kept in api_tables are checked too: each must still be needed and still true.
"""

from __future__ import annotations

import importlib.util
import pathlib
import random
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import jax_api_details
from jaxlint.analysis import api_tables, jax_api

ROOT = pathlib.Path(__file__).resolve().parent.parent
RERUN = ("the committed tables disagree with the installed JAX: re-run "
         "`python scripts/generate_api_tables.py` and commit src/jaxlint/analysis/jax_api*.py")

# Facts the analysis leans on most, always re-probed; the rest of the sample is drawn at random
# (fixed seed) from every probed name.
ANCHORS = ["jnp.zeros", "jnp.sum", "jnp.tanh", "jnp.cumsum", "jnp.reshape", "jnp.nonzero", "jnp.bincount", "jnp.repeat",
           "jnp.delete", "jnp.eye", "jnp.where", "jnp.isnan", "jnp.shape", "jax.random.normal",
           "jax.random.bernoulli", "jax.ops.segment_sum", "jax.nn.one_hot", "lax.scan", "lax.dynamic_slice",
           ".reshape", ".sum", "np.asarray", "np.sum", "np.interp", "np.array_equal",
           "jax.scipy.linalg.cho_factor", "jnp.linalg.svd", "jnp.minimum"]
_NAMES = sorted(set(jax_api_details.SIGNATURES) | set(jax_api_details.NUMPY_ERROR_KINDS)
                | set(jax_api_details.NUMPY_WORKS) | set(jax_api_details.NUMPY_NOT_PROBED))
SAMPLE = ANCHORS + random.Random(14).sample(sorted(set(_NAMES) - set(ANCHORS)), 40 - len(ANCHORS))


@pytest.fixture(scope="module")
def generator():
    path = ROOT / "scripts" / "generate_api_tables.py"
    spec = importlib.util.spec_from_file_location("generate_api_tables", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module          # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def committed(generator):
    tables, _modules = generator.committed_tables()
    return tables


@pytest.fixture(scope="module")
def namespaces(generator):
    return generator.public_functions(), generator.array_methods(), generator.numpy_functions()


def test_tables_were_generated_from_the_installed_versions(generator):
    import jaxlib
    for module in (jax_api, jax_api_details):
        assert (module.JAX_VERSION, module.JAXLIB_VERSION, module.NUMPY_VERSION) == \
            (jax.__version__, jaxlib.__version__, np.__version__), RERUN


def test_every_public_function_and_method_is_listed_with_its_signature(generator, namespaces):
    functions, methods, _numpy = namespaces
    current = {}
    for name, fn in functions.items():
        sig = generator.signature_of(fn)
        if sig is not None:
            current[name] = generator.parameters(sig)
    for name, fn in methods.items():
        sig = generator.signature_of(fn, method=True)
        if sig is not None:
            current["." + name] = generator.parameters(sig)
    committed = jax_api_details.SIGNATURES
    assert sorted(set(current) - set(committed)) == [], RERUN
    assert sorted(set(committed) - set(current)) == [], RERUN
    changed = sorted(name for name in current if current[name] != committed[name])
    assert changed == [], f"signatures changed: {changed[:10]}; {RERUN}"


def test_sample_covers_every_kind_of_fact():
    facts = {"concrete": set(jax_api.CONCRETE), "unless": set(jax_api.CONCRETE_UNLESS),
             "data-dependent": set(jax_api.DATA_DEPENDENT), "static": set(jax_api.STATIC_RESULT),
             "boolean": set(jax_api.BOOLEAN_RESULT),
             "float result": set(jax_api.FLOAT_RESULT), "array result": set(jax_api.ARRAY_RESULT),
             "matrix result": set(jax_api.MATRIX_RESULT),
             "strong result": set(jax_api.STRONG_RESULT), "strong float pair": set(jax_api.STRONG_FLOAT_PAIR),
             "numpy fails": set(jax_api.NUMPY_FAILS),
             "numpy works": set(jax_api_details.NUMPY_WORKS), "accepts tracer": set(jax_api_details.ACCEPTS_TRACER)}
    for kind, names in facts.items():
        assert names & set(SAMPLE), f"no {kind} fact re-probed"


@pytest.mark.parametrize("name", SAMPLE)
def test_probing_again_gives_the_committed_facts(generator, committed, namespaces, name):
    fresh = generator.facts_of(name, *namespaces)
    assert fresh is not None, f"{name} is no longer public; {RERUN}"
    expected = generator.entries_of(generator.tables_of({name: fresh}), name)
    assert generator.entries_of(committed, name) == expected, RERUN


# -- how api_tables reads the generated facts ------------------------------------------------------

def _positional(params):
    return [n for n, kind, _ in params if kind in ("P", "PK")]


@pytest.mark.parametrize("name", sorted(api_tables.CONCRETE_ARGS))
def test_concrete_argument_positions_follow_the_signature(name):
    params = jax_api_details.SIGNATURES[name]
    kinds = {n: kind for n, kind, _ in params}
    for pos, kw in api_tables.CONCRETE_ARGS[name]:
        if pos is None:
            assert kinds[kw] == "K", (name, kw)           # keyword-only: never taken by position
        elif kw is None:
            assert kinds[_positional(params)[pos]] == "P", (name, pos)
        else:
            assert _positional(params)[pos] == kw, (name, pos, kw)


def test_size_positions_name_the_size_keyword():
    for name, pos in api_tables.SIZE_POSITIONS.items():
        assert _positional(jax_api_details.SIGNATURES[name])[pos] == api_tables.DATA_DEPENDENT_SHAPE[name]
    assert api_tables.SIZE_POSITIONS.get("jnp.bincount") is None      # `length` is keyword-only


# -- the hand entries: still needed, still true ----------------------------------------------------

def test_hand_entries_are_not_generated_facts():
    assert "lax.axis_size" not in jax_api.STATIC_RESULT
    assert "np.argsort" not in jax_api.NUMPY_FAILS
    assert "jnp.trim_zeros" not in jax_api.DATA_DEPENDENT


def test_axis_size_returns_a_python_int_under_a_trace():
    seen = []

    def body(v):
        seen.append(lax.axis_size("i"))
        return v

    jax.vmap(body, axis_name="i")(jnp.ones(3))
    assert seen == [3] and type(seen[0]) is int


def test_numpy_argsort_of_a_tracer_fails_under_jit():
    with pytest.raises(TypeError):
        jax.jit(np.argsort)(jnp.arange(3.0))


def test_trim_zeros_of_a_tracer_fails_under_jit():
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(jnp.trim_zeros)(jnp.array([0.0, 1.0, 0.0]))


@pytest.mark.parametrize("name", sorted(api_tables.NUMPY_METADATA))
def test_numpy_metadata_functions_return_python_values_under_jit(name):
    # the analysis reads these as static whatever they are given: check that a tracer gives a
    # Python (or NumPy) value, never a tracer and never an error
    func = getattr(np, name.split(".", 1)[1])
    seen = []

    def probe(x):
        extra = {"np.issubdtype": (np.floating,)}.get(name, ())
        seen.append(func(x, *extra))
        return x

    jax.jit(probe)(jnp.ones((2, 3), jnp.float32))
    assert seen and not isinstance(seen[0], jax.core.Tracer), (name, seen)


@pytest.mark.parametrize("name, param", sorted(api_tables.ARRAY_ALSO_ACCEPTED))
def test_parameters_that_also_take_an_array_work_traced_with_one(name, param):
    # an array of edges traced is fine; a count traced fails: the analysis stays silent on these
    func = getattr(jnp, name.split(".", 1)[1])
    x = jnp.linspace(0.0, 1.0, 10)
    extra = (x,) if name == "jnp.histogram2d" else ()
    jax.jit(lambda a, b: func(a, *extra, **{param: b}))(x, jnp.linspace(0.0, 1.0, 5))
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(lambda a, b: func(a, *extra, **{param: b}))(x, 4)


@pytest.mark.parametrize("name, position", sorted(api_tables.DTYPE_POSITIONS.items()))
def test_dtype_positions_follow_the_signature(name, position):
    import inspect
    module, _, attr = name.rpartition(".")
    func = getattr({"jnp": jnp, "lax": lax, "jax.random": jax.random}[module], attr)
    params = list(inspect.signature(func).parameters)
    assert params[position] in ("dtype", "new_dtype"), (name, params)
