"""A module constant that a test sets must not be read as a default argument.

A default is bound once, when the function is defined: ``def f(limit=LIMIT)`` keeps the
value ``LIMIT`` had at import, so ``monkeypatch.setattr(module, "LIMIT", 0)`` changes
nothing inside ``f`` and the test silently checks the unpatched code (the split limit of
z3bmc's closure was such a case: a test meant to leave no room for a split still split).
This lint finds the class: every upper-case name a test sets with ``setattr``, against every
default-argument expression in the package's sources."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = [ROOT / d for d in ("mtgcheck", "model", "properties")]


def _names_tests_set() -> set[str]:
    out = set()
    for path in (ROOT / "tests").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "setattr" \
                    and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) \
                    and isinstance(node.args[1].value, str) and node.args[1].value.isupper():
                out.add(node.args[1].value)
    return out


def _frozen(names: set[str], sources: list[Path]) -> list[str]:
    found = []
    for d in sources:
        for path in d.rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                    continue
                for default in [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]:
                    for n in ast.walk(default):
                        if isinstance(n, ast.Name) and n.id in names:
                            what = getattr(node, "name", "lambda")
                            shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
                            found.append(f"{shown}:{node.lineno} {what}: default reads {n.id}")
    return found


def test_no_default_argument_freezes_a_constant_a_test_sets() -> None:
    names = _names_tests_set()
    assert {"SPLIT_RLIMITS", "CLOSING_SHARE"} <= names  # the lint sees what the tests set
    assert _frozen(names, SOURCES) == []


def test_the_lint_finds_a_frozen_default(tmp_path: Path) -> None:
    """The class it looks for, planted: found, with the file, line and function."""
    planted = tmp_path / "planted.py"
    planted.write_text("LIMIT = 3\n\n\ndef split(x, limits=LIMIT * 2, *, cap=None):\n    return x\n")
    assert _frozen({"LIMIT"}, [tmp_path]) == [f"{planted}:4 split: default reads LIMIT"]
    assert _frozen({"OTHER"}, [tmp_path]) == []
