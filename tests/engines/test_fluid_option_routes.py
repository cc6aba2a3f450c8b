"""One check of each fluid-engine option: the options object, the engine's name with
keywords and the model's scenario function accept and refuse the same values, with the
same exception and message (naming the option, the value and what is accepted)."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

import tcpfluid
from tcpfluid.engines import (
    Hybrid,
    Rounds,
    engine_options,
    get_engine,
    run_scenario,
    simulate_summary,
)
from tcpfluid.fluid.hybrid import simulate_scenario_hybrid
from tcpfluid.fluid.rounds import simulate_scenario_rounds
from tcpfluid.scenarios import FlowSpec, Link, Scenario

#: the messages' lists of accepted values
_SHARES = "'proportional', 'in-turn', 'growth'"


def _one_flow(duration_s: float = 0.3) -> Scenario:
    """One Vegas flow on a 10 Mb/s drop-tail link of 20 ms base RTT: a short run of every
    fluid engine."""
    flow = FlowSpec("f", ("F",), ("F",), algorithm="vegas")
    link = Link("F", 10e6, 0.01, 20)
    return Scenario(name="one", links=(link,), flows=(flow,), duration_s=duration_s)


def _routes(engine: str, sc: Scenario, options: dict[str, object]) -> list[Callable[[], object]]:
    """The three ways to run ``sc`` on ``engine`` ("rounds" or "hybrid") with ``options``
    (``progress`` is :func:`tcpfluid.simulate`'s, not the options object's)."""
    own = {k: v for k, v in options.items() if k != "progress"}
    run_kw = {k: v for k, v in options.items() if k == "progress"}
    cls, scenario_fn = {
        "rounds": (Rounds, simulate_scenario_rounds),
        "hybrid": (Hybrid, simulate_scenario_hybrid),
    }[engine]
    return [
        lambda: tcpfluid.simulate(sc, cls(**own), **run_kw),  # type: ignore[arg-type]
        lambda: tcpfluid.simulate(sc, engine, **options),
        lambda: scenario_fn(sc, **options),
    ]


#: a bad value of each option, and what every route refuses it with
BAD = [
    ("rounds", "rtt_model", "median", ValueError,
     "rtt_model must be one of 'average', 'last', 'fluid'; got 'median'"),
    ("rounds", "feedback_rounds", 9, ValueError, "feedback_rounds must be in [0, 8], got 9"),
    ("rounds", "feedback_rounds", -1, ValueError, "feedback_rounds must be in [0, 8], got -1"),
    ("rounds", "feedback_rounds", 1.0, TypeError,
     "feedback_rounds must be an integer, got 1.0 (float)"),
    ("rounds", "ack_train", 1, TypeError, "ack_train must be True or False, got 1"),
    ("rounds", "train_runs", "yes", TypeError, "train_runs must be True or False, got 'yes'"),
    ("rounds", "whole_packets", None, TypeError, "whole_packets must be True or False, got None"),
    ("rounds", "drop_share", "all", ValueError,
     f"drop_share must be one of {_SHARES}; got 'all'"),
    ("rounds", "progress", 5, TypeError,
     "progress must be None or a callable taking a fraction, got 5"),
    ("rounds", "recovery_rounds", -1, ValueError, "recovery_rounds must be >= 0, got -1"),
    ("rounds", "recovery_rounds", 1.0, TypeError,
     "recovery_rounds must be an integer, got 1.0 (float)"),
    ("rounds", "drop_at_least_one", 0, TypeError,
     "drop_at_least_one must be True or False, got 0"),
    ("rounds", "loss_event_rule", "every", ValueError,
     "loss_event_rule must be one of 'share', 'windows-in-turn'; got 'every'"),
    ("rounds", "queue_memory", "off", TypeError, "queue_memory must be True or False, got 'off'"),
    ("rounds", "late_detection", 1, TypeError, "late_detection must be True or False, got 1"),
    ("rounds", "first_loss_timeout", "yes", TypeError,
     "first_loss_timeout must be True or False, got 'yes'"),
    ("rounds", "joiner_first_loss_pkts", 0.0, ValueError,
     "joiner_first_loss_pkts must be > 0, got 0.0"),
    ("rounds", "joiner_first_loss_pkts", None, TypeError,
     "joiner_first_loss_pkts must be a real number, got None (NoneType)"),
    ("rounds", "overflow_in_runs", "on", TypeError,
     "overflow_in_runs must be True or False, got 'on'"),
    ("rounds", "joiner_base_rtt_s", 0.0, ValueError, "joiner_base_rtt_s must be > 0, got 0.0"),
    ("rounds", "joiner_base_rtt_s", "40ms", TypeError,
     "joiner_base_rtt_s must be a real number, got '40ms' (str)"),
    ("rounds", "timeout_loss_fraction", 0.0, ValueError,
     "timeout_loss_fraction must be in (0.0, 1.0], got 0.0"),
    ("rounds", "timeout_loss_fraction", None, TypeError,
     "timeout_loss_fraction must be a real number, got None (NoneType)"),
    ("hybrid", "rtt_sample", "both", ValueError,
     "rtt_sample must be one of 'departure', 'arrival'; got 'both'"),
    ("hybrid", "drop_share", "all", ValueError,
     f"drop_share must be one of {_SHARES}; got 'all'"),
    ("hybrid", "whole_packets", 1, TypeError, "whole_packets must be True or False, got 1"),
    ("hybrid", "boundary_ack_next_round", "no", TypeError,
     "boundary_ack_next_round must be True or False, got 'no'"),
    ("hybrid", "hold_drops", None, TypeError, "hold_drops must be True or False, got None"),
    ("hybrid", "dt_s", 0.0, ValueError, "dt_s must be > 0, got 0.0"),
    ("hybrid", "dt_s", "1ms", TypeError, "dt_s must be a real number, got '1ms' (str)"),
    ("hybrid", "min_rto_s", -1.0, ValueError, "min_rto_s must be > 0, got -1.0"),
    ("hybrid", "timeout_loss_fraction", 0.0, ValueError,
     "timeout_loss_fraction must be in (0.0, 1.0], got 0.0"),
    ("hybrid", "timeout_loss_fraction", 1.5, ValueError,
     "timeout_loss_fraction must be in (0.0, 1.0], got 1.5"),
    ("hybrid", "timeout_loss_fraction", "half", TypeError,
     "timeout_loss_fraction must be a real number, got 'half' (str)"),
    ("hybrid", "measure_from_s", -1.0, ValueError, "measure_from_s must be >= 0, got -1.0"),
    ("hybrid", "measure_from_s", 0.3, ValueError,
     "measure_from_s must be < duration_s=0.3 s, got 0.3"),
    ("hybrid", "progress", 5, TypeError,
     "progress must be None or a callable taking a fraction, got 5"),
]  # fmt: skip


@pytest.mark.parametrize(("engine", "name", "value", "exc", "message"), BAD)
def test_every_route_refuses_a_bad_option_alike(
    engine: str, name: str, value: object, exc: type, message: str
) -> None:
    for run in _routes(engine, _one_flow(), {name: value}):
        with pytest.raises(exc) as got:
            run()
        assert str(got.value) == message


#: the edges of each option's accepted range, and the NumPy bools and integers taken
EDGES = [
    ("rounds", "rtt_model", "fluid"),
    ("rounds", "feedback_rounds", 0),
    ("rounds", "feedback_rounds", np.int64(8)),
    ("rounds", "ack_train", np.False_),
    ("rounds", "train_runs", np.False_),
    ("rounds", "whole_packets", np.True_),
    ("rounds", "drop_share", "growth"),
    ("rounds", "progress", lambda f: None),
    ("rounds", "recovery_rounds", 0),
    ("rounds", "drop_at_least_one", np.False_),
    ("rounds", "loss_event_rule", "windows-in-turn"),
    ("rounds", "queue_memory", np.False_),
    ("rounds", "late_detection", np.True_),
    ("rounds", "first_loss_timeout", np.True_),
    ("rounds", "joiner_first_loss_pkts", math.inf),
    ("rounds", "joiner_first_loss_pkts", np.float64(1e-3)),
    ("rounds", "joiner_base_rtt_s", None),
    ("rounds", "overflow_in_runs", np.True_),
    ("rounds", "joiner_base_rtt_s", np.float64(1e-3)),
    ("rounds", "timeout_loss_fraction", np.float64(1.0)),
    ("hybrid", "rtt_sample", "departure"),
    ("hybrid", "drop_share", "in-turn"),
    ("hybrid", "whole_packets", np.True_),
    ("hybrid", "boundary_ack_next_round", np.True_),
    ("hybrid", "hold_drops", np.False_),
    ("hybrid", "dt_s", 0.005),  # a quarter of the base RTT, the most taken
    ("hybrid", "min_rto_s", 1e-3),
    ("hybrid", "timeout_loss_fraction", 1.0),
    ("hybrid", "timeout_loss_fraction", None),
    ("hybrid", "measure_from_s", 0.0),
    ("hybrid", "progress", lambda f: None),
]


@pytest.mark.parametrize(("engine", "name", "value"), EDGES)
def test_every_route_takes_the_edge_of_each_option(engine: str, name: str, value: object) -> None:
    for run in _routes(engine, _one_flow(), {name: value}):
        run()


def test_the_numpy_bools_are_kept_as_plain_bools() -> None:
    assert Rounds(ack_train=np.False_).ack_train is False
    assert Hybrid(hold_drops=np.False_).hold_drops is False


def test_every_function_taking_an_engine_name_refuses_an_unknown_one_alike() -> None:
    sc = _one_flow()
    message = "unknown engine 'warp'; engines: rounds, packet, ode, hybrid"
    for run in (
        lambda: tcpfluid.simulate(sc, "warp"),
        lambda: get_engine("warp"),
        lambda: engine_options("warp"),
        lambda: run_scenario(sc, "warp"),
        lambda: simulate_summary("qv-basic", "vegas", engine="warp"),
    ):
        with pytest.raises(ValueError) as got:
            run()
        assert str(got.value) == message


def _two_reno_flows(unequal_rtts: bool) -> Scenario:
    """Two Reno flows on a 10 Mb/s link with a 10-packet buffer, 10 s; the second through a
    40-ms link too (its own round clock) when ``unequal_rtts``."""
    links = (Link("F", 10e6, 0.01, 10), Link("G", 100e6, 0.04, 1000))
    far = ("G", "F") if unequal_rtts else ("F",)
    flows = (
        FlowSpec("a", ("F",), ("F",), algorithm="reno"),
        FlowSpec("b", far, far[::-1], algorithm="reno"),
    )
    return Scenario(name="two", links=links, flows=flows, duration_s=10.0)


#: each mechanism switch off its default, with the overflow rule it acts under; with one
#: round clock no flow loses in the round after its cut, so ``recovery_rounds`` changes
#: nothing there
SWITCHES = [
    (unequal, share, switch)
    for unequal in (False, True)
    for share, switch in (
        ("proportional", {"loss_event_rule": "windows-in-turn"}),
        ("in-turn", {"drop_at_least_one": False}),
        ("in-turn", {"recovery_rounds": 0}),
        ("proportional", {"late_detection": True}),
        ("proportional", {"first_loss_timeout": True}),
        ("proportional", {"overflow_in_runs": True}),
    )
    if unequal or "recovery_rounds" not in switch
]


@pytest.mark.parametrize(("unequal_rtts", "drop_share", "switch"), SWITCHES)
def test_each_mechanism_switch_reaches_the_round_model(
    unequal_rtts: bool, drop_share: str, switch: dict[str, object]
) -> None:
    sc = _two_reno_flows(unequal_rtts)
    base = tcpfluid.simulate(sc, "rounds", drop_share=drop_share)
    off = tcpfluid.simulate(sc, "rounds", drop_share=drop_share, **switch)
    assert base.window_pkts.shape != off.window_pkts.shape or not np.array_equal(
        base.window_pkts, off.window_pkts
    )


def test_the_timeout_loss_fraction_decides_timeout_or_fast_retransmit() -> None:
    """``timeout_loss_fraction``: with a fraction below any loss every loss event is a
    timeout, so each fall of a Reno window ends at the one-segment loss window of RFC 5681
    §3.1; with the default (half the window) the two flows' overflows of a 10-packet buffer
    are fast retransmits, none ending at one segment."""
    sc = _two_reno_flows(False)
    for fraction, timeouts in ((1e-9, True), (0.5, False)):
        w = np.asarray(tcpfluid.simulate(sc, Rounds(timeout_loss_fraction=fraction)).window_pkts)
        for row in w:
            falls = row[1:][np.diff(row) < 0.0]
            assert falls.size > 3
            assert bool(np.all(falls == 1.0)) == timeouts
            assert bool(np.any(falls == 1.0)) == timeouts


def test_a_joiners_first_loss_leaves_it_at_most_the_cap() -> None:
    """``joiner_first_loss_pkts`` under Reno's least window (2 packets): the flow joining
    at 1 s leaves its first loss event at the cap, so its window's first fall ends there
    (without the switch: above it); the flow there from the start is not capped."""
    two = _two_reno_flows(False)
    joiner = FlowSpec("b", ("F",), ("F",), algorithm="reno", start_s=1.0)
    sc = Scenario(name="join", links=two.links, flows=(two.flows[0], joiner), duration_s=10.0)
    for cap in (math.inf, 1.5):
        w = np.asarray(tcpfluid.simulate(sc, "rounds", joiner_first_loss_pkts=cap).window_pkts)
        first = [int(np.flatnonzero(np.diff(w[i]) < 0.0)[0]) + 1 for i in (0, 1)]
        assert w[0, first[0]] > 2.0
        assert (w[1, first[1]] == 1.5) == (cap == 1.5), w[1, first[1]]


def test_a_joiner_takes_the_base_rtt_it_is_given() -> None:
    """``joiner_base_rtt_s``: the Vegas flow joining at 1 s reports the BaseRTT it is given
    (the law's, :attr:`tcpfluid.Result.base_rtt_s`), where without the switch it holds the
    first flow's queue (above the path's 20 ms); the first flow's is its own."""
    flows = (
        FlowSpec("a", ("F",), ("F",), algorithm="vegas"),
        FlowSpec("b", ("F",), ("F",), algorithm="vegas", start_s=1.0),
    )
    sc = Scenario(name="join", links=(Link("F", 10e6, 0.01, 100),), flows=flows, duration_s=3.0)
    base = tcpfluid.simulate(sc, "rounds").base_rtt_s
    given = tcpfluid.simulate(sc, "rounds", joiner_base_rtt_s=0.0123).base_rtt_s
    assert base[1] > 0.0201
    assert given[1] == 0.0123
    assert given[0] == base[0]


def test_the_overflow_in_runs_takes_one_scenario() -> None:
    """``overflow_in_runs`` charges an overflow over every flow of the run: a batch of
    scenarios is refused by name."""
    from tcpfluid.algorithms import get_law
    from tcpfluid.fluid import PathBatch, simulate_rounds

    paths = PathBatch.from_bdp([50.0, 80.0], 0.1)
    with pytest.raises(
        ValueError, match="overflow_in_runs=True takes one scenario, got a batch of 2"
    ):
        simulate_rounds(get_law("reno"), paths, rounds=3, overflow_in_runs=True)


def test_the_ode_scenario_function_names_an_unknown_option() -> None:
    """``simulate_scenario_ode`` refuses an option neither of its models takes by its own
    name, listing the options, on either model (not a private helper's keyword error)."""
    from tcpfluid.fluid.ode import simulate_scenario_ode

    for model in ("auto", "hybrid", "classical"):
        with pytest.raises(TypeError) as got:
            simulate_scenario_ode(_one_flow(), model=model, warp=2)
        message = str(got.value)
        assert message.startswith("simulate_scenario_ode() got the unknown option 'warp'; ")
        for option in ("n_points", "measure_from_s", "rtol", "dt_s", "timeout_loss_fraction"):
            assert option in message


def test_the_hybrid_scenario_function_takes_every_run_option_and_names_an_unknown_one() -> None:
    """``simulate_scenario_hybrid`` passes on every keyword of ``simulate_hybrid`` that the
    scenario does not give (read off the signature), and refuses any other by its name."""
    import inspect

    from tcpfluid.fluid import hybrid

    from_scenario = {
        "law", "mu_pps", "base_rtt_s", "duration_s", "buffer_pkts", "red", "reverse_mu_pps",
        "reverse_buffer_pkts", "cross_traffic", "flow_start_s", "flow_stop_s", "flow_lead_s",
        "flow_spacing_s",
    }  # fmt: skip
    own = set(inspect.signature(hybrid.simulate_hybrid).parameters) - from_scenario
    assert set(hybrid.SCENARIO_OPTIONS) == own
    with pytest.raises(TypeError, match=r"^simulate_scenario_hybrid\(\) got the unknown option"):
        simulate_scenario_hybrid(_one_flow(), warp=2)
    with pytest.raises(TypeError, match="unknown option 'mu_pps'"):
        simulate_scenario_hybrid(_one_flow(), mu_pps=100.0)


def test_the_round_scenario_function_takes_every_run_option() -> None:
    """``simulate_scenario_rounds`` passes on every keyword of ``simulate_rounds`` that the
    scenario does not give (read off the signature): no run option of the round model is
    out of reach of a scenario run."""
    import inspect

    from tcpfluid.fluid import rounds

    from_scenario = {
        "law", "paths", "rounds", "n_flows", "duration_s", "cross_traffic", "flow_start_s",
        "flow_stop_s", "flow_lead_s", "flow_spacing_s",
    }  # fmt: skip
    own = set(inspect.signature(rounds.simulate_rounds).parameters) - from_scenario
    assert set(rounds.SCENARIO_OPTIONS) == own
