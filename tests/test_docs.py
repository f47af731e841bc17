"""The generated pages of docs/ are what the code says now (docs/generate.py writes them:
run it after changing a command's options or help)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "docs"))

import generate  # noqa: E402


@pytest.mark.parametrize("name", sorted(generate.PAGES))
def test_a_generated_page_is_current(name):
    checked_in = (generate.DOCS / name).read_text()
    assert checked_in == generate.PAGES[name](), f"docs/{name} is stale: run .venv/bin/python docs/generate.py"


def test_the_cli_reference_holds_every_command_and_option():
    from memlib.cli import cli

    page = (generate.DOCS / "cli.md").read_text()
    every = list(generate.commands(cli))
    assert len(every) > 60
    for path in every:
        assert f"memlib {' '.join(path)}\n" in page, path
    search = cli.get_command(None, "search")
    for param in search.params:
        for flag in param.opts:
            if flag.startswith("--"):
                assert flag in page.split("## memlib search\n")[1].split("\n## ")[0], flag
