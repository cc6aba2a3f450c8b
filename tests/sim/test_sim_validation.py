"""Bad configurations are rejected with clear errors before anything runs."""

from __future__ import annotations

import contextlib
import dataclasses
import math
from collections.abc import Callable

import numpy as np
import pytest
from _simkit import FixedWindow, two_link

import tcpfluid
from tcpfluid.engines import Packet
from tcpfluid.scenarios import FlowSpec, Link, Scenario
from tcpfluid.sim import simulate_packets


def test_flow_without_ack_path() -> None:
    sc = Scenario(
        name="x",
        links=(Link("F", 8e6, 0.01),),
        flows=(FlowSpec("f", ("F",), ()),),
        duration_s=1.0,
    )
    with pytest.raises(ValueError, match=r"flow 'f' has no ACK path"):
        simulate_packets(sc, laws={"f": FixedWindow(1)})


def test_flow_without_forward_path() -> None:
    with pytest.raises(ValueError, match="forward"):
        FlowSpec("f", (), ("B",))


@pytest.mark.parametrize("rate", [0, -1e6])
def test_zero_rate_link(rate: float) -> None:
    with pytest.raises(ValueError, match="rate"):
        Link("F", rate, 0.01)


def test_zero_rate_link_forced_into_a_scenario() -> None:
    sc = two_link()
    bad = Link("F", 8e6, 0.01)
    object.__setattr__(bad, "rate_bps", 0.0)  # bypass the constructor's own check
    sc = dataclasses.replace(sc, links=(bad, sc.links[1]))
    with pytest.raises(ValueError, match=r"link 'F': rate must be > 0"):
        simulate_packets(sc, laws={"f": FixedWindow(1)})


def test_buffer_below_one_packet() -> None:
    with pytest.raises(ValueError, match="at least 1 packet"):
        Link("F", 8e6, 0.01, 0.5)


def test_start_after_end() -> None:
    sc = two_link(duration=1.0, start=2.0)
    with pytest.raises(ValueError, match=r"starts at start_s=2\.0.*duration"):
        simulate_packets(sc, laws={"f": FixedWindow(1)})


def test_flow_without_algorithm() -> None:
    with pytest.raises(ValueError, match="has no algorithm"):
        simulate_packets(two_link())


def test_unknown_algorithm() -> None:
    sc = two_link().with_algorithm("vegaz")
    with pytest.raises(ValueError, match="unknown algorithm 'vegaz'"):
        simulate_packets(sc)


def test_laws_for_unknown_flow() -> None:
    with pytest.raises(ValueError, match=r"unknown flow\(s\) \['g'\]"):
        simulate_packets(two_link(), laws={"g": FixedWindow(1)})


@pytest.mark.parametrize("laws", ["vegas", [FixedWindow(1)]])
def test_laws_that_are_not_a_mapping(laws: object) -> None:
    with pytest.raises(TypeError, match=r"laws must map flow names to ControlLaw objects"):
        simulate_packets(two_link(), laws=laws)  # type: ignore[arg-type]


def test_law_of_wrong_type() -> None:
    with pytest.raises(TypeError, match="must be a ControlLaw"):
        simulate_packets(two_link(), laws={"f": "vegas"})  # type: ignore[dict-item]


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"sample_interval": 0.0}, ValueError, "sample_interval must be > 0"),
        ({"sample_interval": 1e-9}, ValueError, "at most"),
        ({"seed": -1}, ValueError, "seed must be >= 0, got -1"),
        ({"seed": 1.5}, TypeError, "seed must be an integer, got 1.5"),
        ({"seed": True}, TypeError, "seed must be an integer, got True"),
        ({"delack_timeout": 0}, ValueError, "delack_timeout"),
        ({"min_rto": 2.0, "max_rto": 1.0}, ValueError, "min_rto must be <= max_rto"),
        ({"delayed_ack": 1}, TypeError, "delayed_ack"),
        ({"fine_retransmit": "yes"}, TypeError, "fine_retransmit"),
    ],
)
def test_bad_options(kwargs: dict, exc: type, match: str) -> None:
    """Refused, naming the option as given: an older name (without its unit) too, which
    also warns that it is deprecated."""
    older = {"sample_interval", "delack_timeout", "min_rto", "initial_rto", "max_rto"}
    warns = pytest.warns(DeprecationWarning) if older & set(kwargs) else contextlib.nullcontext()
    with pytest.raises(exc, match=match), warns:
        simulate_packets(two_link(), laws={"f": FixedWindow(1)}, **kwargs)


@pytest.mark.parametrize(
    ("red", "match"),
    [
        ({"min_th": 5}, "needs min_th and max_th"),
        ({"min_th": 15, "max_th": 5}, "max_th must be > min_th"),
        ({"min_th": 5, "max_th": 15, "max_p": 2.0}, "max_p"),
        ({"min_th": 5, "max_th": 15, "w_q": 0.0}, "w_q"),
        ({"min_th": 5, "max_th": 15, "w_q": float("nan")}, r"F\.red\.w_q must be finite"),
        ({"min_th": 5, "max_th": 15, "wq": 0.1}, "unknown RED parameter"),
    ],
)
def test_bad_red(red: dict, match: str) -> None:
    sc = two_link()
    lk = Link("F", 8e6, 0.01, 100, discipline="red", red=red)
    sc = dataclasses.replace(sc, links=(lk, sc.links[1]))
    with pytest.raises(ValueError, match=match):
        simulate_packets(sc, laws={"f": FixedWindow(1)})


def test_red_parameter_of_wrong_type() -> None:
    sc = two_link()
    lk = Link("F", 8e6, 0.01, 100, discipline="red", red={"min_th": 5, "max_th": 15, "max_p": "x"})
    sc = dataclasses.replace(sc, links=(lk, sc.links[1]))
    with pytest.raises(TypeError, match=r"F\.red\.max_p must be a real number, got 'x'"):
        simulate_packets(sc, laws={"f": FixedWindow(1)})


def test_scenario_of_wrong_type() -> None:
    with pytest.raises(TypeError, match="scenario must be"):
        simulate_packets("qv-basic")  # type: ignore[arg-type]


class _NanLaw(FixedWindow):
    def on_round(self, state, sample):  # type: ignore[no-untyped-def]
        a = super().on_round(state, sample)
        a.cwnd[:] = float("nan")
        return a


def test_law_returning_nan_fails_loudly() -> None:
    with pytest.raises(RuntimeError, match=r"invalid action \(cwnd=nan"):
        simulate_packets(two_link(), laws={"f": _NanLaw(1)})


# ---------------------------------------------------------------- one check of each option
#: a bad value of each packet option, and what every route refuses it with: the exception
#: and its message, written out here (naming the option, the value and what is accepted)
BAD_OPTIONS = [
    ("seed", -1, ValueError, "seed must be >= 0, got -1"),
    ("seed", True, TypeError, "seed must be an integer, got True (bool)"),
    (
        "delayed_ack",
        1,
        TypeError,
        "delayed_ack must be True, False or a sequence of them (one per flow), got 1",
    ),
    (
        "delayed_ack",
        (1,),
        ValueError,
        "delayed_ack as a sequence must hold one True or False per flow, got (1,)",
    ),
    (
        "delayed_ack_echo",
        "last",
        ValueError,
        "delayed_ack_echo must be one of 'first', 'latest'; got 'last'",
    ),
    ("delack_timeout_s", 0.0, ValueError, "delack_timeout_s must be > 0, got 0.0"),
    ("min_rto_s", -1.0, ValueError, "min_rto_s must be > 0, got -1.0"),
    ("initial_rto_s", math.inf, ValueError, "initial_rto_s must be finite, got inf"),
    (
        "max_rto_s",
        0.1,
        ValueError,
        "min_rto_s must be <= max_rto_s, got min_rto_s=0.2, max_rto_s=0.1",
    ),
    ("fine_retransmit", "yes", TypeError, "fine_retransmit must be True, False or None, got 'yes'"),
    ("send_overhead_s", -1e-3, ValueError, "send_overhead_s must be >= 0, got -0.001"),
    ("start_delay_s", [-1e-3], ValueError, "start_delay_s[0] must be >= 0, got -0.001"),
    (
        "start_delay_s",
        (0.0, 0.0),
        ValueError,
        "start_delay_s as a sequence must hold one delay per flow (1 flows), got 2",
    ),
    ("timeout_recover", 1, TypeError, "timeout_recover must be True or False, got 1"),
    ("red_wait", "no", TypeError, "red_wait must be True or False, got 'no'"),
    ("ns2_vegas_timing", None, TypeError, "ns2_vegas_timing must be True or False, got None"),
    ("ns2_vegas_base_reset", 0, TypeError, "ns2_vegas_base_reset must be True or False, got 0"),
    (
        "ns2_vegas_integer_delta",
        0,
        TypeError,
        "ns2_vegas_integer_delta must be True or False, got 0",
    ),
    (
        "ns2_vegas_agent_delta",
        1.0,
        TypeError,
        "ns2_vegas_agent_delta must be True or False, got 1.0",
    ),
    (
        "ns2_vegas_growth_check",
        "yes",
        TypeError,
        "ns2_vegas_growth_check must be True or False, got 'yes'",
    ),
    (
        "fast_recovery",
        "tahoe",
        ValueError,
        "fast_recovery must be one of 'newreno', 'reno', 'reno-exit', 'ns2-vegas', 'ns2-fast' "
        "(or one per flow), got 'tahoe'",
    ),
    ("max_packets", 79, ValueError, "max_packets must be >= 80, got 79"),
    ("max_packets", 1e6, TypeError, "max_packets must be an integer, got 1000000.0 (float)"),
    (
        "laws",
        ["x"],
        TypeError,
        "laws must map flow names to ControlLaw objects ({'S1-D1': law}), got list ['x']",
    ),
]


def _one_link(duration: float = 0.05) -> Scenario:
    """The smallest packet run: one flow whose data and ACKs share one link (its rings
    start with 16 + 64 packets, the least ``max_packets`` takes)."""
    flow = FlowSpec("f", ("F",), ("F",), algorithm="reno")
    return Scenario(
        name="one", links=(Link("F", 8e6, 0.01, 20),), flows=(flow,), duration_s=duration
    )


def _routes(sc: Scenario, **options: object) -> list[Callable[[], object]]:
    """The three ways to run ``sc`` on the packet simulator with ``options``."""
    return [
        lambda: tcpfluid.simulate(sc, Packet(**options)),  # type: ignore[arg-type]
        lambda: tcpfluid.simulate(sc, "packet", **options),
        lambda: simulate_packets(sc, **options),  # type: ignore[arg-type]
    ]


@pytest.mark.parametrize(("name", "value", "exc", "message"), BAD_OPTIONS)
def test_every_route_refuses_a_bad_option_alike(
    name: str, value: object, exc: type, message: str
) -> None:
    for run in _routes(_one_link(), **{name: value}):
        with pytest.raises(exc) as got:
            run()
        assert str(got.value) == message


#: the edge of each option's accepted range (and the NumPy bools a bool option takes)
EDGE_OPTIONS = [
    ("seed", 0),
    ("delayed_ack", np.True_),
    ("delayed_ack", [False]),
    ("delayed_ack_echo", "latest"),
    ("delack_timeout_s", 1e-9),
    ("min_rto_s", 60.0),  # = the default max_rto_s
    ("max_rto_s", 0.2),  # = the default min_rto_s
    ("fine_retransmit", np.False_),
    ("send_overhead_s", 0.0),
    ("start_delay_s", 0.0),
    ("start_delay_s", [0.0]),
    ("timeout_recover", np.False_),
    ("fast_recovery", ("reno",)),
    ("max_packets", 80),
    ("laws", {}),
]


@pytest.mark.parametrize(("name", "value"), EDGE_OPTIONS)
def test_every_route_takes_the_edge_of_each_option(name: str, value: object) -> None:
    sc = _one_link()
    options = {name: value, "laws": {"f": FixedWindow(2)}} if name != "laws" else {name: value}
    for run in _routes(sc, **options):
        run()


def test_a_ceiling_below_the_rings_of_the_run_is_refused_alike() -> None:
    # two links and one flow start with 16 + 16 + 64 = 96 packets of rings
    sc = two_link().with_algorithm("reno")
    message = (
        "max_packets=95 is below the 96 packet slots the simulator's rings start with for 2 links "
        "and 1 flows; raise it"
    )
    for run in _routes(sc, max_packets=95):
        with pytest.raises(ValueError) as got:
            run()
        assert str(got.value) == message
    for run in _routes(sc, max_packets=96):
        run()


def test_a_trace_interval_past_the_bounds_is_refused_under_the_name_given() -> None:
    sc = two_link(duration=10.0).with_algorithm("reno")
    with pytest.raises(ValueError, match=r"^record_interval_s=1e-09 gives .* record_interval_s >="):
        tcpfluid.simulate(sc, Packet(record_interval_s=1e-9))
    with pytest.raises(ValueError, match=r"^sample_interval_s=1e-09 gives .* sample_interval_s >="):
        simulate_packets(sc, sample_interval_s=1e-9)


@pytest.mark.parametrize("option", ["ns2_vegas_agent_delta", "ns2_vegas_integer_delta"])
def test_an_agents_delta_for_a_law_that_computes_its_own_is_refused(option: str) -> None:
    """Quick Vegas computes its own Δ from the window: asking its ns-2 Vegas sender to hand
    it the agent's Δ would be ignored, so it is a ValueError naming the option, the flow
    and the law (Vegas beside it would read it)."""
    from tcpfluid.scenarios import rtt_dumbbell

    sc = rtt_dumbbell(10e6, [0.02, 0.04], ["vegas", "quick-vegas"], duration_s=1.0)
    with pytest.raises(ValueError, match=rf"{option}=True: flow 'S2-D2' runs 'quick-vegas'"):
        tcpfluid.simulate(sc, "packet", fast_recovery="ns2-vegas", **{option: True})
