"""The engine runner: same keys from every engine, seeds reach the packet engine, bad input."""

import pytest

from tcpfluid.engines import ENGINES, run_scenario, simulate_summary
from tcpfluid.scenarios import build_scenario

PUBLIC_KEYS = {
    "ss_exit_window",
    "ss_exit_time_s",
    "settled_window",
    "time_to_equilibrium_s",
    "convergence_times_s",
    "utilization",
    "throughput_pps",
    "jain_index",
}
SMALL = {
    "bandwidth": "5Mbps",
    "rtt": "50ms",
    "duration": "20s",
    "cbr_start": "8s",
    "cbr_stop": "14s",
}


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_every_engine_reports_the_public_keys(engine):
    out = simulate_summary("qv-basic", "vegas", engine=engine, sets=SMALL)
    assert PUBLIC_KEYS <= set(out)
    assert out["engine"] == engine and out["scenario"] == "qv-basic"
    # one CBR period: two bandwidth changes, one convergence time each
    assert len(out["convergence_times_s"]) == 2
    # the §5.1 structure: the flow gets the link minus the CBR, so utilization is high
    assert 0.5 < out["utilization"] <= 1.0 + 1e-9


def test_seed_reaches_the_packet_engine():
    # RED draws random numbers: the same seed repeats a run exactly, another seed differs
    sets = {"queue": "red", "duration": "30s", "x2": "90ms"}
    a = simulate_summary("thesis-two-flow", "reno", engine="packet", sets=sets, seed=1)
    b = simulate_summary("thesis-two-flow", "reno", engine="packet", sets=sets, seed=1)
    c = simulate_summary("thesis-two-flow", "reno", engine="packet", sets=sets, seed=2)
    drop = ("events_per_s", "packets_per_s")
    assert {k: v for k, v in a.items() if k not in drop} == {
        k: v for k, v in b.items() if k not in drop
    }
    assert a["throughput_pps"] != c["throughput_pps"]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"engine": "ns2"}, "unknown engine 'ns2'"),
        ({"rtt_model": "median"}, "rtt_model"),
        ({"seed": -1}, "seed must be >= 0"),
    ],
)
def test_bad_options(kwargs, match):
    sc = build_scenario("qv-basic", **SMALL).with_algorithm("vegas")
    with pytest.raises(ValueError, match=match):
        if "engine" in kwargs:
            simulate_summary("qv-basic", "vegas", **kwargs)
        else:
            run_scenario(sc, "rounds", **kwargs)


def test_unknown_algorithm():
    with pytest.raises(ValueError, match="unknown algorithm 'cubic'"):
        simulate_summary("qv-basic", "cubic")
