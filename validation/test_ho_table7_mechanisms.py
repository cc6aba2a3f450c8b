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
* **Not explained: the Vegas means.** With the phase effect broken, and also with ns-2's
  defaults for its Vegas agent (α = 1, β = 3, γ = 1: the paper states no Vegas setting),
  the Vegas flows sit at their two-packet floor and still get 26-85 % more than the
  paper's Vegas flows; the last test states it, so that the entry's claim stays checked.
"""

from __future__ import annotations

import numpy as np
import pytest

from tcpfluid.published import published
from tcpfluid.report._sec_tcp_ho_tables import ho_table_run
from tcpfluid.report._table import TOLERANCES

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
