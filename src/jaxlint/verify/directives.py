"""`# jaxlint-example: <expr>` directives: example calls the verifier evaluates.

A directive is a comment line of its own. The text after the colon is one Python expression,
evaluated in the module's namespace after the module is imported as a library (its
`if __name__ == "__main__":` block does not run). A file may carry several; each is evaluated on
its own, in file order. Fixtures may also say how many times each jitted function must compile:
`# expected compiles: step=4, eval_step=1` (the text after the counts is a comment).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

_EXAMPLE = re.compile(r"^\s*#\s*jaxlint-example:\s*(?P<expr>.*?)\s*$")
_COMPILES = re.compile(r"^\s*#\s*expected compiles:\s*(?P<body>.*?)\s*$")
_COUNT = re.compile(r"\s*(?P<name>(?:[A-Za-z_]|<)[\w.<>]*)\s*=\s*(?P<n>\d+)")


@dataclass(frozen=True)
class Example:
    line: int          # 1-based line of the directive
    expr: str
    error: str = ""    # why the directive cannot be used (empty when it can)


def parse_examples(text: str) -> list:
    """Every `# jaxlint-example:` directive of a source text, with syntax problems reported."""
    examples = []
    for number, line in enumerate(text.splitlines(), 1):
        match = _EXAMPLE.match(line)
        if not match:
            continue
        expr = match.group("expr")
        error = ""
        if not expr:
            error = "empty `# jaxlint-example:` directive"
        else:
            try:
                ast.parse(expr, mode="eval")
            except SyntaxError as exc:
                error = f"`# jaxlint-example:` is not a Python expression: {exc.msg}"
        examples.append(Example(number, expr, error))
    return examples


def parse_expected_compiles(text: str) -> dict:
    """{function name: count} from `# expected compiles: f=3, g=1 (why)` lines."""
    counts = {}
    for line in text.splitlines():
        match = _COMPILES.match(line)
        if not match:
            continue
        body = match.group("body")
        position = 0
        while True:
            count = _COUNT.match(body, position)
            if not count:
                break
            counts[count.group("name")] = int(count.group("n"))
            position = count.end()
            if body[position:position + 1] == ",":
                position += 1
    return counts


def compile_example(expr: str, filename: str, line: int):
    """Code for `expr` whose frames report `filename:line`: a call made by the example shows up in
    tracebacks as the directive's own line, which is where a call-time error belongs."""
    tree = ast.parse(expr, mode="eval")
    ast.increment_lineno(tree, line - 1)
    return compile(tree, filename, "eval")
