"""Run a scenario file on the reference model: each action's verdict, then the expectations.

Scenarios are strict, like a judge's script: an action with no ``expect`` must be legal;
an illegal action changes nothing; the final expectations compare only the keys given.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from mtgcheck.errors import FormatError
from mtgcheck.model import cards as pool
from mtgcheck.model.actions import Action, Refusal, catalogue, enabled_transition, why_illegal
from mtgcheck.model.config import VARIANTS, Config
from mtgcheck.model.observe import observe
from mtgcheck.model.setup import Position, build
from mtgcheck.model.state import FB_MANA_COST, FB_PRINTED, HALVES, HOWS, State
from mtgcheck.model.card_rules import face_rules
from mtgcheck.scenario_format import ActionSpec, Expect, Scenario, Setup, load_scenario


@dataclass
class ActionVerdict:
    index: int
    text: str
    legal: bool
    expected: str | None
    refusal: Refusal | None
    ok: bool
    rule: str | None = None  # the rule the file expects to refuse the action


@dataclass
class ScenarioReport:
    path: str
    name: str
    rules: tuple[str, ...]
    verdicts: list[ActionVerdict] = field(default_factory=list)
    mismatches: list[str] = field(default_factory=list)
    final: dict[str, Any] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return all(v.ok for v in self.verdicts) and not self.mismatches

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.path, "name": self.name, "rules": list(self.rules), "passed": self.passed,
            "actions": [{"index": v.index, "action": v.text, "legal": v.legal, "expected": v.expected,
                         **({"expected_rule": v.rule} if v.rule else {}),
                         "refused_by": None if v.refusal is None else {
                             "cr": v.refusal.cr, "why": v.refusal.why, **({"card": v.refusal.card} if v.refusal.card else {})},
                         "ok": v.ok} for v in self.verdicts],
            "mismatches": self.mismatches, "final": self.final,
        }


def load(path: str) -> Scenario:
    return load_scenario(path, known_cards=pool.card_names(), known_planes=pool.plane_names(),
                         known_variants=tuple(VARIANTS))


def position_of(setup: Setup) -> Position:
    """A scenario's setup is a model position (one record type for both)."""
    return setup


def start(sc: Scenario, disabled: frozenset[str] = frozenset()) -> tuple[Config, State]:
    xs = [a.args.get("x", 0) for a in sc.actions if a.verb == "cast"]
    return build(position_of(sc.setup), max_x=max([3, *xs]), variant=sc.variant, disabled=disabled)


_HOW = {name: i for i, name in enumerate(HOWS)}
_HALF = {"left": 1, "right": 2}


def to_action(cfg: Config, sc: Scenario, spec: ActionSpec, s: State) -> Action:
    """Translate one scenario action into the model's vocabulary.  With lands, an action
    that pays mana and gives no ``spend`` pays the generic cost the one way the pool allows
    (:func:`unique_spend`)."""
    a = _to_action(cfg, sc, spec, s)
    if cfg.lands and a.verb in ("cast", "plot", "roll") and "spend" not in spec.args:
        a = unique_spend(cfg, sc, spec, s, a)
    return a


def unique_spend(cfg: Config, sc: Scenario, spec: ActionSpec, s: State, a: Action) -> Action:
    """``a`` with the one ``spend`` that makes it legal in ``s``; if none does, ``a`` as it is
    (the rules then say why it is refused); if several do, a FormatError asking for ``spend``
    (the pool left after paying differs, so the file must say which)."""
    ways = [b for b in catalogue(cfg).by_action if replace(b, spend=a.spend) == a and enabled_transition(cfg, s, b)]
    if len(ways) > 1:
        shown = "; ".join(", ".join(f"{c}: {n}" for c, n in zip(cfg.pool_colours, b.spend, strict=True)) for b in ways)
        raise FormatError(sc.path, f"actions[{spec.index}].spend", f"which mana pays the generic cost: the pool "
                          f"allows several ways ({shown})", "none")
    return ways[0] if ways else a


def _to_action(cfg: Config, sc: Scenario, spec: ActionSpec, s: State) -> Action:
    slot = {sl.id: j for j, sl in enumerate(cfg.slots)}
    where = f"actions[{spec.index}]"
    args, p = spec.args, spec.player

    def card_of(key: str) -> int:
        return slot[args[key]]

    if spec.verb in ("pass", "leave"):
        return Action(spec.verb, p)
    if spec.verb in ("play", "tap"):
        return Action(spec.verb, p, card=card_of("card"))
    spend = spend_of(cfg, sc, spec)
    if spec.verb == "plot":
        j = card_of("card")
        src = args.get("from") or ("library" if s.zone[j] == 0 else "hand")
        return Action("plot", p, card=j, source=src, spend=spend)
    if spec.verb == "roll":
        return Action("roll", p, result=args["result"], spend=spend)
    if spec.verb == "choose":
        return Action("choose", p, cards=tuple(sorted(slot[c] for c in args.get("cards", []))))
    # cast
    j = card_of("card")
    card = cfg.slots[j].card
    how = _HOW[args["how"]]
    half = 0
    if card.is_split:
        if "half" not in args:
            raise FormatError(sc.path, f"{where}.half", f"left or right: {card.name} is a split card (CR 709.3)")
        half = _HALF[args["half"]]
    elif "half" in args:
        raise FormatError(sc.path, f"{where}.half", f"no half: {card.name} is not a split card", args["half"])
    targets = args.get("targets", [])
    if len(targets) > 1:
        raise FormatError(sc.path, f"{where}.targets", "at most one target (the model gives each spell one target)",
                          targets)
    t = -1
    if targets:
        tv = targets[0]
        t = int(tv.split(":", 1)[1]) if tv.startswith("player:") else cfg.players + slot[tv]
    sac = args.get("sacrifice", [])
    if len(sac) > 1:
        raise FormatError(sc.path, f"{where}.sacrifice", "at most one card (the pool sacrifices one creature)", sac)
    fb = 0
    if how == _HOW["flashback"]:
        fbname = args.get("flashback")
        fb = FB_PRINTED if fbname == "printed" or (fbname is None and card.flashback_cost is not None) else FB_MANA_COST
    return Action("cast", p, card=j, how=how, x=args.get("x", 0), kicker=1 if args.get("kicker") else 0,
                  half=half, flashback=fb, target=t, sacrifice=slot[sac[0]] if sac else -1, spend=spend)


def spend_of(cfg: Config, sc: Scenario, spec: ActionSpec) -> tuple[int, ...]:
    """The action's ``spend`` in the model's order (the configuration's pool colours): with
    lands, each colour's share of the generic cost (absent: 0); without, none may be given."""
    given = spec.args.get("spend", {})
    where = f"actions[{spec.index}].spend"
    if not cfg.lands:
        if given:
            raise FormatError(sc.path, where, "no spend: with abstract mana any mana pays any cost "
                              "(setup.mana_rules is not 'lands')", given)
        return ()
    for colour in given:
        if colour not in cfg.pool_colours:
            raise FormatError(sc.path, f"{where}.{colour}", f"a colour some land of the setup adds "
                              f"({', '.join(cfg.pool_colours) or 'none'})", colour)
    return tuple(given.get(c, 0) for c in cfg.pool_colours)


def describe(cfg: Config, a: Action) -> str:
    """A short, readable rendering of an action."""
    ids = [sl.id for sl in cfg.slots]
    out = f"player {a.player} {a.verb}"
    if a.verb in ("plot", "cast", "play", "tap"):
        out += f" {ids[a.card]}"
    if a.verb == "plot" and a.source == "library":
        out += " from library"
    if a.verb == "cast":
        out += f" ({HOWS[a.how]}"
        if a.half:
            out += f", {HALVES[a.half]} half"
        if a.x:
            out += f", X={a.x}"
        if a.kicker:
            out += ", kicked"
        if a.target >= 0:
            out += ", target " + (f"player {a.target}" if a.target < cfg.players else ids[a.target - cfg.players])
        if a.sacrifice >= 0:
            out += f", sacrificing {ids[a.sacrifice]}"
        out += ")"
    if a.verb == "choose":
        out += " [" + ", ".join(ids[k] for k in a.cards) + "]"
    if a.verb == "roll":
        out += f" {a.result}"
    if any(a.spend):
        out += " paying generic with " + ", ".join(f"{n} {c}" for c, n in zip(cfg.pool_colours, a.spend, strict=True) if n)
    return out


def refusal_of(cfg: Config, s: State, a: Action) -> Refusal | None:
    """Why the rules refuse ``a`` in ``s`` (None: legal), as the scenario command words it."""
    r = why_illegal(cfg, s, a)
    if r is not None and r.cond == "catalogue" and a.verb == "cast":
        face = cfg.slots[a.card].card.faces[1 if a.half == 2 else 0]
        if face_rules(face.name).target and a.target < 0:
            return Refusal("601.2c", f"{face.name} needs a target", "cast.no-target")
    return r


def run(sc: Scenario, disabled: frozenset[str] = frozenset()) -> ScenarioReport:
    cfg, s = start(sc, disabled)
    catalogue(cfg)
    rep = ScenarioReport(sc.path, sc.name, tuple(sc.rules))
    for spec in sc.actions:
        a = to_action(cfg, sc, spec, s)
        refusal = refusal_of(cfg, s, a)
        legal = refusal is None
        expected = spec.expect
        ok = legal if expected in (None, "legal") else not legal
        if ok and spec.rule is not None and refusal is not None and refusal.cr != spec.rule:
            ok = False  # refused, but by another rule than the file says (STYLE.md: strict)
        rep.verdicts.append(ActionVerdict(spec.index, describe(cfg, a), legal, expected, refusal, ok, spec.rule))
        if legal:
            t = enabled_transition(cfg, s, a)
            assert t is not None
            s = t.effect(s)
        if spec.state is not None:
            # Checked after the action, legal or not (an illegal one changes nothing).
            rep.mismatches += compare(spec.state, observe(cfg, s), f"actions[{spec.index}].expect")
    obs = observe(cfg, s)
    rep.final = obs
    if sc.expect is not None:
        rep.mismatches += compare(sc.expect, obs)
    return rep


def compare(exp: Expect, obs: dict[str, Any], where: str = "expect") -> list[str]:
    """Compare only the expectation keys given; one line per difference, each naming the
    field (``where``: ``expect``, or ``actions[3].expect`` for the position after an action)."""
    out: list[str] = []
    for key in sorted(exp.keys - {"verdict"}):
        want = getattr(exp, key)
        if key == "zones":
            for cid, z in want.items():
                if obs["zones"][cid] != z:
                    out.append(f"{where}.zones.{cid}: expected {z}, got {obs['zones'][cid]}")
        elif key == "plotted":
            missing = [c for c in want if c not in obs["plotted"]]
            if missing:
                out.append(f"{where}.plotted: expected {sorted(missing)} plotted, plotted are {obs['plotted']}")
        elif key == "not_plotted":
            wrong = [c for c in want if c in obs["plotted"]]
            if wrong:
                out.append(f"{where}.not_plotted: {sorted(wrong)} are plotted")
        elif key == "pending":
            got = obs["pending"]
            # "source" is compared only when the file gives it.
            same = got is None if want is None else (
                got is not None and all(got[k] == want[k] for k in want))
            if not same:
                out.append(f"{where}.pending: expected {_choice(want)}, got {_choice(got)}")
        else:
            got = obs[key]
            w = list(want) if isinstance(want, tuple) else want
            if got != w:
                out.append(f"{where}.{key}: expected {w!r}, got {got!r}")
    return out


def _choice(pending: dict[str, Any] | None) -> str:
    """A pending choice in words: ``player 0's discard (from loot)``, or ``no pending choice``."""
    if pending is None:
        return "no pending choice"
    source = pending.get("source")
    return f"player {pending['player']}'s {pending['choice']}" + (f" (from {source})" if source else "")
