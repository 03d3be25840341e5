"""Executors and work units: a Dask cluster gives the verdicts a local run gives.

A real two-worker ``distributed.LocalCluster`` (processes, one thread each) is started once
for the module; runs on it are compared with runs in this process.  The Hypothesis shards'
seeds are checked to replay on their own, and the counterexample store is checked to be
written once, by the main process, however many units find the same violation.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mtgcheck import check_run as cr
from mtgcheck.checkers import hypo
from mtgcheck.checkers.result import HOLDS, UNKNOWN, VACUOUS, VIOLATED, Verdict
from mtgcheck.configs import BUILTIN, SMALL
from mtgcheck.errors import UsageError
from mtgcheck.executors import DaskExecutor, make_executor
from mtgcheck.properties.catalogue import BY_ID, PROPERTIES
from mtgcheck.rulesets import RuleSet

from .conftest import ROOT

distributed = pytest.importorskip("distributed")

PLOT_PROP = "plot-only-main-phase-empty-stack"
# A few properties the `costs` configuration exercises, and one it does not (vacuous).
COSTS_PROPS = ("mandatory-additional-costs-paid", "make-your-own-luck-plots-at-most-one-nonland",
               "every-card-in-one-zone", "planar-die-cost-rises")


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as c:
        yield c


def _cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mtgcheck.cli", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=300, env={"CI": "true", "PATH": "/usr/bin:/bin"})


def _cells(report: Path) -> dict[tuple[str, str], str]:
    return {(c["property"], c["checker"]): c["status"] for c in json.loads(report.read_text())["combined"]}


def _small_config_file(tmp_path: Path, name: str = "break-plot") -> Path:
    """A built-in small position as a configuration file (the 116.2k variant breaks it in 3 steps)."""
    conf = SMALL[name]
    pos = conf.position
    doc = {"format": "mtgcheck.config/1", "name": name,
           "setup": {"players": pos.players, "turn": pos.turn, "active": pos.active, "step": pos.step,
                     "life": list(pos.life), "mana": list(pos.mana),
                     "cards": [{"id": c.id, "card": c.card, "owner": c.owner, "zone": c.zone,
                                **({"plotted_turn": c.plotted_turn} if c.plotted_turn else {})} for c in pos.cards]},
           "max_turn": conf.max_turn, "depth": conf.depth, "hypothesis_examples": 100,
           "hypothesis_steps": conf.hypothesis_steps}
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(doc))
    return path


def test_scheduler_run_gives_the_local_verdicts(cluster: Any, tmp_path: Path) -> None:
    props = [a for p in COSTS_PROPS for a in ("--property", p)]
    common = ["check", "--checker", "graph", "--checker", "hypothesis", "--config", "costs", *props, "--no-store",
              "--examples", "60", "--shards", "4"]
    local, remote = tmp_path / "local.json", tmp_path / "remote.json"
    r1 = _cli(*common, "-j", "1", "--json", str(local))
    r2 = _cli(*common, "--scheduler", cluster.scheduler_address, "--json", str(remote))
    assert r2.returncode == r1.returncode, r2.stderr
    assert f"scheduler {cluster.scheduler_address}" in r2.stderr
    cells = _cells(local)
    assert len(cells) == 2 * len(COSTS_PROPS)
    assert _cells(remote) == cells
    assert {HOLDS, VACUOUS} <= set(cells.values())  # the comparison covers more than one status
    # The shards' merged counts are the same too: the same seeds ran the same examples.
    by = {(v["property"], v["checker"]): v["stats"] for v in json.loads(remote.read_text())["verdicts"]}
    for v in json.loads(local.read_text())["verdicts"]:
        if v["checker"] == "hypothesis":
            assert by[(v["property"], "hypothesis")]["examples"] == v["stats"]["examples"]
            assert by[(v["property"], "hypothesis")]["seeds"] == v["stats"]["seeds"]


def _outcome(v: Verdict) -> tuple[Any, ...]:
    """What a verdict found, without its wall time."""
    return v.status, v.trace, {k: x for k, x in v.stats.items() if k != "unit_seconds"}


def test_a_shard_failure_replays_locally_from_its_seed(cluster: Any) -> None:
    conf, opts = SMALL["break-plot"], cr.Options(rules=RuleSet.parse("116.2k"), examples=16, seed=7, hypothesis_slots=4)
    ex = DaskExecutor(distributed.Client(cluster.scheduler_address, set_as_default=False))
    try:
        remote = cr.run_check(["hypothesis"], [PLOT_PROP], [conf], opts, executor=ex)
    finally:
        ex.shutdown()
    local = cr.run_check(["hypothesis"], [PLOT_PROP], [conf], opts, jobs=1)
    (v,) = remote
    assert v.status == VIOLATED and [_outcome(x) for x in local] == [_outcome(v)]
    # The printed seed alone (slot i: seed S + i * stride, N // k examples) finds it again.
    slot = v.stats["slot"]
    assert v.stats["seed"] == cr.slot_seed(7, slot)
    again = hypo.check(conf, [BY_ID[PLOT_PROP]], seed=v.stats["seed"], variant="116.2k",
                       examples=cr.slot_examples(16, 4, slot))
    assert again[0].status == VIOLATED and again[0].trace == v.trace


def test_two_units_finding_one_counterexample_store_it_once(cluster: Any, tmp_path: Path) -> None:
    store_dir = tmp_path / "cx"
    conf_file = _small_config_file(tmp_path)
    r = _cli("check", "--checker", "graph", "--checker", "hypothesis", "--config", str(conf_file),
             "--variant", "116.2k", "--property", PLOT_PROP, "--scheduler", cluster.scheduler_address, "--shards", "2",
             "--store", str(store_dir), cwd=tmp_path)
    assert r.returncode == 1, r.stdout + r.stderr
    assert r.stdout.count("VIOLATED ") == 2  # graph and Hypothesis, on different workers
    assert r.stdout.count("    stored: ") == 1 and r.stdout.count("already stored: ") == 1
    files = [p for p in store_dir.rglob("*") if p.is_file()]
    assert len(files) == 1 and files[0].parent.name == "variant-116.2k"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["break-plot.json", "cx"]  # nothing else written
    # Workers never even import the store: only the main process writes counterexamples.
    client = distributed.Client(cluster.scheduler_address, set_as_default=False)
    try:
        loaded = client.run(lambda: [m for m in sys.modules if m in ("mtgcheck.store", "mtgcheck.replay")])
    finally:
        client.close()
    assert len(loaded) == 2 and all(mods == [] for mods in loaded.values())


def test_unreachable_scheduler_is_one_line_exit_2(tmp_path: Path) -> None:
    t0 = time.monotonic()
    out = tmp_path / "r.json"
    r = _cli("check", "--checker", "graph", "--config", "costs", "--scheduler", "tcp://127.0.0.1:1",
             "--json", str(out), "--no-store")
    assert r.returncode == 2 and time.monotonic() - t0 < 30
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert "--scheduler" in r.stderr and "tcp://127.0.0.1:1" in r.stderr
    assert not out.exists()


def test_missing_dask_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from mtgcheck.cli import main

    monkeypatch.setitem(sys.modules, "distributed", None)  # `import distributed` now raises ImportError
    with pytest.raises(UsageError, match=r"pip install mtgcheck\[dask\]"):
        make_executor("tcp://127.0.0.1:8786", 2)
    result = CliRunner().invoke(main, ["check", "--scheduler", "tcp://127.0.0.1:8786", "--no-store"])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "pip install mtgcheck[dask]" in lines[0]


def test_without_scheduler_a_local_pool() -> None:
    from concurrent.futures import ProcessPoolExecutor

    ex = make_executor(None, 2)
    try:
        assert isinstance(ex, ProcessPoolExecutor) and ex.submit(sum, [1, 2]).result() == 3
    finally:
        ex.shutdown()


# --- the plan and the merge (no cluster) -------------------------------------------------


def test_plan_hypothesis_shards_cover_the_budget_once() -> None:
    ids = [p.id for p in PROPERTIES]
    # By default one slot per configuration, seeded with the run seed: the unsharded run.
    default = [u for u in cr.plan(["hypothesis"], ids, BUILTIN, cr.Options(seed=5)) if u.checker == "hypothesis"]
    assert [(u.conf, u.slots, len(u.prop_ids)) for u in default] == [(c, (0,), len(ids)) for c in BUILTIN]
    assert cr.slot_seed(5, 0) == 5
    opts = cr.Options(hypothesis_groups=2, hypothesis_slots=4)
    units = cr.plan(["hypothesis", "graph", "z3"], ids, BUILTIN, opts)
    assert [u.checker for u in units] == sorted((u.checker for u in units), key=cr.CHECKERS.index)
    for conf in BUILTIN:
        mine = [u for u in units if u.conf is conf]
        assert sum(u.checker != "hypothesis" for u in mine) == 2  # z3 and graph: one unit each
        shards = [u for u in mine if u.checker == "hypothesis"]
        for pid in ids:  # every property in exactly one shard per slot
            assert sorted(s for u in shards if pid in u.prop_ids for s in u.slots) == list(range(opts.hypothesis_slots))
        total = sum(cr.slot_examples(conf.hypothesis_examples, opts.hypothesis_slots, i)
                    for i in range(opts.hypothesis_slots))
        assert total == conf.hypothesis_examples
    seeds = {cr.slot_seed(s, i) for s in range(3) for i in range(opts.hypothesis_slots)}
    assert len(seeds) == 3 * opts.hypothesis_slots  # nearby run seeds share no slot


def _shard(status: str, slot: int, trace: int = 0, witnesses: int = 1) -> Verdict:
    return Verdict("hypothesis", "p", "c", status, depth=trace or 40, trace=[object()] * trace,  # type: ignore[list-item]
                   stats={"examples": 10, "steps": 50, "witnesses": witnesses, "seed": slot, "slot": slot})


def test_merge_shards_like_combine() -> None:
    merged = cr.merge_shards([_shard(HOLDS, 1), _shard(VIOLATED, 3, trace=4), _shard(VIOLATED, 2, trace=2)])
    assert len(merged) == 1 and merged[0].status == VIOLATED and merged[0].stats["slot"] == 2
    assert cr.merge_shards([_shard(HOLDS, 0), _shard(UNKNOWN, 1)])[0].status == UNKNOWN
    (held,) = cr.merge_shards([_shard(VACUOUS, 0, witnesses=0), _shard(HOLDS, 1, witnesses=3)])
    assert held.status == HOLDS and held.stats["witnesses"] == 3 and held.stats["examples"] == 20
    assert cr.merge_shards([_shard(VACUOUS, 0, witnesses=0)] * 2)[0].status == VACUOUS
    other = Verdict("graph", "p", "c", HOLDS)
    assert cr.merge_shards([other, _shard(HOLDS, 0)])[0] is other


@pytest.mark.deep
def test_scheduler_run_gives_the_local_verdicts_everywhere(cluster: Any, tmp_path: Path) -> None:
    """Every cell (property, checker) the same from a Dask cluster as from local workers; on the
    two built-ins whose fixpoints are small (the others' cost the search, not the plumbing)."""
    common = ["check", "--checker", "graph", "--checker", "hypothesis", "--no-store", "--shards", "3",
              "--config", "flashback", "--config", "costs"]
    local, remote = tmp_path / "local.json", tmp_path / "remote.json"
    r1 = _cli(*common, "-j", "2", "--json", str(local))
    r2 = _cli(*common, "--scheduler", cluster.scheduler_address, "--json", str(remote))
    assert r1.returncode == r2.returncode
    assert _cells(remote) == _cells(local) and len(_cells(local)) == 2 * len(PROPERTIES)


def test_a_configuration_sent_to_another_process_hashes_as_one_built_there(tmp_path: Path) -> None:
    """``Config`` keeps its hash (every per-configuration cache reads it); a worker, with its
    own string hash seed, must work it out again, or its caches would miss or mix."""
    import os
    import pickle

    from mtgcheck.model.setup import build

    cfg, _ = build(BUILTIN[0].position)
    (tmp_path / "cfg.pickle").write_bytes(pickle.dumps(cfg))
    code = ("import pickle, sys; from mtgcheck.configs import BUILTIN; from mtgcheck.model.setup import build; "
            "here, _ = build(BUILTIN[0].position); sent = pickle.loads(open(sys.argv[1], 'rb').read()); "
            "print(sent == here, hash(sent) == hash(here), {here: 1}.get(sent))")
    seed = "1" if os.environ.get("PYTHONHASHSEED") != "1" else "2"
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "cfg.pickle")], capture_output=True, text=True,
                         env={**os.environ, "PYTHONHASHSEED": seed}, check=True).stdout.split()
    assert out == ["True", "True", "1"]
