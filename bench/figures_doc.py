"""Write one topic's table into ``docs/figures.md``, the project's figures, from a bench script.

Why: figures copied by hand drift from what the scripts measure.  Each bench script that
records figures calls :func:`write_section` with its topic and rows; the section between the
topic's markers is replaced (or appended, the first time), the rest of the file is kept, and the
file is written atomically.  A table records the machine it was measured on (cores, load) and
the date, so two tables can be compared honestly.

    from figures_doc import write_section
    write_section("graph search: scale ladder", ["position", "states", "s"], rows, note="...")
"""

from __future__ import annotations

import datetime
import os
import platform
import re
from pathlib import Path
from typing import Any, Sequence

from mtgcheck.atomic import write_text

FIGURES = Path(__file__).resolve().parent.parent / "docs" / "figures.md"

HEADER = ("# Figures\n\nOne table per topic, each written by the bench script it names (never by hand):"
          " run the script again to refresh it. Earlier rounds' prose figures are in"
          " [figures-history.md](figures-history.md).\n")


def _cell(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:,.3g}" if abs(v) < 100 else f"{v:,.0f}"
    if isinstance(v, int) and not isinstance(v, bool):
        return f"{v:,}"
    return str(v).replace("|", "\\|").replace("\n", " ")


def table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A Markdown table of ``rows`` under ``header``, numbers with thousands separators."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def _slug(topic: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", topic.lower()).strip("-")


def write_section(topic: str, header: Sequence[str], rows: Sequence[Sequence[Any]], *, script: str,
                  note: str = "", path: Path = FIGURES) -> None:
    """Replace (or add) ``topic``'s section of ``path`` with a table of ``rows``.

    ``script`` is the command that wrote it (shown, so a reader can run it again); ``note`` says
    how to read the figures.
    """
    slug = _slug(topic)
    start, end = f"<!-- figures:{slug} -->", f"<!-- /figures:{slug} -->"
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    when = datetime.date.today().isoformat()
    body = (f"{start}\n## {topic}\n\nWritten by `{script}` on {when}: {os.cpu_count()} cores,"
            f" {platform.python_implementation()} {platform.python_version()}, load average {load}.\n\n"
            + (note.strip() + "\n\n" if note.strip() else "") + table(header, rows) + f"\n{end}")
    text = path.read_text(encoding="utf-8") if path.exists() else HEADER
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.S)
    text = pattern.sub(lambda _: body, text) if pattern.search(text) else text.rstrip("\n") + "\n\n" + body
    write_text(path, text.rstrip("\n") + "\n")
