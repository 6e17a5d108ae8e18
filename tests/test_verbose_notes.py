"""--verbose shows what the analysis could not do, instead of dropping it silently."""

from jaxlint.analysis import dataflow
from jaxlint.cli import main
from jaxlint.engine import lint_source

SOURCE = "import jax\n\n@jax.jit\ndef f(x, n):\n    y = x + 1\n    z = y * 2\n    return z[:n]\n"


def test_exhausted_budget_is_a_note(monkeypatch):
    monkeypatch.setattr(dataflow, "MAX_STEPS", 3)
    result = lint_source(SOURCE, "small.py")
    assert any("budget exhausted" in note for note in result.notes)


def test_no_note_when_the_budget_suffices():
    result = lint_source(SOURCE, "small.py")
    assert result.notes == []
    assert [f.code for f in result.findings] == ["JAX104"]


def test_verbose_prints_notes_on_stderr(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(dataflow, "MAX_STEPS", 3)
    path = tmp_path / "small.py"
    path.write_text(SOURCE)
    main(["check", "--no-cache", "-j", "1", "-v", str(path)])
    assert f"{path}: note: analysis budget exhausted" in capsys.readouterr().err
    main(["check", "--no-cache", "-j", "1", str(path)])
    assert "note:" not in capsys.readouterr().err


FACTORY = "import jax\n\ndef make_step(lr):\n    return jax.jit(lambda w: w - lr * w)\n"


def test_a_jit301_site_left_unreported_says_why(tmp_path, capsys):
    path = tmp_path / "factory.py"
    path.write_text(FACTORY)
    assert main(["check", "--no-cache", "-j", "1", "-v", str(path)]) == 0
    err = capsys.readouterr().err
    assert f"{path}: note: JAX301 not reported at line 4: no repeated caller of `make_step` found" in err
