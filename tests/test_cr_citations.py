"""Every CR number cited in the code names a real rule of the edition we cite (2026-04-17).

tests/data/cr-rule-numbers.txt is that edition's list of rule numbers (numbers only).
"""

from __future__ import annotations

import re

from .conftest import ROOT

CITE = re.compile(r"CR ([0-9]{3}(?:\.[0-9]+[a-z]?)?)")


def _rules() -> set[str]:
    text = (ROOT / "tests" / "data" / "cr-rule-numbers.txt").read_text()
    return {line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")}


def test_every_citation_exists() -> None:
    rules = _rules()
    assert "702.170d" in rules and "901.7a" in rules
    bad = []
    count = 0
    for folder in ("model", "properties", "mtgcheck"):
        for path in (ROOT / folder).rglob("*.py"):
            for n, line in enumerate(path.read_text().splitlines(), 1):
                for m in CITE.finditer(line):
                    count += 1
                    if m.group(1) not in rules:
                        bad.append(f"{path.relative_to(ROOT)}:{n}: CR {m.group(1)}")
    assert count > 100
    assert not bad, "\n".join(bad)


def test_every_condition_cites_a_rule() -> None:
    """Every guard condition of every transition names a real rule (they are what refusals cite)."""
    from mtgcheck.configs import BUILTIN
    from mtgcheck.model.actions import catalogue
    from mtgcheck.model.setup import build

    rules = _rules()
    for conf in BUILTIN:
        cfg, _ = build(conf.position)
        for t in catalogue(cfg).transitions:
            assert t.cr in rules, t.rule
            for c in t.conds:
                assert c.cr in rules, (t.rule, c.id, c.cr)
