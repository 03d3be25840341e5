"""One position's search spread over a Dask cluster gives the local search's results.

A two-worker ``distributed.LocalCluster`` (in this process: quick to start, and the workers
run the same code) is started once for the module.  Each search runs both ways, through
:func:`mtgcheck.checkers.graph.check` and :func:`mtgcheck.checkers.distributed_search.check`,
and everything a verdict says is compared: status, depth, detail, the trace action by action,
the state and edge counts, the witnesses and the coverage.  A partition that drops states is
shown to be caught by that comparison.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mtgcheck.checkers import distributed_search as ds, graph
from mtgcheck.checkers.result import PROVED, VIOLATED, Verdict
from mtgcheck.configs import BUILTIN, SMALL
from mtgcheck.errors import UsageError
from mtgcheck.model.mutants import BY_ID as MUTANT
from mtgcheck.properties.catalogue import PROPERTIES

distributed = pytest.importorskip("distributed")

COSTS = next(c for c in BUILTIN if c.name == "costs")


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as c:
        yield c


def _said(v: Verdict) -> tuple[Any, ...]:
    """Everything a verdict says, but the note of where it ran and its time."""
    return (v.property, v.status, v.depth, v.detail, [repr(a) for a in v.trace],
            {k: x for k, x in v.stats.items() if k != "backend_note"})


def _both(client: Any, conf: Any, parts: int | None = None, **kw: Any) -> tuple[list[Verdict], Any, list[Verdict], Any]:
    local, lex = graph.check(conf, PROPERTIES, unbounded=True, backend="python", **kw)
    spread, sex = ds.check(client, conf, PROPERTIES, unbounded=True, parts=parts, **kw)
    return local, lex, spread, sex


def _same(local: list[Verdict], lex: Any, spread: list[Verdict], sex: Any) -> None:
    assert (len(sex.states), sex.edges, sex.depth, sex.fixpoint, sex.complete) == (
        len(lex.states), lex.edges, lex.depth, lex.fixpoint, lex.complete)
    assert [_said(v) for v in spread] == [_said(v) for v in local]
    assert sum(1 for n in sex.partition_states if n) >= 2, "the search was spread over the partitions"
    assert sum(sex.partition_states) == len(lex.states)


@pytest.mark.parametrize("name, variant", [("break-plot", "116.2k"), ("costs", None)])
def test_the_spread_search_gives_the_local_verdicts_counts_and_traces(client: Any, name: str,
                                                                      variant: str | None) -> None:
    conf = SMALL.get(name) or COSTS
    local, lex, spread, sex = _both(client, conf, variant=variant)
    _same(local, lex, spread, sex)
    assert lex.fixpoint
    if variant:  # the 116.2k variant breaks a property: its shortest trace is the local one
        broken = [v for v in spread if v.status == VIOLATED]
        assert [v.property for v in broken] == ["plot-only-main-phase-empty-stack"] and broken[0].trace
    else:
        assert any(v.status == PROVED for v in spread)


@pytest.mark.parametrize("mutant", ["normal-cast-marked-for-exile", "left-player-takes-extra-turn"])
@pytest.mark.parametrize("first_violation", [False, True])
def test_mutants_break_the_same_properties_on_the_same_traces(client: Any, mutant: str,
                                                             first_violation: bool) -> None:
    """Two properties or more broken at once (no-deadlock among them when a player who left
    begins a turn), three partitions on two workers (a partition per worker is not assumed),
    stopping at the first violation or not."""
    m = MUTANT[mutant]
    local, lex, spread, sex = _both(client, SMALL[m.position], parts=3, variant=m.variant, disabled=m.disabled,
                                    first_violation=first_violation)
    _same(local, lex, spread, sex)
    assert sum(v.status == VIOLATED for v in spread) >= 2


def test_a_partition_that_drops_states_is_caught(client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison above fails when a partition loses what it was sent (the workers run in
    this process, so the patched partition runs there)."""
    settle = ds._settle

    def lossy(part: Any, number: int, done: Any, sender: Any, *buckets: Any) -> Any:
        if part.me == 1:
            buckets = tuple(b[1:] for b in buckets)
        return settle(part, number, done, sender, *buckets)

    monkeypatch.setattr(ds, "_settle", lossy)
    local, lex, spread, sex = _both(client, SMALL["break-bolt"])
    assert len(sex.states) < len(lex.states)
    with pytest.raises(AssertionError):
        _same(local, lex, spread, sex)


def test_check_scheduler_exhaustive_spreads_the_search(client: Any, tmp_path: Path) -> None:
    """``mtgcheck check --scheduler ADDRESS --exhaustive``: the graph search runs across the
    cluster (its verdicts say so), with the local run's report."""
    from mtgcheck.cli import main

    from .test_executors import _small_config_file

    conf = str(_small_config_file(tmp_path))  # break-plot, which the 116.2k variant breaks
    common = ["check", "--checker", "graph", "--config", conf, "--exhaustive", "--graph-backend", "python",
              "--no-store", "--variant", "116.2k"]
    local, remote = tmp_path / "local.json", tmp_path / "remote.json"
    r1 = CliRunner().invoke(main, [*common, "-j", "1", "--json", str(local)])
    r2 = CliRunner().invoke(main, [*common, "--scheduler", client.scheduler.address, "--json", str(remote)])
    assert r2.exit_code == r1.exit_code, r2.output
    a, b = (json.loads(p.read_text()) for p in (local, remote))
    assert a["combined"] == b["combined"]
    assert any(c["status"] == VIOLATED for c in b["combined"])
    strip = ("backend_note", "unit_seconds")
    for x, y in zip(a["verdicts"], b["verdicts"], strict=True):
        assert "partitions over 2 Dask workers" in y["stats"]["backend_note"]
        assert {k: v for k, v in y["stats"].items() if k not in strip} == {
            k: v for k, v in x["stats"].items() if k not in strip}
        assert (y["status"], y["trace"], y["depth"]) == (x["status"], x["trace"], x["depth"])


def test_export_graph_is_refused_with_a_spread_search(client: Any, tmp_path: Path) -> None:
    from mtgcheck.cli import main

    r = CliRunner().invoke(main, ["check", "--checker", "graph", "--config", "costs", "--exhaustive",
                                  "--no-store", "--scheduler", client.scheduler.address,
                                  "--export-graph", str(tmp_path / "g")])
    assert r.exit_code == 2 and "--export-graph" in r.output


def test_a_cluster_showing_no_worker_is_waited_on_before_it_is_called_empty(monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker still registering (under load) is briefly none: the search waits for one,
    ``WORKER_WAIT`` seconds, and only then says the cluster is empty, on one line (a user
    error: the CLI prints it and exits 2), and for how long it waited; a worker that shows
    up meanwhile is used."""
    class Empty:
        def __init__(self) -> None:
            self.waited: list[float] = []

        def scheduler_info(self) -> dict[str, Any]:
            return {"workers": {}}

        def wait_for_workers(self, n: int, timeout: float) -> None:
            self.waited.append(timeout)
            raise TimeoutError

    monkeypatch.setattr(ds, "WORKER_WAIT", 2.0)  # the fake waits no time at all
    empty = Empty()
    with pytest.raises(UsageError, match=r"^--scheduler: expected a Dask cluster with a worker, got none \(waited 2 s for one\)$"):
        ds.check(empty, COSTS, PROPERTIES)
    assert empty.waited == [2.0]

    class Late(Empty):
        def scheduler_info(self) -> dict[str, Any]:
            return {"workers": {"w": {}} if self.waited else {}}

        def wait_for_workers(self, n: int, timeout: float) -> None:
            self.waited.append(timeout)

        def scatter(self, *a: Any, **kw: Any) -> Any:
            raise LookupError("reached the search")  # past the wait: the worker is used

        submit = map = scatter

    late = Late()
    with pytest.raises(LookupError, match="reached the search"):
        ds.check(late, COSTS, PROPERTIES)
    assert late.waited == [2.0]
