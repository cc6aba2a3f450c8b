"""The engine runner: same keys from every engine, seeds reach the packet engine, bad input."""

import json
from pathlib import Path

import numpy as np
import pytest

from tcpfluid.engines import ENGINES, run_scenario, simulate_summary
from tcpfluid.results import PUBLIC_KEYS
from tcpfluid.scenarios import build_scenario

SMALL = {
    "bandwidth": "5Mbps",
    "rtt": "50ms",
    "duration": "20s",
    "cbr_start": "8s",
    "cbr_stop": "14s",
}


#: the record of what users rely on, per engine the keys of ``simulate --json``
SURFACE = Path(__file__).resolve().parents[1] / "repo" / "public_surface.json"


def test_the_public_keys_are_recorded_for_every_engine():
    """The library's one list (``tcpfluid.results.PUBLIC_KEYS``, which the sweep reads)
    against the recorded surface: no key twice, each in every engine's record."""
    recorded = json.loads(SURFACE.read_text(encoding="utf-8"))["simulate_json_keys"]
    assert len(set(PUBLIC_KEYS)) == len(PUBLIC_KEYS)
    for engine, keys in recorded.items():
        assert set(PUBLIC_KEYS) <= set(keys), engine


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_every_engine_reports_the_public_keys(engine):
    out = simulate_summary("qv-basic", "vegas", engine=engine, sets=SMALL)
    assert set(PUBLIC_KEYS) <= set(out)
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


# ------------------------------------------------------------------ engines as objects
def _vegas_basic() -> object:
    return build_scenario("qv-basic").with_algorithm("vegas")


@pytest.fixture(scope="module")
def full_recording() -> dict:
    import tcpfluid

    return tcpfluid.simulate(_vegas_basic(), "rounds").summary.to_dict()


@pytest.mark.parametrize(
    ("every", "what"),
    [
        # a coarse record once read the exit window off a recorded row (2.0 at 5.1 s)
        (50, "ss_exit_window"),
        # ... lost the settled window (None)
        (200, "settled_window"),
        # ... and every convergence time (None)
        (1000, "convergence_times_s"),
    ],
)
def test_what_is_recorded_never_changes_the_summary(every, what, full_recording):
    """The round model's summary is judged on every round whatever is recorded: the Vegas
    run of the Quick Vegas paper's §5.1 path reads the same with a coarse record as with
    every round (the paper's Table 1: exit at window 64 in round 12, 1.2 s)."""
    import tcpfluid

    with pytest.warns(DeprecationWarning, match="record_every"):
        coarse = tcpfluid.simulate(_vegas_basic(), "rounds", record_every=every)
    assert coarse.time_s.size < 300 / every + 50  # fewer samples were kept
    assert coarse.summary.to_dict() == full_recording
    assert full_recording["ss_exit_window"] == 64.0  # the paper's Table 1
    assert full_recording["ss_exit_time_s"] == pytest.approx(1.2, abs=0.05)
    assert full_recording[what] is not None and full_recording[what] != []
    # the record_interval_s of every engine gives the same
    again = tcpfluid.simulate(_vegas_basic(), "rounds", record_interval_s=every * 0.2)
    assert again.summary.to_dict() == full_recording


@pytest.mark.parametrize("engine", ["hybrid", "packet"])
def test_recording_never_changes_the_other_engines_summaries(engine):
    import tcpfluid
    from tcpfluid.engines import get_engine

    sc = build_scenario("qv-basic", **SMALL).with_algorithm("vegas")
    # every physical value is judged on the full run; only the run's own speed differs
    drop = {"packets_per_s", "events_per_s"}
    out = []
    for interval in (0.05, 1.3):
        res = tcpfluid.simulate(sc, get_engine(engine, record_interval_s=interval))
        out.append({k: v for k, v in res.summary.to_dict().items() if k not in drop})
        assert res.time_s.size < 20 / interval + 3
    assert out[0] == out[1]


def test_the_classical_model_is_judged_on_one_grid_whatever_is_recorded():
    import tcpfluid
    from tcpfluid.engines import Ode

    sc = build_scenario("qv-basic", **SMALL).with_algorithm("vegas")
    coarse = tcpfluid.simulate(sc, Ode(record_interval_s=2.0))
    fine = tcpfluid.simulate(sc, Ode(record_interval_s=0.005))
    assert coarse.time_s.size == 11 and fine.time_s.size == 4001
    assert coarse.summary.to_dict() == fine.summary.to_dict()
    # the samples the fine record keeps at the coarse times are the coarse ones
    idx = np.searchsorted(fine.time_s, coarse.time_s)
    np.testing.assert_allclose(fine.window_pkts[:, idx], coarse.window_pkts, rtol=1e-6)


def test_an_engine_object_and_its_name_run_the_same():
    import tcpfluid
    from tcpfluid.engines import Hybrid, Packet, Rounds

    sc = build_scenario("qv-basic", **SMALL).with_algorithm("vegas")
    a = tcpfluid.simulate(sc, Rounds(feedback_rounds=0, rtt_model="last"))
    b = tcpfluid.simulate(sc, "rounds", feedback_rounds=0, rtt_model="last")
    assert a.summary == b.summary and a.engine == "rounds"
    # "ode" is the hybrid model under its older name; its results say "ode"
    h = tcpfluid.simulate(sc, Hybrid())
    o = tcpfluid.simulate(sc, "ode")
    assert (h.engine, o.engine) == ("hybrid", "ode")
    assert h.summary.flows == o.summary.flows and np.array_equal(h.window_pkts, o.window_pkts)
    assert tcpfluid.simulate(sc, "ode", model="classical").rounds == ()  # no rounds
    p = tcpfluid.simulate(sc, Packet(seed=3))
    assert p.status == 0 and p.success and len(p.rounds) == 1
    with pytest.raises(TypeError, match="beside the engine object"):
        tcpfluid.simulate(sc, Rounds(), rtt_model="last")


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda E: E.Rounds(rtt_model="median"), r"rtt_model must be one of .*'median'"),
        (lambda E: E.Rounds(feedback_rounds=9), r"feedback_rounds must be in \[0, 8\], got 9"),
        (lambda E: E.Rounds(drop_share="all"), r"drop_share must be one of .*'all'"),
        (lambda E: E.Hybrid(rtt_sample="x"), r"rtt_sample must be one of .*'x'"),
        (lambda E: E.Hybrid(dt_s=-1.0), r"dt_s must be > 0, got -1.0"),
        (lambda E: E.Ode(rtol=0.0), r"rtol must be in \[1e-12, 0.1\], got 0.0"),
        (lambda E: E.Ode(rtol=1.0), r"rtol must be in \[1e-12, 0.1\], got 1.0"),
        (lambda E: E.Ode(atol=0.1), r"atol must be in \(0.0, 0.001\], got 0.1"),
        (lambda E: E.Ode(method="Euler"), r"method must be one of .*'Euler'"),
        (lambda E: E.Packet(seed=-1), r"seed must be >= 0, got -1"),
        (lambda E: E.Packet(record_interval_s=0.0), r"record_interval_s must be > 0, got 0.0"),
        (lambda E: E.Packet(record=("rtt_s",)), r"record: 'rtt_s' is not a field.*queue_pkts"),
    ],
)
def test_bad_option_values_name_the_option_the_value_and_the_range(make, match):
    import tcpfluid.engines as E

    with pytest.raises(ValueError, match=match):
        make(E)


@pytest.mark.parametrize(
    "bad", [{"rtol": 1.0}, {"rtol": 0.0}, {"atol": 0.1}, {"method": "Euler"}, {"rtol": "a"}]
)
def test_the_ode_options_refuse_what_the_solver_refuses_with_its_message(bad):
    # Ode(...) is checked when it is made, simulate_ode when it runs: one rule, one message
    # (a tolerance the solver refuses was accepted by Ode and failed only at the run)
    import tcpfluid.engines as E
    from tcpfluid.fluid.ode import simulate_scenario_ode

    sc = build_scenario("qv-basic", **SMALL).with_algorithm("vegas")
    with pytest.raises((ValueError, TypeError)) as made:
        E.Ode(**bad)
    with pytest.raises((ValueError, TypeError)) as ran:
        simulate_scenario_ode(sc, model="classical", **bad)
    assert (type(made.value), str(made.value)) == (type(ran.value), str(ran.value))


def test_every_engine_declares_what_it_can_model():
    from tcpfluid.engines import ENGINES
    from tcpfluid.scenarios import ENGINE_CAPABILITIES, fluid_view

    sc = build_scenario("qv-basic", **SMALL).with_algorithm("vegas")
    for name, cls in ENGINES.items():
        assert cls().capabilities is ENGINE_CAPABILITIES[name]
    # the packet simulator is the one engine that models flows not sharing a bottleneck
    assert [n for n, c in ENGINES.items() if c().capabilities.several_bottlenecks] == ["packet"]
    assert fluid_view(sc, "hybrid").bottleneck == "R1-R2"


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_an_engines_granularity_matches_what_its_run_keeps(engine):
    # a continuous-time model keeps each flow's delivered packets; the others do not
    from tcpfluid.engines import simulate

    cls = ENGINES[engine]
    assert cls.granularity in ("packet", "round", "continuous")
    sc = build_scenario("qv-basic", **{**SMALL, "duration": "2s"}).with_algorithm("vegas")
    res = simulate(sc, engine)
    assert ("delivered_pkts" in res.series) == (cls.granularity == "continuous")


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_every_engine_result_plots_and_tabulates(engine):
    import matplotlib

    matplotlib.use("Agg")
    import tcpfluid

    sc = build_scenario("qv-basic", **{**SMALL, "duration": "4s"}).with_algorithm("vegas")
    res = tcpfluid.simulate(sc, engine)
    assert len(res.plot()) == 1 and len(res.plot(quantity="queue_pkts")) == 1
    frame = res.to_frame()
    assert set(frame["quantity"]) == {"window_pkts", "throughput_pps", "queue_pkts"}
    assert res.to_dict()["status"] == 0


def test_packet_options_carry_the_delayed_ack_settings_per_flow():
    # the engine object passes the receivers' settings to the simulator: one run through
    # Packet(...) and one through simulate_packets with the same settings deliver the same
    # packets per flow, and a delaying receiver on connection 1 only (Tsang's thesis, Table
    # 3.28's mixed row) moves the delivered packets away from immediate ACKs everywhere
    import tcpfluid
    from tcpfluid.engines import Packet
    from tcpfluid.sim import simulate_packets

    sc = build_scenario("thesis-two-flow", x2="1ms", duration="20s").with_algorithm("vegas")
    opts = Packet(delayed_ack=[True, False], delayed_ack_echo="latest")
    assert opts.delayed_ack == (True, False)
    got = [fl.delivered_pkts for fl in tcpfluid.simulate(sc, opts).native.flows]
    direct = simulate_packets(sc, delayed_ack=(True, False), delayed_ack_echo="latest")
    assert got == [fl.delivered_pkts for fl in direct.flows]
    plain = [fl.delivered_pkts for fl in tcpfluid.simulate(sc, Packet()).native.flows]
    assert got != plain


def test_packet_options_refuse_bad_delayed_ack_settings():
    from tcpfluid.engines import Packet

    with pytest.raises(ValueError, match="delayed_ack_echo must be one of 'first', 'latest'"):
        Packet(delayed_ack_echo="last")
    with pytest.raises(ValueError, match=r"delayed_ack as a sequence must hold one True or False"):
        Packet(delayed_ack=(True, 1))


@pytest.mark.parametrize(
    ("engine", "flows", "duration"),
    [
        # 1,000,000 flows x ~50,000 rounds of 0.1 s: 5e10 flow-rounds, hours of work
        ("rounds", 1_000_000, "5000s"),
        # 200,000 flows x 1.28e6 time steps of d/256: 2.6e11 flow-steps, hours of work
        ("ode", 200_000, "500s"),
    ],
)
def test_a_fluid_run_of_hours_is_refused_naming_duration_and_flows(engine, flows, duration):
    """A run that scales past about an hour of work stops before it starts, with a
    one-line message naming the scenario's own setting (``duration``, not a function's
    internal ``duration_s``) and the flow count."""
    sc = build_scenario(
        "qv-many-flows", algorithm="vegas", flows=flows, groups=1, duration=duration
    )
    with pytest.raises(ValueError, match=r"^duration=\S+ s with [\d,]+ flows needs") as e:
        run_scenario(sc, engine)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("engine", ["rounds", "ode"])
def test_a_fluid_refusal_names_the_scenarios_duration(engine):
    """The fluid engines' bound on rounds or time steps names ``duration`` as the packet
    engine's bound does."""
    sc = build_scenario("qv-basic", algorithm="vegas", duration="1e9s")
    with pytest.raises(ValueError, match=r"^duration=1e\+09 s needs"):
        run_scenario(sc, engine)
