"""Shared fixtures and Hypothesis profiles.

CI runs with the ``ci`` profile: no example database (it is a cache, never our store) and
derandomized runs, so a CI failure reproduces.
"""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import HealthCheck, settings

settings.register_profile("ci", database=None, derandomize=True, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = sorted((ROOT / "tests" / "scenarios").glob("*.json"))
BAD_SCENARIOS = sorted((ROOT / "tests" / "bad_scenarios").glob("*.json"))
