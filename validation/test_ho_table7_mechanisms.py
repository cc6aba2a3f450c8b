"""The TCP-Ho paper's Table 7 (section ho-friendliness): Reno with Vegas on 10 Mb/s x 1 ms,
120-packet drop-tail buffer, 20 connections. The report's Reno-with-Vegas rows differ: the
paper's Vegas flows back off much further against Reno than the engines' do. These
experiments run the section's own measurement (:func:`ho_table_run`: each scheme's mean
goodput per flow over 10-60 s, judged at the report's ±10 % for a throughput).

* **Phase effect** (the mechanism ``phase-effect`` of docs/mechanisms.md). With ACK
  clocking and deterministic send times every packet that leaves the full buffer is
  replaced by the one its ACK releases, so the overflows fall only on the packets a window
  increase adds: Reno's. The packet simulator's Vegas flows never lose a packet and hold
  their backlog at the queueing delay Reno sets. With each data packet sent after a random
  wait of up to one bottleneck packet time (``send_overhead_s``, ns-2's ``overhead_``;
  one change) the overflows fall on whichever packets arrive, Vegas's included, and the
  Reno flows' mean goodput agrees with the paper in the 15-5 and 10-10 mixes.
* **Phase effect with FAST and TCP-Ho** (the same mechanism). Beside TCP-Ho the overflows
  fall on FAST's doubling bursts: FAST flows end 40-58 % of their loss events in a timeout
  (at a median window of 4 packets) and TCP-Ho flows 2 %, and FAST gets 2.5 times less than
  TCP-Ho at 10-10. With the random wait the timeouts are shared (15-24 % and 13-20 %) and
  the FAST mean at FAST x10 with TCP-Ho x10 agrees with the paper.
* **Not explained: the Vegas means.** With the phase effect broken, and also with ns-2's
  defaults for its Vegas agent (α = 1, β = 3, γ = 1: the paper states no Vegas setting),
  the Vegas flows sit at their two-packet floor and still get 26-85 % more than the
  paper's Vegas flows; the last test states it, so that the entry's claim stays checked.
"""

from __future__ import annotations

import numpy as np
import pytest

from tcpfluid.engines import simulate
from tcpfluid.published import published
from tcpfluid.report import TOLERANCES
from tcpfluid.report._sec_tcp_ho_tables import ho_table_run
from tcpfluid.report._thesis_ns2 import ns2_fast_options
from tcpfluid.scenarios import build_scenario
from tcpfluid.scenarios._paper_tables import HO_MEASURE_FROM_S

#: one 1000-byte packet's transmission time on the 10 Mb/s bottleneck, s: the largest
#: random wait before a data packet in the switch-off runs
PACKET_TIME_S = 1000 * 8 / 10e6
#: ns-2's defaults for Agent/TCP/Vegas (tcl/lib/ns-default.tcl)
NS2_VEGAS = {"alpha": 1.0, "beta": 3.0, "gamma": 1.0}
THROUGHPUT = TOLERANCES["throughput"]


def _means_kbps(r: dict, scheme: str) -> float:
    thr = [x for x, a in zip(r["throughput_pps"], r["algorithms"], strict=True) if a == scheme]
    return float(np.mean(thr)) * 8.0  # 1000-byte packets: kb/s


def _vegas_losses(r: dict) -> list[float]:
    return [x for x, a in zip(r["losses"], r["algorithms"], strict=True) if a == "vegas"]


def _paper(n_reno: int, n_vegas: int, scheme: str) -> float:
    return float(published(f"004/table7/reno-vegas/{n_reno}-{n_vegas}/{scheme}").value)


@pytest.mark.parametrize("n_reno,n_vegas", [(15, 5), (10, 10)], ids=["15-5", "10-10"])
def test_table_7_reno_means_agree_once_random_send_times_break_the_phase_effect(
    n_reno: int, n_vegas: int
) -> None:
    mix = f"reno:{n_reno},vegas:{n_vegas}"
    paper = _paper(n_reno, n_vegas, "reno")  # 608, 840 kb/s
    off = ho_table_run("ho-friendliness", mix, "packet")  # the report's run
    on = ho_table_run("ho-friendliness", mix, "packet", options={"send_overhead_s": PACKET_TIME_S})
    assert max(_vegas_losses(off)) == 0  # deterministic: no Vegas packet is dropped
    assert min(_vegas_losses(on)) > 0  # random send times: every Vegas flow loses
    reno_off, reno_on = _means_kbps(off, "reno"), _means_kbps(on, "reno")
    assert not THROUGHPUT.passes(reno_off, paper), (reno_off, paper)  # the row differs
    assert THROUGHPUT.passes(reno_on, paper), (reno_on, paper)  # 586-590, 760-765 kb/s


@pytest.mark.parametrize(
    "n_reno,n_vegas", [(15, 5), (10, 10), (5, 15)], ids=["15-5", "10-10", "5-15"]
)
def test_table_7_vegas_means_stay_above_the_paper_with_the_phase_effect_broken(
    n_reno: int, n_vegas: int
) -> None:
    """No experiment run so far brings the Vegas means to the paper's: with the phase
    effect broken and ns-2's Vegas defaults on every Vegas flow, the Reno means agree in
    all three mixes and the Vegas flows hold about two packets, still above the paper."""
    mix = f"reno:{n_reno},vegas:{n_vegas}"
    on = ho_table_run(
        "ho-friendliness",
        mix,
        "packet",
        options={"send_overhead_s": PACKET_TIME_S},
        flow_params={"vegas": NS2_VEGAS},
    )
    reno, vegas = _means_kbps(on, "reno"), _means_kbps(on, "vegas")
    assert THROUGHPUT.passes(reno, _paper(n_reno, n_vegas, "reno")), reno  # 610, 830, 1475
    paper_vegas = _paper(n_reno, n_vegas, "vegas")  # 89, 120, 138 kb/s
    assert vegas > (1.0 + THROUGHPUT.rel) * paper_vegas, (vegas, paper_vegas)  # 165-174


#: the switch-off runs' options: a random wait of up to one packet time before each data
#: packet, two seeds
RANDOM_WAITS = (
    {"send_overhead_s": PACKET_TIME_S, "seed": 0},
    {"send_overhead_s": PACKET_TIME_S, "seed": 1},
)


def _timeout_shares(mix: str, options: dict) -> dict[str, float]:
    """Per scheme of ``mix``: the share of its flows' loss events from 10 s on that are
    retransmission timeouts, in the section's packet run (its FAST flows with ns-2's FAST
    agent's recovery) with ``options``."""
    sc = build_scenario("ho-friendliness", algorithm=mix)
    res = simulate(sc, "packet", **ns2_fast_options(sc), **options)
    kinds: dict[str, list[float]] = {}
    for f in res.native.flows:
        late = f.loss_t_s >= HO_MEASURE_FROM_S
        kinds.setdefault(f.algorithm, []).extend(f.loss_kind[late])
    return {a: float(np.mean(np.asarray(k) == 3)) for a, k in kinds.items()}  # 3: timeout


@pytest.mark.parametrize("n_fast,n_ho", [(5, 15), (10, 10)], ids=["5-15", "10-10"])
def test_table_7_fast_beside_tcp_ho_times_out_only_while_the_phase_effect_holds(
    n_fast: int, n_ho: int
) -> None:
    """Deterministic send times put the overflows on FAST's doubling bursts: its small
    windows (a median of 4 packets at a timeout) end most loss events in a timeout, TCP-Ho's
    almost none; with the random wait both schemes time out alike."""
    mix = f"fast:{n_fast},tcp-ho:{n_ho}"
    off = _timeout_shares(mix, {})  # the report's run
    on = _timeout_shares(mix, RANDOM_WAITS[0])
    assert off["fast"] > 0.35, off  # 0.579, 0.403
    assert off["tcp-ho"] < 0.05, off  # 0.021, 0.020
    assert on["fast"] < 0.3, on  # 0.154, 0.240
    assert on["tcp-ho"] > 0.1, on  # 0.161, 0.187


def test_table_7_fast_mean_beside_tcp_ho_agrees_once_random_send_times_break_the_phase_effect() -> (
    None
):
    """FAST x10 with TCP-Ho x10: the FAST mean (286 kb/s per flow in the report's run, the
    paper 554) agrees with the paper with the random wait, on either seed (502, 527); the
    TCP-Ho mean moves from 703 to 479 and 457 kb/s and still differs from the paper's 317."""
    mix = "fast:10,tcp-ho:10"
    paper = float(published("004/table7/fast-tcp-ho/10-10/fast").value)
    paper_ho = float(published("004/table7/fast-tcp-ho/10-10/tcp-ho").value)
    off = ho_table_run("ho-friendliness", mix, "packet")
    assert not THROUGHPUT.passes(_means_kbps(off, "fast"), paper)  # the cell differs
    for options in RANDOM_WAITS:
        on = ho_table_run("ho-friendliness", mix, "packet", options=options)
        fast, ho = _means_kbps(on, "fast"), _means_kbps(on, "tcp-ho")
        assert THROUGHPUT.passes(fast, paper), (options, fast, paper)
        assert fast > _means_kbps(off, "fast") * 1.5  # 286 -> 502, 527
        assert not THROUGHPUT.passes(ho, paper_ho), (options, ho, paper_ho)
