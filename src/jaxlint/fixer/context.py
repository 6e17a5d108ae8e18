"""One analysed version of one file, with the lookups the fixes share: the node a finding points
at, how a name is bound, and how to spell (and import) a module here.
"""

from __future__ import annotations

import ast
import builtins
import sys
from collections import Counter
from typing import Optional

from jaxlint import deepstack
from jaxlint.analysis.file import Analysis
from jaxlint.findings import Finding, NoFix
from jaxlint.fixer.edits import Text, preferred_quote


class Context:
    """A file's text, its ast and its Analysis, with the lookups the fixes share."""

    def __init__(self, text: str, path: str, config=None):
        self.text = Text(text)
        self.path = path
        self.config = config
        self.tree = ast.parse(text)
        lines = text.splitlines()
        from jaxlint.project import project_of
        self.analysis = deepstack.call(Analysis, self.tree, path, config, lines,
                                       project=project_of(path, config))
        self.index = self.analysis.index
        self.parents = self.analysis.parents
        self._by_pos = None
        self._quote = None
        self.top_aliases = {}        # local name -> dotted name, for unconditional top-level imports
        for stmt in self.tree.body:
            if isinstance(stmt, ast.Import):
                for alias in stmt.names:
                    if alias.asname:
                        self.top_aliases[alias.asname] = alias.name
                    else:
                        top = alias.name.split(".")[0]
                        self.top_aliases.setdefault(top, top)
            elif isinstance(stmt, ast.ImportFrom) and stmt.module and not stmt.level:
                for alias in stmt.names:
                    if alias.name != "*":
                        self.top_aliases[alias.asname or alias.name] = f"{stmt.module}.{alias.name}"

    @property
    def quote(self) -> str:
        if self._quote is None:
            self._quote = preferred_quote(self.text.text)
        return self._quote

    def nodes_at(self, line: int, col: int) -> list:
        if self._by_pos is None:
            self._by_pos = {}
            for node in ast.walk(self.tree):
                if hasattr(node, "lineno") and hasattr(node, "col_offset"):
                    self._by_pos.setdefault((node.lineno, node.col_offset), []).append(node)
        return self._by_pos.get((line, col), [])

    def call_at(self, finding: Finding, accept=lambda call: True) -> ast.Call:
        """The call the finding points at (`f(x).mean()`: both calls start there; `accept` picks)."""
        for node in self.nodes_at(finding.line, finding.col):
            if isinstance(node, ast.Call) and accept(node):
                return node
        raise NoFix("no such call at the finding's position")

    def jit_call_at(self, finding: Finding):
        """(call node, CallSite) of the jitted function's call the finding points at."""
        sites = {id(s.node): s for s in self.analysis.jit_calls()}
        call = self.call_at(finding, lambda node: id(node) in sites)
        return call, sites[id(call)]

    def bindings(self, name: str) -> int:
        """How many times `name` is bound anywhere in the file (defs, assignments, parameters,
        imports): a call `name(...)` surely means one function only when this is 1."""
        if not hasattr(self, "_bindings"):
            counts = Counter()
            for node in ast.walk(self.tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    counts[node.name] += 1
                elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                    counts[node.id] += 1
                elif isinstance(node, ast.arg):
                    counts[node.arg] += 1
                elif isinstance(node, ast.alias):
                    counts[(node.asname or node.name).split(".")[0]] += 1
            self._bindings = counts
        return self._bindings[name]

    def fresh_name(self, base: str, scope_node=None) -> str:
        """`base`, or `base_2`, `base_3`...: the first that no code of `scope_node` (a def, or
        the module when None) uses and the module does not bind, so a new local shadows nothing."""
        taken = set(self.analysis.model.module.by_name) | set(self.top_aliases)
        for node in ast.walk(scope_node if scope_node is not None else self.tree):
            if isinstance(node, ast.Name):
                taken.add(node.id)
            elif isinstance(node, ast.arg):
                taken.add(node.arg)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                taken.add(node.name)
            elif isinstance(node, ast.alias):
                taken.add((node.asname or node.name).split(".")[0])
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                taken.update(node.names)
        name, n = base, 1
        while name in taken or name in dir(builtins):
            n += 1
            name = f"{base}_{n}"
        return name

    def call_is_unambiguous(self, call: ast.Call) -> bool:
        func = call.func
        if isinstance(func, ast.Name):
            return self.bindings(func.id) == 1
        return True         # `jax.jit(f)(...)`; `obj.m(...)` only matches when one def is named m

    def bound_at_module(self, name: str) -> bool:
        return name in self.index.module_names or name in self.top_aliases

    def alias_for(self, dotted: str) -> Optional[str]:
        for local, target in self.top_aliases.items():
            if target == dotted:
                return local
        return None

    # -- imports --------------------------------------------------------------------------------
    def module_ref(self, module: str, asname: Optional[str] = None):
        """(expression naming `module`, edits adding its import if the file lacks it)."""
        local = self.alias_for(module)
        if local is not None:
            return local, []
        name = asname or module.split(".")[0]
        if self.bound_at_module(name):
            raise NoFix(f"`{name}` is already bound to something else in this module")
        if asname is None and "." in module:
            raise NoFix("submodule imports without an alias are not added")
        return name, [self.insert_import(module, asname)]

    def partial_ref(self):
        """(how to spell functools.partial here, edits to import it if needed)."""
        local = self.alias_for("functools.partial")
        if local is not None:
            return local, []
        local = self.alias_for("functools")
        if local is not None:
            return f"{local}.partial", []
        from_functools = next((s for s in self.tree.body if isinstance(s, ast.ImportFrom)
                               and s.module == "functools" and not s.level
                               and all(a.name != "*" for a in s.names)), None)
        if from_functools is not None and not self.bound_at_module("partial"):
            return "partial", [self._extend_from_import(from_functools, "partial")]
        if self.bound_at_module("functools"):
            raise NoFix("`functools` is bound to something else in this module")
        return "functools.partial", [self.insert_import("functools")]

    def _extend_from_import(self, stmt: ast.ImportFrom, name: str):
        later = [a for a in stmt.names if a.name.lower() > name.lower()]
        if later:
            at = self.text.offset(later[0].lineno, later[0].col_offset)
            return (at, at, f"{name}, ")
        last = stmt.names[-1]
        at = self.text.offset(last.end_lineno, last.end_col_offset)
        return (at, at, f", {name}")

    def insert_import(self, module: str, asname: Optional[str] = None):
        """An edit adding `import module [as asname]` where an isort-style file would have it:
        among the plain imports of its section (standard library or not) in name order."""
        nl = self.text.newline
        line = f"import {module}" + (f" as {asname}" if asname else "")
        body = self.tree.body
        first = 0
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            first = 1
        while first < len(body) and isinstance(body[first], ast.ImportFrom) \
                and body[first].module == "__future__":
            first += 1
        imports = [s for s in body[first:] if isinstance(s, (ast.Import, ast.ImportFrom))]
        stdlib = getattr(sys, "stdlib_module_names", frozenset())

        def is_std(stmt) -> bool:
            if isinstance(stmt, ast.ImportFrom):
                return not stmt.level and (stmt.module or "").split(".")[0] in stdlib
            return stmt.names[0].name.split(".")[0] in stdlib

        want_std = module.split(".")[0] in stdlib
        section = [s for s in imports if is_std(s) == want_std]
        plain = [s for s in section if isinstance(s, ast.Import)]
        if plain:
            later = [s for s in plain if s.names[0].name.lower() > module.lower()]
            if later:
                return self._before(later[0], line + nl)
            return self._after(plain[-1], line + nl)
        if section:
            return self._before(section[0], line + nl)
        if imports:
            if want_std:
                return self._before(imports[0], line + nl + nl)
            std = [s for s in imports if is_std(s)]
            if std:
                return self._after(std[-1], nl + line + nl)
            return self._before(imports[0], line + nl)
        if first < len(body):
            return self._before(body[first], line + nl + nl)
        at = len(self.text.text)
        lead = "" if not self.text.text or self.text.text.endswith(("\n", "\r")) else nl
        return (at, at, lead + line + nl)

    def _before(self, stmt, insertion: str):
        at = self.text.line_start(stmt.lineno)
        return (at, at, insertion)

    def _after(self, stmt, insertion: str):
        if stmt.end_lineno < len(self.text.starts):
            at = self.text.line_start(stmt.end_lineno + 1)
            return (at, at, insertion)
        at = len(self.text.text)
        return (at, at, self.text.newline + insertion.rstrip("\r\n"))
