"""The ``closed-form`` sweep engine says where each settling time comes from and why a
metric has no value; an RTT model is refused by the engines that have none.

Where the expectations come from:

* the routes: docs/your-own-scenario.md, "What predict predicts" (Vegas and Enhanced Vegas
  settle in closed form; Quick Vegas and TCP-Ho from the round map);
* the reasons: the notes of :func:`tcpfluid.testing.predict_scenario` (``tcpfluid predict
  SCENARIO``) for the same scenario and law, and the TCP-Ho paper §4 (its analysis gives the
  conspicuous round: no slow start, no window).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tcpfluid.cli import main
from tcpfluid.sweep import Sweep, grid, sweep
from tcpfluid.testing import predict_scenario

LAWS = ["vegas", "enhanced-vegas", "quick-vegas", "tcp-ho"]
METRICS = ["ss_exit_window", "ss_exit_time_s", "settled_window", "time_to_equilibrium_s"]
ROUTE = {
    "vegas": "closed form",
    "enhanced-vegas": "closed form",
    "quick-vegas": "round model",
    "tcp-ho": "round model",
}


def run(**kw: object) -> object:
    points = grid(algorithm=LAWS, bandwidth="50Mbps", cbr="none")
    return sweep(points, engine="closed-form", metrics=METRICS, **kw)  # type: ignore[arg-type]


def test_the_settling_route_is_a_column(tmp_path: Path) -> None:
    res = run(cache_dir=tmp_path)
    t = res.table  # type: ignore[attr-defined]
    assert dict(zip(t["algorithm"], t["time_to_equilibrium_route"], strict=True)) == ROUTE
    assert list(t.columns[-3:]) == ["reason", "time_to_equilibrium_route", "seed"]
    cached = run(cache_dir=tmp_path)  # the route is kept in the cache with the values
    assert cached.n_cached == len(LAWS)  # type: ignore[attr-defined]
    assert list(cached.table["time_to_equilibrium_route"]) == list(t["time_to_equilibrium_route"])  # type: ignore[attr-defined]
    # without a settling metric there is no route to give
    other = sweep(grid(algorithm="vegas"), engine="closed-form", metrics=["ss_exit_window"])
    assert "time_to_equilibrium_route" not in other.table.columns


def test_empty_closed_forms_say_why_as_predict_does() -> None:
    t = run().table  # type: ignore[attr-defined]
    ho = t.loc[t["algorithm"] == "tcp-ho"].iloc[0]
    notes = {
        p.quantity: p.note
        for p in predict_scenario("qv-basic", algorithm="tcp-ho", sets={"cbr": "none"})
    }
    parts = dict(part.split(": ", 1) for part in ho["reason"].split("; "))
    assert parts == {
        "ss_exit_window": notes["ss_exit_window"],
        "ss_exit_time_s": notes["ss_exit_time_s"],
        "settled_window": notes["settled_window"],
    }
    assert parts["ss_exit_window"] == "no closed form: TCP-Ho has no slow start"
    assert "before the end of the run" not in ho["reason"]  # the simulation engines' text
    assert (t.loc[t["algorithm"] != "tcp-ho", "reason"] == "").all()


def test_the_command_prints_the_routes_and_the_reasons(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = tmp_path / "cf.toml"
    cfg.write_text(
        'engine = "closed-form"\nalgorithm = ["vegas", "quick-vegas", "tcp-ho"]\n'
        'metrics = ["ss_exit_window", "time_to_equilibrium_s"]\n[grid]\ncbr = "none"\n'
    )
    assert main(["sweep", str(cfg), "--out", str(tmp_path / "cf.csv"), "--no-cache"]) == 0
    out = capsys.readouterr().out
    assert "time_to_equilibrium_route: closed form at 1 point(s), round model at 2 point(s)" in out
    assert "ss_exit_window: no value at 1 point(s): no closed form: TCP-Ho has no slow start" in out


@pytest.mark.parametrize("engine", ["ode", "packet"])
def test_an_rtt_model_is_refused_by_the_engines_without_one(engine: str) -> None:
    points = [{"algorithm": "vegas"}]
    with pytest.raises(ValueError, match=rf"rtt_model: engine '{engine}' has no RTT model"):
        Sweep(points, engine=engine, metrics=["utilization"], rtt_model="last")
    with pytest.raises(ValueError, match="closed-form and rounds engines"):
        Sweep.from_dict(
            {
                "engine": engine,
                "algorithm": "vegas",
                "metrics": ["utilization"],
                "rtt_model": "average",
            }
        )
    assert Sweep(points, engine=engine, metrics=["utilization"]).rtt_model is None


def test_the_rtt_model_defaults_to_average_where_it_applies() -> None:
    for engine in ("rounds", "closed-form"):
        assert (
            Sweep([{"algorithm": "vegas"}], engine=engine, metrics=["ss_exit_window"]).rtt_model
            == "average"
        )
    for other in ("last", "fluid"):  # predict SCENARIO's slow start reads the average RTT
        with pytest.raises(
            ValueError, match=f"must be average for engine 'closed-form', got '{other}'"
        ):
            Sweep(
                [{"algorithm": "vegas"}],
                engine="closed-form",
                metrics=["ss_exit_window"],
                rtt_model=other,
            )


# the closed-form row of a point is its first flow's values of ``tcpfluid predict SCENARIO``
AS_PREDICT = [
    ("ho-fairness", "vegas", {"flows": 1}),
    ("ho-fairness", "vegas", {"flows": 5}),
    ("ho-fairness", "quick-vegas", {"flows": 5}),
    ("qv-basic", "quick-vegas", {"bandwidth": "20Mbps", "rtt": "200ms", "cbr": "none"}),
    ("qv-basic", "vegas", {"flows": 3, "cbr": "none"}),
]


@pytest.mark.parametrize(("scenario", "algorithm", "sets"), AS_PREDICT)
def test_a_row_is_what_predict_scenario_gives(
    scenario: str, algorithm: str, sets: dict[str, object]
) -> None:
    row = sweep(
        grid(scenario=scenario, algorithm=algorithm, **sets), engine="closed-form", metrics=METRICS
    ).table.iloc[0]
    assert row["status"] == "ok", row["message"]
    preds = predict_scenario(scenario, algorithm=algorithm, sets=sets)
    first = [p for p in preds if p.flow == preds[0].flow and p.quantity in METRICS]
    closed = [p for p in first if p.source == "closed form"]
    # the slow start and the settled window always, Vegas's settling too
    assert len(closed) == (4 if algorithm == "vegas" else 3)
    for p in closed:
        assert row[p.quantity] == p.value, (p.quantity, row[p.quantity], p.value)


def test_the_flows_share_the_bottleneck_as_predict_says() -> None:
    # ho-fairness: 100 Mb/s of 1000-byte packets (12,500 packets/s), one base RTT d for
    # every flow (the path columns); n Vegas flows started together settle at μd/n + α each
    # (α = 2 packets: the Vegas paper's default; the TCP-Ho paper §5, "fairness")
    t = sweep(
        grid(scenario="ho-fairness", algorithm="vegas", flows=[1, 5]),
        engine="closed-form",
        metrics=METRICS,
    ).table
    assert t["mu_pps"].tolist() == pytest.approx([12500.0, 12500.0], rel=1e-12)
    bdp = t["bdp_pkts"].to_numpy()
    assert t["settled_window"].tolist() == pytest.approx(bdp / [1, 5] + 2.0, rel=1e-12)
    assert t["settled_window"].iloc[1] < t["settled_window"].iloc[0] / 4


def test_a_point_predict_scenario_has_no_closed_form_for_fails_saying_why() -> None:
    # three Vegas flows keep β = 4 packets queued each: 12 packets, more than a 10-packet
    # buffer holds (docs/testing.md: the closed forms assume no loss)
    sets = {"flows": 3, "buffer": 10, "cbr": "none"}
    row = sweep(
        grid(scenario="qv-basic", algorithm="vegas", **sets),
        engine="closed-form",
        metrics=["settled_window"],
    ).table.iloc[0]
    why = predict_scenario("qv-basic", algorithm="vegas", sets=sets)[0].note
    assert why == "no closed form: buffer 10 pkts below the flows' backlog 12"
    assert row["status"] == "error"
    assert row["message"].endswith(why.removeprefix("no closed form: "))
    assert "first flow (S1-D1)" in row["message"]
