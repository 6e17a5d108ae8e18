"""JAX402 x64-truncation."""

import ast
import os
import re

from jaxlint.analysis import api_tables as api
from jaxlint.analysis.syntax import LineFilter, calls_around, joined_text, pruned_walk
from jaxlint.analysis.crossmodule import file_digest, per_version
from jaxlint.project import _read as read_project_file, mentions_in
from jaxlint.analysis.shown import Ctx
from jaxlint.findings import Finding
from jaxlint.rules.base import Rule

# Words whose presence in the file (or, in project mode, anywhere in the project) means x64 may be
# enabled: the config flag, the context manager and the environment variable.
ENABLING_WORDS = ("enable_x64", "JAX_ENABLE_X64", "x64_enabled")   # (`jax_enable_x64` holds the first)
_ENCODED = tuple(w.encode() for w in ENABLING_WORDS)
# The names a line binds to a 64-bit dtype, the whole value of a statement (`DT = jnp.float64`,
# `a = 1; DT = DT2 = (jnp.float64)`, `dt: str = "f8"`) or of a walrus: the one form `_dtype_64`
# follows. Other names bound on such a line (`x = jnp.zeros(3, dtype=jnp.float64)`, the `dtype=`
# keyword) would make common names relevant on every line of a program.
_DTYPE_VALUE = (r"""\(*\s*(?:(?:[A-Za-z_][\w.]*\.)?(?:float64|int64|uint64|complex128|c?double|u?longlong)\b"""
                r"""|(['"])<?(?:float64|int64|uint64|complex128|double|[fiu]8|c16)\2)\s*\)*""")
_BOUND_STATEMENT = re.compile(r"(?:^|;)\s*((?:[A-Za-z_]\w*\s*(?::[^=;]*)?=(?!=)\s*)+)" + _DTYPE_VALUE + r"\s*(?=;|#|$)")
_BOUND_NAME = re.compile(r"([A-Za-z_]\w*)\s*(?::[^=;]*)?=")
_WALRUS = re.compile(r"([A-Za-z_]\w*)\s*:=\s*" + _DTYPE_VALUE)


def _bound_names(line: str) -> set:
    found = {m.group(1) for chain in _BOUND_STATEMENT.finditer(line) for m in _BOUND_NAME.finditer(chain.group(1))}
    return found | {m.group(1) for m in _WALRUS.finditer(line)}


_NAMESPACES = ("jnp.", "lax.", "jax.random.", "jax.nn.", "jax.scipy.")


class X64Truncation(Rule):
    code = "JAX402"
    name = "x64-truncation"
    family = "broken state"
    summary = "A 64-bit dtype requested from JAX in a program that never enables x64."
    what = """
        Flags an explicit 64-bit dtype (`float64`, `int64`, `uint64`, `complex128`) asked of
        JAX: the `dtype` of a `jnp`/`lax`/`jax.random` call (by keyword or by position),
        `.astype(...)` on a JAX array, `jnp.float64(x)`, when nothing in the program enables
        64-bit mode (`jax.config.update("jax_enable_x64", True)`, `jax.enable_x64`, the
        `JAX_ENABLE_X64` environment variable; a comment or a docstring naming them does not),
        or reads whether it is on (`x64_enabled`). NumPy's
        own float64 arrays are not flagged, nor a request in a branch that runs only for 64-bit
        values (`if x.dtype == jnp.float64:`). A program (a file that runs something: an
        `if __name__ == "__main__":` block, top-level calls in a module no other module imports,
        a notebook) is checked with what it imports; a module of a project (also one that
        registers things at import) is checked when a program of the project imports it
        and never enables x64 (a library whose programs are its users' stays silent). A project
        that enables x64 where the analysis cannot see it sets `x64 = true` in `[tool.jaxlint]`.
    """
    why = """
        With x64 off (the default) JAX cannot make the array: it warns (`UserWarning: Explicitly
        requested dtype float64 ... will be truncated to dtype float32`) and returns 32 bits. A
        numerical method that needs double precision silently runs in single precision.
    """
    example = """
        import jax.numpy as jnp

        def gram(x):
            return jnp.asarray(x, dtype=jnp.float64) @ x.T

        print(gram(jnp.ones((3, 2))))
    """
    use_instead = """
        import jax
        import jax.numpy as jnp

        jax.config.update("jax_enable_x64", True)

        def gram(x):
            return jnp.asarray(x, dtype=jnp.float64) @ x.T

        print(gram(jnp.ones((3, 2))))
    """
    fix = ("No automatic fix: whether the program needs 64 bits (enable x64) or not (request "
           "32 bits) is the author's choice.")

    def check(self, analysis):
        if getattr(analysis.config, "x64", False):
            return
        view = getattr(analysis.flow, "external", None)
        if view is not None and view.project.mentions_known(ENABLING_WORDS, in_code=True):
            return      # the project enables x64 somewhere, as a module linted before found
        program = _is_program(analysis)
        lines = analysis.lines
        words = set(_PROGRAM_WORDS)
        if not program:
            # a module the project's programs import: asked only when one may run it without x64
            text = joined_text(lines) if lines is not None else ""
            if view is None or not any(w in text for w in ("float64", "int64", "complex128")) \
                    or view.project.mentions(ENABLING_WORDS, in_code=True):
                return
            words = _LIBRARY_WORDS      # the dtypes' own names only: most modules never request one
        line_filter = LineFilter(lines, words)
        if not program and line_filter.hits:
            # a request from JAX names it on the line of a jnp / lax / jax call or an `.astype(`
            line_filter.hits = [i for i in line_filter.hits if any(t in lines[i - 1] for t in _JAX_SIDE)]
        hits = line_filter.hits
        if hits == [] or _file_enables_x64(analysis):
            return              # no 64-bit dtype named anywhere in the file, or x64 enabled in it
        # the statements that name a 64-bit dtype, or a variable bound to one (`DTYPE = jnp.float64`)
        if lines is not None and hits and program:
            words = words | {name for i in hits for name in _bound_names(lines[i - 1])}
        model = _LazyModel(analysis)
        traced = {id(e.func.node) for e in analysis.entries if e.func is not None}
        if lines is None:       # no text to search: every call
            calls = [node for node in pruned_walk(analysis.tree, line_filter) if isinstance(node, ast.Call)]
        else:
            numbers = LineFilter(lines, words).hits if program else hits
            named = re.compile(r"\b(?:" + "|".join(re.escape(w) for w in sorted(words)) + r")\b")
            calls = calls_around(analysis.tree, lines, numbers, named, analysis.parents)     # the calls the words are in
        for node in calls:
            requested = self._requested(analysis, model, node, traced)
            if requested and _only_with_64_bit_values(analysis, node):
                continue        # `elif x.dtype == jnp.float64: ...astype(jnp.complex128)`: runs only with x64 on
            if requested:
                if program:
                    if _project_enables_x64(analysis):     # asked only now: it reads every module
                        return
                    who = "this program never enables x64"
                else:
                    runner = _program_without_x64(analysis)     # asked only now: it reads the importers
                    if runner is None:
                        return
                    who = f"{runner}, a program importing this module, never enables x64"
                yield Finding(
                    code=self.code, line=node.lineno, col=node.col_offset,
                    message=f"{requested}, truncated to 32 bits without x64",
                    detail=(f"{requested}, but {who}: JAX warns and "
                            f"truncates it to 32 bits (UserWarning: Explicitly requested dtype ... "
                            f"will be truncated). Fix: request a 32-bit dtype, or enable x64 at "
                            f"startup (jax.config.update(\"jax_enable_x64\", True)); if the project "
                            f"enables it elsewhere, set x64 = true in [tool.jaxlint]"))

    def _requested(self, analysis, model, call: ast.Call, traced=frozenset()) -> str:
        qual = analysis.imports.resolve(call.func) or ""
        if qual in api.CONSTRUCTORS_64:
            return f"`{qual}(...)` makes a {qual.split('.')[-1]} value"
        if isinstance(call.func, ast.Attribute) and call.func.attr == "astype" and call.args:
            dtype = _dtype_64(analysis, model, call.args[0], call)
            if dtype and (_is_jax_value(analysis, model, call.func.value, call) or
                          _in_traced_function(analysis, call, traced) and
                          not _is_numpy_value(analysis, model, call.func.value, call)):
                return f"`.astype({dtype})` asks JAX for {_bare(dtype)}"
            return ""
        if not qual.startswith(_NAMESPACES):
            return ""
        dtype_node = next((kw.value for kw in call.keywords if kw.arg in ("dtype", "new_dtype")), None)
        position = api.DTYPE_POSITIONS.get(qual)
        if dtype_node is None and position is not None and len(call.args) > position \
                and not any(isinstance(a, ast.Starred) for a in call.args[:position + 1]):
            dtype_node = call.args[position]
        if dtype_node is None:
            return ""
        dtype = _dtype_64(analysis, model, dtype_node, call)
        return f"`{qual}(..., dtype={dtype})` requests {_bare(dtype)}" if dtype else ""


class _LazyModel:
    """The module's semantic model, built at the first name a dtype or a value is looked up
    through: most files name their 64-bit dtypes directly (`jnp.float64`)."""

    def __init__(self, analysis):
        self._analysis = analysis

    def __getattr__(self, name):
        return getattr(self._analysis.model, name)


def _is_program(analysis) -> bool:
    """Does the file run something itself (a script, a notebook), rather than only define what
    others import? `if __name__ == "__main__":`, or a top-level call statement in a module no
    other module of the project imports (`register_lowering(...)` in an imported module runs in
    its importers' programs, which decide x64)."""
    if analysis.path.endswith(".ipynb"):
        return True
    body = analysis.tree.body
    if any(isinstance(stmt, ast.If) and "__main__" in ast.dump(stmt.test) for stmt in body):
        return True
    if not any(isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) for stmt in body):
        return False
    view = getattr(analysis.flow, "external", None)
    if view is None:
        return True
    text = joined_text(analysis.lines) if analysis.lines is not None else None
    if text is not None and not any(word in text for word in _PROGRAM_WORDS):
        return False        # names no 64-bit dtype: either way nothing to find, and the project's
        #                     importers (every module's imports read once) are not worth asking
    return not view.project.importers(analysis.path)


def _only_with_64_bit_values(analysis, node) -> bool:
    """Is `node` in the branch of an `if` (or a conditional expression) whose test asks for
    equality with a 64-bit dtype (`x.dtype == jnp.float64`, `dtype in (np.float64, "float64")`)? Without x64
    no JAX value has one, so the branch runs only when x64 is on."""
    child = node
    for anc in analysis.parents.chain(node):
        if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return False
        if isinstance(anc, (ast.If, ast.IfExp)) and child is not anc.test and (
                child is anc.body or isinstance(anc.body, list) and any(child is s for s in anc.body)) \
                and any(isinstance(n, ast.Compare) and all(isinstance(op, _EQUALITY) for op in n.ops)
                        and _names_64_bit_dtype(analysis, n) for n in ast.walk(anc.test)):
            return True
        child = anc
    return False


def _names_64_bit_dtype(analysis, compare: ast.Compare) -> bool:
    for n in ast.walk(compare):
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value in api.DTYPE_STRINGS_64:
            return True
        if isinstance(n, (ast.Attribute, ast.Name)) and (analysis.imports.resolve(n) in api.DTYPES_64
                                                          or getattr(n, "attr", None) in _BARE_64):
            return True
    return False


_BARE_64 = {"float64", "int64", "uint64", "complex128"}
_EQUALITY = (ast.Eq, ast.Is, ast.In)    # `!=` runs its branch for every 32-bit value: no guard


def _runs_something(body) -> bool:
    return any(isinstance(stmt, ast.If) and "__main__" in ast.dump(stmt.test) or
               isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) for stmt in body)


def _file_enables_x64(analysis) -> bool:
    """Does the file's code (not a comment) mention a way of enabling x64?"""
    text = joined_text(analysis.lines) if analysis.lines is not None else ""
    return mentions_in(text, ENABLING_WORDS, in_code=True)


# The 64-bit dtype words a program is searched for (its string dtypes too: `"f8"`).
_PROGRAM_WORDS = ("float64", "int64", "uint64", "complex128", "double", "f8", "i8", "u8", "c16")
# The 64-bit dtype words a library module is searched for before anything else is read.
_LIBRARY_WORDS = frozenset({"float64", "int64", "uint64", "complex128"})
_JAX_SIDE = ("jnp", "jax", "lax", "astype")
_MAX_IMPORTERS = 64     # modules looked at, going up the importers of a library module, for a program


def _program_without_x64(analysis):
    """The path (relative to the project's root) of a program of the project that imports the
    module, directly or through others, and never enables x64 (neither itself nor what it
    imports); None when no program the project holds imports it (a library: its users decide)."""
    project = analysis.flow.external.project
    start = os.path.abspath(analysis.path)
    seen, todo = {start}, [start]
    for current in todo:
        for importer in project.importers(current):
            if importer in seen or len(seen) >= _MAX_IMPORTERS:
                continue
            seen.add(importer)
            todo.append(importer)
            analysis.depends[importer] = file_digest(importer)
            if not per_version(project, "x64 program", importer, _runs_without_enabling, False):
                continue
            runs = project.imported_files(importer)
            if not any(per_version(project, "x64 enabled", f, _enables_x64_at, False) for f in runs):
                return os.path.relpath(importer, project.root)
    return None


def _runs_without_enabling(path: str) -> bool:
    """Is the module at `path` a program (see _is_program) whose own code does not enable x64?
    Parsed only when its text has a `__main__` test or a line starting with a call."""
    data = read_project_file(path)
    if mentions_in(data, _ENCODED, in_code=True) or (b"__main__" not in data and not _CALL_LINE.search(data)):
        return False
    try:
        return _runs_something(ast.parse(data).body)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False


_CALL_LINE = re.compile(rb"^[A-Za-z_][\w.]*[ \t]*\(", re.M)     # `main(`, `app.run(` at column 0


def _project_enables_x64(analysis) -> bool:
    """Does another module of the project mention a way of enabling x64: any module of a project
    with a root marker (once per project and run: it reads every module), or a module the program
    imports (its package's `__init__.py` that switches x64 on at import)?"""
    view = getattr(analysis.flow, "external", None)
    if view is None:
        return False
    project = view.project
    if project.mentions(ENABLING_WORDS, in_code=True):
        return True
    for path in project.imported_files(analysis.path):
        analysis.depends[path] = file_digest(path)
        if per_version(project, "x64 enabled", path, _enables_x64_at, False):
            return True
    return False


def _enables_x64_at(path: str) -> bool:
    return mentions_in(read_project_file(path), _ENCODED, in_code=True)


def _bare(dtype: str) -> str:
    return dtype.rsplit(".", 1)[-1].strip("'\"")


def _dtype_64(analysis, model, node, at) -> str:
    """The text of a 64-bit dtype that `node` is (through one variable), else ""."""
    if isinstance(node, ast.Name):
        value = model.value(node.id, model.statement_of(at), model.scope_of(at))
        if value is not None and isinstance(value, (ast.Attribute, ast.Constant, ast.Name)) and value is not node:
            found = _dtype_64(analysis, model, value, at) if not isinstance(value, ast.Name) else ""
            if found:
                return found
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in api.DTYPE_STRINGS_64:
        return repr(node.value)
    qual = analysis.imports.resolve(node) if isinstance(node, (ast.Attribute, ast.Name)) else None
    if qual in api.DTYPES_64:
        return qual
    return ""


def _in_traced_function(analysis, node, traced) -> bool:
    """Is `node` in the body of a function the file traces (jit, a lax body)? Its arrays are
    tracers there, so their methods are JAX operations."""
    for anc in analysis.parents.chain(node):
        if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return id(anc) in traced
    return False


def _is_numpy_value(analysis, model, node, at) -> bool:
    if isinstance(node, ast.Name):
        value = model.value(node.id, model.statement_of(at), model.scope_of(at))
        node = value if value is not None else node
    return isinstance(node, ast.Call) and (analysis.imports.resolve(node.func) or "").startswith("np.")


def _is_jax_value(analysis, model, node, at, depth=0) -> bool:
    """Is `node` evidently a JAX array: made by a jnp/lax/jax.random call, directly or through a
    variable whose one value is such a call, or a parameter every call of the file fills so?"""
    if isinstance(node, ast.Name):
        value = model.value(node.id, model.statement_of(at), model.scope_of(at))
        if value is None and depth < 2:
            scope = analysis.parents.scope_of(at)
            passed = analysis.shown.parameter_values(node.id, Ctx(scope, at.lineno)) if scope is not None else []
            return bool(passed) and all(isinstance(expr, ast.expr) and expr.lineno and _is_jax_value(
                analysis, model, expr, expr, depth + 1) for expr, _ in passed)
        if value is None or value is node:
            return False
        node = value
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr in ("astype", "reshape", "T", "sum", "mean"):
        node = node.func.value
    if isinstance(node, ast.Call):
        qual = analysis.imports.resolve(node.func) or ""
        return qual.startswith(_NAMESPACES) and qual not in ("jnp.dtype",)
    return False
