"""Rule documentation: one text per rule, listed by the CLI, generated into docs/rules.md, and
its examples linted (the example is flagged with the rule's code, "use instead" is not)."""

import pathlib
import textwrap

import pytest

from jaxlint import ruledocs
from jaxlint.cli import main
from jaxlint.engine import lint_source
from jaxlint.rules import RULES

DOCS = pathlib.Path(__file__).resolve().parent.parent / "docs" / "rules.md"


def test_docs_rules_md_is_up_to_date():
    assert DOCS.read_text() == ruledocs.markdown(), (
        "docs/rules.md is stale: regenerate it with `jaxlint rules --markdown > docs/rules.md`")


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_example_is_flagged_and_use_instead_is_not(rule):
    bad = lint_source(textwrap.dedent(rule.example), f"{rule.code}_example.py")
    good = lint_source(textwrap.dedent(rule.use_instead), f"{rule.code}_use_instead.py")
    assert bad.error is None and good.error is None
    assert rule.code in {f.code for f in bad.findings}
    assert rule.code not in {f.code for f in good.findings}


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_every_rule_documents_every_part(rule):
    for part in ("code", "name", "family", "summary", "what", "why", "example", "use_instead"):
        assert getattr(rule, part).strip(), f"{rule.code} has no {part}"


def test_rules_command_lists_code_name_family_fixable(capsys):
    assert main(["rules"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["code", "name", "family", "fixable"]
    for rule, line in zip(RULES, lines[1:]):
        assert line.split()[:2] == [rule.code, rule.name]
        assert rule.family in line and line.split()[-1] in ("yes", "no")
    assert len(lines) == len(RULES) + 1


def test_rule_command_prints_documentation(capsys):
    assert main(["rule", "jax101"]) == 0
    out = capsys.readouterr().out
    assert out == RULES[0].documentation()
    for heading in ("## JAX101", "### What it does", "### Why is this bad", "### Example",
                    "### Use instead", "### Fix"):
        assert heading in out
    assert main(["rule", "JAX999"]) == 2
    assert "unknown rule" in capsys.readouterr().err
