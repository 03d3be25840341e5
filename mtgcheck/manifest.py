"""The manifest: the committed figures of the default run, so that CI notices when one shrinks.

``manifest.json`` (format ``mtgcheck.manifest/1``) records, per checker and configuration
(a *unit*): the properties that hold (or are proved), the number of distinct states of the
graph search, the properties Z3 proved with their induction depth k, and the rules the graph
search and Hypothesis fired, and the invariant candidates Z3's proofs closed (not a figure:
the next run's hints, :func:`invariant_hints`, and those of them to ask split,
:func:`split_hints`), and the seconds each unit took (not a figure either: the next run's
schedule, :func:`unit_seconds`).  ``mtgcheck check --manifest FILE`` compares
the run with it:
every figure that shrank (a property no longer holds or proved, a larger k, fewer states, a
rule no longer fired) is one line and fails the check (exit 1); a figure that grew is a note
that suggests ``--write-manifest FILE`` to record it.

Only what both sides ran is compared: the units of the checkers and configurations that ran,
the properties that ran, and a checker only when the options its figures depend on match
(the seed, the examples and Hypothesis' own version for Hypothesis, whose generated examples
change with it; the depth and the solver's version for Z3; the variant for all).  Z3's proved
set is compared as a set per unit, never as a count, so one property proved instead of
another is named, not averaged away.  A unit that ran out of time or states now (a verdict
``unknown``: the check exits 3, inconclusive) has its losses noted, not counted as shrinks:
an inconclusive run must not read as a failed one, nor as a pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from mtgcheck.checkers import registry
from mtgcheck.checkers.result import HOLDS, PROVED, UNKNOWN
from mtgcheck.errors import FormatError

FORMAT = "mtgcheck.manifest/1"
SCHEMA = "manifest-1"


def depends(checker: str) -> tuple[str, ...]:
    """The options a checker's figures depend on (its ``depends``): figures recorded under
    others are not compared.  A checker no longer registered: nothing to compare against."""
    c = registry.REGISTRY.get(checker)
    return c.depends if c is not None else ()


# --- building ---------------------------------------------------------------------------------

def build(opts: Any, prop_ids: Sequence[str], verdicts: Iterable[Any], units_fired: dict[tuple[str, str], Any]) -> dict:
    """The manifest of a run: its options, its properties, and one entry per unit."""
    units: dict[str, dict[str, dict[str, Any]]] = {}
    for v in verdicts:
        u = units.setdefault(v.checker, {}).setdefault(v.config, {"holds": [], "unknown": []})
        if v.status in (HOLDS, PROVED):
            u["holds"].append(v.property)
        if v.status == UNKNOWN:
            u["unknown"].append(v.property)
        if (own := registry.REGISTRY.get(v.checker)) is not None:
            own.figures(u, v)  # its own figures: the graph search's states, Z3's proofs
        if (secs := v.stats.get("unit_seconds")) is not None:  # not a figure: the next run's schedule
            u["seconds"] = max(u.get("seconds", 0.0), round(float(secs), 1))
    for (checker, config), counts in units_fired.items():
        if config in units.get(checker, {}):
            units[checker][config]["rules"] = sorted(r for r, n in counts["rules"].items() if n > 0)
    for per in units.values():
        for u in per.values():
            u["holds"].sort()
            u["unknown"].sort()
            if "proved" in u:
                u["proved"] = dict(sorted(u["proved"].items()))
    return {"format": FORMAT,
            "options": {"variant": opts.rules.variant, "seed": opts.seed, "examples": opts.examples, "depth": opts.depth,
                        "strengthen": opts.strengthen, "exhaustive": opts.exhaustive, **_versions()},
            "properties": sorted(prop_ids),
            "units": {c: dict(sorted(units[c].items())) for c in sorted(units)}}


def _versions() -> dict[str, str]:
    """The versions of the checkers' solvers, by checker name (Hypothesis, Z3): the same seed
    draws other examples under another Hypothesis, and another solver may prove more or less
    in the same time; and the graph search's symmetry reduction (a coarser one counts fewer
    states in the same space)."""
    out = {}
    for name in sorted(registry.names()):
        if (version := registry.get(name).version()) is not None:
            out[name] = version
    return out


# --- loading ----------------------------------------------------------------------------------

def load(path: str | Path) -> dict:
    """Read and check a manifest; a malformed one is a one-line FormatError naming the field.

    Read by the strict reader (at most 1 MiB, a regular file, no key twice, no NaN, bounded
    nesting) and checked against ``mtgcheck/data/manifest-1.schema.json`` with every
    format's plain words (:func:`mtgcheck.formats.schema_problems`), before the run starts:
    a bad manifest must not cost a whole run.
    """
    from mtgcheck import formats, jsonread

    name = str(path)
    try:
        doc = jsonread.read(path, what="a readable manifest file")
    except FormatError as exc:
        if exc.field == "(file)" and exc.got == "no such file":
            raise FormatError(exc.file, "(file)", "an existing manifest (write one with --write-manifest)") from None
        raise
    doc = formats.checked(doc, jsonread.display(name), "", schema=SCHEMA, what="a manifest")
    assert isinstance(doc, dict)  # the schema says so
    return doc


def _names_by_config(manifest: dict, key: str) -> dict[str, tuple[str, ...]]:
    """Configuration -> the list ``key`` of its unit (the Z3 unit's: only it records these)."""
    return {config: tuple(u[key]) for per in manifest["units"].values() for config, u in per.items() if key in u}


def invariant_hints(manifest: dict) -> dict[str, tuple[str, ...]]:
    """Configuration -> the invariant candidates Z3's proofs closed in the recorded run.

    Not a figure (never compared): a certificate to check.  The next run tries these first
    and checks each again (z3bmc's ``hints``), which is cheaper than finding them; a stale
    list costs time, never a verdict."""
    return _names_by_config(manifest, "invariants")


def split_hints(manifest: dict) -> dict[str, tuple[str, ...]]:
    """Configuration -> the hinted candidates whose chunk of Z3's closure had to be split
    (asked one transition at a time) in the recorded run.  Not a figure: the next run asks
    their chunks split at once instead of first whole, to run out of its limit again."""
    return _names_by_config(manifest, "split")


def hint_options(manifest: dict | None) -> dict[str, Any]:
    """What a recorded run tells the next one's Z3 checker, as :class:`~mtgcheck.budget.Options`
    fields (``hints``, ``split_hints``; none without a manifest): the one reading of them that
    ``mtgcheck check --manifest`` and ``pytest --mtgcheck-manifest`` share."""
    if manifest is None:
        return {}
    return {"hints": invariant_hints(manifest), "split_hints": split_hints(manifest)}


def unit_seconds(manifest: dict) -> dict[tuple[str, str], float]:
    """(checker, configuration) -> the seconds its unit took in the recorded run.

    Not a figure (never compared: it is the machine's, not the rules'): the next run hands
    the longest units to its workers first (:func:`mtgcheck.check_run.submission_order`)."""
    return {(checker, config): float(u["seconds"]) for checker, per in manifest["units"].items()
            for config, u in per.items() if "seconds" in u}


# --- comparing --------------------------------------------------------------------------------

@dataclass
class Comparison:
    shrinks: list[str] = field(default_factory=list)  # each fails the check
    growths: list[str] = field(default_factory=list)  # notes: --write-manifest records them
    notes: list[str] = field(default_factory=list)  # what was not compared, and why

    def lines(self, path: str) -> list[str]:
        out = [f"manifest: {s}" for s in self.shrinks]
        out += [f"manifest: note: {g}" for g in self.growths]
        out += [f"manifest: note: {n}" for n in self.notes]
        if self.growths:
            out.append(f"manifest: {len(self.growths)} figures grew: record them with --write-manifest {path}")
        out.append(f"manifest: {len(self.shrinks)} figures shrank against {path}" + (
            f" (if that is intended, record it with --write-manifest {path})" if self.shrinks else ""))
        return out


def compare(expected: dict, actual: dict) -> Comparison:
    """Every figure of ``actual`` (this run) against ``expected`` (the manifest), unit by unit."""
    out = Comparison()
    props = set(expected["properties"]) & set(actual["properties"])
    opts_was, opts_now = expected["options"], actual["options"]
    for checker, per in actual["units"].items():
        recorded = expected["units"].get(checker)
        if recorded is None:
            out.notes.append(f"the manifest has no {checker} figures")
            continue
        if differ := [k for k in depends(checker) if opts_was.get(k) != opts_now.get(k)]:
            out.notes.append(f"{checker} figures not compared: " + ", ".join(
                f"{k} {opts_now.get(k)!r} here, {opts_was.get(k)!r} in the manifest" for k in differ))
            continue
        for config, now in per.items():
            if config not in recorded:
                out.notes.append(f"the manifest has no {checker} figures for {config}")
                continue
            unit = Comparison()
            _unit(checker, config, recorded[config], now, props, unit)
            if now.get("unknown"):  # inconclusive now (exit 3): its losses are not shrinks
                unit.notes += [f"{s} (inconclusive now: {len(now['unknown'])} unknown)" for s in unit.shrinks]
                unit.shrinks = []
            out.shrinks += unit.shrinks
            out.growths += unit.growths
            out.notes += unit.notes
    return out


def _unit(checker: str, config: str, was: dict, now: dict, props: set[str], out: Comparison) -> None:
    where = f"{checker} on {config}"
    if "states" in was and "states" in now and was["states"] != now["states"]:
        line = f"graph states on {config}: {was['states']} in the manifest, {now['states']} now"
        (out.shrinks if now["states"] < was["states"] else out.growths).append(line + (
            " (fewer states explored)" if now["states"] < was["states"] else ""))
    _sets(set(was["holds"]) & props, set(now["holds"]) & props, out,
          lambda p: f"{where}: {p} no longer holds", lambda p: f"{where}: {p} holds now")
    if "proved" in was and "proved" in now:
        _proved(where, {p: k for p, k in was["proved"].items() if p in props},
                {p: k for p, k in now["proved"].items() if p in props}, out)
    if "rules" in was and "rules" in now:
        _sets(set(was["rules"]), set(now["rules"]), out,
              lambda r: f"coverage: rule {r} no longer fires on {config} ({checker})",
              lambda r: f"coverage: rule {r} fires on {config} now ({checker})")


def _sets(was: set[str], now: set[str], out: Comparison, lost: Callable[[str], str],
          gained: Callable[[str], str]) -> None:
    out.shrinks += [lost(x) for x in sorted(was - now)]
    out.growths += [gained(x) for x in sorted(now - was)]


def _proved(where: str, was: dict[str, int], now: dict[str, int], out: Comparison) -> None:
    for p, k in sorted(was.items()):
        if p not in now:
            out.shrinks.append(f"{where}: {p} no longer proved (k={k} in the manifest)")
        elif now[p] > k:
            out.shrinks.append(f"{where}: {p} proved only with k={now[p]} (k={k} in the manifest)")
        elif now[p] < k:
            out.growths.append(f"{where}: {p} proved with k={now[p]} (k={k} in the manifest)")
    out.growths += [f"{where}: {p} proved now (k={now[p]})" for p in sorted(set(now) - set(was))]
