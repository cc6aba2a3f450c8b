"""Experiments behind the reasons the validation report gives for a DIFFERS row.

Each test switches off (or measures directly) the mechanism that a report row names as the
cause of a disagreement between two layers, and asserts the agreement, or the absence of
the mechanism, that results. Runs are shortened as far as the physics allows.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tcpfluid.algorithms import get_law
from tcpfluid.analytic import critical_window, slow_start_exit
from tcpfluid.fluid.rounds import PathBatch, simulate_rounds

#: the critical-window section's grid (the Quick Vegas paper's Fig. 3: 100 kb ... 5000 kb at
#: d = 100 ms, 1000-byte packets), in packets
_BDPS_PKTS = (12.5, 31.25, 62.5, 125.0, 250.0, 375.0, 500.0, 625.0)
_D_S = 0.1


def _round_model_exit_windows(algorithm: str, feedback_rounds: int) -> np.ndarray:
    trace = simulate_rounds(
        get_law(algorithm),
        PathBatch.from_bdp(np.asarray(_BDPS_PKTS), _D_S),
        rounds=80,
        record=(),
        feedback_rounds=feedback_rounds,
    )
    return np.asarray(trace.summary.ss_exit_window_pkts[:, 0], dtype=float)


def _sender_windows(n: int) -> list[float]:
    """Quick Vegas's slow-start windows as a packet sender grows them (the Quick Vegas
    paper, §3.2.1: a window W is ⌊W⌋ packets, one extra packet per two ACKs)."""
    w = [2.0]
    while len(w) < n:
        w.append(w[-1] + 0.5 * math.floor(w[-1]))
    return w


def test_quick_vegas_round_model_exit_window_early_by_the_feedback_lag() -> None:
    """Critical-window rows, Quick Vegas, round model vs eq. (10).

    Mechanism: the round model's feedback lag (``feedback_rounds=1``: the law reads the
    RTTs of the previous round's packets, but multiplies them by the window already grown
    in the decision round, as a packet sender does). Switched off (``feedback_rounds=0``,
    the documents' own-round model that eq. (10) assumes), the round model leaves slow
    start at the first of a sender's windows (2, 3, 4.5, 6.5, 9.5, ...) at or above eq.
    (10)'s critical window, at every BDP of the section. With the lag it leaves at the first
    at or above eq. (10)'s window for 2γ/3, and every window that differs is exactly one
    slow-start step (w → w + ⌊w⌋/2) smaller.
    """
    windows = _sender_windows(24)

    def first_at_least(threshold: float) -> float:
        return next(w for w in windows[1:] if w >= threshold)

    closed = np.array(
        [first_at_least(float(critical_window("quick-vegas", b))) for b in _BDPS_PKTS]
    )
    no_lag = _round_model_exit_windows("quick-vegas", feedback_rounds=0)
    np.testing.assert_allclose(no_lag, closed, atol=1e-9)

    lagged = _round_model_exit_windows("quick-vegas", feedback_rounds=1)
    two_thirds = np.array(
        [first_at_least(float(critical_window("quick-vegas", b, gamma=2 / 3))) for b in _BDPS_PKTS]
    )
    np.testing.assert_allclose(lagged, two_thirds, atol=1e-9)
    differs = np.abs(lagged - closed) > 0.5
    assert np.any(differs)
    np.testing.assert_allclose(closed[differs], lagged[differs] + 0.5 * np.floor(lagged[differs]))


def test_vegas_round_model_exit_window_does_not_depend_on_the_feedback_lag() -> None:
    """The same switch for Vegas: its exit decision is taken in the fixed (non-doubling)
    round after each doubling, whose RTTs already carry the doubled window's queue, so the
    lag does not move it: both settings give the closed form eq. (6) at every BDP (the
    Vegas critical-window rows agree)."""
    closed = np.array(
        [slow_start_exit("vegas", b, _D_S, rtt_model="average").window_pkts for b in _BDPS_PKTS]
    )
    for lag in (0, 1):
        np.testing.assert_allclose(_round_model_exit_windows("vegas", lag), closed, atol=0.5)


@pytest.mark.parametrize("reverse_buffer", [2])
def test_vegas_loses_no_ack_at_small_reverse_buffer(reverse_buffer: int) -> None:
    """Asymmetric-network row 'Vegas, k = 5, B_r = 2 ACKs' (the asymmetric-networks paper's
    Table II).

    The document's lower throughput is attributed (its §IV.B) to ACK drops when the
    reverse buffer B_r is below β. Measured in our packet simulator: with α = 1, β = 3,
    k = 5 (μr = 40 ACKs/s) and B_r = 2, after slow start no ACK is dropped on the reverse
    link, and the throughput is the closed form min(μf, μr) = 40 packets/s. The mechanism the
    document names is absent in our runs, so our layers give μr where the document does not.
    """
    from tcpfluid import simulate
    from tcpfluid.scenarios import build_scenario

    sc = build_scenario(
        "asymmetric",
        k=5,
        reverse_buffer=reverse_buffer,
        duration="30s",
        alpha=1,
        beta=3,
    ).with_algorithm("vegas")
    res = simulate(sc, "packet")
    native = res.native
    t = np.asarray(native.t_s)
    after = t >= 10.0
    assert after.any()
    reverse = [lk for lk in native.links if lk.name == "R2-R1"]
    assert len(reverse) == 1
    drops = np.asarray(reverse[0].drops)
    ack_drops_after_10s = float(drops[-1] - drops[np.flatnonzero(after)[0]])
    assert ack_drops_after_10s == 0.0
    assert reverse[0].data_drops == 0
    throughput = res.summary.to_dict()["throughput_pps"][0]
    assert throughput == pytest.approx(200.0 / 5, rel=0.02)


def test_thesis_vegas_1_3_ode_agrees_given_the_packet_base_rtt_error() -> None:
    """Thesis-fairness rows 'vegas-1_3, x2 = 40 / 100 ms', ODE vs packet Jain's index.

    Mechanism: with α < β each flow stops wherever its BaseRTT estimate puts its backlog
    in [α, β]. In the packet run the long connection over-estimates its BaseRTT by a few
    ms (it first sees a queue), the fluid model by nothing. Given the BaseRTT errors the
    packet flows recorded (the study's ``ode_measured_x_jain``: the ODE run again with
    them), the ODE's index agrees with the packet simulator's within the section's
    ±0.05; without them it does not.
    """
    from tcpfluid.fairness import thesis_two_flow_study

    table = thesis_two_flow_study(
        x2_ms=(40, 100), settings=("vegas-1_3",), packet_engine="packet"
    ).table
    for _, row in table.iterrows():
        assert row["packet_base_rtt_error_long_s"] > 1e-3
        assert abs(row["ode_measured_x_jain"] - row["packet_jain"]) <= 0.05
        assert abs(row["ode_jain"] - row["packet_jain"]) > 0.05


def _period_jains_of(
    scenario: object, engine: object, edges: list[float]
) -> tuple[np.ndarray, float]:
    """Jain's index per period and the packets lost, of one run of ``scenario``."""
    import tcpfluid
    from tcpfluid.analytic import jain_index
    from tcpfluid.fairness import delivered_pkts, period_throughputs

    r = tcpfluid.simulate(scenario, engine)  # type: ignore[arg-type]
    flows = scenario.flows  # type: ignore[attr-defined]
    delivered = delivered_pkts(r.time_s, r.throughput_pps)
    periods = period_throughputs(
        r.time_s,
        delivered,
        [f.start_s for f in flows],
        [min(f.stop_s, edges[-1]) for f in flows],
        edges,
    )
    lost = float(sum(x or 0.0 for x in r.summary.to_dict()["losses"]))
    return np.asarray([jain_index(thr) for _, thr in periods], dtype=float), lost


def test_fast_many_flows_engines_part_only_where_the_buffer_overflows() -> None:
    """Many-flows rows, FAST, packet simulator vs the fluid engines and the Quick Vegas paper.

    Mechanism named by the report: FAST keeps α = 100 packets per flow queued, so a
    group of flows needs more queue than the buffer holds, and the flows lose at drop-tail
    overflows. On the section's scaled-down scenario (100 Mb/s, 6 flows joining in pairs,
    the quick report's setting) with a 150-packet buffer (< 2 α) the packet run loses
    packets and the packets' and ODE's indices part by more than 0.05 in one period; with the buffer
    switched out of play (1000 ≥ 6 α packets) no packet is lost and the packet simulator's
    index agrees with the ODE's within 0.05 in every period. The
    packet senders take ns-2's ``bugFix_`` (``timeout_recover=True``). In the lossy run they
    part in two periods: 20-40 s (packets 0.86, the hybrid 0.96) and 40-60 s (packets 0.98,
    the hybrid 0.90); elsewhere they are within 0.03 (before the hybrid's exact round growth
    and its overflow runs, docs/ode-model.md, only 40-60 s parted: the hybrid's joining pair
    timed out together at its slow-start overflow, 0.76). Without ``bugFix_`` the packets' own
    index fell below the ODE's as well (60-80 s: 0.92 against 0.99), and cutting again for
    every retransmission lost again (``lost_retransmit="halve"``) to 0.54 in 20-40 s: those
    retransmissions lost again were the go-back's, which the sender with ``bugFix_`` does
    not fast-retransmit (it reports none here).
    """
    from tcpfluid.engines import Packet
    from tcpfluid.scenarios import build_scenario

    packet = Packet(timeout_recover=True)
    o = {
        "bandwidth": "100Mbps",
        "flows": 6,
        "group_interval": "20s",
        "active": "60s",
        "duration": "100s",
    }
    edges = [0.0, 20.0, 40.0, 60.0, 80.0, 100.0]
    small = build_scenario("qv-many-flows", buffer=150, **o).with_algorithm("fast")
    pk, lost = _period_jains_of(small, packet, edges)
    ode, _ = _period_jains_of(small, "ode", edges)
    assert lost > 0
    # two periods are off by more than 0.05 in Jain's index: 20-40 s (the hybrid above the
    # packets: 0.96 against 0.86) and 40-60 s (below: 0.90 against 0.98)
    d = pk - ode
    assert d[1] < -0.05 and d[2] > 0.05
    # and in every other period the two layers are within 0.03 (largest: 60-80 s, 0.021)
    assert np.max(np.abs(d[[0, 3, 4]])) < 0.03

    large = build_scenario("qv-many-flows", buffer=1000, **o).with_algorithm("fast")
    pk, lost = _period_jains_of(large, packet, edges)
    ode, _ = _period_jains_of(large, "ode", edges)
    assert lost == 0
    np.testing.assert_allclose(pk, ode, atol=0.05)
