"""Transitions per second of ``step()`` on random legal play, on each built-in configuration.

Prints, per configuration, the median over repeats of: steps per second of ``step()``
alone, and of ``legal_actions()`` + ``step()`` (what a random player pays).  Usage:

    python bench/step_rate.py [--seed S] [--repeats R] [--games G]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from figures_doc import write_section  # noqa: E402

from mtgcheck.configs import BUILTIN  # noqa: E402
from mtgcheck.model.actions import catalogue, enabled_transition, legal_actions  # noqa: E402
from mtgcheck.model.setup import build  # noqa: E402


def play(conf, seed: int, games: int, length: int = 80) -> tuple[float, float, int]:  # type: ignore[no-untyped-def]
    cfg, s0 = build(conf.position)
    catalogue(cfg)
    rng = random.Random(seed)
    steps, t_step, t_all = 0, 0.0, 0.0
    for _ in range(games):
        s = s0
        for _ in range(length):
            t0 = time.perf_counter()
            acts = legal_actions(cfg, s)
            if not acts:
                break
            a = rng.choice(acts)
            t1 = time.perf_counter()
            s = enabled_transition(cfg, s, a).effect(s)  # type: ignore[union-attr]
            t2 = time.perf_counter()
            t_step += t2 - t1
            t_all += t2 - t0
            steps += 1
    return steps / t_step, steps / t_all, steps


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--games", type=int, default=50)
    ap.add_argument("--no-write", action="store_true", help="print only; leave docs/figures.md alone")
    args = ap.parse_args()
    rows = []
    print(f"seed {args.seed}, {args.repeats} repeats of {args.games} random games (<= 80 actions each)")
    print(f"{'configuration':<12} {'step()/s':>10} {'legal+step/s':>13} {'steps':>7}")
    for conf in BUILTIN:
        runs = [play(conf, args.seed + r, args.games) for r in range(args.repeats)]
        med_step = statistics.median(r[0] for r in runs)
        med_all = statistics.median(r[1] for r in runs)
        print(f"{conf.name:<12} {med_step:>10.0f} {med_all:>13.0f} {runs[0][2]:>7}")
        rows.append([conf.name, round(med_step), round(med_all), runs[0][2]])
    if not args.no_write:
        write_section("the model: transitions per second", ["config", "step()/s", "legal_actions()+step()/s", "steps"],
                      rows, script=f"python bench/step_rate.py --seed {args.seed} --repeats {args.repeats} "
                                   f"--games {args.games}",
                      note=f"Medians of {args.repeats} repeats of {args.games} random games (<= 80 actions each) on "
                           "the interpreter: what Hypothesis, the page and a random player pay per step.")


if __name__ == "__main__":
    main()
