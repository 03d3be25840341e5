"""The cache folder: ``MTGCHECK_CACHE``, else ``~/.cache/mtgcheck``.

Compiled graph searches (:mod:`mtgcheck.checkers.native`) and Hypothesis's own files live
here, below one root: a command writes nothing else but what it names (``counterexamples/``,
``--json``, ``--junit``...), never into the current working directory.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["cache_root", "keep_hypothesis_in_cache"]


def cache_root() -> Path:
    """The cache's root folder (not created here)."""
    return Path(os.environ.get("MTGCHECK_CACHE") or Path.home() / ".cache" / "mtgcheck")


def keep_hypothesis_in_cache() -> None:
    """Point Hypothesis's storage at ``<cache>/hypothesis`` before a run.

    With ``database=None`` Hypothesis still writes a ``.hypothesis/`` folder into the
    current working directory (the integer and string constants it collects from the
    loaded modules); a checker or ``validate`` run from a user's folder must not.  A
    ``HYPOTHESIS_STORAGE_DIRECTORY`` the user set is kept.
    """
    if os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
        return
    from hypothesis.configuration import set_hypothesis_home_dir

    set_hypothesis_home_dir(cache_root() / "hypothesis")
