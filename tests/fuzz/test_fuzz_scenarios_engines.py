"""Fuzzing scenarios and each engine on tiny cases: one hostile parameter at a time.

Each example builds a named scenario (or runs it through an engine) with small, fast
settings (1 Mb/s, 20 ms, under a second) and one parameter replaced by a hostile value.
The run either succeeds with finite numbers or raises ValueError/TypeError naming that
parameter (or the setting it conflicts with).
"""

from __future__ import annotations

from typing import Any

from _fuzz_budget import FUZZ, NUMBERS, TEXTS, assert_finite, call_checked
from hypothesis import given
from hypothesis import strategies as st

from tcpfluid.engines import simulate_summary
from tcpfluid.scenarios import SCENARIOS, build_scenario

TINY = {"bandwidth": "1Mbps", "rtt": "20ms", "duration": "0.5s", "cbr": "none"}
PARAMS = st.sampled_from(
    [
        "bandwidth",
        "rtt",
        "buffer",
        "duration",
        "cbr",
        "flows",
        "packet_size",
        "ack_size",
        "access_bandwidth",
        "access_delay",
        "alpha",
        "beta",
        "gamma",
    ]
)
VALUES = st.one_of(NUMBERS, TEXTS)
# what a message may name instead of the parameter itself: the quantities it shapes
RELATED = {
    "bandwidth": ["bandwidth", "bottleneck", "mu"],
    "rtt": ["rtt", "access", "delay", "d="],
    "duration": ["duration", "rtt", "round"],
    "packet_size": ["packet_size", "bandwidth", "bottleneck"],
    "ack_size": ["ack_size", "ack"],
    "access_bandwidth": ["access_bandwidth", "bottleneck"],
    "access_delay": ["access_delay", "rtt"],
    "flows": ["flows"],
    "cbr": ["cbr", "cross traffic"],
}


@FUZZ
@given(name=st.sampled_from(list(SCENARIOS)), param=PARAMS, value=VALUES)
def test_build_scenario(name: str, param: str, value: Any) -> None:
    params = {param: value} if param in SCENARIOS[name].defaults else {}
    ok, sc = call_checked(build_scenario, [param, *RELATED.get(param, [])], name, **params)
    if ok:
        try:
            view = sc.fluid_view()
        except (ValueError, TypeError) as exc:  # e.g. a scenario the fluid view refuses
            allowed = [param, *RELATED.get(param, []), "fluid", "engine"]
            assert any(n in str(exc) for n in allowed), exc
            return
        assert_finite([view.path.mu, view.path.d, view.path.bdp])


def _engine_case(engine: str, param: str, value: Any) -> None:
    sets = {**TINY, param: value}
    names = [param, *RELATED.get(param, [])]
    ok, out = call_checked(simulate_summary, names, "qv-basic", "vegas", engine=engine, sets=sets)
    if ok:
        assert_finite({k: v for k, v in out.items() if k not in ("params", "notes")})


@FUZZ
@given(param=PARAMS, value=VALUES)
def test_round_engine(param: str, value: Any) -> None:
    _engine_case("rounds", param, value)


@FUZZ
@given(param=PARAMS, value=VALUES)
def test_ode_engine(param: str, value: Any) -> None:
    _engine_case("ode", param, value)


# the packet engine's cost grows with the packets simulated: hostile values only where a
# huge value is refused before running (bandwidth and duration stay tiny)
PACKET_PARAMS = st.sampled_from(["rtt", "buffer", "cbr", "packet_size", "alpha", "beta", "gamma"])


@FUZZ
@given(param=PACKET_PARAMS, value=VALUES)
def test_packet_engine(param: str, value: Any) -> None:
    _engine_case("packet", param, value)
