"""A run over a project analyses each module after the files importing it, so that their traces'
calls into it run in its first analysis: the order, and that nothing is analysed twice."""

from __future__ import annotations

import os
import pathlib
import random
import shutil

import pytest

from jaxlint import runner
from jaxlint.config import ConfigFinder
from jaxlint.discovery import iter_targets

PROJECTS = pathlib.Path(__file__).parent / "projects"


def _reaches(edges, start) -> set:
    seen, todo = {start}, [start]
    while todo:
        for nxt in edges[todo.pop()]:
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


@pytest.mark.parametrize("seed", range(40))
def test_components_are_the_mutually_reachable_nodes_in_edge_order(seed):
    rng = random.Random(seed)
    count = rng.randint(1, 40)
    density = rng.choice([0.02, 0.05, 0.1, 0.3])
    edges = [[j for j in range(count) if j != i and rng.random() < density] for i in range(count)]
    units = runner._components(edges)
    assert sorted(i for unit in units for i in unit) == list(range(count))
    reach = [_reaches(edges, i) for i in range(count)]
    position = {i: k for k, unit in enumerate(units) for i in unit}
    for i in range(count):
        for j in range(count):
            assert (position[i] == position[j]) == (j in reach[i] and i in reach[j])
        for j in edges[i]:
            assert position[i] <= position[j]      # an importer's unit comes first


def test_a_long_import_chain_does_not_exhaust_the_stack():
    edges = [[i + 1] for i in range(20_000)] + [[]]
    assert runner._components(edges) == [(i,) for i in range(20_001)]


@pytest.mark.parametrize("jobs", [1, 2])
def test_each_module_is_analysed_once_with_the_calls_into_it(tmp_path, monkeypatch, jobs):
    folder = tmp_path / "p"
    shutil.copytree(PROJECTS / "helper_two_hops", folder)
    monkeypatch.chdir(folder)
    analysed = []
    real = runner.lint_one

    def counting(task):
        analysed.append(os.path.abspath(task[0]))
        return real(task)

    if jobs == 1:           # (a pool's workers run the module's own functions)
        monkeypatch.setattr(runner, "lint_one", counting)
    reports = runner.run(list(iter_targets(["."], ConfigFinder())), jobs=jobs)
    by_name = {os.path.basename(r.path): r.result for r in reports}
    assert [(f.line, f.code) for f in by_name["ops.py"].findings] == [(5, "JAX101")]
    assert by_name["ops.py"].linked                  # handed in before its first analysis
    assert len(analysed) == len(set(analysed)), analysed
