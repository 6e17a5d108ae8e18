"""Adversarial input for the analysis itself (issue 7): it must end quickly and never raise.

Each program is linted by the engine in a child process (a hang fails on the timeout instead of
stalling the suite) and the child reports its CPU time (see hostile_support on why CPU time).
The programs are valid Python built to defeat a naive abstract interpreter: recursion, call
graphs, long chains, loops whose values never settle, deep nesting.
"""

import ast
import json
import random
import subprocess
import sys

import pytest

from jaxlint.analysis.module import ModuleIndex
from jaxlint.engine import lint_source

# Each program takes well under 2 s of CPU on an idle 2-core machine; a test asserts what the
# analysis reports, not how long it took (a loaded machine stretches any time); the timeout of
# the child catches a run that never ends.

CHILD = """
import json, sys, time
from jaxlint.engine import lint_file
start = time.process_time()
result = lint_file(sys.argv[1])
print(json.dumps({"cpu": time.process_time() - start, "error": result.error,
                  "internal_error": result.internal_error, "notes": result.notes,
                  "findings": [[f.line, f.code] for f in result.findings]}))
"""


def lint_in_child(tmp_path, source):
    path = tmp_path / "adversarial.py"
    path.write_text(source)
    proc = subprocess.run([sys.executable, "-c", CHILD, str(path)], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    assert report["error"] is None and report["internal_error"] is None, report
    return {tuple(f) for f in report["findings"]}


def indent(depth):
    return "    " * depth


# -- recursion and call graphs --------------------------------------------------------------------

def self_recursion():
    return ("import jax\n\ndef walk(x, k):\n    if k:\n        return walk(x + 1, k - 1) + walk(x, k - 1)\n"
            "    return x\n\n@jax.jit\ndef f(x, n):\n    y = walk(x, 10)\n    return y[:n]\n"), {(11, "JAX104")}


def mutual_recursion(count=200):
    source = "import jax\n\n"
    for i in range(count):
        source += (f"def m{i}(x, n, k):\n    if k:\n        return m{(i + 1) % count}(x, n, k - 1)"
                   f" + m{(i + 7) % count}(n, x, k)\n    return x[:n]\n\n")
    return source + "@jax.jit\ndef f(x, n):\n    return m0(x, n, 3)\n", {(6, "JAX104")}


def helper_chain(length):
    source = "import jax\n\n"
    for i in range(length):
        source += f"def h{i}(x, n):\n    return h{i + 1}(x * 2, n)\n\n"
    source += f"def h{length}(x, n):\n    return x[:n]\n\n@jax.jit\ndef f(x, n):\n    return h0(x, n)\n"
    return source, {(3 * length + 4, "JAX104")} if length < 5 else set()


def call_graph(count=1000, entries=100):
    rnd = random.Random(7)
    source = "import jax\nimport jax.numpy as jnp\n\n"
    for i in range(count):
        a, b, c = rnd.sample(range(count), 3)
        source += (f"def g{i}(a, b, c):\n    u = g{a}(b, a, c) + g{b}(c, c, a)\n"
                   f"    v = g{c}(u, b, a) if a > 0 else u\n    return jnp.zeros(v) + a[:b]\n\n")
    for j in range(entries):
        source += f"@jax.jit\ndef entry{j}(x, y, z):\n    return g{j}(x, y, z) + g{count - 1 - j}(z, x, y)\n\n"
    return source, None


def higher_order_self_application():
    return ("import jax\n\ndef apply(f, x):\n    return f(f, x)\n\n@jax.jit\ndef g(x, n):\n"
            "    return apply(lambda s, y: s(s, y[:n]), x)\n"), {(8, "JAX104")}


def fixed_point_combinator():
    return ("import jax\n\n@jax.jit\ndef f(x, n):\n"
            "    Y = lambda g: (lambda h: g(lambda v: h(h)(v)))(lambda h: g(lambda v: h(h)(v)))\n"
            "    fact = Y(lambda self: lambda k: x[:k] if k else self(k - 1))\n    return fact(n)\n"), None


def many_entries_sharing_a_helper(entries=2000):
    source = "import jax\nfrom functools import partial\n\ndef big(x, k, j):\n"
    source += "".join(f"    x = x + {i} if k > {i} else x * j\n" for i in range(200)) + "    return x\n\n"
    for i in range(entries):
        source += f"@partial(jax.jit, static_argnums=(1,))\ndef e{i}(x, k, j):\n    return big(x, k, j + {i})\n\n"
    return source, set()


# -- long chains and values that never settle ------------------------------------------------------

def reassignment_chain(length=10_000):
    body = "".join(f"    x{i + 1} = x{i} + 1\n" for i in range(length))
    body += "    y = y * 2 + x0\n" * length
    return (f"import jax\n\n@jax.jit\ndef f(x0, y, n):\n{body}    return x{length}[:n]\n",
            {(2 * length + 5, "JAX104")})


def thousands_of_locals_and_branches(count=5000):
    body = "".join(f"    v{i + 1} = v{i} + 1\n    if c:\n        w{i} = v{i}\n" for i in range(count))
    return f"import jax\n\n@jax.jit\ndef f(v0, c, n):\n{body}    return v{count}[:n]\n", {(3 * count + 5, "JAX104")}


def thousands_of_locals_and_loops(count=3000):
    body = "".join(f"    v{i + 1} = v{i} + 1\n    for _ in range(2):\n        w{i} = v{i}\n" for i in range(count))
    return f"import jax\n\n@jax.jit\ndef f(v0, c, n):\n{body}    return v{count}[:n]\n", {(3 * count + 5, "JAX104")}


def loop_that_never_settles():
    return ("import jax\n\n@jax.jit\ndef f(x, n):\n    a = x\n    b = 0\n    while True:\n"
            "        a = (a, a)\n        b = [b, a, b]\n        for i in range(n):\n"
            "            a = (a, b, a)\n            b = {i: a, 'k': b}\n        if b:\n            break\n"
            "    return a[0][:n]\n"), {(15, "JAX104")}


def loops_nested_90_deep(depth=90):
    source = "import jax\n\n@jax.jit\ndef f(x, n):\n    a = x\n"
    for d in range(depth):
        source += f"{indent(d + 1)}for i{d} in range(3):\n{indent(d + 2)}a = (a, a)\n"
    return source + f"{indent(depth + 1)}a = a[:n]\n    return a\n", None


def branches_doubling_a_value(count=60):
    body = "".join(f"    if x{i} > 0:\n        x{i + 1} = (x{i}, x{i})\n    else:\n        x{i + 1} = [x{i}]\n"
                   for i in range(count))
    return f"import jax\n\n@jax.jit\ndef f(x0, n):\n{body}    return x{count}[:n]\n", {(4 * count + 5, "JAX104")}


def match_with_thousands_of_cases(count=3000):
    cases = "".join(f"        case {i}:\n            y{i} = x\n" for i in range(count))
    return f"import jax\n\n@jax.jit\ndef f(x, k, n):\n    match k:\n{cases}    return x[:n]\n", None


def call_with_50000_arguments(count=50_000):
    args = ", ".join(["x"] * count)
    return (f"import jax\n\n@jax.jit\ndef f(x, n):\n    y = g({args})\n    z = ({args})\n"
            "    a, *b = z\n    return x[:n]\n"), {(8, "JAX104")}


# -- deep nesting of scopes -----------------------------------------------------------------------

def comprehensions_nested_90_deep(depth=90):
    expr = "x"
    for d in range(depth):
        expr = f"[{expr} for i{d} in range(n)]"
    return f"import jax\n\n@jax.jit\ndef f(x, n):\n    y = {expr}\n    return x[:n], y\n", {(6, "JAX104")}


def lambdas_nested_90_deep(depth=90):
    expr = "x[:n]"
    for d in range(depth):
        expr = f"(lambda a{d}: {expr})(x)"
    return f"import jax\n\n@jax.jit\ndef f(x, n):\n    return {expr}\n", None


def functions_nested_95_deep(depth=95):
    source = "import jax\n\n@jax.jit\ndef f(x, n):\n"
    for d in range(depth):
        source += f"{indent(d + 1)}def inner{d}(x, n):\n"
    source += f"{indent(depth + 1)}return x[:n]\n"
    for d in reversed(range(depth)):
        source += f"{indent(d + 1)}return inner{d}(x, n)\n"
    return source, None


def closures_nested_90_deep(depth=90):
    source = "import jax\n\n@jax.jit\ndef f(x, n):\n    v0 = x\n"
    for d in range(depth):
        source += f"{indent(d + 1)}def c{d}():\n{indent(d + 2)}v{d + 1} = v{d}\n"
    source += f"{indent(depth + 1)}return v{depth}[:n]\n"
    for d in reversed(range(depth)):
        source += f"{indent(d + 1)}return c{d}()\n"
    return source, None


def classes_nested_90_deep_and_cyclic_bases(depth=90):
    source = ("import jax\n\nclass A(B):\n    pass\n\n"
              "class B(A):\n    @jax.jit\n    def m(self, x):\n        return x\n\n")
    for d in range(depth):
        source += f"{indent(d)}class C{d}(C{d}):\n"
    source += f"{indent(depth)}@jax.jit\n{indent(depth)}def m(self, x, n):\n{indent(depth + 1)}return x[:n]\n"
    return source, None


def stacked_jit_decorators(count=2000):
    source = "import jax\n\n" + "@jax.jit\n" * count + "def f(x, n):\n    return x[:n]\n"
    return source, {(count + 4, "JAX104")}


def inheritance_chain(length=5000):
    source = "import jax\n\nclass C0:\n    pass\n\n"
    source += "".join(f"class C{i}(C{i - 1}):\n    pass\n\n" for i in range(1, length))
    source += f"class D(C{length - 1}):\n    @jax.jit\n    def m(self, x, n):\n        return x[:n]\n"
    return source, {(3 * length + 6, "JAX104")}


def thousands_of_jitted_methods_calling_each_other(count=5000):
    source = "import jax\n\nclass M:\n" + "".join(
        f"    @jax.jit\n    def m{i}(self, x, n):\n        return self.m{i + 1}(x, n)[:n]\n\n" for i in range(count))
    return source + "def run(o, x):\n" + "".join(f"    o.m{i}(x, {i})\n" for i in range(0, count, 7)), None


PROGRAMS = [self_recursion, mutual_recursion, lambda: helper_chain(3), lambda: helper_chain(1000),
            call_graph, higher_order_self_application, fixed_point_combinator,
            many_entries_sharing_a_helper, reassignment_chain, thousands_of_locals_and_branches,
            thousands_of_locals_and_loops, loop_that_never_settles, loops_nested_90_deep,
            branches_doubling_a_value, match_with_thousands_of_cases, call_with_50000_arguments,
            comprehensions_nested_90_deep, lambdas_nested_90_deep, functions_nested_95_deep,
            closures_nested_90_deep, classes_nested_90_deep_and_cyclic_bases, stacked_jit_decorators,
            inheritance_chain, thousands_of_jitted_methods_calling_each_other]
NAMES = ["self_recursion", "mutual_recursion", "helper_chain_3", "helper_chain_1000", "call_graph_1000",
         "higher_order_self_application", "fixed_point_combinator", "many_entries_sharing_a_helper",
         "reassignment_chain_10000", "thousands_of_locals_and_branches", "thousands_of_locals_and_loops",
         "loop_that_never_settles", "loops_nested_90_deep", "branches_doubling_a_value",
         "match_with_thousands_of_cases", "call_with_50000_arguments", "comprehensions_nested_90_deep",
         "lambdas_nested_90_deep", "functions_nested_95_deep", "closures_nested_90_deep",
         "classes_nested_90_deep_and_cyclic_bases", "stacked_jit_decorators_2000", "inheritance_chain_5000",
         "thousands_of_jitted_methods_calling_each_other"]


@pytest.mark.slow
@pytest.mark.parametrize("program", PROGRAMS, ids=NAMES)
def test_adversarial_program_is_analysed_in_bounded_time(tmp_path, program):
    source, expected = program()
    ast.parse(source)                      # valid Python: the analysis, not the parser, is tested
    found = lint_in_child(tmp_path, source)
    if expected is not None:               # None: only termination and soundness are asserted
        assert expected <= found, sorted(found)[:20]


# -- regressions: crashes found by fuzzing and adversarial input ----------------------------------

def test_loop_over_a_range_longer_than_ssize_t():
    # len(range(...)) raised OverflowError past 2**63 - 1: an internal error on the file.
    result = lint_source("import jax\n\n@jax.jit\ndef f(x):\n    for i in range(99999999999999999999999):\n"
                         "        x = x + i\n    return x\n")
    assert result.internal_error is None
    assert [(f.line, f.code) for f in result.findings] == [(5, "JAX302")]
    assert "99999999999999999999999 iterations" in result.findings[0].detail


@pytest.mark.parametrize("where", ["range({})", "jnp.zeros({})", "x[:{}]"])
def test_integer_too_long_to_print(where):
    # A hex literal of 4,000 digits is a valid int whose str() raises ValueError (Python's
    # 4,300-digit limit): it reached a message and became an internal error.
    huge = "0x" + "f" * 4000
    expr = where.format(huge)
    result = lint_source(f"import jax\nimport jax.numpy as jnp\n\n@jax.jit\ndef f(x):\n    for i in {expr}:\n"
                         f"        x = x + i\n    return x\n")
    assert result.internal_error is None and result.error is None


def test_static_argnums_too_long_to_print():
    huge = "0x" + "f" * 4000
    result = lint_source(f"import jax\nfrom functools import partial\n\n"
                         f"@partial(jax.jit, static_argnums={huge})\ndef f(x):\n    return x\n")
    assert result.internal_error is None


@pytest.mark.slow
def test_generated_table_is_not_evaluated_as_a_constant():
    # literal_eval of a 100,000-row module-level table took seconds and is never needed.
    rows = "".join(f"    ({i}, 'n{i}'),\n" for i in range(100_000))
    tree = ast.parse(f"TABLE = [\n{rows}]\nSMALL = (1, 2)\nN = 3\n")
    index = ModuleIndex(tree)
    assert "TABLE" not in index.constants and "TABLE" in index.sequences
    assert index.constants["SMALL"] == (1, 2) and index.constants["N"] == 3


def test_rebinding_a_constant_to_a_table_forgets_it():
    rows = "".join(f"    {i},\n" for i in range(2000))
    index = ModuleIndex(ast.parse(f"N = 3\nN = [\n{rows}]\n"))
    assert "N" not in index.constants


def test_line_filter_finds_each_of_40000_names():
    # One regex alternation of every jitted name: 40,000 names cost seconds to compile and search
    # (its time is measured by benchmarks/hostile_inputs.py, not asserted here).
    from jaxlint.analysis.syntax import LineFilter
    names = {f"layer{i}" for i in range(40_000)}
    lines = [f"    y = layer{i}(x) + my_layer{i}" if i % 2 else f"    y = my_layer{i}(x)" for i in range(40_000)]
    hits = LineFilter(lines, names | {"jit"}).hits
    assert hits == [i + 1 for i in range(40_000) if i % 2]
    assert LineFilter(["f = jax.jit(g)", "jitter = 1", "x = _jit"], {"jit"}).hits == [1]
    assert LineFilter(["x = 1"], set()).hits is None


@pytest.mark.parametrize("in_axes", ["(0, *batch_axes)", "(0, None, None)", "AXES"])
def test_vmap_in_axes_longer_than_the_parameters(in_axes):
    # equinox/internal/_primitive.py: positions past the function's parameters raised IndexError.
    result = lint_source(f"import jax\nAXES = (0, None, None)\n\ndef impl(*inputs):\n    return inputs\n\n"
                         f"def g(x, batch_axes):\n    h = jax.vmap(impl, in_axes={in_axes})\n    return h(x)\n\n"
                         f"def k(x):\n    return jax.vmap(lambda a: a, in_axes={in_axes})(x, x, x)\n")
    assert result.internal_error is None and result.error is None


# Two shapes that once sent a reader around a cycle until Python's stack ran out (the module was
# then skipped whole, as "nested too deeply"): a parameter rebound in the branch of its own test,
# read where the reader decides that test; two names a loop rebinds from each other through a
# jitted call.
REBOUND_IN_ITS_OWN_BRANCH = """
import jax


class Partitioner:
    def __init__(self, task):
        self._task = task

    def partition(self, step_fn, is_eval):
        def wrapped_step_fn(state, key, inputs, static_args=None):
            return step_fn(self._task, state, key, inputs, static_args)

        step = jax.pmap(wrapped_step_fn, axis_name="batch", static_broadcasted_argnums=(3,),
                        donate_argnums=() if is_eval else (0,))

        def wrapped_partitioned_step(state, key, inputs, static_args=None):
            if static_args:
                static_args = static_args.replace(batch_size=None)
            return step(state, key, inputs, static_args)

        return wrapped_partitioned_step
"""

SWAPPED_IN_A_LOOP = """
from functools import partial
import jax
import jax.numpy as jnp


@partial(jax.jit, donate_argnums=(0, 1))
def chunk(a, b):
    return a + b, b * 2


def run(n):
    a, b = jnp.zeros(2), jnp.ones(2)
    for _ in range(n):
        new_a, new_b = chunk(a, b)
        a, b = new_a, new_b
    return a
"""


@pytest.mark.parametrize("source", [REBOUND_IN_ITS_OWN_BRANCH, SWAPPED_IN_A_LOOP], ids=["own-branch", "swapped"])
def test_a_cycle_between_two_readings_ends(source):
    result = lint_source(source, "cycle.py")
    assert result.internal_error is None and result.error is None
    assert not any("nested too deeply" in note for note in result.notes), result.notes
