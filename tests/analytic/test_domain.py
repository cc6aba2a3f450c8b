"""The closed forms refuse what they cannot compute and follow the law where the form ends.

Each case below once returned an inconsistent answer or an ``OverflowError``:

* ``predict("vegas", 50 Mb/s × 100 ms, gamma=1000)`` reported an equilibrium window of
  3584 packets, outside its own band [627, 629]: with γ = 1000 the critical window
  (2158 packets) is above μd = 625, where the slow-start closed form (no bottleneck queue
  in slow start) does not hold;
* ``predict(..., gamma=1e308)`` and ``slow_start_windows("quick-vegas", 2000,
  whole_acks=True)`` raised ``OverflowError``.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from tcpfluid import Path
from tcpfluid.algorithms import get_law
from tcpfluid.analytic import (
    conspicuous_round,
    conspicuous_round_printed,
    critical_window,
    predict,
    reno_max_window_asymmetric,
    rounds_to_equilibrium,
    slow_start_exit,
    slow_start_windows,
    tcp_ho_cubic,
    vegas_equilibrium_window,
)
from tcpfluid.analytic.slow_start import max_slow_start_rounds
from tcpfluid.fluid import simulate_rounds

QV_PATH = Path("50Mbps", "100ms")  # μd = 625 packets


@pytest.mark.parametrize("algorithm", ["vegas", "enhanced-vegas", "quick-vegas"])
def test_gamma_above_the_path_is_refused_naming_gamma(algorithm):
    kw = {"alpha": 3.0, "beta": 3.0} if algorithm == "enhanced-vegas" else {}
    with pytest.raises(ValueError, match=r"gamma=1000.*exceeds μd = 625"):
        predict(algorithm, QV_PATH, gamma=1000, **kw)


@pytest.mark.parametrize(
    ("bdp", "kw", "match"),
    [
        # W* = 1000 (1 + sqrt(1 + 16·625/1000))/2 = 2158.3 > 625
        (625.0, {"gamma": 1000}, r"gamma=1000 .*W\* = 2158.3"),
        # γ = 1: W* = (1 + sqrt(1 + 16 μd))/2 > μd below μd = 5 (4.9: W* = 4.955)
        (4.9, {}, r"gamma=1.0 .*W\* = 4.955"),
    ],
)
def test_conspicuous_round_refuses_gamma_above_the_path_as_slow_start_exit_does(bdp, kw, match):
    with pytest.raises(ValueError, match=match):
        slow_start_exit("vegas", bdp, 0.1, **kw)
    with pytest.raises(ValueError, match=match):
        conspicuous_round("vegas", bdp, **kw)
    # at the edge W* = μd (μd = 5, γ = 1) both answer
    assert slow_start_exit("vegas", 5.0, 0.1).window_pkts > 5.0
    assert float(conspicuous_round("vegas", 5.0)) > 0


def test_huge_gamma_is_a_value_error_not_an_overflow():
    with pytest.raises(ValueError, match=r"gamma=1e\+308"):
        predict("vegas", QV_PATH, gamma=1e308)
    # W* itself stays finite: γ(1 + sqrt(1 + cμd/γ))/2 -> γ for γ >> μd
    assert float(critical_window("vegas", 625.0, gamma=1e308)) == pytest.approx(1e308)
    with pytest.raises(ValueError, match="bdp"):
        critical_window("vegas", 1e308)


def test_whole_ack_table_past_the_float_range_is_a_value_error():
    with pytest.raises(ValueError, match=r"rounds must be <= \d+ .*got 2000"):
        slow_start_windows("quick-vegas", 2000, whole_acks=True)
    for alg, whole in [("quick-vegas", True), ("quick-vegas", False), ("vegas", False)]:
        top = max_slow_start_rounds(alg, whole_acks=whole)
        # the last allowed round is finite, one more is refused
        assert math.isfinite(slow_start_windows(alg, top, whole_acks=whole)[-1])
        with pytest.raises(ValueError, match="rounds"):
            slow_start_windows(alg, top + 1, whole_acks=whole)
    # independent count: whole-ACK Quick Vegas adds floor(w/2) per round from 2
    # (n = how many windows convert to a float without overflow)
    w, n = 2, 0
    while True:
        try:
            float(w)
        except OverflowError:
            break
        w, n = w + w // 2, n + 1
    assert max_slow_start_rounds("quick-vegas", whole_acks=True) == n


def test_exit_window_above_the_band_follows_vegas_rule_down_to_beta():
    # μd = 100, γ = 20: W* = 10(1 + sqrt(1 + 16·100/20)) = 100 <= μd, so the exit round
    # holds, but the table window 128 cut to 112 is above μd + β = 104: Vegas removes one
    # packet per round (Δ = W − μd > β) for 8 rounds and settles at 104, inside its band.
    path = Path(1000.0, 0.1)  # 1000 packets/s x 100 ms
    pr = predict("vegas", path, gamma=20.0)
    assert pr.ss_exit_window_pkts == 128 and pr.ca_start_window_pkts == 112
    lo, hi = pr.equilibrium_band_pkts
    assert pr.equilibrium_window_pkts == 104.0
    assert lo <= pr.equilibrium_window_pkts <= hi
    assert pr.rounds_to_target == pr.ss_exit_round + 8
    # settled once within max(1, 0.02 * 104) = 2.08 packets of 104: after 6 of the 8 steps
    assert pr.rounds_to_equilibrium == pr.ss_exit_round + 6
    # independent route: the round model (no burst, one-round feedback) settles there too
    tr = simulate_rounds(get_law("vegas", gamma=20.0), path, rounds=200, rtt="fluid")
    w = np.asarray(tr.window_pkts)[:, 0, 0]
    assert w.max() == 128.0  # the same slow-start exit (table window)
    assert 112.0 in w  # the same cut
    # it steps down one packet per round and stops within one packet of μd + β (its
    # decision sees the previous, one packet larger, round's RTT)
    assert w[-1] == pytest.approx(104.0, abs=1.0)


def test_quick_vegas_above_the_band_uses_eq4_then_minus_one():
    # μd = 80, γ = 11: W* = 5.5(1 + sqrt(1 + 24·80/11)) = 78.4 <= μd; Table 1's window
    # 115.3 (2·1.5^10) cut to 100.9, above μd + β = 84
    path = Path(800.0, 0.1)
    pr = predict("quick-vegas", path, gamma=11.0)
    assert pr.ss_exit_window_pkts == pytest.approx(2 * 1.5**10)
    m = path.bdp + 3.0
    assert pr.ca_start_window_pkts > path.bdp + 4.0  # starts above the band
    # by hand: Δ > β halves the excess over m (eq. 4), then −1 per round to Δ <= m
    w, k = pr.ca_start_window_pkts, 0
    while w - path.bdp > m - path.bdp:
        delta = w - path.bdp
        w = w - (delta - 3.0) / 2.0 if delta > 4.0 else w - 1.0
        k += 1
    assert pr.equilibrium_window_pkts == pytest.approx(w)
    assert pr.rounds_to_target == pr.ss_exit_round + k
    lo, hi = pr.equilibrium_band_pkts
    assert lo <= pr.equilibrium_window_pkts <= hi


@pytest.mark.parametrize("bdp", [20.0, 625.0, 1e4])
def test_in_domain_predictions_end_inside_their_band(bdp):
    path = Path(bdp * 10.0, 0.1)
    for alg in ("vegas", "quick-vegas"):
        pr = predict(alg, path)
        lo, hi = pr.equilibrium_band_pkts
        assert lo <= pr.equilibrium_window_pkts <= hi


def test_rtt_model_is_the_name_and_rtt_the_alias():
    a = predict("vegas", QV_PATH, rtt_model="last")
    b = predict("vegas", QV_PATH, rtt="last")
    assert a == b
    assert a.critical_window_pkts == pytest.approx((1 + math.sqrt(1 + 8 * 625)) / 2)
    ex1 = slow_start_exit("vegas", 625.0, 0.1, rtt_model="last")
    ex2 = slow_start_exit("vegas", 625.0, 0.1, rtt="last")
    assert ex1 == ex2
    np.testing.assert_array_equal(
        conspicuous_round("vegas", 625.0, rtt_model="last"),
        conspicuous_round("vegas", 625.0, rtt="last"),
    )
    with pytest.raises(ValueError, match="not both"):
        predict("vegas", QV_PATH, rtt_model="last", rtt="average")


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: rounds_to_equilibrium("vegas", 1e308, 10), "window=1e.308"),
        (lambda: rounds_to_equilibrium("quick-vegas", 1e308, 10), "window=1e.308"),
        (lambda: conspicuous_round("tcp-ho", 1e308), "bdp=1e.308"),
        (lambda: conspicuous_round("tcp-ho", 1e308, queue="paper"), "bdp must be <= 1e100"),
        (lambda: conspicuous_round_printed("tcp-ho", 1e308), "bdp=1e.308"),
        (lambda: conspicuous_round_printed("vegas", 1e308), "bdp=1e.308"),
        (lambda: tcp_ho_cubic(1e200, 1e200), "k=1e.200"),
        (lambda: predict("vegas", Path(1e200, 1e100)), "bdp=1e.300"),
        (lambda: vegas_equilibrium_window(1e308, 1e308), "backlog=1e.308"),
        (lambda: reno_max_window_asymmetric(1e308, 10.0, 1.0, 0.0, 0.0), "rtt_s=10.0"),
    ],
)
def test_overflow_is_a_value_error_naming_the_input(call, match):
    # near the float range the closed forms overflowed to an infinity with only a NumPy
    # warning; now a ValueError names the input (warnings are errors here)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=match):
            call()


@pytest.mark.parametrize("algorithm", ["vegas", "enhanced-vegas"])
def test_rounds_with_a_standing_queue_last_longer_than_d(algorithm):
    # γ = 120 on 50 Mb/s × 100 ms: W* = 611 <= μd = 625, but Table 1's window 1024 cut to
    # 896 starts ~270 packets above the band, and Vegas removes one packet per round; each
    # of those rounds lasts W/μ (d plus the standing queue's delay), not d: 31 s of rounds
    # where rounds × d says 25.5 s.
    from tcpfluid import simulate

    path = Path("50Mbps", "100ms")
    pr = predict(algorithm, path, gamma=120.0)
    assert pr.ca_start_window_pkts == 896
    n = pr.rounds_to_equilibrium - pr.ss_exit_round
    by_hand = sum(max(path.d, (896 - j) / path.mu) for j in range(n))  # plain loop
    assert pr.time_to_equilibrium_s == pytest.approx(pr.ss_exit_time_s + by_hand)
    # the packet simulator on that path: the slow start's exit round carries a 400-packet
    # queue (0.13 s past 20 × d) that the closed form now counts, to the microsecond
    sc = path.scenario(algorithm, 60.0, params={"gamma": 120.0})
    res = simulate(sc, "packet")
    flow = res.summary.flows[0]
    assert flow.ss_exit_time_s == pytest.approx(pr.ss_exit_time_s, abs=1e-6)
    assert flow.ss_exit_time_s > pr.ss_exit_round * path.d + 0.1
    got = flow.time_to_equilibrium_s
    round_s = 641.0 / path.mu  # a round at the edge of the settling band
    if algorithm == "vegas":  # the same round (settling is resolved to a round)
        assert got == pytest.approx(pr.time_to_equilibrium_s, abs=round_s)
    else:
        # Enhanced Vegas (α = β) ends in a cycle of a few packets in packets, a point in
        # the closed form; settling counts that cycle as settled, so the packets settle
        # earlier by at most one round per packet of the cycle's swing, plus one
        late = res.window_pkts[0][res.time_s > 40.0]
        swing = float(late.max() - late.min())
        assert 1.0 < swing < 5.0
        assert 0.0 <= pr.time_to_equilibrium_s - got <= (swing + 1.0) * round_s
    assert abs(got - pr.rounds_to_equilibrium * path.d) > 5.0


@pytest.mark.parametrize("buffer", [50, 90])
def test_tcp_ho_refuses_a_buffer_its_ramp_overflows(buffer):
    # TCP-Ho's ramp ends one step past the pipe: on 50 Mb/s × 100 ms the packet simulator
    # queues about 100 packets at its peak, so a 50- or 90-packet buffer loses packets,
    # which the lossless prediction does not model (it used to answer as if unlimited)
    from tcpfluid import simulate

    path = Path("50Mbps", "100ms", buffer=buffer)
    with pytest.raises(ValueError, match=rf"buffer={buffer} packets is smaller than"):
        predict("tcp-ho", path)
    with pytest.raises(ValueError, match=rf"buffer={buffer} packets can only be checked"):
        predict("tcp-ho", path, round_map=False)
    sc = Path("50Mbps", "100ms").scenario("tcp-ho", 8.0)
    lossless = simulate(sc, "packet")
    assert np.nanmax(lossless.queue_pkts) > buffer  # the independent route: the packets
    pr = predict("tcp-ho", Path("50Mbps", "100ms", buffer=110))  # above the peak: answered
    assert (
        pr.time_to_equilibrium_s == predict("tcp-ho", Path("50Mbps", "100ms")).time_to_equilibrium_s
    )


def test_quick_vegas_note_gives_the_first_reach_the_senders_see():
    # eq. 12 assumes succ is never reset and counts 2.8 s to μd + 3 on 50 Mb/s × 100 ms;
    # the note adds when the round map's window first reaches it. The packet simulator's
    # window first reaches 628 at 13.8 s: within 5 % (the sampling of its window trace,
    # 0.1 s, and one round of the fluid ramp)
    import re

    from tcpfluid import simulate

    path = Path("50Mbps", "100ms")
    pr = predict("quick-vegas", path)
    m = re.search(r"first reaches the target 628 packets at ([\d.]+) s", pr.note)
    assert m is not None and pr.time_to_target_s == pytest.approx(2.8)
    r = simulate(path.scenario("quick-vegas", 20.0), "packet")
    w, t = np.asarray(r.window_pkts)[0], np.asarray(r.time_s)
    packets = float(t[np.flatnonzero(w >= 628.0)[0]])
    assert float(m.group(1)) == pytest.approx(packets, rel=0.05)


@pytest.mark.parametrize("law", ["tcp-ho", "vegas", "quick-vegas"])
def test_every_missing_prediction_says_why(law: str) -> None:
    # TCP-Ho on 10 Mb/s x 100 ms: no slow start, no gamma/alpha/beta, a window only from
    # the round map; Vegas and Quick Vegas give every field there
    from tcpfluid.analytic import predict

    d = predict(law, Path(1250.0, 0.1)).to_dict()
    nulls = {k for k, v in d.items() if v is None}
    assert set(d["why_null"]) == nulls - {"ss_exit_window"}
    if law == "tcp-ho":
        assert d["why_null"]["ss_exit_time_s"] == "no closed form: TCP-Ho has no slow start"
        assert d["why_null"]["alpha_pkts"] == "alpha is not a parameter of TCP-Ho"
    else:
        assert nulls == set()
