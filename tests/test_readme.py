"""The README's first fenced block gives the two set-up commands, and CI runs the second."""

from __future__ import annotations

from .conftest import ROOT


def _first_block() -> list[str]:
    text = (ROOT / "README.md").read_text()
    start = text.index("```") + 3
    start = text.index("\n", start) + 1
    end = text.index("```", start)
    return [line.strip() for line in text[start:end].splitlines() if line.strip()]


def test_two_commands() -> None:
    lines = _first_block()
    assert len(lines) == 2
    assert "mtgcheck check" in lines[0] and "pip install" in lines[0]
    assert "pytest" in lines[1] and "pip install" in lines[1]


def test_ci_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert _first_block()[1] in [line.strip() for line in ci]
