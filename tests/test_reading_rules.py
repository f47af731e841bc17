"""The statement reader's rules as rows (memlib.consensus.patterns): every pattern the reader
reads with is a registered rule, and each rule finds every text it must read and none of the
texts it must not."""

from __future__ import annotations

import ast
import inspect

import pytest

from memlib.consensus import conflicts, duplicates, statements
from memlib.consensus.patterns import RULES, rule

READERS = (statements, conflicts, duplicates)


@pytest.mark.parametrize("name", sorted(RULES))
def test_each_rule_reads_its_examples_and_skips_its_counterexamples(name):
    row = RULES[name]
    assert row.reads and row.skips
    assert [t for t in row.reads if not row.pattern.search(t)] == [], f"{name} no longer reads these"
    assert [t for t in row.skips if row.pattern.search(t)] == [], f"{name} now reads these"


def test_every_pattern_of_the_reader_is_a_rule_with_examples():
    for module in READERS:
        tree = ast.parse(inspect.getsource(module))
        bare = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute) and node.func.attr == "compile"
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "re"]
        assert bare == [], f"{module.__name__} compiles a pattern that is no rule (patterns.rule) at lines {bare}"
    assert {row.where for row in RULES.values()} >= {m.__name__ for m in READERS}
    assert len(RULES) >= 80


def test_a_rule_without_examples_or_named_twice_is_refused():
    with pytest.raises(ValueError, match="needs a text it reads and a text it skips"):
        rule("a rule of no examples", r"x", reads=("x",), skips=())
    with pytest.raises(ValueError, match="registered twice"):
        rule("negated", r"not", reads=("not",), skips=("yes",))
    assert "a rule of no examples" not in RULES
