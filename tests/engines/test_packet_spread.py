"""``tcpfluid.packet_spread``: the packet simulator's min / median / max over start orders.

Independent route: each run is made again here with :func:`tcpfluid.simulate` and the
delays of :func:`tcpfluid.sim.start_jitter` (the documented definition of run ``k``), and
the min, median and max are taken with the standard library. The spread of two Vegas
flows started together on a small path comes from the packet simulator itself (which
flow's first packets lead decides who rests higher); that of one flow is bounded by what
a start delay of at most a fraction of a millisecond can move.
"""

from __future__ import annotations

import json
import statistics
from typing import Any

import numpy as np
import pytest

import tcpfluid
from tcpfluid.engines import Packet, PacketSpread, Rounds
from tcpfluid.metrics import law_settle_band
from tcpfluid.scenarios import rtt_dumbbell
from tcpfluid.sim import start_jitter

DURATION_S = 3.0
RUNS = 3
#: a start delay of the engine's own, kept in every run
OWN_DELAY_S = 0.0005


def _two_vegas() -> Any:
    return rtt_dumbbell(8e6, [0.02, 0.02], ["vegas"] * 2, duration_s=DURATION_S, buffer_pkts=30)


#: the packet summary's keys of wall-clock speed, which differ from run to run
SPEED_KEYS = ("packets_per_s", "events_per_s")


def _values(summary: Any) -> dict[str, Any]:
    return {k: v for k, v in summary.to_dict().items() if k not in SPEED_KEYS}


@pytest.fixture(scope="module")
def two() -> PacketSpread:
    return tcpfluid.packet_spread(_two_vegas(), runs=RUNS, seed=5)


def test_run_0_is_the_plain_packet_run_and_each_run_its_start_jitter(two: PacketSpread) -> None:
    sc = _two_vegas()
    runs = [tcpfluid.simulate(sc, "packet")]
    runs += [
        tcpfluid.simulate(sc, "packet", start_delay_s=start_jitter(sc, (5, k)))
        for k in range(1, RUNS)
    ]
    np.testing.assert_array_equal(two.first.window_pkts, runs[0].window_pkts)
    assert two.runs == RUNS and two.seed == 5
    assert two.flow_names == ("S1-D1", "S2-D2")
    for k, res in enumerate(runs):  # same seed, same runs: reproducible
        assert _values(two.summaries[k]) == _values(res.summary)
        want = (0.0, 0.0) if k == 0 else start_jitter(sc, (5, k))
        assert tuple(two.start_delays_s[k]) == want
    for i in range(2):
        thr = [r.summary.flows[i].throughput_pps for r in runs]
        assert two.throughput_pps.min[i] == min(thr)
        assert two.throughput_pps.median[i] == statistics.median(thr)
        assert two.throughput_pps.max[i] == max(thr)
        shares = [r.summary.flows[i].throughput_pps / sum(r.summary.throughput_pps) for r in runs]
        assert two.throughput_share.max[i] == pytest.approx(max(shares), rel=1e-12)
        ss = [r.summary.flows[i].ss_exit_window_pkts for r in runs]
        assert (two.ss_exit_window_pkts.min[i], two.ss_exit_window_pkts.max[i]) == (
            min(ss),
            max(ss),
        )
    jain = [r.summary.jain_index for r in runs]
    assert float(two.jain_index.median) == statistics.median(jain)
    assert two.utilization.values.shape == (RUNS,)
    assert two.settled_window_pkts.values.shape == (RUNS, 2)


def test_two_vegas_flows_started_together_spread_one_flow_does_not(two: PacketSpread) -> None:
    # two flows: the start order moves who rests higher, by more than one flow alone moves
    share = two.throughput_share
    assert share.max[0] - share.min[0] > 0
    sc = rtt_dumbbell(8e6, [0.02], ["vegas"], duration_s=DURATION_S, buffer_pkts=30)
    seen: list[float] = []
    one = tcpfluid.packet_spread(
        sc, Packet(start_delay_s=OWN_DELAY_S), runs=RUNS, seed=5, progress=seen.append
    )
    assert seen[-1] == 1.0 and seen == sorted(seen)
    assert one.start_delays_s[0, 0] == OWN_DELAY_S  # the engine's own delay, jitter on top
    assert one.start_delays_s[1, 0] == OWN_DELAY_S + start_jitter(sc, (5, 1))[0]
    # one flow: a start moved by d delivers at most d x the link rate + one packet more or
    # less over the run; the settled window stays within the law's own settling band
    rate_pps = 8e6 / (8 * sc.packet_size_bytes)
    moved = float(one.start_delays_s.max() - one.start_delays_s.min())
    thr = one.throughput_pps
    assert thr.max[0] - thr.min[0] <= (moved * rate_pps + 1.0) / DURATION_S
    two_thr = two.throughput_pps
    relative = (thr.max[0] - thr.min[0]) / thr.median[0]
    assert relative < (two_thr.max[0] - two_thr.min[0]) / two_thr.median[0]
    settled = one.settled_window_pkts
    assert settled.max[0] - settled.min[0] <= law_settle_band("vegas")
    assert int(settled.missing[0]) == 0


def test_to_dict_is_json_and_the_table_informs(two: PacketSpread) -> None:
    d = two.to_dict()
    json.dumps(d, allow_nan=False)
    assert d["runs"] == RUNS and d["seed"] == 5 and len(d["start_delays_s"]) == RUNS
    assert d["throughput_pps"]["max"] == two.throughput_pps.max.tolist()
    assert set(d["utilization"]) == {"min", "median", "max", "missing"}
    text = str(two)
    assert "it is not a tolerance" in text and "S2-D2" in text
    rounds = tcpfluid.simulate(_two_vegas(), "rounds").summary
    beside = two.table(beside=rounds)
    assert "throughput (pkt/s): rounds" in beside and "Jain's index: rounds" in beside
    with pytest.raises(ValueError, match="beside must summarise the spread's 2 flows, got 1"):
        two.table(beside=tcpfluid.simulate(_one_vegas(), "rounds").summary)


def _one_vegas() -> Any:
    return rtt_dumbbell(8e6, [0.02], ["vegas"], duration_s=DURATION_S)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"engine": "rounds"}, ValueError, "engine must be 'packet' or a tcpfluid.engines.Packet"),
        ({"engine": Rounds()}, ValueError, "engine must be 'packet'"),
        ({"runs": 1}, ValueError, "runs must be >= 2, got 1"),
        ({"runs": 2.0}, TypeError, "runs must be an integer, got 2.0"),
        ({"seed": -1}, ValueError, "seed must be >= 0, got -1"),
        ({"progress": "bar"}, TypeError, "progress must be None or a callable"),
        ({"settle_band": -1.0}, ValueError, "settle_band"),
    ],
)
def test_bad_inputs_are_refused_naming_them(kwargs: dict, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        tcpfluid.packet_spread(_one_vegas(), **kwargs)


def test_a_scenario_is_required() -> None:
    with pytest.raises(TypeError, match=r"scenario must be a tcpfluid\.scenarios\.Scenario"):
        tcpfluid.packet_spread("qv-basic")  # type: ignore[arg-type]
