"""Bad configurations are rejected with clear errors before anything runs."""

from __future__ import annotations

import dataclasses

import pytest
from _simkit import FixedWindow, two_link

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
    with pytest.raises(exc, match=match):
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
