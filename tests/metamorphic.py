"""Metamorphic transformations of scenarios and of reachable states (issue 11).

A transformation renames what the rules must not care about: the order in which the setup
lists its cards (each library keeping its order), the ids of the cards, the seats of the
players (a rotation, which keeps turn order). Running a scenario and its variant must give
the same verdicts and the same final observation once the variant's are mapped back.

Every variant carries its own inverse (``ids``: original id -> variant id; ``shift``: seat
i became seat (i + shift) mod P), so a failure prints a file a human can replay with
``mtgcheck scenario``.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import random
import re
import zlib
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from mtgcheck.model import cards as pool
from mtgcheck.model.actions import Action, Transition, catalogue
from mtgcheck.model.config import VARIANTS, Config
from mtgcheck.model.observe import observe
from mtgcheck.model.state import AB_CHAOS, AB_PLANESWALK, CARD_FIELDS, State
from mtgcheck.scenario_format import parse_scenario
from mtgcheck.scenario_run import ScenarioReport, run


def seed_of(*parts: object) -> int:
    """A seed that depends on its text only (not on PYTHONHASHSEED)."""
    return zlib.crc32(":".join(map(str, parts)).encode("utf-8"))


def run_doc(doc: dict[str, Any], source: str) -> ScenarioReport:
    sc = parse_scenario(doc, source=source, known_cards=pool.card_names(), known_planes=pool.plane_names(),
                        known_variants=tuple(VARIANTS))
    return run(sc)


# --- the variants of a scenario document ------------------------------------------------------

@dataclass
class Variant:
    kind: str  # e.g. "permute[1]", "rename[opaque]", "rotate[+1]"
    doc: dict[str, Any]
    ids: dict[str, str]  # original card id -> the variant's
    shift: int = 0  # seat i of the original is seat (i + shift) mod P of the variant

    @property
    def players(self) -> int:
        return int(self.doc["setup"]["players"])

    def seat(self, p: int) -> int:
        """Original seat -> the variant's."""
        return (p + self.shift) % self.players

    def unseat(self, q: int) -> int:
        """The variant's seat -> the original."""
        return (q - self.shift) % self.players


def _identity_ids(doc: dict[str, Any]) -> dict[str, str]:
    return {c["id"]: c["id"] for c in doc["setup"]["cards"]}


def permute_cards(doc: dict[str, Any], rng: random.Random, k: int) -> Variant:
    """Shuffle ``setup.cards``; the library cards of each owner keep their relative order
    (top first), every other card may move anywhere."""
    out = copy.deepcopy(doc)
    cards = out["setup"]["cards"]
    order = list(range(len(cards)))
    rng.shuffle(order)
    shuffled = [cards[i] for i in order]
    for owner in {c["owner"] for c in cards}:
        lib = [c for c in cards if c["zone"] == "library" and c["owner"] == owner]
        where = [i for i, c in enumerate(shuffled) if c["zone"] == "library" and c["owner"] == owner]
        for i, c in zip(where, lib, strict=True):
            shuffled[i] = c
    out["setup"]["cards"] = shuffled
    return Variant(f"permute[{k}]", out, _identity_ids(doc))


def _map_card_ids(doc: dict[str, Any], m: dict[str, str]) -> dict[str, Any]:
    out = copy.deepcopy(doc)
    for c in out["setup"]["cards"]:
        c["id"] = m[c["id"]]
    for a in out["actions"]:
        if "card" in a:
            a["card"] = m[a["card"]]
        if "targets" in a:
            a["targets"] = [t if t.startswith("player:") else m[t] for t in a["targets"]]
        for key in ("sacrifice", "cards"):
            if key in a:
                a[key] = [m[c] for c in a[key]]
    for exp in _expects(out):
        if "zones" in exp:
            exp["zones"] = {m[c]: z for c, z in exp["zones"].items()}
        for key in ("plotted", "not_plotted"):
            if key in exp:
                exp[key] = [m[c] for c in exp[key]]
        if "stack" in exp:
            exp["stack"] = [x if x.startswith("ability:") else m[x] for x in exp["stack"]]
        if exp.get("pending") and exp["pending"].get("source") is not None:
            exp["pending"]["source"] = m[exp["pending"]["source"]]
    return out


def _expects(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """Every expectation object of a scenario: the final one and those after an action
    (an action's ``expect`` given as an object), to be renamed alike."""
    found = [a["expect"] for a in doc["actions"] if isinstance(a.get("expect"), dict)]
    return found + ([doc["expect"]] if doc.get("expect") else [])


def rename_prefix(doc: dict[str, Any]) -> Variant:
    """``x`` -> ``r0_x`` everywhere (setup, actions, expectations)."""
    m = {c["id"]: f"r0_{c['id']}" for c in doc["setup"]["cards"]}
    return Variant("rename[prefix]", _map_card_ids(doc, m), m)


def rename_opaque(doc: dict[str, Any], rng: random.Random) -> Variant:
    """Random-looking ids, so the alphabetical order of the ids changes too."""
    m: dict[str, str] = {}
    used: set[str] = set()
    for c in doc["setup"]["cards"]:
        while (new := f"c{rng.getrandbits(32):08x}") in used:
            pass
        used.add(new)
        m[c["id"]] = new
    return Variant("rename[opaque]", _map_card_ids(doc, m), m)


def rotate_seats(doc: dict[str, Any], r: int) -> Variant:
    """Seat i becomes seat (i + r) mod P in every field that holds a player index
    (docs/scenario.md, "Validation"); per-player lists are rotated alike."""
    out = copy.deepcopy(doc)
    P = int(doc["setup"]["players"])

    def p(i: int) -> int:
        return (i + r) % P

    def rot(xs: list[Any]) -> list[Any]:
        new = list(xs)
        for i, x in enumerate(xs):
            new[p(i)] = x
        return new

    st = out["setup"]
    st["active"] = p(st["active"])
    for key in ("life", "mana"):
        if key in st:
            st[key] = rot(st[key])
    for c in st["cards"]:
        c["owner"] = p(c["owner"])
    for key in ("left", "extra_turns"):
        if key in st:
            st[key] = [p(i) for i in st[key]]
    pc = st.get("planechase")
    if pc:
        if not pc.get("communal"):
            pc["decks"] = rot(pc["decks"])
        if "owner" in pc["plane"]:  # absent with a communal deck (CR 901.15b)
            pc["plane"]["owner"] = p(pc["plane"]["owner"])
        pc["controller"] = p(pc["controller"])
    for a in out["actions"]:
        a["player"] = p(a["player"])
        if "targets" in a:
            a["targets"] = [f"player:{p(int(t.split(':', 1)[1]))}" if t.startswith("player:") else t
                            for t in a["targets"]]
    for exp in _expects(out):
        for key in ("active", "priority"):
            if key in exp:
                exp[key] = p(exp[key])
        if exp.get("pending"):
            exp["pending"]["player"] = p(exp["pending"]["player"])
        if exp.get("planar_controller") is not None:
            exp["planar_controller"] = p(exp["planar_controller"])
        for key in ("life", "mana"):
            if key in exp:
                exp[key] = rot(exp[key])
        if "extra_turns" in exp:
            exp["extra_turns"] = [p(i) for i in exp["extra_turns"]]
        if "in_game" in exp:
            exp["in_game"] = sorted(p(i) for i in exp["in_game"])  # observed in seat order
    return Variant(f"rotate[+{r}]", out, _identity_ids(doc), r)


def variants(doc: dict[str, Any], name: str, permutations: int = 3) -> Iterator[Variant]:
    for k in range(permutations):
        yield permute_cards(doc, random.Random(seed_of(name, "permute", k)), k)
    yield rename_prefix(doc)
    yield rename_opaque(doc, random.Random(seed_of(name, "rename")))
    for r in range(1, int(doc["setup"]["players"])):
        yield rotate_seats(doc, r)


# --- what a run says, in the original's names ------------------------------------------------

def verdicts(rep: ScenarioReport, var: Variant | None = None) -> list[dict[str, Any]]:
    """Per action: legal or not, and the rule (CR number, condition, reason) that refused it.
    A reason that names a player ("player 1 does not have priority") names the original's."""

    def why(text: str) -> str:
        if var is None:
            return text
        return re.sub(r"\bplayer (\d+)\b", lambda m: f"player {var.unseat(int(m.group(1)))}", text)

    return [{"index": v.index, "legal": v.legal,
             "refused_by": None if v.refusal is None else [v.refusal.cr, v.refusal.cond, why(v.refusal.why)]}
            for v in rep.verdicts]


def observation_back(obs: dict[str, Any], var: Variant) -> dict[str, Any]:
    """A variant's final observation with the original's card ids and seats."""
    back = {new: old for old, new in var.ids.items()}
    u = var.unseat
    out = dict(obs)
    out["zones"] = {back[c]: z for c, z in obs["zones"].items()}
    out["plotted"] = sorted(back[c] for c in obs["plotted"])
    out["stack"] = [back.get(x, x) for x in obs["stack"]]
    for key in ("active", "priority"):
        out[key] = u(obs[key])
    if obs["planar_controller"] is not None and obs["planar_controller"] >= 0:
        out["planar_controller"] = u(obs["planar_controller"])
    for key in ("life", "mana"):
        out[key] = [obs[key][var.seat(p)] for p in range(len(obs[key]))]
    out["in_game"] = sorted(u(p) for p in obs["in_game"])
    out["extra_turns"] = [u(p) for p in obs["extra_turns"]]
    if obs["pending"] is not None:
        source = obs["pending"]["source"]
        out["pending"] = {**obs["pending"], "player": u(obs["pending"]["player"]),
                          "source": None if source is None else back[source]}
    return out


def differences(a: Any, b: Any, path: str = "") -> list[str]:
    """Where two JSON-like values differ, one line per leaf."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b), key=str):
            out += differences(a.get(k, "<absent>"), b.get(k, "<absent>"), f"{path}.{k}" if path else str(k))
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and all(
            isinstance(x, dict) for x in a + b):
        out = []
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            out += differences(x, y, f"{path}[{i}]")
        return out
    return [] if a == b else [f"{path}: original {a!r}, variant (mapped back) {b!r}"]


def compare_runs(doc: dict[str, Any], name: str, var: Variant) -> list[str]:
    """Run the original and the variant; the differences beyond the renaming (empty: none)."""
    rep0 = run_doc(doc, name)
    rep1 = run_doc(var.doc, f"{name} ({var.kind})")
    diffs = differences({"verdicts": verdicts(rep0), "final": rep0.final, "passed": rep0.passed},
                        {"verdicts": verdicts(rep1, var), "final": observation_back(rep1.final, var),
                         "passed": rep1.passed})
    if not diffs:
        return []
    lines = [f"{name}: the variant {var.kind} differs from the original:", *diffs,
             "original actions:  " + "; ".join(v.text for v in rep0.verdicts),
             "variant actions:   " + "; ".join(v.text for v in rep1.verdicts)]
    if rep1.mismatches:
        lines.append("variant's own expectations: " + "; ".join(rep1.mismatches))
    lines += ["original scenario: " + json.dumps(doc), f"variant scenario ({var.kind}): " + json.dumps(var.doc)]
    return lines


# --- reachable states and a permutation of the card slots ------------------------------------

def bfs_sample(cfg: Config, s0: State, max_turn: int,
               limit: int) -> tuple[list[State], dict[State, tuple[State, Action] | None]]:
    """The first ``limit`` states a breadth-first search from ``s0`` reaches (deterministic),
    and for each the state and action it was first reached from."""
    parent: dict[State, tuple[State, Action] | None] = {s0: None}
    order = [s0]
    queue = deque([s0])
    while queue and len(order) < limit:
        s = queue.popleft()
        if s.turn > max_turn or s.game_over:
            continue
        for t in catalogue(cfg).transitions:
            if len(order) >= limit:
                break
            if t.enabled(s):
                s2 = t.effect(s)
                if s2 not in parent:
                    parent[s2] = (s, t.action)
                    order.append(s2)
                    queue.append(s2)
    return order, parent


def trace_to(parent: dict[State, tuple[State, Action] | None], s: State) -> list[Action]:
    trace: list[Action] = []
    while (p := parent[s]) is not None:
        s, a = p
        trace.append(a)
    return trace[::-1]


def permute_config(cfg: Config, perm: list[int]) -> Config:
    """The configuration whose slot ``perm[j]`` holds the original's slot ``j``."""
    slots = [None] * cfg.n
    for j, k in enumerate(perm):
        slots[k] = cfg.slots[j]
    return dataclasses.replace(cfg, slots=tuple(slots))


def _card_ref(P: int, perm: list[int], t: int) -> int:
    return t if t < P else P + perm[t - P]


#: How :func:`permute_state` renames each field that refers to card slots (written by hand,
#: apart from the layout; a test checks the layout declares no other): spell targets
#: ``P + j``, ability sources and targets, the source of a pending choice.
_RENAMERS: dict[str, Callable[[Config, State, dict[str, Any], list[int]], Any]] = {
    "target": lambda cfg, s, vals, perm: tuple(_card_ref(cfg.players, perm, t) for t in vals["target"]),
    "ab_src": lambda cfg, s, vals, perm: tuple(perm[src] if kind and kind not in (AB_CHAOS, AB_PLANESWALK) else src
                                               for kind, src in zip(s.ab_kind, s.ab_src, strict=True)),
    "ab_target": lambda cfg, s, vals, perm: tuple(_card_ref(cfg.players, perm, t) for t in s.ab_target),
    # the legend rule's choice has no source slot (-1)
    "pending_src": lambda cfg, s, vals, perm: perm[s.pending_src] if s.pending and s.pending_src >= 0
    else s.pending_src,
}
#: The fields :func:`permute_state` renames as references to card slots.
RENAMED_REFERENCES = frozenset(_RENAMERS)


def permute_state(cfg: Config, s: State, perm: list[int]) -> State:
    """The state with card slot ``j`` moved to ``perm[j]``, and every reference to a card slot
    renamed alike (:data:`RENAMED_REFERENCES`). Written apart from the graph search's symmetry
    renaming, on purpose."""
    n = cfg.n
    vals: dict[str, Any] = {}
    for f in CARD_FIELDS:
        old = getattr(s, f)
        new = [None] * n
        for j in range(n):
            new[perm[j]] = old[j]
        vals[f] = tuple(new)
    vals.update({f: rename(cfg, s, vals, perm) for f, rename in _RENAMERS.items()})
    return s.replace(**vals)


def map_action(cfg: Config, a: Action, perm: list[int]) -> Action:
    P = cfg.players
    return dataclasses.replace(
        a, card=a.card if a.card < 0 else perm[a.card],
        target=a.target if a.target < P else P + perm[a.target - P],
        sacrifice=a.sacrifice if a.sacrifice < 0 else perm[a.sacrifice],
        cards=tuple(sorted(perm[k] for k in a.cards)))


def enabled(cfg: Config, s: State) -> list[Transition]:
    return [t for t in catalogue(cfg).transitions if t.enabled(s)]


def legal_moves(cfg: Config, s: State) -> dict[Action, list[dict[str, Any]]]:
    """Each legal action, with the observation after it (several for an action that more
    than one internal transition may carry out: their guards exclude each other)."""
    out: dict[Action, list[dict[str, Any]]] = {}
    for t in enabled(cfg, s):
        out.setdefault(t.action, []).append(observe(cfg, t.effect(s)))
    return out


def compare_state(cfg: Config, s: State, perm: list[int]) -> list[str]:
    """Legal actions (mapped through the permutation) and the observation after each."""
    cfg2 = permute_config(cfg, perm)
    s2 = permute_state(cfg, s, perm)
    a = {map_action(cfg, act, perm): obs for act, obs in legal_moves(cfg, s).items()}
    b = legal_moves(cfg2, s2)
    out = []
    for act in sorted(set(a) | set(b)):
        if act not in b:
            out.append(f"{act}: legal in the original, not in the permuted configuration")
        elif act not in a:
            out.append(f"{act}: legal in the permuted configuration, not in the original")
        elif a[act] != b[act]:
            out.append(f"{act}: after it, original {a[act]!r}, permuted {b[act]!r}")
    if observe(cfg, s) != observe(cfg2, s2):
        out.append(f"the observation differs: {observe(cfg, s)!r} vs {observe(cfg2, s2)!r}")
    return out


def random_perm(n: int, rng: random.Random) -> list[int]:
    perm = list(range(n))
    while n > 1 and perm == list(range(n)):
        rng.shuffle(perm)
    return perm


# --- object ids renamed one to one --------------------------------------------------------------

#: The fields holding object ids, written by hand (a test checks the layout declares no other):
#: ``next_oid`` is the next new id; in the others 0 means none.
OID_RENAMED = ("next_oid", "oid", "target_oid", "ab_target_oid", "pl_oid")


def random_oid_renaming(s: State, rng: random.Random) -> Callable[[int], int]:
    """A random one-to-one renaming of the object ids in use in ``s`` onto 1..m (0, none,
    stays 0), with the new ids ``next_oid + r`` renamed ``m + 1 + r``: any order among the ids
    in use, so a rule that compared two of them by order would see a difference."""
    used: set[int] = set()
    for f in OID_RENAMED[1:]:
        used.update(getattr(s, f))
    used.discard(0)
    old = sorted(used)
    new = list(range(1, len(old) + 1))
    while len(new) > 1 and new == sorted(new):
        rng.shuffle(new)
    m, nxt = len(old), s.next_oid
    table = dict(zip(old, new, strict=True))
    return lambda v: 0 if v == 0 else table[v] if v < nxt else m + 1 + (v - nxt)


def rename_oids(s: State, name: Callable[[int], int]) -> State:
    return s.replace(**{f: tuple(map(name, v)) if isinstance(v := getattr(s, f), tuple) else name(v)
                        for f in OID_RENAMED})


def compare_oid_renaming(cfg: Config, s: State, name: Callable[[int], int], props: Any) -> list[str]:
    """The state with its object ids renamed (:func:`random_oid_renaming`) against the state:
    the same transitions enabled, each successor the original's successor renamed alike, and
    every property's outcome (and antecedent) the same, in the state and on every transition."""
    r = rename_oids(s, name)
    out = []
    for p in props:
        if p.kind == "state" and (p.holds(cfg, s), p.triggered(cfg, s)) != (p.holds(cfg, r), p.triggered(cfg, r)):
            out.append(f"property {p.id}: differs in the renamed state")
    for t in catalogue(cfg).transitions:
        if t.enabled(s) != t.enabled(r):
            out.append(f"{t.action}: enabled {t.enabled(s)} in the state, {t.enabled(r)} renamed")
            continue
        if not t.enabled(s):
            continue
        s2, r2 = t.effect(s), t.effect(r)
        if rename_oids(s2, name) != r2:
            out.append(f"{t.action}: the successor of the renamed state is not the successor renamed: "
                       f"{rename_oids(s2, name)!r} vs {r2!r}")
        for p in props:
            if p.kind == "transition" and (p.holds(cfg, s, t, s2), p.triggered(cfg, s, t, s2)) != (
                    p.holds(cfg, r, t, r2), p.triggered(cfg, r, t, r2)):
                out.append(f"{t.action}: property {p.id} differs on the renamed transition")
    return out
