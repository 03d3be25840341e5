"""What the benches that study one position share: its options, and its search to the fixpoint.

    from fixpoint import options, search
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def options(doc: str) -> argparse.Namespace:
    """``--config`` (a configuration file; plot-08 of the scale ladder by default) and ``--no-write``."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--config", default=str(ROOT / "examples" / "scale" / "01-plot-08.json"))
    ap.add_argument("--no-write", action="store_true", help="print only; leave docs/figures.md alone")
    return ap.parse_args()


def search(path: str) -> tuple[Any, Any]:
    """The configuration of ``path`` and the compiled search of it to its fixpoint, every property."""
    from mtgcheck.checkers import graph
    from mtgcheck.configs import load_config
    from mtgcheck.properties.catalogue import PROPERTIES

    conf = load_config(path)
    _, ex = graph.check(conf, PROPERTIES, unbounded=True, max_states=None, timeout=3600, backend="native",
                        keep_edges=False)
    return conf, ex
