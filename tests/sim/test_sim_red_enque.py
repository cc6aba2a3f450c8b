"""The packet gateway's RED against a pure-Python reference of ns-2's ``REDQueue::enque``.

A constant-rate source sends packets at exact times ``n/λ`` into a RED link of ``μ < λ``
packets/s with a small buffer: no TCP sender, so the link's whole history is fixed by the
gateway's rules and a few lines replay it. ns-2.35's ``queue/red.cc`` (``REDQueue::enque``)
on each arrival:

1. decays the average over an idle period, as ``m = ptc·idle`` empty arrivals;
2. updates the average ``avg ← (1 − w_q)·avg + w_q·qlen`` with the packets waiting
   (``qlen``, the one in transmission not counted) — for **every** arrival, including one
   that finds the buffer full and is dropped by it;
3. drops early only when ``avg ≥ min_th`` **and** ``qlen > 1``; above ``max_th`` (classic
   RED) that drop is certain;
4. drops the arrival that finds ``qlen ≥ limit`` (the buffer) in any case.

The thresholds are chosen so that RED's probability is 0 or 1 at every arrival (the
reference checks it), so no random number enters and the replay is exact.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tcpfluid
from tcpfluid.scenarios import FlowSpec, Link, Scenario
from tcpfluid.scenarios.model import CbrSource

MU_PPS = 1000.0  # 8 Mb/s of 1000-byte packets
LAMBDA_PPS = 1517.0  # the source: an arrival never coincides with a departure
BUFFER = 5
DURATION_S = 0.2
SAMPLE_S = 0.0031


def _scenario(red: dict[str, Any]) -> Scenario:
    # the source alone crosses the RED link; the one flow (a scenario needs one) starts
    # on its own links just before the end
    return Scenario(
        name="red-enque",
        links=(
            Link("F", MU_PPS * 8000.0, 0.001, float(BUFFER), discipline="red", red=red),
            Link("G", 8e6, 0.001),
            Link("B", 8e6, 0.001),
        ),
        flows=(FlowSpec("f", ("G",), ("B",), start_s=0.999 * DURATION_S, algorithm="reno"),),
        cbr=(CbrSource("u", LAMBDA_PPS * 8000.0, 0.0, DURATION_S, ("F",)),),
        duration_s=DURATION_S,
    )


def _ns2_enque(red: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Arrival times, the average after each arrival and whether it was dropped."""
    w, lo, hi = red["w_q"], red["min_th"], red["max_th"]
    finishes: list[float] = []  # when each admitted packet's transmission ends
    busy = 0.0
    avg = 0.0
    times, avgs, drops = [], [], []
    n = 0
    while (t := n / LAMBDA_PPS) < DURATION_S:
        in_link = sum(1 for f in finishes if f > t)
        qlen = in_link - 1 if in_link > 0 else 0
        if in_link == 0 and t > busy:
            avg *= (1.0 - w) ** ((t - busy) * MU_PPS)  # step 1
        avg = (1.0 - w) * avg + w * qlen  # step 2
        if avg < lo or qlen <= 1:
            p_b = 0.0
        elif avg >= hi:
            p_b = 1.0
        else:  # the case is chosen so that no random drop can happen
            raise AssertionError(f"the average {avg} falls between the thresholds at {t} s")
        dropped = qlen >= BUFFER or p_b >= 1.0  # steps 3 and 4
        if not dropped:
            busy = max(t, busy) + 1.0 / MU_PPS
            finishes.append(busy)
        times.append(t)
        avgs.append(avg)
        drops.append(dropped)
        n += 1
    return np.array(times), np.array(avgs), np.cumsum(drops)


@pytest.mark.parametrize(
    "red",
    [
        # the thresholds above what the average can reach: only the full buffer drops,
        # and its drops move the average too
        {"min_th": 5.0, "max_th": 10.0, "max_p": 0.1, "w_q": 0.1},
        # the average far above max_th: RED drops every arrival that finds more than one
        # packet waiting, none that finds one or none
        {"min_th": 0.2, "max_th": 0.4, "max_p": 0.1, "w_q": 0.5, "gentle": False},
    ],
    ids=["full-buffer-arrivals-update-the-average", "no-red-drop-with-one-waiting"],
)
def test_red_gateway_replays_ns2_enque(red: dict[str, Any]) -> None:
    res = tcpfluid.simulate(_scenario(red), "packet", record_interval_s=SAMPLE_S)
    link = res.native.link("F")
    t = np.asarray(res.time_s)
    times, avgs, drops = _ns2_enque(red)
    k = np.searchsorted(times, t, side="right") - 1  # the last arrival before each sample
    seen = k >= 0
    assert int(seen.sum()) > 50
    # the same arithmetic in the same order: equal to rounding
    np.testing.assert_allclose(np.asarray(link.red_avg_pkts)[seen], avgs[k[seen]], rtol=1e-12)
    np.testing.assert_array_equal(np.asarray(link.drops)[seen], drops[k[seen]])
    assert drops[-1] > 50  # the buffer (or RED) did drop


def test_the_documentation_does_not_list_these_rules_as_not_modelled() -> None:
    """docs/simulator.md's list of what differs from ns-2 leaves out the rules this file
    checks (RED drops early only when more than one packet waits, and every arrival updates
    the average, one the full buffer drops included): its "What is simulated" and the
    gateway both follow them."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "simulator.md").read_text("utf-8")
    differs = text.split("\n## What differs from ns-2\n", 1)[1]
    red = next(item for item in differs.split("\n* ") if "`Queue/RED`" in item)
    not_modelled = red.split("Not modelled", 1)[1]
    assert "qlen > 1" not in not_modelled
    assert "full" not in not_modelled
