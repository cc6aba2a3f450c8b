"""Why a flow that joins a busy link ends with a different share in the fluid engines than
in the packet simulator: two mechanisms of docs/fluid-promises.md, "Why joiners' shares
part", each measured with its switch.

* iTCP-Vegas's ramp in a cycling queue: four iTCP-Vegas flows on 585 Mb/s x 49 ms hold a
  queue that cycles; a fifth joining at 20 s ramps in Area 1 (its step P grows each round)
  until a round in Area 4 resets P. With thresholds that started at α, β on leaving slow
  start, the packet joiner's Δ swung across them with the cycle and it decreased in 25 of
  its first 87 rounds (share 0.456 against 0.668 and 0.678 in the fluid engines). With
  thresholds that follow the window (α, β + threshold_gain x W, the law's docstring) its
  band sits above the cycle's swing: it decreases in 3 of 88 rounds, the fluid joiners in
  1 of 86 and 2 of 88, and the shares come within 9 % (all three end with nearly the whole
  link).
* TCP-Ho's cut to the measured rate: on 3.73 Mb/s x 278 ms with a 229-packet buffer the
  second TCP-Ho flow joins at 153 s and its quick shift fills the buffer; the packet flow
  already there reads its throughput fallen and cuts to its measured rate (without a loss
  of its own) and the joiner keeps the larger part. The hybrid model's flow there does not
  cut. With the document's rules alone (``decrease="table"``, no cut to the measured rate)
  the packet joiner no longer takes the larger part; the fluid joiners come within 20 % of it
  only with the packet senders' go-back cuts (ns-2 without ``bugFix_``): with ``bugFix_``
  (``timeout_recover=True``, the packet runs here) they are 25-29 % above it.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import tcpfluid
from tcpfluid.engines import Packet
from tcpfluid.scenarios import Scenario, rtt_dumbbell

ITCP_JOIN_S = 20.0


def _share(res: tcpfluid.Result, j: int) -> float:
    thr = np.array([f.throughput_pps for f in res.summary.flows], dtype=np.float64)
    return float(thr[j] / thr.sum())


@pytest.fixture(scope="module")
def itcp() -> dict[str, tcpfluid.Result]:
    sc = rtt_dumbbell(
        585e6, [0.049] * 5, ["itcp-vegas"] * 5, duration_s=60.0,
        start_s=[0.0] * 4 + [ITCP_JOIN_S],
    )  # fmt: skip
    return {e: tcpfluid.simulate(sc, e) for e in ("packet", "rounds", "hybrid")}


def _decreases(res: tcpfluid.Result) -> tuple[int, int]:
    """The joiner's congestion-avoidance rounds in its first 5 s and how many of them
    lowered its window."""
    log = res.rounds[4]
    t = np.asarray(log.time_s)
    ca = (t > ITCP_JOIN_S) & (t <= ITCP_JOIN_S + 5.0) & (np.asarray(log.phase) != 0)
    w, nxt = np.asarray(log.window_pkts)[ca], np.asarray(log.next_window_pkts)[ca]
    return int(ca.sum()), int((nxt < w - 1e-9).sum())


def test_no_engines_itcp_joiner_ramp_is_cut_by_the_cycle(
    itcp: dict[str, tcpfluid.Result],
) -> None:
    """Each joiner decreases in at most 5 % of its first congestion-avoidance rounds
    (measured: packets 3 of 88, round model 1 of 86, hybrid model 2 of 88; the packet
    joiner 25 of 87 while its thresholds started at α, β)."""
    for engine in ("packet", "rounds", "hybrid"):
        n, dec = _decreases(itcp[engine])
        assert n > 50 and dec <= 0.05 * n, (engine, n, dec)


def test_the_fluid_itcp_joiners_take_the_link_a_little_sooner(
    itcp: dict[str, tcpfluid.Result],
) -> None:
    """Its share over the run: 0.605 in packets, 0.657 and 0.656 in the fluid engines,
    above the packets' but by less than 15 % (0.456 against 0.668 and 0.678, 46-49 %
    above, while the thresholds started at α, β)."""
    pk = _share(itcp["packet"], 4)
    for engine in ("rounds", "hybrid"):
        f = _share(itcp[engine], 4)
        assert pk < f < 1.15 * pk, (engine, f, pk)


def _tcp_ho(decrease: str | None) -> Scenario:
    sc = rtt_dumbbell(
        3.7273e6, [0.2777] * 2, ["tcp-ho"] * 2, duration_s=460.0, buffer_pkts=229,
        start_s=[153.2, 0.0],
    )  # fmt: skip
    if decrease is None:
        return sc
    flows = tuple(dataclasses.replace(f, params={"decrease": decrease}) for f in sc.flows)
    return dataclasses.replace(sc, flows=flows)


#: the packet senders with ns-2's ``bugFix_`` (no fast retransmit from the duplicate ACKs of a
#: timeout's go-back)
BUG_FIX = Packet(timeout_recover=True)


def test_the_packet_tcp_ho_incumbent_cuts_to_its_measured_rate() -> None:
    """Default rules: the packet joiner takes more than half the link (0.601; 0.573 without
    ``bugFix_``) and the flow already there ends below half its window before the join (44
    against 130 packets), without a loss event; the hybrid model's joiner takes less than
    40 % (0.343)."""
    sc = _tcp_ho(None)
    pk = tcpfluid.simulate(sc, BUG_FIX)
    assert _share(pk, 0) > 0.55, _share(pk, 0)
    assert pk.summary.flows[1].losses == 0
    assert float(pk.window_pkts[1, -1]) < 0.5 * 130.0, pk.window_pkts[1, -1]
    hy = tcpfluid.simulate(sc, "hybrid")
    assert _share(hy, 0) < 0.4, _share(hy, 0)


def test_without_the_cut_the_packet_tcp_ho_joiner_takes_less_than_half() -> None:
    """Switched off (``decrease="table"``): the packet joiner takes less than half (0.342,
    with 18 timeouts in its 36 loss events; 0.400 without ``bugFix_``)."""
    pk = _share(tcpfluid.simulate(_tcp_ho("table"), BUG_FIX), 0)
    assert pk < 0.5, pk


@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason=(
        "with the packet senders' bugFix_ the switched-off packet joiner takes 0.342 and the "
        "round and hybrid models' joiners 0.428 and 0.440, 25 % and 29 % above it; within "
        "20 % only against the go-back cuts of the sender without it (0.400)"
    ),
)
def test_without_the_cut_the_tcp_ho_joiners_shares_come_together() -> None:
    """Switched off (``decrease="table"``): the round and hybrid models' joiners within 20 %
    of the packet joiner's share."""
    sc = _tcp_ho("table")
    pk = _share(tcpfluid.simulate(sc, BUG_FIX), 0)
    for engine in ("rounds", "hybrid"):
        got = _share(tcpfluid.simulate(sc, engine), 0)
        assert abs(got - pk) <= 0.2 * pk, (engine, got, pk)
