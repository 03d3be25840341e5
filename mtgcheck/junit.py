"""JUnit XML for CI: one testcase per property and checker, named ``<checker>::<property-id>``.

A violation is a ``failure``; an unknown (or a property no configuration exercised) is an
``error``: CI must not read an inconclusive answer as a pass.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Sequence

from mtgcheck.checkers.result import UNKNOWN, VACUOUS, VIOLATED


def junit_xml(suite: str, cases: Sequence[tuple[str, str, float, str, str]]) -> str:
    """``cases``: (name, status, seconds, message, body)."""
    failures = sum(1 for c in cases if c[1] == VIOLATED)
    errors = sum(1 for c in cases if c[1] in (UNKNOWN, VACUOUS))
    root = ET.Element("testsuites")
    ts = ET.SubElement(root, "testsuite", name=suite, tests=str(len(cases)), failures=str(failures),
                       errors=str(errors), time=f"{sum(c[2] for c in cases):.3f}")
    for name, status, secs, message, body in cases:
        classname, _, short = name.partition("::")
        tc = ET.SubElement(ts, "testcase", classname=classname, name=name, time=f"{secs:.3f}")
        if status == VIOLATED:
            el = ET.SubElement(tc, "failure", message=message, type="violation")
            el.text = body
        elif status in (UNKNOWN, VACUOUS):
            el = ET.SubElement(tc, "error", message=message, type=status)
            el.text = body
        del short
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
