"""Output for CI and tools: JSON schema, SARIF 2.1.0, GitHub annotations, statistics, and the
flags that change what is written where."""

import json
import subprocess
import sys

from jaxlint import __version__
from jaxlint.cli import main
from jaxlint.reporters import _escape
from jaxlint.rules import RULES

BAD = "import jax\n\n@jax.jit\ndef f(x, n):\n    if n > 0:\n        x = x + 1\n    return x[:n]\n"


def write(tmp_path, name="bad.py", text=BAD):
    path = tmp_path / name
    path.write_text(text)
    return path


def run(capsys, *argv):
    code = main(["check", "--no-cache", *map(str, argv)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_json_schema(tmp_path, capsys):
    bad = write(tmp_path)
    broken = write(tmp_path, "broken.py", "import jax\ndef f(:\n")
    code, out, _ = run(capsys, "--format", "json", bad, broken, tmp_path / "missing.py")
    doc = json.loads(out)
    assert code == 1
    assert set(doc) == {"schema_version", "jaxlint_version", "files_checked", "findings", "errors"}
    assert doc["schema_version"] == 1 and doc["jaxlint_version"] == __version__
    assert doc["files_checked"] == 3
    first = doc["findings"][0]
    assert first == {"path": str(bad), "line": 5, "column": 8, "cell": None, "cell_id": None,
                     "code": "JAX101", "name": "traced-bool", "family": "trace-time failure",
                     "message": first["message"], "detail": first["detail"], "function": "f", "param": "n",
                     "fix": first["fix"], "entry": "f", "entry_kind": "jitted function", "value_path": ["n"]}
    # each finding's fix, without --show-fixes: here, making `n` static (unsafe)
    assert first["message"] == "Python condition on traced `n` in jitted `f`"
    assert "TracerBoolConversionError" in first["detail"] and "Fix: " in first["detail"]
    assert first["fix"]["safe"] is False and first["fix"]["description"].startswith("Make `n` static")
    assert [e["code"] for e in doc["errors"]] == ["E999", "E902"]
    assert doc["errors"][0]["path"] == str(broken) and doc["errors"][0]["line"] == 2


def test_json_carries_the_facts_behind_a_finding(tmp_path, capsys):
    # the path the value took and the calls from the jitted entry, as data (not only prose)
    src = write(tmp_path, "chain.py", "import jax\n\ndef helper(n):\n    if n.sum() > 0:\n        return n\n"
                "    return -n\n\n@jax.jit\ndef f(x):\n    return helper(x * 2)\n")
    code, out, _ = run(capsys, "--format", "json", src)
    [finding] = json.loads(out)["findings"]
    assert code == 1 and finding["code"] == "JAX101" and finding["function"] == "helper"
    assert finding["entry"] == "f" and finding["entry_kind"] == "jitted function"
    assert finding["chain"] == [{"function": "helper", "line": 10}]
    assert finding["value_path"][0] == "x" and len(finding["value_path"]) > 1


def test_sarif_has_every_rule_and_physical_locations(tmp_path, capsys):
    bad = write(tmp_path)
    code, out, _ = run(capsys, "--format", "sarif", bad)
    doc = json.loads(out)
    assert code == 1 and doc["version"] == "2.1.0" and "sarif" in doc["$schema"]
    driver = doc["runs"][0]["tool"]["driver"]
    assert driver["name"] == "jaxlint" and driver["version"] == __version__
    assert [r["id"] for r in driver["rules"]] == [r.code for r in RULES]
    for sarif_rule, rule in zip(driver["rules"], RULES):
        assert sarif_rule["name"] == rule.name
        assert sarif_rule["shortDescription"]["text"] == rule.summary
        assert sarif_rule["fullDescription"]["text"]
        assert sarif_rule["help"]["text"] == rule.documentation()
    results = doc["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["JAX101", "JAX104"]
    for result in results:
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
        physical = result["locations"][0]["physicalLocation"]
        assert physical["artifactLocation"]["uri"].endswith("bad.py")
        assert physical["region"]["startLine"] >= 1 and physical["region"]["startColumn"] >= 1
        assert result["message"]["text"] and result["level"] in ("error", "warning")


def test_sarif_uses_relative_uris_inside_the_working_directory(tmp_path, capsys, monkeypatch):
    write(tmp_path)
    monkeypatch.chdir(tmp_path)
    _, out, _ = run(capsys, "--format", "sarif", "bad.py")
    artifact = json.loads(out)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert artifact["artifactLocation"] == {"uri": "bad.py", "uriBaseId": "%SRCROOT%"}


def test_github_workflow_commands(tmp_path, capsys):
    bad = write(tmp_path)
    code, out, _ = run(capsys, "--format", "github", bad)
    lines = out.splitlines()
    assert code == 1 and len(lines) == 2
    assert lines[0].startswith(f"::error file={bad},line=5,col=8,title=JAX101::Python condition on traced `n`")
    # the detail follows the one-line message in the annotation, as its own paragraph
    assert "%0A%0ATraced parameter `n` in jitted function `f`." in lines[0] and "Fix: " in lines[0]
    assert _escape("a,b:c%\nd", prop=True) == "a%2Cb%3Ac%25%0Ad"


def test_statistics(tmp_path, capsys):
    write(tmp_path, "a.py")
    write(tmp_path, "b.py", BAD.replace("    if n > 0:\n        x = x + 1\n", ""))
    code, out, _ = run(capsys, "--statistics", tmp_path)
    assert code == 1
    assert [line.split() for line in out.splitlines()] == [
        ["2", "JAX104", "[*]", "traced-slice"], ["1", "JAX101", "[*]", "traced-bool"]]
    _, out, _ = run(capsys, "--statistics", "--format", "json", tmp_path)
    assert json.loads(out)[0] == {"code": "JAX104", "name": "traced-slice", "count": 2,
                                  "fixable": True}
    assert run(capsys, "--statistics", "--format", "sarif", tmp_path)[0] == 2


def test_exit_zero_quiet_and_summary(tmp_path, capsys):
    bad = write(tmp_path)
    code, out, err = run(capsys, bad)
    assert code == 1 and "Found 2 findings in 1 file" in err
    code, out, err = run(capsys, "--exit-zero", "--quiet", bad)
    assert code == 0 and len(out.splitlines()) == 2 and err == ""


def test_output_file(tmp_path, capsys):
    bad = write(tmp_path)
    target = tmp_path / "report.json"
    code, out, _ = run(capsys, "--format", "json", "--output-file", target, bad)
    assert code == 1 and out == ""
    assert len(json.loads(target.read_text())["findings"]) == 2
    assert run(capsys, "--output-file", tmp_path / "no" / "dir" / "x.txt", bad)[0] == 2


def test_no_colour_when_not_a_terminal(tmp_path):
    bad = write(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "jaxlint", "check", "--no-cache", str(bad)],
                          capture_output=True, text=True)
    assert "\x1b[" not in proc.stdout + proc.stderr
    assert proc.stdout.startswith(f"{bad}:5:8: JAX101 ")


def test_colour_on_a_terminal(tmp_path, capsys, monkeypatch):
    bad = write(tmp_path)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    _, out, _ = run(capsys, bad)
    assert "\x1b[1;31mJAX101\x1b[0m" in out
