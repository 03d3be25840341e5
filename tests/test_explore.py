"""`mtgcheck explore`: what the page is told (session) and what the server refuses (security)."""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

from mtgcheck.explore.server import TOKEN_HEADER, ExploreServer
from mtgcheck.explore.session import BadRequest, Explorer, open_source
from mtgcheck.store import stored

from .conftest import ROOT

PLOT_WAITS = str(ROOT / "tests" / "scenarios" / "plot-waits-a-turn.json")


@pytest.fixture
def server() -> Iterator[ExploreServer]:
    with ExploreServer(Explorer(open_source(PLOT_WAITS))).running() as srv:
        yield srv


def request(srv: ExploreServer, method: str, path: str, body: Any = None, *, host: str | None = None,
            token: str | None = "ok", ctype: str = "application/json") -> tuple[int, dict[str, Any]]:
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
    headers = {"Host": host or f"127.0.0.1:{srv.port}"}
    if token is not None:
        headers[TOKEN_HEADER] = srv.token if token == "ok" else token
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = ctype
    conn.request(method, path, body=data, headers=headers)
    r = conn.getresponse()
    raw = r.read()
    conn.close()
    return r.status, json.loads(raw) if r.getheader("Content-Type", "").startswith("application/json") else {}


# --- the session: the same verdicts and words as `mtgcheck scenario` ---------------------------

def test_scenario_opens_with_its_trace_and_the_refusal_scenario_prints() -> None:
    e = Explorer(open_source(PLOT_WAITS))
    v = e.view(e.opened.trace)
    assert [s["legal"] for s in v["trace"]] == [True, False]
    assert v["trace"][1]["cr"] == "702.170d"
    assert v["trace"][1]["why"] == "a plotted card can't be cast on the turn it became plotted"
    exile = v["position"]["players"][0]["zones"]["exile"]
    assert [(c["id"], c["plotted"]) for c in exile] == [("show", 1)]


def test_every_legal_action_steps_and_every_illegal_one_says_why() -> None:
    e = Explorer(open_source("plot"))
    v = e.view([], illegal=True)
    legal = {a["text"] for a in v["legal"]}
    illegal = {a["text"]: a for a in v["illegal"]}
    assert legal and illegal and not legal & set(illegal)
    assert all(a["cr"] and a["why"] for a in illegal.values())
    for a in v["legal"]:  # each button steps the model: the trace grows by a legal step
        after = e.view([a["doc"]])
        assert after["trace"][0]["legal"] and after["at"] == 1


def test_branching_from_an_earlier_step_is_a_shorter_trace() -> None:
    e = Explorer(open_source("plot"))
    first = e.view([])["legal"][0]["doc"]
    v1 = e.view([first])
    second = v1["legal"][0]["doc"]
    v2 = e.view([first, second], at=1)
    assert v2["position"] == v1["position"] and v2["at"] == 1
    with pytest.raises(BadRequest):
        e.view([first], at=2)


def test_a_malformed_trace_is_a_bad_request() -> None:
    e = Explorer(open_source("plot"))
    for bad in ([{"do": "cast"}], [{"player": 0, "do": "cast", "card": "nope", "how": "normal"}], ["x"]):
        with pytest.raises(BadRequest):
            e.view(bad)


@pytest.mark.parametrize("cx", [p for p in stored(ROOT / "counterexamples") if "divergence" not in p.name],
                         ids=lambda p: p.name)
def test_a_counterexample_opens_at_its_violating_step_with_the_property_broken(cx: Path) -> None:
    e = Explorer(open_source(str(cx)))
    v = e.view(e.opened.trace, e.opened.at)
    broken = [p for p in v["properties"] if p["broken"]]
    assert len(broken) == 1 and broken[0]["id"] == e.opened.violates
    assert broken[0]["verdict"] == "violated", cx
    if e.opened.at > 0:  # the step before holds it: the page opens where it broke
        before = e.view(e.opened.trace, e.opened.at - 1)
        assert next(p for p in before["properties"] if p["broken"])["verdict"] != "violated"


def test_unknown_source_is_a_one_line_usage_error(tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "mtgcheck.cli", "explore", "no-such-thing", "--no-browser"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "no-such-thing" in r.stderr


def test_saved_trace_passes_mtgcheck_scenario_as_saved(tmp_path: Path) -> None:
    e = Explorer(open_source(PLOT_WAITS))
    v = e.view(e.opened.trace)
    marks = ["legal" if s["legal"] else "illegal" for s in v["trace"]]
    doc = e.scenario(e.opened.trace, marks, ["zones", "plotted", "turn", "stack", "life"], "saved", [])
    out = tmp_path / "saved.json"
    out.write_text(json.dumps(doc))
    r = subprocess.run([sys.executable, "-m", "mtgcheck.cli", "scenario", str(out)], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "CR 702.170d" in r.stdout
    # A mark the model contradicts makes a file that fails, as the user asked.
    doc = e.scenario(e.opened.trace, ["legal", "legal"], [], "wrong", [])
    out.write_text(json.dumps(doc))
    r = subprocess.run([sys.executable, "-m", "mtgcheck.cli", "scenario", str(out)], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 1


# --- the server: safe on a shared machine ------------------------------------------------------

def test_binds_loopback_only(server: ExploreServer) -> None:
    assert server.server_address[0] == "127.0.0.1"
    assert server.url.startswith(f"http://127.0.0.1:{server.port}/?token=")


def test_refuses_a_foreign_host_header(server: ExploreServer) -> None:
    status, _ = request(server, "GET", "/")
    assert status == 200
    for host in ("evil.example", f"evil.example:{server.port}", f"127.0.0.1:{server.port + 1}"):
        status, doc = request(server, "GET", "/", host=host)
        assert status == 403 and "Host" in doc["error"]
        status, _ = request(server, "POST", "/api/view", {"trace": []}, host=host)
        assert status == 403


def test_state_requests_need_the_token(server: ExploreServer) -> None:
    assert request(server, "POST", "/api/view", {"trace": []})[0] == 200
    for token in (None, "", "wrong"):
        assert request(server, "POST", "/api/view", {"trace": []}, token=token)[0] == 403
        assert request(server, "GET", "/api/open", token=token)[0] == 403
    assert request(server, "POST", "/api/view", {"trace": []}, ctype="text/plain")[0] == 400


def test_save_writes_only_where_asked_and_never_over_a_file_unasked(server: ExploreServer, tmp_path: Path) -> None:
    _, opened = request(server, "GET", "/api/open")
    body = {"trace": opened["trace"], "marks": ["legal", "illegal"], "expect": ["zones"], "rules": ["702.170d"]}
    out = tmp_path / "s.json"
    assert request(server, "POST", "/api/save", {**body, "path": str(out)}, token="wrong")[0] == 403
    assert not out.exists()
    assert request(server, "POST", "/api/save", {**body, "path": "relative.json"})[0] == 400
    assert not (Path.cwd() / "relative.json").exists()
    status, doc = request(server, "POST", "/api/save", {**body, "path": str(out)})
    assert status == 200 and doc["saved"] == str(out)
    first = out.read_text()
    out.write_text("keep me")
    status, doc = request(server, "POST", "/api/save", {**body, "path": str(out)})
    assert status == 409 and out.read_text() == "keep me"
    status, _ = request(server, "POST", "/api/save", {**body, "path": str(out), "overwrite": True})
    assert status == 200 and out.read_text() == first
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.json"]  # no temporary file left


# --- an engine beside the model (--engine SPEC) -------------------------------------------------

def test_an_engine_beside_the_model_marks_the_first_divergence() -> None:
    broken = f"cmd:{sys.executable} {ROOT / 'tests' / 'engines' / 'example_engine.py'} --broken"
    e = Explorer(open_source(PLOT_WAITS), broken)
    try:
        assert e.view([])["engine"]["divergence"] is None  # at the start it agrees
        d = e.view(e.opened.trace, at=1)["engine"]["divergence"]
        assert (d["step"], d["kind"], d["rule"]) == (0, "extra-action", "702.170d")  # lists the plotted cast
    finally:
        e.close()


def test_the_engine_is_compared_with_the_reference_rules() -> None:
    cx = ROOT / "counterexamples" / "variant-116.2k" / "plot-only-main-phase-empty-stack-068555f9.json"
    for spec, diverges in (("model", False), ("model:variant-116.2k", True)):
        e = Explorer(open_source(str(cx)), spec)
        try:
            d = e.view(e.opened.trace)["engine"]["divergence"]
        finally:
            e.close()
        assert (d is not None) == diverges, spec
        if d is not None:  # in combat, after the two passes, the variant's engine lists the plot CR 702.170a refuses
            assert (d["step"], d["kind"], d["rule"]) == (1, "extra-action", "702.170a")


def test_a_port_in_use_is_a_one_line_usage_error() -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        r = subprocess.run([sys.executable, "-m", "mtgcheck.cli", "explore", "plot", "--no-browser", "--port", str(port)],
                           capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and f"--port: cannot listen on 127.0.0.1:{port}" in r.stderr


@pytest.mark.parametrize("path", sorted((ROOT / "tests" / "scenarios").glob("*.json")), ids=lambda p: p.stem)
def test_each_scenario_opens_with_the_verdicts_and_words_of_mtgcheck_scenario(path: Path) -> None:
    from mtgcheck.scenario_run import load, run

    rep = run(load(str(path)))
    e = Explorer(open_source(str(path)))
    v = e.view(e.opened.trace)
    assert [(s["text"], s["legal"], s["refusal"]) for s in v["trace"]] == \
        [(r.text, r.legal, None if r.refusal is None else r.refusal.text()) for r in rep.verdicts]
    assert v["observed"] == rep.final


@pytest.mark.parametrize("path", sorted((ROOT / "tests" / "scenarios").glob("*.json")), ids=lambda p: p.stem)
def test_each_saved_trace_passes_as_saved_with_every_expectation(path: Path, tmp_path: Path) -> None:
    from mtgcheck.explore.session import EXPECT_KEYS, save
    from mtgcheck.scenario_run import load, run

    e = Explorer(open_source(str(path)))
    marks = ["legal" if s["legal"] else "illegal" for s in e.view(e.opened.trace)["trace"]]
    out = save(str(tmp_path / "saved.json"), e.scenario(e.opened.trace, marks, list(EXPECT_KEYS), "", []),
               overwrite=False)
    rep = run(load(str(out)))
    assert rep.passed, (rep.mismatches, [(v.text, v.ok) for v in rep.verdicts])


def test_a_lands_position_shows_each_pool_in_symbols_and_the_tapped_lands() -> None:
    e = Explorer(open_source("lands"))
    v = e.view([{"player": 0, "do": "tap", "card": "island0"}, {"player": 0, "do": "play", "card": "mountain0"},
                {"player": 0, "do": "tap", "card": "mountain0"}])
    assert all(s["legal"] for s in v["trace"])
    me = v["position"]["players"][0]
    assert (me["mana"], me["pool"]) == (2, "{U}{R}")
    assert {c["id"]: c["tapped"] for c in me["zones"]["battlefield"]} == {"island0": True, "mountain0": True}
    assert any(a["doc"]["do"] == "cast" and a["doc"].get("card") == "twice" for a in v["legal"])
