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
  for await (const line of createInterface({ input: process.stdin })) {
    let req;
    try { req = JSON.parse(line); } catch { reply({ ok: false, error: "request is not JSON" }); continue; }
    if (req.op === "hello") {
      reply({ ok: true, name: "forge", version: `forge-wasm ${mod.VERSION}`, supports: {
        cards: CARDS, verbs: ["pass", "cast"], hows: ["normal", "flashback", "plotted"], observe: [],
        players: [2], lists_actions: false, planes: [], lacks: ["extra_turns"] } });
    } else if (req.op === "setup") {
      reply({ ok: false, unsupported: true, error: "Forge cannot be set up in a position (no state injection); use --engine-deals" });
    } else if (req.op === "quit") {
      reply({ ok: true }); process.exit(0);
    } else {
      reply({ ok: false, error: `no game: ${req.op} needs a setup, which Forge cannot do` });
    }
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
