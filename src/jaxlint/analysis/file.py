"""The analysis of one file: what every rule reads, computed once and shared.

`Analysis` runs the stages in order (import map, module index, jit sites, the dataflow of each
traced function) and keeps their results; call-site facts the JAX2xx/JAX3xx rules need are
computed on first use. The engine builds one per file and the fixer one per version of a file.
"""

from __future__ import annotations

import ast
import os
import re
from typing import Optional

from jaxlint.analysis import api_tables as api
from jaxlint.analysis import calls
from jaxlint.analysis import values as vals
from jaxlint.analysis.crossmodule import (ExternalCall, Kept, ProjectView, calls_in_text, classes_passed_by_importers,
                                         file_digest, jit_entries_of, jit_entry_names, jitted_imports,
                                         module_classes, parsed_tree, record_class, record_not_jit, value_of)
from jaxlint.analysis.dataflow import Budget, Env, Frame, FunctionRun, ModuleFlow, bind_arguments, parameter_defaults
from jaxlint.analysis.flag_params import flag_params, passes_container
from jaxlint.analysis.module import ModuleIndex, evaluate_literal, param_names, positional_params
from jaxlint.analysis.names import ImportMap
from jaxlint.analysis.repetition import Repetition
from jaxlint.analysis.semantic import MUTATORS, BindingKind, ReachKind, SemanticModel
from jaxlint.analysis.shown import Ctx, Shown
from jaxlint.analysis.signature_reader import reader_for
from jaxlint.analysis.signatures import Leaf, Tree
from jaxlint.analysis.syntax import LineFilter, Parents, joined_text, pruned_walk
from jaxlint.analysis.traced import TracedEntry, TracedFinder, traced_params

_ARRAY_ANNOTATION = re.compile(
    r"^(?:jax\.)?(?:Array|ArrayLike)$|^(?:jnp|jax\.numpy)\.ndarray$|^(?:int|float|bool|complex)$|"
    r"^(?:jaxtyping\.|jt\.)?(?:Float|Int|Bool|Shaped|Num|Real|Inexact|Integer|UInt|Complex|Key)\[|"
    r"^chex\.(?:Array|Numeric|Scalar)$")

ENTRY_KINDS = {
    "jax.jit": "jitted function", "nnx.jit": "jitted function", "eqx.filter_jit": "jitted function",
    "jax.pmap": "pmapped function", "eqx.filter_pmap": "pmapped function",
    "jax.checkpoint": "checkpointed function", "jax.vmap": "vmapped function",
    "eqx.filter_vmap": "vmapped function",
}


class Analysis:
    """Everything the rules read about one module, computed once."""

    def __init__(self, tree: ast.Module, path: str = "<unknown>", config=None, lines=None,
                 project=None, externals=(), run: bool = True):
        """`project` (a project.Project) lets traces follow calls into the project's other
        modules (recorded in `outgoing`); `externals` are such calls made by other modules into
        this one (crossmodule.ExternalCall), run here so that their findings land on our lines."""
        self.tree = tree
        self.lines = lines
        self.path = path
        self.config = config
        self._parents = None
        self._model = None
        self.imports = ImportMap(tree, lines)
        self.index = ModuleIndex(tree, self.imports, lines)
        self.index.share_model = lambda: self.model      # built when a question needs it
        self.depends: dict = {}        # other modules' files the findings read -> digest
        if project is not None and run:
            self.index.outside = lambda name, param, position: classes_passed_by_importers(
                project, path, name, param, position, config, self.depends)
        self.unrolled_loop_threshold = int(getattr(config, "unrolled_loop_threshold", 16) or 16)
        self.finder = TracedFinder(self.index, getattr(config, "jit_decorators", None) or {}, lines)
        self.entries: list = self.finder.find()
        self.jitted_by_name: dict = {}
        self.jitted_by_attr: dict = {}
        defs_by_name = {}
        for info in self.index.functions:
            defs_by_name[info.name] = defs_by_name.get(info.name, 0) + 1
        for entry in self.entries:
            if entry.is_jit:
                for name in entry.call_names:
                    self.jitted_by_name.setdefault(name, []).append(entry)   # nested defs may share a name
                # `obj.m(...)` can only be matched to this method when no other def is named m
                entry.call_attrs = {a for a in entry.call_attrs if defs_by_name.get(a, 0) <= 1}
                for attr in entry.call_attrs:
                    self.jitted_by_attr.setdefault(attr, entry)
        self.call_sites: dict = self._all_call_sites()
        self.flow = ModuleFlow(self.index, self.finder, self.jitted_by_name, self.jitted_by_attr,
                               self.is_plain_class, lines)
        self.flow.make_shown = lambda: self.shown
        self.flow.handled = self.handles_tracer_errors
        self.budget_exhausted = False
        self._repeated = None
        self._shown = None
        self._jit_calls = None
        self.notes: list = []          # what a rule chose not to report, and why (--verbose)
        self.read_modules: dict = {}   # path -> analysis of another module asked (module_analysis)
        self._read_versions: dict = {}  # path -> the version (mtime, size) of the file it read
        if project is not None:
            self.flow.external = ProjectView(project, path, tree)
            self.flow.external.depends = self.depends
        if run:
            self._run_entries()
            if self.flow.external is not None:
                self._record_foreign_entries()
        for call in externals:
            self._guarded(self._run_external, call)
        self.outgoing: list = list(self.flow.external.calls) if self.flow.external is not None else []
        self.sinks = self.flow.sinks

    def release(self):
        """Break the reference cycles of this analysis (function <-> nested function, class <->
        method, module flow <-> this object) so that it and the syntax tree it holds are freed the
        moment the caller drops them, instead of surviving until a later garbage-collector pass
        (which, inside flake8, would also have to walk every tree still waiting)."""
        index = self.__dict__.get("index")
        if index is not None:
            for info in index.functions:
                info.__dict__.clear()
            for info in index.classes.values():
                info.__dict__.clear()
        for entry in self.__dict__.get("entries", ()):
            entry.__dict__.clear()
        for part in ("flow", "finder", "index"):
            obj = self.__dict__.get(part)
            if obj is not None:
                obj.__dict__.clear()
        self.__dict__.clear()

    @property
    def project(self):
        """The project the module is analysed in (project.Project), or None (file-local)."""
        view = self.flow.external
        return view.project if view is not None else None

    # -- call-site facts for the JAX2xx/JAX3xx rules (computed on first use) --------------------
    @property
    def parents(self):
        if self._parents is None:
            self._parents = Parents(self.tree)
        return self._parents

    @property
    def shown(self) -> Shown:
        """What the file shows about values (calls' arguments, defaults, factories): one per file,
        shared by the dataflow and the rules, with one budget (computed on first use)."""
        if self._shown is None:
            self._shown = Shown(self)
        return self._shown

    @property
    def repeated(self) -> Repetition:
        """Where the code shows that a def runs many times (computed per def, on first use)."""
        if self._repeated is None:
            self._repeated = Repetition(self.tree, self.parents, self.index, self.lines,
                                        {id(e.node) for e in self.entries} | self.custom_rule_defs(), self.model)
        return self._repeated

    def jit_calls(self) -> list:
        """Every call of a compiled jitted function (of this module, or of another module of the
        project) made outside traced code, arguments mapped, in line order."""
        if self._jit_calls is None:
            candidates = []
            for entry in self.entries:
                if not entry.compiled or entry.spec.unresolved or entry.outer and \
                        entry.outer not in api.VALUE_PRESERVING_OUTER:
                    continue
                candidates.extend((call, entry, skips_self) for call, skips_self in self.call_sites.get(id(entry), []))
            candidates.extend((call, entry, False) for call, entry in self._foreign_calls())
            traced_defs = {id(e.node) for e in self.entries}
            found = []
            for call, entry, skips_self in candidates:
                scope = self.parents.scope_of(call)
                if scope is not None and (id(scope) in traced_defs or id(scope) in self.traced_only_defs()) \
                        and id(scope) not in self.eagerly_differentiated_defs():
                    continue      # called while tracing another function: inlined, no compile
                site = calls.map_call(call, entry, skips_self)
                site.scope = scope
                site.loops = self.parents.loops_of(call)
                found.append(site)
            found.sort(key=lambda s: (s.node.lineno, s.node.col_offset))
            self._jit_calls = found
        return self._jit_calls

    @property
    def model(self) -> SemanticModel:
        """The semantic model of the module: scopes, bindings, which binding a name reads."""
        if self._model is None:
            self._model = SemanticModel(self.tree, self.parents, scan_expressions=self._has_walrus(),
                                         lines=self.lines)
        return self._model

    def _has_walrus(self) -> bool:
        return self.lines is None or any(":=" in line for line in self.lines)

    def values_at(self, name: str, node, scope=None) -> Optional[list]:
        """Every expression `name` may hold where `node` (inside `scope`: a def node, None for
        module level) reads it; None when one of them is not known. A name imported from a
        module of the project that binds it once (`from .config import LAYERS`) holds the
        expression written there."""
        model = self.model
        stmt, where = model.statement_of(node), model.scope(scope)
        found = model.values(name, stmt, where)
        if found is None and self.project is not None:
            bindings = model.bindings_at(name, stmt, where)
            if bindings and all(b.kind is BindingKind.IMPORT for b in bindings):
                value = self.imported_value(ast.Name(id=name, ctx=ast.Load()))
                found = [value] if value is not None else None
        return found

    def expressions_of(self, node, at, scope=None, depth: int = 0) -> Optional[list]:
        """Every expression `node` can hold where `at` (inside `scope`: a def node, None for
        module level) evaluates it: a name followed to the bindings that reach there (values_at)
        and through `a = b`; `mod.NAME` to the expression another module of the project binds;
        `config["layer_sizes"]` / `sizes[0]` to the item of the dict or list display a variable
        holds, when the module never changes that variable's items in place. Anything else is
        itself. None when one of them is not known."""
        if isinstance(node, ast.Attribute) and depth < 4:
            value = self.imported_value(node)       # `config.LAYERS`: the module's constant
            return [node] if value is None else self.expressions_of(value, at, scope, depth + 1)
        if isinstance(node, ast.Subscript) and depth < 4:
            item = self._display_item(node, at, scope, depth)     # `config["layer_sizes"]`
            return [node] if item is None else self.expressions_of(item, at, scope, depth + 1)
        if not isinstance(node, ast.Name) or depth >= 4:
            return [node]
        found = self.values_at(node.id, at, scope)
        if found is None:
            return None
        out = []
        for value in found:
            if isinstance(value, ast.Name):
                inner = self.expressions_of(value, at, scope, depth + 1)
                if inner is None:
                    return None
                out.extend(inner)
            else:
                out.append(value)
        return out

    def expression_of(self, node, at, scope=None) -> Optional[ast.AST]:
        """The one expression `node` holds where `at` evaluates it (see expressions_of), else None."""
        found = self.expressions_of(node, at, scope)
        if not found or any(v is not found[0] for v in found):
            return None
        return found[0]

    def _display_item(self, node: ast.Subscript, at, scope, depth: int) -> Optional[ast.AST]:
        """The element a constant subscript reads from a dict or list display that a variable holds
        (`config = {"layer_sizes": [8, 32, 1]}` ... `config["layer_sizes"]`), when the module never
        changes that variable's items in place; else None."""
        if not isinstance(node.value, ast.Name) or not isinstance(node.slice, ast.Constant):
            return None
        found = self.expressions_of(node.value, at, scope, depth + 1)
        if not found or any(v is not found[0] for v in found):
            return None
        display, key = found[0], node.slice.value
        if self.lines is None or self._changed_in_place(node.value.id):
            return None
        if isinstance(display, ast.Dict):
            if any(k is None or not isinstance(k, ast.Constant) for k in display.keys):
                return None         # `**other` or a computed key: which value wins is not shown
            matches = [v for k, v in zip(display.keys, display.values)
                       if k.value == key and type(k.value) is type(key)]
            return matches[-1] if matches else None
        if isinstance(display, (ast.List, ast.Tuple)) and type(key) is int \
                and not any(isinstance(e, ast.Starred) for e in display.elts) \
                and -len(display.elts) <= key < len(display.elts):
            return display.elts[key]
        return None

    def _changed_in_place(self, name: str) -> bool:
        """Does the module's text store into, delete from or call a mutating method on `name`
        (in any scope: a function may change a module-level dict)?"""
        pattern = re.compile(rf"\b{re.escape(name)}\s*(?:\[[^\n]*\]\s*(?:[-+*/%&|^@]|//|\*\*|<<|>>)?=(?!=)"
                             rf"|\.\s*(?:{'|'.join(sorted(MUTATORS))})\b)|\bdel\s+{re.escape(name)}\s*\[")
        return pattern.search(joined_text(self.lines)) is not None

    def imported_class(self, node):
        """The ClassInfo of the class of another module of the project that `node` (`Cls`
        imported from it, or `mod.Cls`) names, else None (project analysis only; the module
        read is recorded in `depends`). Its bases are names of that module."""
        view = self.flow.external
        if view is None or not isinstance(node, (ast.Name, ast.Attribute)):
            return None
        target = view.target_of(node)
        if target is None:
            return None
        found = module_classes(view.project, target.path)[0].get(target.name)
        record_class(self.depends, target.path, target.name, found)
        return found

    def imported_value(self, node) -> Optional[ast.AST]:
        """The expression a module of the project binds once to the name that `node` (`NAME`
        imported from it, or `mod.NAME` of an imported module) reads, else None. Project
        analysis only; the module read is recorded in `depends`."""
        view = self.flow.external
        if view is None or not isinstance(node, (ast.Name, ast.Attribute)):
            return None
        return view.constant(node)

    def imported_def(self, func) -> Optional[tuple]:
        """(analysis of its module, def node, jitted) of the module-level function of another
        module of the project that `func` (`helper` imported from it, or `mod.helper`) names,
        else None (project analysis only; the module read is recorded in `depends`). The other
        module's analysis is read-only: its traces are not run."""
        found = self.imported_target(func)
        if found is None:
            return None
        other, name = found
        found = other.module_def(name)
        return (other,) + found if found is not None else None

    def imported_target(self, func) -> Optional[tuple]:
        """(analysis of its module, name there) of what `func` (`helper` imported from another
        module of the project, or `mod.helper`) names, else None (project analysis only; the
        module read is recorded in `depends`)."""
        view = self.flow.external
        if view is None or not isinstance(func, (ast.Name, ast.Attribute)):
            return None
        target = view.target_of(func)
        if target is None or not target.path.endswith(".py"):
            return None
        other = self.other_module(target.path)
        return (other, target.name) if other is not None else None

    def other_module(self, path: str) -> Optional["Analysis"]:
        """The analysis (traces not run) of another module of the project, recorded as read: its
        file in `depends`, and what it reads in turn (`all_depends`). None without a project or
        when the file cannot be read."""
        if self.project is None:
            return None
        from jaxlint.project import version
        full = os.path.abspath(path)
        other = self.read_modules.get(full)
        if other is not None and self._read_versions.get(full) == version(full):
            return other        # asked again: the same analysis, not a new one per question
        other = module_analysis(self.project, path, self.config)
        self.depends[full] = file_digest(path)
        if other is not None:
            self.read_modules[full] = other
            self._read_versions[full] = version(full)
        return other

    def all_depends(self) -> dict:
        """`depends` with what the other modules' analyses read for us (a helper's return value
        read from a config module two hops away): a cached result is checked against all of it."""
        found, todo, seen = dict(self.depends), list(self.read_modules.values()), {id(self)}
        while todo:
            other = todo.pop()
            if id(other) in seen:
                continue
            seen.add(id(other))
            found.update(other.depends)
            todo.extend(other.read_modules.values())
        return found

    def module_def(self, name: str) -> Optional[tuple]:
        """(def node, jitted) of the function the module binds once, at module level, to `name`
        (a `def`, or a jitted function: `@jax.jit def`, `name = jax.jit(f)`), else None."""
        entries = [e for e in self.jitted_by_name.get(name, ()) if e.name_scope is None]
        if entries:
            entry = entries[0]
            if len(entries) == 1 and entry.compiled and entry.func is not None and not entry.bound \
                    and not entry.spec.unresolved and entry.func.parent is None and entry.func.cls is None:
                return entry.func.node, True
            if len(entries) == 1 and entry.compiled and entry.func is None and entry.lam is not None \
                    and not entry.bound and not entry.spec.unresolved and not entry.static:
                return entry.lam, True          # `shift = jax.jit(lambda x: x + c)`
            return None
        found = self.model.module.by_name.get(name, [])
        if len(found) == 1 and found[0].kind is BindingKind.FUNCTION and not found[0].path:
            return found[0].stmt, False
        return None

    def value_at(self, name: str, node, scope=None) -> Optional[ast.AST]:
        """The one expression `name` holds where `node` reads it, else None."""
        model = self.model
        return model.value(name, model.statement_of(node), model.scope(scope))

    def resolver(self, scope):
        """`resolve(name, node)`: `values_at` in one scope, for helpers that take a callback."""
        return lambda name, node: self.values_at(name, node, scope)

    def loop_callers_passing(self, site, name: str) -> list:
        """(helper, call, scope, loops, expression): each call, in a loop of this file, of the
        helper around the jitted call `site` (a plain function) that passes the helper's parameter
        `name` explicitly, with the expression it passes. [] when `name` is not such a parameter,
        or the helper binds it again (then it is not only what the caller passes). What a caller
        passes decides what the jitted call receives: the rules ask here whether it changes."""
        helper = self.index.by_node.get(id(site.scope)) if site.scope is not None else None
        if helper is None or helper.cls is not None or name not in helper.params \
                or self.model.scope(site.scope).assigns(name, definitions=False):
            return []
        found = []
        for call, skip in self.shown.callers(helper):
            loops = self.parents.loops_of(call)
            scope = self.parents.scope_of(call)
            if not loops or scope is site.scope:
                continue
            bound = self.shown.bind(helper, call, Ctx(scope, call.lineno), skip_self=skip)
            passed = dict(bound or ()).get(name)
            if passed is None or passed[1].line != call.lineno:
                continue        # left at its default
            found.append((helper, call, scope, loops, passed[0]))
        return found

    def runs_repeatedly(self, node) -> Optional[str]:
        """Why the code at `node` runs many times: a loop around it, or a loop that calls its
        function (directly or through callers); None when the file does not show it."""
        return self.repeated.reason(node)

    def names_called(self) -> set:
        """The plain names the module's text calls (`name(`): a cheap first look."""
        return self._calls_in_text()[0]

    def attributes_called(self) -> dict:
        """{name: attributes called on it} of the module's text (`mod.f(` gives mod -> {f})."""
        return self._calls_in_text()[1]

    def _calls_in_text(self) -> tuple:
        """(names called, {name: attributes called on it}) from one scan of the module's text."""
        if "_text_calls" not in self.__dict__:
            text = joined_text(self.lines) if self.lines is not None else ast.unparse(self.tree)
            self._text_calls = calls_in_text(text)
        return self._text_calls

    def custom_rule_defs(self) -> set:
        """ids of the module-level defs a custom_jvp or custom_vjp registers as its rules
        (`f.defvjp(fwd, bwd)`, `f.defvjp(fwd, partial(bwd, ...))`, `@f.defjvp`): JAX runs them
        while it differentiates f, inside the program's trace."""
        if "_custom_rules" not in self.__dict__:
            top = {name: info for name, info in self.index.top_functions.items() if info.cls is None}
            found = set()
            for info in top.values():
                if any(isinstance(dec, ast.Attribute) and dec.attr in api.CUSTOM_RULE_REGISTRARS
                       for dec in info.node.decorator_list):
                    found.add(id(info.node))
            for node in pruned_walk(self.tree, LineFilter(self.lines, api.CUSTOM_RULE_REGISTRARS)):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                        and node.func.attr in api.CUSTOM_RULE_REGISTRARS:
                    for arg in node.args:
                        if isinstance(arg, ast.Call) and self.imports.resolve(arg.func) == "functools.partial" \
                                and arg.args:
                            arg = arg.args[0]
                        if isinstance(arg, ast.Name) and arg.id in top:
                            found.add(id(top[arg.id].node))
            self._custom_rules = found
        return self._custom_rules

    def traced_only_defs(self) -> set:
        """ids of the module-level defs that run only inside a trace: traced functions, custom
        rules (`custom_rule_defs`), and the defs that only those call (a def no code of the
        module calls may be called from anywhere: not one of them)."""
        if "_traced_only" in self.__dict__:
            return self._traced_only
        top = {name: info for name, info in self.index.top_functions.items() if info.cls is None}
        callers, other_use = {}, set()
        for node in pruned_walk(self.tree, LineFilter(self.lines, set(top))):
            if isinstance(node, ast.Name) and node.id in top and isinstance(node.ctx, ast.Load):
                parent = self.parents.parent_of(node)
                if isinstance(parent, ast.Call) and parent.func is node:
                    scope = self.parents.scope_of(node)
                    callers.setdefault(node.id, set()).add(id(scope) if scope is not None else None)
                else:
                    other_use.add(node.id)
        traced = {id(e.node) for e in self.entries} | self.custom_rule_defs()
        changed = True
        while changed:
            changed = False
            for name, info in top.items():
                if id(info.node) in traced or name in other_use or not callers.get(name):
                    continue
                if all(c is not None and c in traced for c in callers[name]):
                    traced.add(id(info.node))
                    changed = True
        self._traced_only = {id(info.node) for info in top.values() if id(info.node) in traced}
        return self._traced_only

    def eagerly_differentiated_defs(self) -> set:
        """ids of the defs traced only by `jax.grad` & co. applied outside any compiled trace
        (`jax.grad(loss)(w, x)` in a training loop). Such a trace is not cached: it runs again at
        every call, and a jitted function it calls looks its cache up each time, static
        arguments included (a call inside a jitted function's trace is looked up once)."""
        if "_eager_diff" not in self.__dict__:
            staged = {id(e.node) for e in self.entries if e.wrapper not in api.DIFF_WRAPPERS}
            found = set()
            for entry in self.entries:
                if entry.wrapper not in api.DIFF_WRAPPERS or id(entry.node) in staged:
                    continue
                # the `jax.grad(f)` site itself must run outside every trace: no def or lambda
                # around it is traced (a jitted method's nested loss, a jitted lambda) or runs
                # only inside a trace
                hosts = [id(anc) for anc in self.parents.chain(entry.site) if anc is not entry.node
                         and isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))]
                if not any(h in self._traced_hosts() for h in hosts):
                    found.add(id(entry.node))
            self._eager_diff = found
        return self._eager_diff

    def _traced_hosts(self) -> set:
        """ids of the defs and lambdas that run only inside a trace: every traced function (the
        differentiated ones too) and the module-level helpers only they call."""
        if "_hosts" not in self.__dict__:
            self._hosts = {id(e.node) for e in self.entries} | self.traced_only_defs()
        return self._hosts

    # -- call sites ---------------------------------------------------------------------------
    def _foreign_calls(self) -> list:
        """[(call, entry)]: calls of jitted functions that another module of the project defines
        (`from .train import step` ... `step(batch, n)`), found through this module's imports.
        The modules looked into are recorded in `depends`, with digests of their bytes."""
        view = self.flow.external
        if view is None:
            return []
        project = view.project
        names, attrs = self._calls_in_text()
        roots = jitted_imports(project, self.path, view.imported, names, attrs, self.config, self.depends,
                               skip=self.jitted_by_name)
        if not roots:
            return []
        found = []
        model = None
        for node in pruned_walk(self.tree, LineFilter(self.lines, roots)):
            if not isinstance(node, ast.Call):
                continue
            root = node.func
            while isinstance(root, ast.Attribute):
                root = root.value
            if not isinstance(root, ast.Name) or root.id not in roots:
                continue
            target = view.target_of(node.func)
            if target is None:
                continue
            if target.name not in jit_entry_names(project, target.path, self.config):
                record_not_jit(self.depends, target.path, target.name, self.config)
                continue
            entries, digest = jit_entries_of(project, target.path, self.config)
            self.depends[os.path.abspath(target.path)] = digest
            entry = entries.get(target.name)
            if entry is None:
                continue
            model = model or self.model
            bindings = model.bindings_at(root.id, model.statement_of(node), model.scope_of(node))
            if not bindings or any(b.kind is not BindingKind.IMPORT for b in bindings):
                continue      # the name is rebound here: not the imported function
            found.append((node, entry))
        return found

    def _all_call_sites(self) -> dict:
        """Calls of each jitted function in this module: id(entry) -> [(call node, skips_self)].

        One pruned walk for all jitted functions (a walk per function is quadratic in files with
        thousands of jit sites), visiting only statements whose lines mention a callee's name."""
        jitted = self.entries + self.finder.unseen
        sites = {id(e): [(call, False) for call in e.immediate_calls] if e.is_jit else [] for e in jitted}
        # Names are looked up where they are bound: a nested def's name only inside its parent
        # (test files define many nested `foo`s), a module-level name anywhere.
        roots = {}
        for entry in jitted:
            if entry.is_jit:
                root = entry.name_scope.node if entry.name_scope is not None else self.tree
                by_name = roots.setdefault(id(root), (root, {}, {}))[1]
                for name in entry.call_names:
                    by_name.setdefault(name, []).append(entry)
                # `self.step = jax.jit(...)` in `__init__` is called as `self.step(...)` in any
                # method: attributes are looked up in the whole module
                by_attr = roots.setdefault(id(self.tree), (self.tree, {}, {}))[2]
                for attr in entry.call_attrs:
                    by_attr.setdefault(attr, []).append(entry)
        for root, by_name, by_attr in roots.values():
            if not by_name and not by_attr:
                continue
            line_filter = LineFilter(self.lines, set(by_name) | set(by_attr))
            for node in pruned_walk(root, line_filter):
                if not isinstance(node, ast.Call):
                    continue
                func = node.func
                if isinstance(func, ast.Name) and func.id in by_name:
                    for entry in by_name[func.id]:
                        sites[id(entry)].append((node, False))
                elif isinstance(func, ast.Attribute) and func.attr in by_attr:
                    for entry in by_attr[func.attr]:
                        skips = entry.func is not None and entry.func.is_method and not entry.bound
                        sites[id(entry)].append((node, skips))
        for found in sites.values():
            found.sort(key=lambda pair: (pair[0].lineno, pair[0].col_offset))
        return sites

    def passed_params(self, entry: TracedEntry) -> Optional[set]:
        """Parameters some call passes explicitly; None when no call is visible in the module."""
        sites = self.call_sites.get(id(entry), [])
        if not sites:
            return None
        passed = set()
        for call, skips_self in sites:
            positional = [p for p in positional_params(entry.args) if p not in entry.bound]
            if skips_self:
                positional = positional[1:]
            for i, arg in enumerate(call.args):
                if isinstance(arg, ast.Starred):
                    break
                if i < len(positional):
                    passed.add(positional[i])
            passed |= {kw.arg for kw in call.keywords if kw.arg}
        return passed

    def array_evidence(self, entry: TracedEntry) -> set:
        """Parameters known to hold an array (not a container): annotations and literal calls."""
        known = set()
        args = entry.args
        for a in args.posonlyargs + args.args + args.kwonlyargs:
            if a.annotation is not None:
                try:
                    text = ast.unparse(a.annotation)
                except Exception:  # noqa: BLE001 - unparse of odd annotations
                    continue
                if _ARRAY_ANNOTATION.search(text.strip("'\"")):
                    known.add(a.arg)
        containers = set()
        for call, pairs in self.passed_arguments(entry):
            for param, arg in pairs:
                if _is_scalar_literal(arg) or self._is_array_call(arg) or self._holds_leaf(arg, call):
                    known.add(param)
                elif passes_container(arg):
                    containers.add(param)
        return known | flag_params(entry, self.imports, containers, self.tree)

    def _holds_leaf(self, arg, call, array: bool = False) -> bool:
        """Does `arg` hold one array or Python scalar (`array`: an array) where `call` passes it
        (`d = jnp.zeros(8)` ... `step(d)`, `step(d[0])`), as the signature of the call's
        arguments says?"""
        if isinstance(arg, (ast.Lambda, ast.Starred)):
            return False
        memo = self.__dict__.setdefault("_argument_sigs", {})      # array_evidence and arrays_passed
        if id(arg) not in memo:                                      # both read each argument
            memo[id(arg)] = reader_for(self, self.parents.scope_of(call)).sig_at(arg, call)
        sig = memo[id(arg)]
        return isinstance(sig, Leaf) and sig.certain and not (array and sig.python)

    def passed_arguments(self, entry: TracedEntry) -> list:
        """(call, [(parameter, argument)]) for each call of the entry in this module, up to the
        first `*args` (the positions after it are not known)."""
        positional = [p for p in positional_params(entry.args) if p not in entry.bound]
        found = []
        for call, skips_self in self.call_sites.get(id(entry), []):
            params = positional[1:] if skips_self else positional
            pairs = []
            for param, arg in list(zip(params, call.args)) + [(kw.arg, kw.value) for kw in call.keywords if kw.arg]:
                if isinstance(arg, ast.Starred):
                    break
                pairs.append((param, arg))
            found.append((call, pairs))
        return found

    def arrays_passed(self, entry: TracedEntry) -> set:
        """Parameters every call of the entry passes an array (not a Python scalar): what
        eqx.filter_jit and nnx.jit trace when nothing is annotated."""
        found = None
        for call, pairs in self.passed_arguments(entry):
            here = set()
            for param, arg in pairs:
                if self._is_array_call(arg) or self._holds_leaf(arg, call, array=True):
                    here.add(param)
            found = here if found is None else found & here
        return found or set()

    def array_annotated(self, entry: TracedEntry) -> set:
        """Parameters annotated as arrays (not Python scalars): what eqx.filter_jit traces."""
        found = set()
        for a in entry.args.posonlyargs + entry.args.args + entry.args.kwonlyargs:
            if a.annotation is not None:
                text = ast.unparse(a.annotation).strip("'\"")
                if _ARRAY_ANNOTATION.search(text) and text not in ("int", "float", "bool", "complex"):
                    found.add(a.arg)
        return found

    def boolean_evidence(self, entry: TracedEntry) -> set:
        """Parameters some call in the module passes a boolean array to (a mask)."""
        known = set()
        for call, pairs in self.passed_arguments(entry):
            for param, arg in pairs:
                if self._is_boolean_array(arg):
                    known.add(param)
        return known

    def _is_boolean_array(self, node) -> bool:
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
            return self._is_boolean_array(node.operand)
        if isinstance(node, ast.Compare):
            return not any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in node.ops)
        if isinstance(node, ast.Call):
            name = self.imports.resolve(node.func) or ""
            if name in api.BOOLEAN_RESULT:
                return True
            if name in ("jnp.array", "jnp.asarray", "np.array", "np.asarray") and node.args \
                    and isinstance(node.args[0], (ast.List, ast.Tuple)) and node.args[0].elts:
                return all(isinstance(e, ast.Constant) and isinstance(e.value, bool) for e in node.args[0].elts)
        return False

    def _is_array_call(self, node) -> bool:
        if isinstance(node, ast.Call):
            name = self.imports.resolve(node.func) or ""
            return name.startswith(api.ARRAY_NAMESPACES) or name.startswith("np.")
        return False

    # -- classes ------------------------------------------------------------------------------
    def is_plain_class(self, cls, registered=None) -> bool:
        """A class jit cannot trace: not registered itself (registration is not inherited), no
        unknown decorator, and no base that makes subclasses pytrees (NamedTuple, eqx.Module, a
        base whose `__init_subclass__` may register them)."""
        registered = registered if registered is not None else self.index.registered_pytree_classes()
        if cls.name in registered:
            return False
        for dec in cls.node.decorator_list:
            target = dec.func if isinstance(dec, ast.Call) else dec
            if self.imports.resolve(target) != "dataclasses.dataclass":
                return False        # an unknown decorator may register it: stay silent
        return not cls.node.keywords and self._plain_bases(cls, set())

    def _plain_bases(self, cls, seen) -> bool:
        """No base of `cls` makes it a pytree: each is `object` or a plain class of this module or
        of another module of the project (read there)."""
        if id(cls.node) in seen:
            return False
        seen.add(id(cls.node))
        for base, node in zip(cls.bases, cls.node.bases):
            if base in ("object", "builtins.object"):
                continue
            home, other = self, self.index.classes.get(base)
            if other is None:
                found = self.imported_target(node)
                if found is None:
                    return False
                home, other = found[0], found[0].index.classes.get(found[1])
            if other is None or other.node.keywords or not home._plain_bases(other, seen):
                return False
            if "__init_subclass__" in other.methods:
                return False        # it runs for every subclass, and may register it as a pytree
        return True

    # -- dataflow -------------------------------------------------------------------------------
    def _run_entries(self):
        traced_funcs = {id(e.func) for e in self.entries if e.func is not None}
        hosts = []
        for entry in self.entries:
            if entry.host is not None and id(entry.host) not in traced_funcs:
                if entry.host not in hosts:
                    hosts.append(entry.host)
                continue      # analysed from its host, where its arguments are known
            if entry.diff is not None and entry.scope is not None and id(entry.scope) in traced_funcs:
                continue      # autodiff inside a traced function: traced with it, from there
            self._guarded(self._run_entry, entry)
        for host in hosts:
            self._guarded(self._run_host, host)

    def handles_tracer_errors(self, node) -> bool:
        """Is `node` in the body of a `try` of its own function whose handler catches what JAX
        raises for a tracer used as a concrete value (ConcretizationTypeError and its subclasses,
        TypeError, IndexError, Exception, a bare `except`) and does not raise again?"""
        child = node
        for anc in self.parents.chain(node):
            if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                return False
            if isinstance(anc, _TRY_NODES) and any(child is stmt for stmt in anc.body) \
                    and any(_catches_tracer_errors(handler) for handler in anc.handlers):
                return True
            child = anc
        return False

    def _record_foreign_entries(self):
        """`jax.jit(step_fn)` of a function another module of the project defines, or of a method
        of an object of a class defined there (`env = Asterix()` ... `jax.jit(env.step_env)`): the
        trace runs that module's code. Recorded as a call of it, from this line, with every
        parameter traced but the static ones (`static_argnums` / `static_argnames` written as
        literals), for that module's analysis to run (crossmodule.ExternalCall)."""
        view = self.flow.external
        for wrapper, site in self.finder.foreign:
            calls = self._calls_of_jitted(site)
            passed = [(a, call, self.parents.scope_of(call)) for call in calls
                      for a in list(call.args) + [k.value for k in call.keywords]]
            if not any(self._passed_to_jit(*item, "", read=False) for item in passed):
                continue        # no call seen, or none passes a number or an array
            spec = self.finder.static_spec(wrapper, site.keywords)
            found = self._foreign_function(site.args[0], site) if not spec.unresolved else None
            if found is None:
                continue        # not another module's function, or which arguments are static is unknown
            path, name, info, skips_self = found
            numbers, names = set(spec.argnums or ()), set(spec.argnames or ())
            positional = positional_params(info.node.args)[1 if skips_self else 0:]
            keyword_params = set(positional) | {a.arg for a in info.node.args.kwonlyargs}
            for call in calls:
                if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords) \
                        or len(call.args) > len(positional):
                    continue
                scope = self.parents.scope_of(call)
                args = tuple(_static_taint(a) if i in numbers or i - len(positional) in numbers or p in names
                             else self._passed_to_jit(a, call, scope, p)
                             for i, (p, a) in enumerate(zip(positional, call.args)))
                kwargs = tuple((k.arg, _static_taint(k.value) if k.arg in names
                                else self._passed_to_jit(k.value, call, scope, k.arg))
                               for k in call.keywords if k.arg in keyword_params)
                if not any(args) and not any(t for _, t in kwargs):
                    continue
                view.add(ExternalCall(os.path.abspath(path), name, args, kwargs, name.rsplit(".", 1)[-1],
                                      "jitted function", os.path.abspath(self.path),
                                      ((name, call.lineno, os.path.abspath(self.path)),)))

    def _calls_of_jitted(self, site) -> list:
        """The calls of what a jit site makes: `jax.jit(f)(x)`, or `step(x)` after `step = jax.jit(f)`
        in the same scope (the name bound there once)."""
        parent = self.parents.parent_of(site)
        if isinstance(parent, ast.Call) and parent.func is site:
            return [parent]
        if not isinstance(parent, ast.Assign) or len(parent.targets) != 1 or not isinstance(parent.targets[0], ast.Name):
            return []
        name = parent.targets[0].id
        scope = self.parents.scope_of(site)
        model = self.model
        if len(model.scope(scope).by_name.get(name, ())) != 1:
            return []
        root = scope if scope is not None else self.tree
        return [n for n in pruned_walk(root, LineFilter(self.lines, {name}))
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name
                and self.parents.scope_of(n) is scope]

    def _passed_to_jit(self, node, call, scope, param, read: bool = True) -> Optional[tuple]:
        """The taint of an argument a jitted function of another module is called with: a Python
        number or an array made by jnp / jax.random / NumPy becomes a tracer, and so does a pytree
        whose every leaf the signature reader shows to be one (`read`: ask it); anything else (an
        object whose fields may be static) is not known."""
        value = self.expression_of(node, call, scope)
        if value is not None and (_is_scalar_literal(value) or self._is_array_call(value)):
            return ("array", (param,), (param,), False)
        if read and any(_only_arrays(sig) for sig in self._signatures_passed(node, call, scope)):
            return (vals.MAYBE, (param,), (param,), False)      # a pytree whose every leaf is traced
        return None

    def _signatures_passed(self, node, call, scope):
        """The signatures (signature_reader) of what the argument `node` of `call` may hold: its
        own, and for a name, that of each value bound to it that reaches the call (`state =
        env.reset(key)` before a loop that rebinds `state` from the jitted step)."""
        reader = reader_for(self, scope)
        yield reader.sig_at(node, call)
        if not isinstance(node, ast.Name):
            return
        model = self.model
        for binding in model.bindings_at(node.id, model.statement_of(call), model.scope(scope)) or ():
            if binding.kind in (BindingKind.ASSIGNMENT, BindingKind.UNPACKED):
                yield reader.binding_sig(binding)       # `obs, state = env.reset(key)`: its element

    def _foreign_function(self, target, site) -> Optional[tuple]:
        """(file, name there, FuncInfo, whether `self` is bound) of the function of another module
        that `target` names: `step_fn` / `mod.step_fn` imported from it, or `obj.method` where `obj`
        holds one object of a class imported from it (`obj = Cls(...)`)."""
        found = self.imported_target(target)
        if found is not None:
            other, name = found
            info = other.index.top_functions.get(name)
            if info is not None and info.cls is None and len(other.index.top_defs.get(name, ())) == 1:
                return other.path, name, info, False
            return None
        found = self.object_method(target, site, self.parents.scope_of(site))
        if found is None or found[0] is self:
            return None
        other, cls_name, info = found
        return other.path, f"{cls_name}.{target.attr}", info, True

    def object_method(self, target, at, scope) -> Optional[tuple]:
        """(analysis of the class's module, class name there, FuncInfo) of the instance method
        that `target` (`env.step`) names where `at` is (inside `scope`), when `env` holds one
        object of a class of the project (`env = Asterix()`): a class of this module, or one
        imported from another. Decorated methods (properties, jits) are not followed."""
        if not isinstance(target, ast.Attribute) or not isinstance(target.value, ast.Name):
            return None
        made = self.expression_of(target.value, at, scope)
        if not isinstance(made, ast.Call):
            return None
        found = self.imported_target(made.func)
        if found is not None:
            other, cls_name = found
        elif isinstance(made.func, ast.Name) and self._module_class_named(made.func, made):
            other, cls_name = self, made.func.id        # a class of this module
        else:
            return None
        cls = other.index.top_classes.get(cls_name)
        info = other.index.lookup_method(cls, target.attr) if cls is not None else None
        if info is None or info.method_kind != "instance" or info.node.decorator_list:
            return None
        return other, cls_name, info

    def _module_class_named(self, name: ast.Name, at) -> bool:
        """Does `name` read, where `at` is, the class the module binds once to it at module level?"""
        bindings = self.model.module.by_name.get(name.id, ())
        if len(bindings) != 1 or not isinstance(bindings[0].stmt, ast.ClassDef):
            return False
        scope = self.parents.scope_of(at)
        return scope is None or not self.model.scope(scope).by_name.get(name.id)

    def _guarded(self, step, arg):
        if self.budget_exhausted:
            return
        try:
            step(arg)
        except (Budget, RecursionError):
            self.budget_exhausted = True

    def _run_external(self, call):
        """Run a module-level function of this module as another module's trace calls it: the
        arguments it passes traced are traced here, the others unknown."""
        receiver = None
        if "." in call.name:    # `LOGGER.log`: a method of a module-level object of this module
            obj, method = call.name.split(".", 1)       # `Asterix.step_env`: of an object of its class,
            cls = self.index.instances.get(obj) or self.index.top_classes.get(obj)   # made before the trace
            info = self.index.lookup_method(cls, method) if cls is not None and "." not in method else None
            if info is None or info.method_kind != "instance":
                return
            receiver = self.flow.module_object(cls)
        elif call.name in self.index.top_classes:     # `Potential(m, r_s)`: its __init__ runs
            cls = self.index.top_classes[call.name]
            info = self.index.lookup_method(cls, "__init__") if self.index.record_fields(cls) is None else None
            if info is None:
                return      # a record (NamedTuple, dataclass) holds what it is given, as in this module
            receiver = vals.V(vals.OBJECT, cls=cls, fields=(), elts=())    # made by the call, in the trace
        else:
            info = next((f for f in self.index.functions if f.parent is None and f.cls is None
                         and f.name == call.name), None)
        if info is None or any(e.func is info and e.is_jit for e in self.entries):
            return      # a jitted function called inside a trace is inlined by its own rules
        bindings = bind_arguments(info.node.args, [value_of(taint) for taint in call.args],
                                  {name: value_of(taint) for name, taint in call.kwargs}, skip_first=receiver is not None)
        if receiver is not None and positional_params(info.node.args):
            bindings[positional_params(info.node.args)[0]] = receiver
        defaults = parameter_defaults(info, self.index)
        for name in param_names(info.node.args):
            bindings.setdefault(name, defaults.get(name, vals.UNKNOWN_V))
        bindings = {k: v.extend(k) for k, v in bindings.items()}
        chain = tuple((name, line, None, path) for name, line, path in call.chain)
        frame = Frame(function=info.qualname, entry=call.entry, entry_kind=call.entry_kind, chain=chain,
                      muted=self.flow.inspects_tracers(info.node), origin=call.origin)
        FunctionRun(self.flow, info, Env(None, bindings), frame, 1, tracing=True, unrolls=True,
                    self_value=receiver if self.flow.is_outside(receiver) else None,
                    owner_cls=info.cls).run()

    def _run_host(self, host):
        """Run a plain function eagerly; the lax/vmap bodies it calls are traced with its values."""
        bindings = {name: vals.UNKNOWN_V for name in host.params}
        self._annotate_classes(host.node.args, bindings)
        frame = Frame(function=host.qualname, entry=host.qualname, entry_kind="function")
        owner, s = host.cls, host.parent
        while owner is None and s is not None:
            owner, s = s.cls, s.parent
        FunctionRun(self.flow, host, Env(None, bindings), frame, 0, owner_cls=owner,
                    self_value=vals.UNKNOWN_V, tracing=False).run()

    def _run_entry(self, entry: TracedEntry):
        if entry.spec.unresolved or any(is_error for _, _, is_error in entry.spec_problems) \
                or entry.fails_before_trace:
            return      # jax.jit itself raises (JAX203, a jitted staticmethod): the body is never traced
        if entry.diff is not None:
            return self._run_differentiated(entry)
        traced = traced_params(entry, self.passed_params(entry))
        arrays = self.array_evidence(entry)
        passed_arrays = self.arrays_passed(entry) if entry.filtering else set()
        masks = self.boolean_evidence(entry)
        defaults = {}
        for name, node in calls.defaults_of(entry).items():
            try:
                defaults[name] = evaluate_literal(node)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                pass
        names = [a.arg for a in entry.args.posonlyargs + entry.args.args + entry.args.kwonlyargs]
        bindings = {}
        owner = self._owner_class(entry)
        self_value = None
        for i, name in enumerate(names + [a.arg for a in (entry.args.vararg, entry.args.kwarg) if a]):
            if entry.func is not None and entry.func.is_method and i == 0:
                if name in entry.bound:
                    self_value = self._bound_receiver(entry)
                else:
                    self_value = vals.STATIC_V if name in entry.static else vals.UNKNOWN_V
                bindings[name] = self_value
                continue
            if name in traced:
                if entry.filtering and name not in self.array_annotated(entry) and name not in passed_arrays:
                    bindings[name] = vals.UNKNOWN_V
                    continue
                is_vararg = entry.args.vararg is not None and name == entry.args.vararg.arg
                is_kwarg = entry.args.kwarg is not None and name == entry.args.kwarg.arg
                if is_vararg and entry.static_in_varargs:
                    bindings[name] = vals.UNKNOWN_V      # some elements static: cannot tell which
                    continue
                is_star = is_vararg or is_kwarg
                leaf = vals.CONTAINER if is_star else (vals.ARRAY if name in arrays else vals.MAYBE)
                if entry.wrapper == "lax.fori_loop" and i == 0:
                    leaf = vals.ARRAY
                bindings[name] = vals.traced(leaf=leaf, path=(name,), params=frozenset({name}),
                                             boolish=name in masks)
                if is_kwarg and entry.static_kwargs:
                    bindings[name].extra = frozenset(entry.static_kwargs)   # static keys of **kwargs
            elif name in entry.unbatched:
                bindings[name] = vals.UNKNOWN_V
            elif name in entry.static:
                shown = self._only_static_value(entry, name, defaults)
                bindings[name] = vals.V(vals.STATIC, text=f"static:{name}") if shown is vals.NO_CONST \
                    else vals.static(shown)
            else:
                bindings[name] = vals.static(defaults.get(name, vals.NO_CONST))
        self._annotate_classes(entry.args, bindings)
        self._classes_passed(entry, bindings)
        kind = ENTRY_KINDS.get(entry.wrapper, f"{entry.wrapper} body")
        frame = Frame(function=entry.name, entry=entry.name, entry_kind=kind,
                      muted=self.flow.inspects_tracers(entry.node),
                      arrays=frozenset(passed_arrays if entry.filtering else self.arrays_passed(entry)))
        func = entry.func if entry.func is not None else entry.lam
        batching = entry.wrapper in api.BATCHING_WRAPPERS      # vmap/shard_map outside jit: not staged
        run = FunctionRun(self.flow, func, Env(None, bindings), frame, 0,
                          self_value=self_value, owner_cls=owner, scope=self._closure_scope(entry),
                          tracing=not batching, unrolls=True)
        run.run()

    @staticmethod
    def _only_static_value(entry: TracedEntry, name: str, defaults: dict):
        """The one value a static parameter takes when the jitted function is only called where
        it is made (`jax.jit(f, static_argnames="check")(x, check=False)`: the jitted object
        goes nowhere else) and every such call passes the same literal; else NO_CONST."""
        if entry.call_names or entry.call_attrs or not entry.immediate_calls:
            return vals.NO_CONST
        seen = set()
        for call in entry.immediate_calls:
            site = calls.map_call(call, entry, False)
            if site.starred:
                return vals.NO_CONST
            arg = site.args.get(name)
            if arg is None:
                if name not in defaults:
                    return vals.NO_CONST
                value = defaults[name]
            else:
                try:
                    value = evaluate_literal(arg.node)
                except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                    return vals.NO_CONST
            if not isinstance(value, (bool, int, str, type(None))):
                return vals.NO_CONST
            seen.add((type(value), value))
        return next(iter(seen))[1] if len(seen) == 1 else vals.NO_CONST

    @staticmethod
    def _owner_class(entry: TracedEntry):
        """The class whose methods `self.m`/`cls.m` name in the traced function: its own, or
        that of the method it is defined in (a lambda or nested def inside a method)."""
        if entry.func is not None and entry.func.cls is not None:
            return entry.func.cls
        s = entry.func.parent if entry.func is not None else entry.scope
        while s is not None:
            if s.cls is not None:
                return s.cls
            s = s.parent
        return None

    def _annotate_classes(self, args: ast.arguments, bindings: dict):
        """A parameter annotated with a class of this file holds an object of it (a pytree of
        tracers when it is traced): its methods can be followed."""
        for a in args.posonlyargs + args.args + args.kwonlyargs:
            cls = self.index.class_named(a.annotation) if a.annotation is not None else None
            value = bindings.get(a.arg)
            if cls is None or value is None or value.state in (vals.OBJECT, vals.CLASS):
                continue
            if value.traced:
                bindings[a.arg] = vals.copy(value, cls=cls)
            elif value.state == vals.UNKNOWN or value.state == vals.STATIC and value.const is vals.NO_CONST:
                bindings[a.arg] = vals.V(vals.OBJECT, cls=cls)

    def _classes_passed(self, entry: TracedEntry, bindings: dict):
        """A traced parameter that every call of the entry passes an object of one class of this
        file (`model = MLP(...)` ... `train_step(model, x)`) holds a pytree of tracers of that
        class, as an annotation would say; not a plain class, which jit refuses to trace."""
        calls = self.passed_arguments(entry)
        found: dict = {}
        for call, pairs in calls:
            for param, arg in pairs:
                found.setdefault(param, []).append(self._class_of_argument(arg, call))
        for param, classes in found.items():
            value = bindings.get(param)
            cls = classes[0]
            if len(classes) < len(calls) or cls is None or any(c is not cls for c in classes) or value is None \
                    or value.cls is not None:
                continue        # (a call that leaves the parameter out passes its default)
            if param in entry.static and value.state == vals.STATIC and value.const is vals.NO_CONST:
                # a static object (`kernel` of `static_argnums=(0,)`): its methods run in the
                # trace with the traced arguments they are given
                bindings[param] = vals.V(vals.OBJECT, cls=cls)
                continue
            if self.is_plain_class(cls):
                continue        # jit refuses to trace an object of a plain class
            if value.traced:
                bindings[param] = vals.copy(value, cls=cls)
            elif value.state == vals.UNKNOWN and entry.filtering:
                bindings[param] = vals.V(vals.OBJECT, cls=cls)   # a module: arrays traced, the rest static

    def _class_of_argument(self, arg, call):
        """The class of this file that `arg` is built from (`MLP(...)`, or a name every binding of
        which reaching `call` is such a call), else None."""
        values = [arg]
        if isinstance(arg, ast.Attribute) and isinstance(arg.value, ast.Name):
            info = self.index.by_node.get(id(self.parents.scope_of(call)))     # `self.kernel` in a method
            if info is not None and info.cls is not None and info.method_kind == "instance" \
                    and positional_params(info.node.args)[:1] == [arg.value.id]:
                return self.index.attribute_class(info.cls, arg.attr)
            return None
        if isinstance(arg, ast.Name):
            scope = self.parents.scope_of(call)
            values = self.values_at(arg.id, call, scope)
            if values is None:
                # `model, loss = step(model, x)` in a loop: the first iteration passes what the
                # name holds before the loop, and that call's trace is the first one
                model = self.model
                reach = model.scope(scope).reach(arg.id, arg, model.statement_of(call))
                values = [reach.binding.value] if reach.kind in (ReachKind.CARRIED, ReachKind.SELF) \
                    and reach.binding is not None and reach.binding.value is not None else []
        classes = {id(cls): cls for cls in (self.index.class_named(v.func) if isinstance(v, ast.Call) else None
                                            for v in values)}
        return next(iter(classes.values())) if len(classes) == 1 else None

    def _bound_receiver(self, entry: TracedEntry):
        """What a bound method's first parameter holds: the object (or, for a classmethod, the
        class) it was taken from, when the file shows which class that is."""
        if entry.self_class is None:
            return vals.UNKNOWN_V
        if entry.func.method_kind == "class":
            return vals.V(vals.CLASS, cls=entry.self_class)
        receiver = vals.V(vals.OBJECT, cls=entry.self_class)
        cls = entry.self_class
        if self.is_plain_class(cls) and not (cls.dataclass or {}).get("frozen"):
            # `jax.jit(obj.method)`: the object was made before the trace and outlives it (a
            # pytree or frozen object would be traced, or refuse the store)
            self.flow.made_outside(receiver)
        return receiver

    @staticmethod
    def _closure_scope(entry: TracedEntry):
        """The def whose local names the traced function reads as closure variables."""
        if entry.func is not None:
            return entry.func.parent
        return entry.scope

    def _run_differentiated(self, entry: TracedEntry):
        """`jax.grad(f)` (or vjp, jvp, linearize) outside any jit: the differentiated parameters
        hold tracers of autodiff alone, the others the caller's concrete values."""
        traced = traced_params(entry, None)
        bindings = {}
        for name in param_names(entry.args):
            if name in entry.diff and name in traced:
                bindings[name] = vals.traced(leaf=vals.MAYBE, path=(name,), params=frozenset({name}), diff=True)
            elif entry.func is not None and entry.func.is_method and name == entry.func.params[0] \
                    and name in entry.bound:
                bindings[name] = self._bound_receiver(entry)
            else:
                bindings[name] = vals.UNKNOWN_V
        kind = "differentiated function" if entry.wrapper in api.DIFF_WRAPPERS else f"{entry.wrapper} function"
        frame = Frame(function=entry.name, entry=entry.name, entry_kind=kind,
                      muted=self.flow.inspects_tracers(entry.node))
        func = entry.func if entry.func is not None else entry.lam
        FunctionRun(self.flow, func, Env(None, bindings), frame, 0, owner_cls=self._owner_class(entry),
                    tracing=False, scope=self._closure_scope(entry)).run()


def _is_scalar_literal(node) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float, bool, complex))


# -- other modules of the project, read for what their functions return ---------------------------

MAX_MODULES = 4         # each holds a whole tree and its index: a few kept, for the modules asked most recently
_MODULES = Kept(MAX_MODULES, 150_000)   # (path, mtime, size, project) -> Analysis; at most 150 kB of their source


_TRY_NODES = (ast.Try,) + ((ast.TryStar,) if hasattr(ast, "TryStar") else ())
# What the errors JAX raises for a tracer in a concrete place are, or derive from (JAX 0.10.2):
# TracerBoolConversionError < ConcretizationTypeError < JAXTypeError < TypeError, and so on.
_TRACER_ERROR_NAMES = frozenset({"ConcretizationTypeError", "TracerBoolConversionError",
                                 "TracerIntegerConversionError", "TracerArrayConversionError",
                                 "NonConcreteBooleanIndexError", "JAXTypeError", "JAXIndexError",
                                 "TypeError", "IndexError", "Exception", "BaseException"})


def _static_taint(arg) -> Optional[tuple]:
    """What a static argument of a jitted function carries into the trace: a literal as it is
    written (`max_measure_size=14`), else nothing known."""
    if isinstance(arg, ast.Constant) and type(arg.value) in (bool, int, float, str, type(None)):
        return ("static", arg.value)
    return None


def _only_arrays(sig) -> bool:
    """Is every leaf of the pytree `sig` an array or a Python number (all traced when passed to
    jit), with at least one leaf?"""
    if isinstance(sig, Leaf):
        return sig.certain
    if isinstance(sig, Tree) and sig.children and sig.kind not in ("None",):
        return all(_only_arrays(child) for child in sig.children)
    return False


def _catches_tracer_errors(handler: ast.ExceptHandler) -> bool:
    """Does the handler catch a tracer error (by one of its classes or bases) and not raise again?"""
    if handler.type is not None:
        kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
        names = {k.attr if isinstance(k, ast.Attribute) else getattr(k, "id", "") for k in kinds}
        if not names & _TRACER_ERROR_NAMES:
            return False
    return not any(isinstance(n, ast.Raise) for stmt in handler.body for n in ast.walk(stmt))


def module_analysis(project, path: str, config=None) -> Optional[Analysis]:
    """The analysis of another module of the project, its traces not run (what its functions
    return is read from it), once per version of the file; the latest few kept. None when the
    file cannot be read or parsed."""
    from jaxlint.project import _read, version
    full = os.path.abspath(path)
    stamp = version(full)
    if stamp is None:
        return None
    key = (full, stamp, id(project))
    if key in _MODULES:
        return _MODULES.get(key)
    try:
        data = _read(full)
        tree = parsed_tree(full, data)
        lines = data.decode("utf-8", "replace").splitlines()
        found = Analysis(tree, full, config, lines, project=project, run=False)
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        found = None
    _MODULES.put(key, found, stamp[1])
    return found
