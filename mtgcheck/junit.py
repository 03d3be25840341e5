"""JUnit XML for CI: one testcase per property and checker, named ``<checker>::<property-id>``.

A violation, a vacuous property (no configuration exercised it), a coverage gap or a shrunk
manifest figure is a ``failure``; an unknown is an ``error``: CI must not read an
inconclusive answer as a pass.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Sequence

from mtgcheck.checkers.result import UNKNOWN, VACUOUS, VIOLATED

# Statuses that fail a testcase, and the failure's type.
FAILURES = {VIOLATED: "violation", VACUOUS: "vacuous", "uncovered": "coverage", "shrunk": "manifest"}


def junit_xml(suite: str, cases: Sequence[tuple[str, str, float, str, str]]) -> str:
    """``cases``: (name, status, seconds, message, body)."""
    failures = sum(1 for c in cases if c[1] in FAILURES)
    errors = sum(1 for c in cases if c[1] == UNKNOWN)
    root = ET.Element("testsuites")
    ts = ET.SubElement(root, "testsuite", name=suite, tests=str(len(cases)), failures=str(failures),
                       errors=str(errors), time=f"{sum(c[2] for c in cases):.3f}")
    for name, status, secs, message, body in cases:
        classname, _, short = name.partition("::")
        tc = ET.SubElement(ts, "testcase", classname=classname, name=name, time=f"{secs:.3f}")
        if status in FAILURES:
            el = ET.SubElement(tc, "failure", message=message, type=FAILURES[status])
            el.text = body
        elif status == UNKNOWN:
            el = ET.SubElement(tc, "error", message=message, type=status)
            el.text = body
        del short
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
