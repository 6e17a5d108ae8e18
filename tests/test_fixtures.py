"""Every fixture's findings are exactly the `# expect:` comments it carries."""

import pytest

from fixture_expectations import FIXTURES, expected_findings, fixture_files
from jaxlint.engine import lint_file

FILES = fixture_files()


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fixture_findings_match_expectations(path):
    result = lint_file(str(path))
    assert result.error is None and result.internal_error is None
    got = {(f.line, f.code) for f in result.findings}
    assert got == expected_findings(path)


def test_every_rule_has_enough_fixtures_of_both_kinds():
    from jaxlint.rules import RULES
    for rule in RULES:
        folder = FIXTURES / rule.code
        positives = list(folder.glob("pos_*.py"))
        negatives = list(folder.glob("neg_*.py"))
        assert len(positives) >= 8, f"{rule.code}: {len(positives)} positive fixtures"
        assert len(negatives) >= 8, f"{rule.code}: {len(negatives)} negative fixtures"
        for path in positives:
            assert any(code == rule.code for _, code in expected_findings(path)), path
        for path in negatives:
            assert not expected_findings(path), path
