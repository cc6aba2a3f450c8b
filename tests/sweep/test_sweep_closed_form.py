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
    with pytest.raises(ValueError, match="must be one of average, last for engine 'closed-form'"):
        Sweep(
            [{"algorithm": "vegas"}],
            engine="closed-form",
            metrics=["ss_exit_window"],
            rtt_model="fluid",
        )
