"""How long the explore page waits for a step: the HTTP round trip of /api/view on each built-in.

A step on the page is one POST with the whole trace (the server replays it), so the figure is
the median over a game of growing traces: random legal actions (seeded) up to 40 steps, each
answered with the legal actions, the properties and the position; then the same with every
illegal action and its refusal asked for.  The page needs < 100 ms.

    python bench/explore_step.py [--steps 40] [--seed 0] [--no-write]
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import socket
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from figures_doc import write_section  # noqa: E402

from mtgcheck.configs import BUILTIN  # noqa: E402
from mtgcheck.explore.server import TOKEN_HEADER, ExploreServer  # noqa: E402
from mtgcheck.explore.session import Explorer, open_source  # noqa: E402


def game(srv: ExploreServer, steps: int, rng: random.Random, illegal: bool) -> list[float]:
    conn = http.client.HTTPConnection("127.0.0.1", srv.port)
    conn.connect()  # http.client writes headers and body apart: like a browser, don't wait on Nagle
    conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    headers = {"Host": f"127.0.0.1:{srv.port}", TOKEN_HEADER: srv.token, "Content-Type": "application/json"}
    trace: list[dict[str, object]] = []
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        conn.request("POST", "/api/view", json.dumps({"trace": trace, "illegal": illegal}), headers)
        view = json.loads(conn.getresponse().read())
        times.append(time.perf_counter() - t0)
        if not view["legal"]:
            break
        # A player who leaves ends a two-player game: play on instead, while there is another choice.
        moves = [a for a in view["legal"] if a["doc"]["do"] != "leave"] or view["legal"]
        trace.append(rng.choice(moves)["doc"])
    conn.close()
    return times


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--games", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-write", action="store_true", help="print only; leave docs/figures.md alone")
    args = ap.parse_args()
    print(f"seed {args.seed}, {args.games} games of up to {args.steps} steps per built-in")
    rows = []
    for c in BUILTIN:
        with ExploreServer(Explorer(open_source(c.name))).running() as srv:
            row: list[object] = [c.name]
            for illegal in (False, True):
                rng = random.Random(args.seed)
                ts = [t for _ in range(args.games) for t in game(srv, args.steps, rng, illegal)]
                row += [statistics.median(ts) * 1000, max(ts) * 1000]
            row.append(len(ts))
        print(f"{c.name:12} median {row[1]:.1f} ms (max {row[2]:.1f}); with illegal actions median {row[3]:.1f} ms "
              f"(max {row[4]:.1f}); {row[5]} requests")
        rows.append(row)
    if not args.no_write:
        write_section("explore: one step of the page", ["built-in", "median ms", "max ms",
                                                      "median ms, illegal shown", "max ms, illegal shown",
                                                      "requests"], rows,
                      script=f"python bench/explore_step.py --steps {args.steps} --games {args.games} --seed {args.seed}",
                      note="The HTTP round trip of one step (POST /api/view with the whole trace, replayed by the"
                           " standard library's server): the page needs < 100 ms.")


if __name__ == "__main__":
    main()
