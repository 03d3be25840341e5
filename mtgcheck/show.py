"""Show a counterexample: a narration turn by turn, a picture (SVG), and ITF JSON.

The narration says who did what, how many actions were legal, and where the property
broke, with the CR rules behind it.  The picture is a row of states (turn, step, stack)
joined by the actions, the violating state marked.  ITF is the Informal Trace Format that
Apalache and Quint write (ADR-015): ``{"#meta", "vars", "states"}``, one object per state.
"""

from __future__ import annotations

from html import escape
from typing import Any

from mtgcheck.model.actions import enabled_transition, legal_actions
from mtgcheck.model.observe import observe
from mtgcheck.model.setup import build
from mtgcheck.errors import display
from mtgcheck.model.vocabulary import cited
from mtgcheck.properties.catalogue import BY_ID, PROPERTIES
from mtgcheck.replay import Counterexample, divergence_card
from mtgcheck.rulesets import REFERENCE
from mtgcheck.scenario_run import describe, position_of, to_action


def walk(cx: Counterexample) -> tuple[list[dict[str, Any]], list[str], int | None, list[list[str]]]:
    """States observed along the trace, the actions' descriptions, the index of the first
    state where the property failed (None if it never did), and the legal actions before each
    action (by the rules), plus those of the last state reached."""
    div = cx.doc.get("divergence") if cx.violates == "divergence" else None
    # An engine's divergence is walked under the rules themselves (the engine is not here).
    rules = REFERENCE if div is not None else cx.rules
    cfg, s = build(position_of(cx.scenario.setup), max_x=max([3] + [a.args.get("x", 0) for a in cx.scenario.actions]),
                   variant=rules.variant, disabled=rules.disabled)
    prop = BY_ID.get(cx.violates)
    states, texts, counts = [observe(cfg, s)], [], []
    broke: int | None = None
    if prop is not None and prop.kind == "state" and not prop.holds(cfg, s):
        broke = 0
    if div is not None:
        broke = div["step"] + 1
    for spec in cx.scenario.actions:
        a = to_action(cfg, cx.scenario, spec, s)
        counts.append([describe(cfg, x) for x in legal_actions(cfg, s)])
        t = enabled_transition(cfg, s, a)
        texts.append(describe(cfg, a) + ("" if t is not None else "  [ILLEGAL under these rules]"))
        if t is None and div is not None:  # refusals are part of an engine's trace
            states.append(states[-1])
            continue
        if t is None:
            break
        s2 = t.effect(s)
        if broke is None and prop is not None:
            ok = prop.holds(cfg, s, t, s2) if prop.kind == "transition" else prop.holds(cfg, s2)
            if not ok:
                broke = len(states)
        states.append(observe(cfg, s2))
        s = s2
    counts.append([describe(cfg, x) for x in legal_actions(cfg, s)])
    return states, texts, broke, counts


def narrate(cx: Counterexample) -> str:
    states, texts, broke, counts = walk(cx)
    prop = BY_ID.get(cx.violates)
    div = cx.doc.get("divergence") if cx.violates == "divergence" else None
    what = (f" (CR {', '.join(prop.rules)}): {prop.statement}" if prop else
            f" ({div['kind']}{', ' + cited(div['rule'], display(divergence_card(cx))) if div['rule'] else ''}): {div['why']}"
            if div else "")
    lines = [f"{cx.path}", f"  violates {cx.violates}" + what,
             f"  found by {cx.found_by} on {cx.target}, seed {cx.seed}, {len(texts)} actions"]
    last_turn = None
    for i, text in enumerate(texts):
        st = states[i]
        if (st["turn"], st["step"]) != last_turn:
            lines.append(f"  turn {st['turn']}, {st['step']} (active player {st['active']}):")
            last_turn = (st["turn"], st["step"])
        mark = (f"  <-- {'the engine parts from the rules' if div else 'the property breaks'} here"
                if broke == i + 1 else "")
        lines.append(f"    {i + 1}. {text}   ({len(counts[i])} legal actions){mark}")
        if mark:
            lines += _legal_lines(f"legal before it (by the rules, {len(counts[i])})", counts[i])
            if div is not None and div["kind"] in ("missing-action", "extra-action", "bad-action") \
                    and i + 1 < len(counts):
                # The lists were compared in the position after the marked action.
                lines += _legal_lines(f"legal after it, where the lists differ ({len(counts[i + 1])})", counts[i + 1])
    if div is not None and broke == 0:
        lines.append("  the engine parts from the rules at the setup, before any action")
        lines += _legal_lines(f"legal at the setup (by the rules, {len(counts[0])})", counts[0])
    if broke is None:
        lines.append("  the property holds along this trace under these rules (it does not reproduce)")
    fin = states[-1]
    lines.append(f"  final: turn {fin['turn']} {fin['step']}, stack {fin['stack'] or '[]'}, "
                 f"plotted {fin['plotted'] or '[]'}, life {fin['life']}, mana {fin['mana']}")
    return "\n".join(lines)


def _legal_lines(title: str, actions: list[str]) -> list[str]:
    """Every legal action, several to a line (never cut short: the one the engine missed may be last)."""
    out = [f"       {title}:"]
    line = ""
    for text in actions or ["(none)"]:
        if line and len(line) + len(text) > 90:
            out.append(f"         {line.rstrip('; ')}")
            line = ""
        line += text + "; "
    out.append(f"         {line.rstrip('; ')}")
    return out


def svg(cx: Counterexample) -> str:
    states, texts, broke, _ = walk(cx)
    w, h, gap = 150, 70, 60
    width = len(states) * (w + gap) + 20
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{h + 90}" font-family="sans-serif" '
           f'font-size="11">', f'<text x="10" y="16" font-size="13">{escape(cx.violates)} ({escape(cx.target)})</text>']
    for i, st in enumerate(states):
        x = 10 + i * (w + gap)
        colour = "#f8d0d0" if broke == i else "#eef2f8"
        out.append(f'<rect x="{x}" y="30" width="{w}" height="{h}" rx="6" fill="{colour}" stroke="#334"/>')
        out.append(f'<text x="{x + 6}" y="46">state {i}: turn {st["turn"]}, {escape(st["step"])}</text>')
        out.append(f'<text x="{x + 6}" y="62">active {st["active"]}, priority {st["priority"]}</text>')
        out.append(f'<text x="{x + 6}" y="78">stack: {escape(", ".join(st["stack"]) or "empty")}</text>')
        out.append(f'<text x="{x + 6}" y="94">plotted: {escape(", ".join(st["plotted"]) or "none")}</text>')
        if i < len(texts):
            x2 = x + w
            out.append(f'<line x1="{x2}" y1="65" x2="{x2 + gap}" y2="65" stroke="#334" marker-end="url(#a)"/>')
            out.append(f'<text x="{x2 + 2}" y="{125 + (i % 2) * 14}">{escape(texts[i][:40])}</text>')
    out.insert(1, '<defs><marker id="a" markerWidth="8" markerHeight="8" refX="8" refY="4" orient="auto">'
                  '<path d="M0,0 L8,4 L0,8 z" fill="#334"/></marker></defs>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _itf(value: Any) -> Any:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value if value is not None else {"#unserializable": "none"}
    if isinstance(value, int):
        return value if abs(value) < 2**53 else {"#bigint": str(value)}
    if isinstance(value, dict):
        return {"#map": [[k, _itf(v)] for k, v in value.items()]}
    if isinstance(value, (list, tuple)):
        return [_itf(v) for v in value]
    return str(value)


def itf(cx: Counterexample) -> dict[str, Any]:
    states, texts, broke, _ = walk(cx)
    names = sorted(states[0])
    out_states = []
    for i, st in enumerate(states):
        row: dict[str, Any] = {"#meta": {"index": i}}
        row.update({k: _itf(st[k]) for k in names})
        row["action"] = texts[i - 1] if i else "init"
        out_states.append(row)
    return {"#meta": {"format": "ITF", "format-description": "Informal Trace Format (Apalache ADR-015)",
                      "source": cx.path, "description": f"{cx.violates} on {cx.target}",
                      "violation_at": broke},
            "vars": names + ["action"], "states": out_states}


__all__ = ["narrate", "svg", "itf", "PROPERTIES"]
