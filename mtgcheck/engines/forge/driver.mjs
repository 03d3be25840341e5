// mtgcheck's Node side of `--engine forge`: Forge's WebAssembly build (npm @manabrew/forge-wasm,
// installed into the cache at first use, never vendored) behind mtgcheck.engine/1 (JSON lines).
// Written against the package's documented API (README, forge.d.ts, @manabrew/protocol's types).
//
//   node driver.mjs INSTALL_DIR            JSON lines on stdin/stdout (docs/engine-protocol.md)
//   node driver.mjs INSTALL_DIR --selfplay N   play N games with the answers below, print seconds per game
//
// Forge cannot be set up in a position (no state injection, no seed, no rollback): `setup`
// is answered `unsupported`; its games are the ones it deals (docs/engine-deals.md).
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { join } from "node:path";


// The pool's cards that Forge's card scripts have (Forge's own names).
export const CARDS = ["Slickshot Show-Off", "Faithless Looting", "Think Twice", "Deep Analysis", "Ancient Grudge",
  "Memory Deluge", "Past in Flames", "Snapcaster Mage", "Fire // Ice", "Burst Lightning", "Village Rites",
  "Bone Splinters", "Counterspell", "Remand", "Lightning Bolt", "Blaze", "Omniscience", "Ornithopter",
  "Make Your Own Luck", "Forest", "Island", "Mountain", "Plains", "Swamp"];

// One answer for each prompt Forge asks, as the model plays: no combat (no attackers, no
// blockers), mana paid by tapping lands one at a time (`pay` with auto:true loops forever in
// 0.2.0), kicker and optional parts declined, the fewest cards or numbers chosen.
export function answer(input, choose) {
  const t = input.type;
  const out = (output) => ({ type: t, output });
  switch (t) {
    case "mulligan": return out({ type: "mulliganDecision", keep: true });
    case "diceRolled": return out({ type: "diceRolledAcknowledged" });
    case "revealCards": return out({ type: "revealCardsAcknowledged" });
    case "chooseAttackers": return out({ type: "declareAttackers", assignments: [] });
    case "chooseBlockers": return out({ type: "declareBlockers", assignments: [] });
    case "chooseBoolean": return out({ type: "decision", value: false });
    case "chooseFromSelection": return out({ type: "selectionDecision", chosenIndices: [] });
    case "chooseNumber": return out({ type: "numberDecision", chosenNumber: input.min });
    case "chooseCards": return out({ type: "chooseCardsDecision", chosenCardIds: input.cards.slice(0, input.min).map((c) => c.id) });
    case "mulliganPutBack": return out({ type: "mulliganPutBackDecision", cardIds: [] });
    case "payManaCost": {
      if (input.canConfirmFromPool) return out({ type: "pay", auto: false });
      // A land whose mana the cost names first (an Island for {R} would float useless mana).
      const taps = input.actions.filter((a) => a.type === "activateManaAbility");
      const fits = (a) => (a.producedMana || []).some((m) => input.manaCost.includes(`{${m.color}}`));
      const tap = taps.find(fits) || taps[0];
      return out(tap ? { type: "act", actionId: tap.id } : { type: "cancel" });
    }
    case "chooseBoardTargets": {
      const players = input.candidates.filter((c) => c.kind === "player");
      const pick = players.length ? players[players.length - 1] : input.candidates[0];
      return out({ type: "boardTargets", chosen: pick ? [pick] : [] });
    }
    case "chooseAction": return out(choose(input.actions));
    default: return null;
  }
}

// The mode of a cast in our words (`how`): Forge's `normal`, `alternative:flashback`, `alternative:plotted`...
export function howOf(mode) {
  if (mode.type === "normal") return "normal";
  if (mode.type === "alternative" && mode.cost === "flashback") return "flashback";
  if (mode.type === "alternative" && mode.cost === "plotted") return "plotted";
  if (mode.type === "alternative" && mode.cost === "plot") return "plot";
  return null;
}

function randomChooser(seed) {
  let s = seed >>> 0;
  const rnd = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32);
  return (actions) => {
    const casts = actions.filter((a) => a.type === "cast" && howOf(a.mode));
    const land = casts.find((a) => a.label.startsWith("Play "));
    if (land) return { type: "act", actionId: land.id };
    if (casts.length && rnd() < 0.7) return { type: "act", actionId: casts[Math.floor(rnd() * casts.length)].id };
    return { type: "pass", exhaustStack: false };
  };
}

async function playOne(createForgeEngine, decks, seed) {
  const t0 = Date.now();
  const choose = randomChooser(seed);
  let engine;
  const over = new Promise((resolve, reject) => {
    const onMessage = (msg, slot) => {
      if (msg.kind !== "prompt") return;
      const p = msg.prompt;
      if (p.input.type === "gameOver") return resolve();
      const a = answer(p.input, choose);
      if (!a) return reject(new Error(`unanswered prompt ${p.input.type}`));
      engine.respond(p.promptId, a, slot);
    };
    createForgeEngine({ onMessage, onError: (e) => reject(e instanceof Error ? e : new Error(JSON.stringify(e))) })
      .then((e) => { engine = e; return e.startMultiplayerGame({ decks, playerNames: ["p0", "p1"], enginePlayerIndex: 0 }); })
      .catch(reject);
  });
  try { await over; } finally { engine?.dispose(); }
  return (Date.now() - t0) / 1000;
}

const DECK = { cards: [{ name: "Mountain", count: 16 }, { name: "Island", count: 4 }, { name: "Lightning Bolt", count: 4 },
  { name: "Burst Lightning", count: 4 }, { name: "Blaze", count: 2 }, { name: "Fire // Ice", count: 2 },
  { name: "Faithless Looting", count: 4 }, { name: "Slickshot Show-Off", count: 4 }] };

// -- one dealt game, driven through the protocol -------------------------------------------

// Forge's steps where our game has priority, in our words; priority in the others (upkeep,
// declare attackers, end of combat...) is passed by both players without asking (the model has
// one beginning step, where the draw is, and one combat step).
export const STEPS = { draw: "beginning", main1: "main1", combatBegin: "combat", main2: "main2", endOfTurn: "end" };
// Cards per deck: Forge deals seven, and draws one a turn; small decks keep the model's slots few.
export const DECK_SIZE = 12;
// The basic land of each colour, and the colours of the cards we play (for padding a deck).
const BASIC = { R: "Mountain", U: "Island", W: "Plains", B: "Swamp", G: "Forest" };
const COLOURS = { "Lightning Bolt": "R", "Burst Lightning": "R", "Blaze": "R", "Think Twice": "U", "Fire // Ice": "RU",
  "Slickshot Show-Off": "R", "Faithless Looting": "R", "Make Your Own Luck": "GU" };
// Triggered abilities on the stack, by their source, as the model's ability kinds name them.
const ABILITIES = { "Slickshot Show-Off": "show-off-pump" };
// The cards `deal` plays: those whose every prompt the driver maps (the others: docs/engine-deals.md).
export const DEALT = ["Lightning Bolt", "Burst Lightning", "Blaze", "Think Twice", "Slickshot Show-Off", "Faithless Looting",
  "Fire // Ice", "Mountain", "Island"];
// A split card's halves (CR 709): Forge offers one cast per half, labelled with the half's name
// ("Cast Fire", "Cast Ice"); our `half` is "left" or "right".
export const HALVES = ["left", "right"];
export function halfOf(name, label) {
  const halves = name.split(" // ");
  if (halves.length !== 2) return null;
  const k = halves.findIndex((h) => label === `Cast ${h}`);
  return k < 0 ? null : HALVES[k];
}
// Plot is an activated ability in Forge (its text starts with the keyword), the plotted cast a cast mode.
const isPlot = (a) => a.type === "activateAbility" && !a.isManaAbility && /^Plot\b/.test(a.description || "");

// Each deck padded to DECK_SIZE with basic lands of its spells' colours (Mountains and Islands
// alternating when it has none), so that a hand of seven can cast something.
export function padDeck(names) {
  const colours = [...new Set(names.flatMap((n) => [...(COLOURS[n] || "")]))];
  const lands = (colours.length ? colours : ["R", "U"]).map((c) => BASIC[c]);
  const out = [...names];
  for (let i = 0; out.length < DECK_SIZE; i++) out.push(lands[i % lands.length]);
  return out;
}

const seatOf = (playerId) => Number(String(playerId).split("-")[1]);

export class Game {
  constructor(mod, decks, timeoutMs) {
    this.mod = mod;
    this.decks = decks.map(padDeck);
    this.timeoutMs = timeoutMs;
    this.views = [];           // the game view each seat last saw
    this.prompt = null;        // the prompt waiting for an answer
    this.waiter = null;
    this.errors = [];
    this.looked = null;        // the library cards Forge showed a player in the last step (Make Your Own Luck's look)
    this.lookOk = false;       // whether the step is a pass (a spell resolving may look)
    this.discarding = [];      // the Forge ids of the cards chosen so far for the discard to hand size
    this.step0 = {};           // our zones when the step began
    // Our id of each deck card: p{owner}c{index in the deck}; Forge's id once Forge shows it.
    this.ours = new Map();     // Forge id -> our id
    this.names = new Map();    // our id -> card name
    this.decks.forEach((d, p) => d.forEach((n, k) => this.names.set(`p${p}c${k}`, n)));
  }

  async start() {
    const onMessage = (msg, slot) => {
      const seat = slot ? seatOf(slot) : 0;
      if (msg.kind === "state") this.views[seat] = msg.state.gameView;
      else if (msg.kind === "prompt") { this.prompt = { ...msg.prompt, slot }; this.wake(); }
      else if (msg.kind === "error") { this.errors.push(JSON.stringify(msg.error)); this.wake(); }
    };
    this.engine = await this.mod.createForgeEngine({ onMessage, onError: (e) => { this.errors.push(String(e?.message || JSON.stringify(e))); this.wake(); } });
    const decks = this.decks.map((d) => ({ cards: d.map((name) => ({ name, count: 1 })) }));
    const next = this.next();
    await this.engine.startMultiplayerGame({ decks, playerNames: decks.map((_, i) => `p${i}`), enginePlayerIndex: 0 });
    await next;
    await this.advance();
  }

  wake() { const w = this.waiter; this.waiter = null; if (w) w(); }

  next() {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("Forge sent no prompt in time")), this.timeoutMs);
      this.waiter = () => { clearTimeout(timer); resolve(); };
    });
  }

  // Answer the waiting prompt and wait for the next one (or for Forge's rejection of the answer).
  async answer(output) {
    const p = this.prompt;
    this.prompt = null;
    const wait = this.next();
    const before = this.errors.length;
    this.engine.respond(p.promptId, { type: p.input.type, output }, p.slot);
    await wait;
    if (this.errors.length > before && !this.prompt) this.prompt = p;  // rejected: the same prompt waits
    return this.errors.length === before;
  }

  get view() { return this.views[0]; }
  get over() { return !this.prompt || this.prompt.input.type === "gameOver" || this.view.gameOver; }

  // Answer everything that is not a decision of ours: the dice, mulligans (keep), combat (no
  // attackers, no blockers), priority in the steps the model does not have (pass).
  async advance() {
    for (let guard = 0; guard < 200 && !this.over; guard++) {
      const t = this.prompt.input.type;
      if (t === "chooseAction" && STEPS[this.view.step]) return;
      if (t === "chooseAction") await this.answer({ type: "pass", exhaustStack: false });
      else {
        const a = answer(this.prompt.input, () => ({ type: "pass", exhaustStack: false }));
        // The cleanup's discard to the maximum hand size (CR 514.1) is the player's: `pending`.
        const ours = ["mulligan", "diceRolled", "chooseAttackers", "chooseBlockers", "revealCards"];
        if (!a || !ours.includes(t)) return;
        if (t === "revealCards" && this.prompt.input.zone === "library" && this.lookOk) this.look(this.prompt.input.cards);
        await this.answer(a.output);
      }
    }
  }

  // Make Your Own Luck's look at the top three cards (CR 702.170c; fewer if the library has
  // fewer), as the spell resolves: the cards are bound to our ids and reported as
  // `library_top`, so that the harness takes them as its library's top (the order is hidden:
  // docs/engine-deals.md, Hidden draws). With no nonland card among them Forge shows none
  // ("No valid cards") and puts them into the hand: they are the cards of the player's library
  // that left it in this step (read when observed).
  look(cards) {
    const owner = seatOf(this.prompt.decidingPlayerId);
    if (!cards.length) { this.looked = { [owner]: null }; return; }
    const ids = cards.map((c) => this.idOf({ fid: c.id, name: c.identity.name, owner: seatOf(c.ownerId) }));
    if (ids.every(Boolean)) this.looked = { [owner]: ids };
  }

  libraryTop() {
    const [[owner, ids]] = Object.entries(this.looked);
    if (ids) return { [owner]: ids };
    const now = this.zones();
    return { [owner]: Object.keys(now).filter((id) => id.startsWith(`p${owner}c`) && this.step0[id] === "library" && now[id] !== "library") };
  }

  // Every card Forge shows now, with its owner, zone and Forge id (hands from their owners' seats).
  visible() {
    const out = [];
    this.views.forEach((v, seat) => {
      for (const z of v.zones) {
        const owner = seatOf(z.ownerId);
        if ((z.zone === "hand" || z.zone === "library") && owner !== seat) continue;
        if (z.zone !== "hand" && z.zone !== "library" && seat !== 0) continue;
        for (const c of z.cards) if (c.visibility === "visible") out.push({ fid: c.id, name: c.identity.name, owner, zone: z.zone, plotted: c.isPlotted });
      }
    });
    for (const o of this.view.stack) {
      if (!this.isAbility(o)) out.push({ fid: o.sourceId, name: o.identity.name, owner: seatOf(o.ownerId), zone: "stack" });
    }
    return out;
  }

  // A stack object whose source is a permanent is its ability, not the card cast (a spell is not on the battlefield).
  isAbility(o) {
    return this.views[0].zones.some((z) => z.zone === "battlefield" && z.cards.some((c) => c.id === o.sourceId));
  }

  // Our id of a card Forge shows: the one it had, else the first deck card of its owner and
  // name not yet seen (the top-most in the model's library order: the harness makes the model's
  // draw follow Forge's, docs/engine-deals.md).
  idOf(c) {
    if (this.ours.has(c.fid)) return this.ours.get(c.fid);
    const taken = new Set(this.ours.values());
    const k = this.decks[c.owner].findIndex((n, i) => n === c.name && !taken.has(`p${c.owner}c${i}`));
    if (k < 0) return null;
    this.ours.set(c.fid, `p${c.owner}c${k}`);
    return `p${c.owner}c${k}`;
  }

  zones() {
    const z = {};
    this.decks.forEach((d, p) => d.forEach((_, k) => { z[`p${p}c${k}`] = "library"; }));
    for (const c of this.visible()) { const id = this.idOf(c); if (id) z[id] = c.zone; }
    for (const f of this.discarding) z[this.ours.get(f)] = "graveyard";  // chosen, sent with the n-th
    return z;
  }

  setup() {
    const zones = this.zones();
    const v = this.view;
    return {
      players: this.decks.length, turn: v.turn, active: seatOf(v.activePlayerId), step: STEPS[v.step],
      life: v.players.map((p) => p.life), mana_rules: "lands",
      cards: [...this.names].map(([id, card]) => ({ id, card, owner: Number(id.slice(1, id.indexOf("c"))), zone: zones[id] })),
    };
  }

  observe() {
    const v = this.view;
    const stack = v.stack.map((o) => this.isAbility(o) ? `ability:${ABILITIES[o.identity.name] || o.identity.name}` : this.ours.get(o.sourceId));
    const plotted = this.visible().filter((c) => c.plotted && c.zone === "exile").map((c) => this.idOf(c));
    return {
      zones: this.zones(), plotted, pending: this.pending(), life: v.players.map((p) => p.life), turn: v.turn, active: seatOf(v.activePlayerId),
      // The model has no cleanup step of its own: its discard is asked in our `end` (docs/scenario.md).
      step: this.handSize() ? "end" : STEPS[v.step] ?? v.step, priority: seatOf(v.priorityPlayerId), stack,
      mana: v.players.map((p) => Object.values(p.manaPool || {}).reduce((a, b) => a + b, 0)),
      game_over: Boolean(v.gameOver), in_game: v.players.filter((p) => p.status === "playing").map((p) => seatOf(p.id)),
      ...(this.looked ? { library_top: this.libraryTop() } : {}),
    };
  }

  // A choice the resolving spell asks, as the model's `pending`: Faithless Looting's discard
  // (CR 701.9a), Make Your Own Luck's card to exile and plot (CR 702.170c: Forge offers the
  // nonland cards among the three it looked at, none or one).
  // In the cleanup step it is the discard to the maximum hand size (CR 514.1), which no card asks.
  pending() {
    if (this.over || this.prompt.input.type !== "chooseCards") return null;
    if (this.handSize()) return { choice: "discard-to-hand-size", player: seatOf(this.prompt.decidingPlayerId), source: null };
    const top = this.view.stack.at(-1);
    const choice = top?.identity?.name === "Make Your Own Luck" ? "make-your-own-luck" : "discard";
    return { choice, player: seatOf(this.prompt.decidingPlayerId), source: top ? this.ours.get(top.sourceId) ?? null : null };
  }

  fid(ourId) { for (const [f, o] of this.ours) if (o === ourId) return f; return null; }

  // Our actions, from the chooseAction prompt of the player with priority (lists_actions is false:
  // a cast is listed once, without its targets, X, kicker or spend, which Forge asks afterwards).
  actions() {
    if (this.over || this.prompt.input.type !== "chooseAction") return [];
    const player = seatOf(this.prompt.decidingPlayerId);
    const out = [{ player, do: "pass" }];
    for (const a of this.prompt.input.actions) {
      const card = this.ours.get(a.cardId);
      if (!card) continue;
      if (a.type === "cast" && a.label.startsWith("Play ")) out.push({ player, do: "play", card });
      else if (a.type === "cast" && howOf(a.mode)) {
        const half = halfOf(this.names.get(card), a.label);
        out.push({ player, do: "cast", card, how: howOf(a.mode), ...(half ? { half } : {}) });
      }
      else if (a.type === "activateAbility" && a.isManaAbility) out.push({ player, do: "tap", card });
      else if (isPlot(a)) out.push({ player, do: "plot", card, from: "hand" });
    }
    return out;
  }

  async apply(a) {
    // A look reported is one of this step, taken as a spell resolves (a pass), not a reveal
    // after the choice.
    this.looked = null;
    this.lookOk = a.do === "pass";
    this.step0 = this.zones();
    if (this.over) return { legal: false, reason: "the game is over" };
    if (this.pending()) return this.choose(a);
    if (this.prompt.input.type !== "chooseAction") return { legal: false, reason: `Forge waits for ${this.prompt.input.type}` };
    if (a.player !== seatOf(this.prompt.decidingPlayerId)) return { legal: false, reason: "that player has no priority" };
    if (a.do === "pass") {
      await this.answer({ type: "pass", exhaustStack: false });
      await this.advance();
      return { legal: true };
    }
    const fid = this.fid(a.card);
    const offered = this.prompt.input.actions.filter((x) => x.cardId === fid);
    let act;
    if (a.do === "play") act = offered.find((x) => x.type === "cast" && x.label.startsWith("Play "));
    else if (a.do === "tap") act = offered.find((x) => x.type === "activateAbility" && x.isManaAbility);
    else if (a.do === "plot" && (a.from || "hand") === "hand") act = offered.find(isPlot);
    else if (a.do === "cast" && a.how === "flashback" && (a.flashback || "printed") !== "printed") {
      // Forge's offer does not say which flashback ability it casts with; the dealt cards have
      // only their printed one (no Past in Flames, no Snapcaster Mage): another is not offered.
      return { legal: false, reason: `only a printed flashback is offered (${a.flashback})` };
    } else if (a.do === "cast") act = offered.find((x) => x.type === "cast" && !x.label.startsWith("Play ") && howOf(x.mode) === (a.how || "normal")
      && halfOf(this.names.get(a.card), x.label) === (a.half ?? null));
    else return { legal: false, reason: `verb ${a.do} is not supported` };
    if (!act) return { legal: false, reason: `Forge does not offer it (${offered.map((x) => x.label || x.description).join("; ") || "nothing for that card"})` };
    if (!(await this.answer({ type: "act", actionId: act.id }))) return { legal: false, reason: `Forge refused: ${this.errors.at(-1)}` };
    const refused = await this.followUp(a);
    await this.advance();
    return refused ? { legal: false, reason: refused } : { legal: true };
  }

  handSize() { return this.prompt?.input.type === "chooseCards" && this.view.step === "cleanup"; }

  async choose(a) {
    const inp = this.prompt.input;
    if (a.do !== "choose" || a.player !== seatOf(this.prompt.decidingPlayerId)) return { legal: false, reason: `Forge waits for ${this.pending().choice}` };
    if (this.handSize()) return this.discardOne(a);
    const ids = (a.cards || []).map((c) => this.fid(c));
    if (ids.some((f) => !inp.cards.some((c) => c.id === f)) || new Set(ids).size !== ids.length
        || ids.length < inp.min || ids.length > inp.max) return { legal: false, reason: `Forge asks ${inp.min}..${inp.max} of its cards` };
    if (!(await this.answer({ type: "chooseCardsDecision", chosenCardIds: ids }))) return { legal: false, reason: `Forge refused: ${this.errors.at(-1)}` };
    await this.advance();
    return { legal: true };
  }

  // The discard to hand size (CR 514.1): the model's player discards one card a `choose`
  // while the hand holds more than seven; Forge asks the n cards at once (chooseCards, min = max
  // = n). The driver collects the model's cards and answers Forge with the n-th; until then it
  // reports each card collected as discarded (its `zones`) and the choice still pending, which
  // Forge's state becomes once answered. A count that differs shows as a `pending` that differs:
  // docs/engine-deals.md.
  async discardOne(a) {
    const inp = this.prompt.input;
    const f = (a.cards || []).length === 1 ? this.fid(a.cards[0]) : null;
    if ((a.cards || []).length !== 1) return { legal: false, reason: "the discard to hand size is one card a choose" };
    if (!inp.cards.some((c) => c.id === f) || this.discarding.includes(f)) return { legal: false, reason: "Forge does not offer that card" };
    this.discarding.push(f);
    if (this.discarding.length < inp.min) return { legal: true };
    const ids = this.discarding;
    this.discarding = [];
    if (!(await this.answer({ type: "chooseCardsDecision", chosenCardIds: ids }))) return { legal: false, reason: `Forge refused: ${this.errors.at(-1)}` };
    await this.advance();
    return { legal: true };
  }

  // Forge's questions while casting, answered from the action (targets, X, kicker), the cost
  // paid from the pool that our `tap` actions filled: a pool that cannot pay cancels the cast.
  async followUp(a) {
    for (let guard = 0; guard < 50 && !this.over; guard++) {
      const inp = this.prompt.input;
      if (inp.type === "chooseAction") return null;
      let out;
      if (inp.type === "chooseBoardTargets") {
        // Forge asks again while fewer than maxTargets are chosen (Fire: "one or two targets",
        // asked one at a time, the ones chosen no longer offered): the targets not yet given,
        // then none. With one target Fire's 2 damage all go to it: Forge asks no division.
        const want = (a.targets || []).map((t) => t.startsWith("player:") ? `player-${t.slice(7)}` : this.fid(t));
        const rest = want.slice(inp.chosenTargets || 0);
        const chosen = inp.candidates.filter((c) => rest.includes(c.id));
        if (chosen.length !== rest.length || chosen.length + (inp.chosenTargets || 0) < inp.minTargets) {
          await this.answer({ type: "cancel" }); return `target not offered (${want})`;
        }
        out = { type: "boardTargets", chosen };
      } else if (inp.type === "chooseNumber") {
        const x = a.x || 0;
        if (x < inp.min || x > inp.max) { await this.answer({ type: "numberDecision", chosenNumber: inp.min }); return `X=${x} out of ${inp.min}..${inp.max}`; }
        out = { type: "numberDecision", chosenNumber: x };
      } else if (inp.type === "chooseFromSelection") {
        const k = inp.options.findIndex((o) => /kick/i.test(o.label));
        out = { type: "selectionDecision", chosenIndices: a.kicker && k >= 0 ? [k] : [] };
      } else if (inp.type === "payManaCost") {
        if (!inp.canConfirmFromPool) { await this.answer({ type: "cancel" }); return `the pool cannot pay ${inp.manaCost}`; }
        out = { type: "pay", auto: false };
      } else {
        return `unexpected prompt ${inp.type}`;
      }
      if (!(await this.answer(out))) return `Forge refused: ${this.errors.at(-1)}`;
    }
    return null;
  }

  dispose() { this.engine?.dispose(); }
}

async function main() {
  const [installDir, flag, count] = process.argv.slice(2);
  const entry = join(installDir, "node_modules", "@manabrew", "forge-wasm", "node.js");
  let mod;
  try { mod = await import(pathToFileURL(entry).href); } catch (e) {
    process.stderr.write(`cannot load ${entry}: ${e.message}\n`); process.exit(2);
  }
  if (flag === "--selfplay") {
    for (let i = 0; i < Number(count || 1); i++) {
      const secs = await playOne(mod.createForgeEngine, [DECK, DECK], i + 1);
      process.stdout.write(JSON.stringify({ game: i, seconds: secs }) + "\n");
    }
    process.exit(0);
  }
  const reply = (o) => process.stdout.write(JSON.stringify(o) + "\n");
  let game = null;
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    let req;
    try { req = JSON.parse(line); } catch { reply({ ok: false, error: "request is not JSON" }); continue; }
    try {
      if (req.op === "hello") {
        reply({ ok: true, name: "forge", version: `forge-wasm ${mod.VERSION}`, supports: {
          cards: DEALT, verbs: ["pass", "cast", "play", "tap", "plot", "choose"], hows: ["normal", "flashback", "plotted"],
          observe: ["zones", "plotted", "pending", "life", "mana", "turn", "active", "step", "priority", "stack"],
          players: [2], max_x: 3, lists_actions: false, planes: [], lacks: ["extra_turns", "spend"] } });
      } else if (req.op === "setup") {
        reply({ ok: false, unsupported: true, error: "Forge cannot be set up in a position (no state injection); use --engine-deals" });
      } else if (req.op === "deal") {
        game?.dispose();
        game = new Game(mod, req.decks, Number(process.env.MTGCHECK_FORGE_TIMEOUT_MS || 60000));
        await game.start();
        reply({ ok: true, setup: game.setup(), hidden_libraries: true });
      } else if (req.op === "quit") {
        reply({ ok: true }); game?.dispose(); process.exit(0);
      } else if (!game) {
        reply({ ok: false, error: `no game: ${req.op} needs a deal (Forge cannot be set up)` });
      } else if (req.op === "actions") {
        reply({ ok: true, actions: game.actions() });
      } else if (req.op === "apply") {
        reply({ ok: true, ...(await game.apply(req.action)) });
      } else if (req.op === "observe") {
        reply({ ok: true, observation: game.observe() });
      } else {
        reply({ ok: false, error: `unknown op ${req.op}` });
      }
    } catch (e) {
      reply({ ok: false, error: `${req.op}: ${e.message}` });
    }
  }
  game?.dispose();
  process.exit(0);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
