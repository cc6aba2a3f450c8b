"""Tests of the ODE fluid model (tcpfluid.fluid.ode).

Every expected number is computed independently in the test: by hand from the
Boutremans–Le Boudec argument (Tsang's thesis, ch. 2 §5: flow j keeps α_j packets
queued, so with queueing delay δ its rate is α_j/(δ − x_j) and the rates fill the link),
or by another layer (tcpfluid.analytic.blb_equilibrium, the fixed point in
tcpfluid.fluid.equilibrium).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from tcpfluid import Path
from tcpfluid.analytic import blb_equilibrium
from tcpfluid.fluid.equilibrium import reno_equilibrium
from tcpfluid.fluid.ode import OdeFlow, RedQueue, simulate_ode

C = 1.5e6 / 8000.0  # the thesis's 1.5 Mb/s bottleneck in 1000-byte packets/s = 187.5
D1 = 0.013211  # thesis Table 3.1: minimum RTT of the short connection, s


def ev(d: float, a: float, **kw: object) -> OdeFlow:
    return OdeFlow("enhanced-vegas", d, alpha_pkts=a, beta_pkts=a, **kw)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- Vegas equilibria
@pytest.mark.parametrize("d2", [D1, 0.071211, 0.191211, 0.5])
def test_equal_alpha_no_overestimate_gives_equal_rates_whatever_the_delays(d2: float) -> None:
    # hand: x_j = 0 and α_1 = α_2 = 2 -> α/δ each, summing to C -> C/2 = 93.75 pkt/s each,
    # queue = Σα = 4 packets
    r = simulate_ode([ev(D1, 2), ev(d2, 2)], Path(C, D1), t_end_s=80, measure_from_s=60)
    assert r.success, r.message
    thr = np.array(r.summary.throughput_pps)
    np.testing.assert_allclose(thr, [C / 2, C / 2], rtol=1e-2)
    assert r.summary.final_queue_pkts == pytest.approx(4.0, rel=1e-2)
    assert r.summary.jain_index == pytest.approx(1.0, abs=1e-4)


@pytest.mark.parametrize(("a1", "a2"), [(1.0, 3.0), (2.0, 5.0), (4.0, 1.0)])
def test_rates_in_ratio_of_alpha(a1: float, a2: float) -> None:
    # hand: rates α_j/δ with δ = (a1 + a2)/C  ->  r_j = C α_j / (a1 + a2)
    r = simulate_ode([ev(0.02, a1), ev(0.1, a2)], Path(C, 0.02), t_end_s=100, measure_from_s=80)
    assert r.success, r.message
    expected = np.array([C * a1 / (a1 + a2), C * a2 / (a1 + a2)])
    np.testing.assert_allclose(r.summary.throughput_pps, expected, rtol=1e-2)
    # the instantaneous sending rates at the end, too
    np.testing.assert_allclose(r.rates_pps[:, -1], expected, rtol=1e-2)


def test_rates_match_closed_form_blb_with_alpha_differing() -> None:
    flows = [ev(0.01, 1.0), ev(0.05, 2.0), ev(0.2, 4.0)]
    r = simulate_ode(flows, Path(C, 0.01), t_end_s=150, measure_from_s=120)
    blb = blb_equilibrium([1.0, 2.0, 4.0], 0.0, C, prop_delay_s=[0.01, 0.05, 0.2])
    np.testing.assert_allclose(r.summary.throughput_pps, blb.rates_pps, rtol=1e-2)
    np.testing.assert_allclose(r.windows_pkts[:, -1], blb.windows_pkts, rtol=1e-2)


@pytest.mark.parametrize("w0", [(1.0, 1.0), (2.0, 40.0), (30.0, 2.0), (25.0, 25.0)])
def test_reaches_equilibrium_from_several_initial_conditions(w0: tuple[float, float]) -> None:
    # hand (α_1 = 1, α_2 = 3, no over-estimation): r = C·(1/4, 3/4)
    flows = [
        OdeFlow("enhanced-vegas", 0.03, alpha_pkts=1, beta_pkts=1, initial_window_pkts=w0[0]),
        OdeFlow("enhanced-vegas", 0.09, alpha_pkts=3, beta_pkts=3, initial_window_pkts=w0[1]),
    ]
    r = simulate_ode(flows, Path(C, 0.03), t_end_s=120, measure_from_s=100)
    np.testing.assert_allclose(r.summary.throughput_pps, [C / 4, 3 * C / 4], rtol=1e-2)


def test_late_joiner_overestimates_base_rtt_and_matches_blb() -> None:
    # Flow 1 alone keeps α = 2 packets queued, so flow 2 joining at 20 s records a BaseRTT
    # too large by x = α/C (hand). BLB with x_1 = 0, x_2 = x and equal α:
    # α/δ + α/(δ − x) = C  ->  C δ² − (C x + 2α) δ + α x = 0, larger root.
    a = 2.0
    x = a / C
    b = C * x + 2 * a
    delta = (b + math.sqrt(b * b - 4 * C * a * x)) / (2 * C)
    expected = np.array([a / delta, a / (delta - x)])
    r = simulate_ode([ev(0.02, a), ev(0.05, a, start_s=20.0)], Path(C, 0.02), t_end_s=90)
    assert r.summary.base_rtt_overestimate_s[1] == pytest.approx(x, rel=1e-3)
    assert r.summary.base_rtt_overestimate_s[0] == pytest.approx(0.0, abs=1e-9)
    np.testing.assert_allclose(r.summary.throughput_pps, expected, rtol=1e-2)
    # the late joiner is favoured (BLB): its rate is the larger one
    assert expected[1] > expected[0]
    # recorded BaseRTT trajectory = d + x once joined
    assert r.base_rtt_s[1, -1] == pytest.approx(0.05 + x, rel=1e-3)
    assert not r.active[1, 0] and r.active[1, -1]


@pytest.mark.parametrize("width", [0.02, 0.1, 0.5])
def test_switching_width_does_not_move_the_equilibrium(width: float) -> None:
    # hand: α = 1 and 3 -> C/4, 3C/4 whatever ε (the ramp is zero exactly at Δ = α)
    flows = [ev(0.02, 1.0), ev(0.06, 3.0)]
    r = simulate_ode(flows, Path(C, 0.02), t_end_s=80, measure_from_s=60, switch_width_pkts=width)
    assert r.success, r.message
    np.testing.assert_allclose(r.summary.throughput_pps, [C / 4, 3 * C / 4], rtol=1e-3)
    np.testing.assert_allclose(r.delta_pkts[:, -1], [1.0, 3.0], rtol=1e-3)


def test_vegas_with_alpha_below_beta_rests_inside_the_band() -> None:
    # eq 2 of the Quick Vegas paper: at rest α <= Δ_j <= β; FIFO shares follow the backlogs, so the
    # rate ratio is at most β/α = 3 (thesis ch. 3 §1)
    flows = [
        OdeFlow("vegas", D1, alpha_pkts=1, beta_pkts=3, initial_window_pkts=2),
        OdeFlow("vegas", 0.191211, alpha_pkts=1, beta_pkts=3, initial_window_pkts=30),
    ]
    r = simulate_ode(flows, Path(C, D1), t_end_s=80, measure_from_s=60)
    dlt = r.delta_pkts[:, -1]
    assert np.all(dlt >= 1.0 - 0.1 - 1e-6) and np.all(dlt <= 3.0 + 0.1 + 1e-6)
    thr = np.array(r.summary.throughput_pps)
    assert thr.sum() == pytest.approx(C, rel=1e-3)
    assert max(thr) / min(thr) <= 3.0 + 0.1


def test_fast_keeps_alpha_packets_per_flow() -> None:
    # FAST's equilibrium (Jin, Wei, Low): each flow keeps α packets queued -> equal rates
    # for equal α, queue = n α (hand: 3 flows x 5 packets = 15)
    flows = [OdeFlow("fast", d, alpha_pkts=5) for d in (0.01, 0.04, 0.12)]
    r = simulate_ode(flows, Path(C, 0.01), t_end_s=60, measure_from_s=40)
    np.testing.assert_allclose(r.summary.throughput_pps, [C / 3] * 3, rtol=1e-2)
    assert r.summary.final_queue_pkts == pytest.approx(15.0, rel=1e-2)


# --------------------------------------------------------------------------- Reno, losses
def test_reno_over_red_matches_fixed_point() -> None:
    red = RedQueue(min_th_pkts=15, max_th_pkts=45, max_p=0.02, weight=0.002)
    d = [0.02, 0.08]
    r = simulate_ode(
        [OdeFlow("reno", d[0]), OdeFlow("reno", d[1])],
        Path(C, 0.02, buffer=100),
        red=red,
        t_end_s=200,
        measure_from_s=150,
    )
    eq = reno_equilibrium(d, C, buffer_pkts=100, red=red)
    goodput = eq.rates_pps * (1 - eq.loss_probability)
    np.testing.assert_allclose(r.summary.throughput_pps, goodput, rtol=1e-2)
    assert r.summary.mean_queue_pkts == pytest.approx(eq.queue_pkts, rel=1e-2)
    # MGT at rest: both windows equal sqrt(2/p)
    np.testing.assert_allclose(r.windows_pkts[:, -1], eq.window_pkts, rtol=1e-2)
    assert r.summary.lost_pkts > 0


def test_droptail_queue_stays_within_buffer_and_loses() -> None:
    r = simulate_ode(
        [OdeFlow("reno", 0.02, initial_window_pkts=80), OdeFlow("reno", 0.04)],
        Path(C, 0.02, buffer=20),
        t_end_s=60,
    )
    assert r.success
    assert r.queue_pkts.min() >= 0.0 and r.queue_pkts.max() <= 20.0 + 1e-9
    assert r.summary.lost_pkts > 0
    # delivered never exceeds what the link can carry: C per second
    assert r.delivered_pkts.sum(axis=0)[-1] <= C * 60 * (1 + 1e-6)


def test_infinite_buffer_vegas_has_no_loss() -> None:
    r = simulate_ode([ev(0.02, 2), ev(0.04, 2)], Path(C, 0.02), t_end_s=30)
    assert r.summary.lost_pkts == 0.0
    assert np.all(r.loss_probability == 0.0)


# --------------------------------------------------------------------------- ACK path
def test_ack_path_bottleneck_limits_throughput_to_reverse_rate() -> None:
    # the asymmetric-networks paper §IV.C: Vegas settles at min(μf, μr); here
    # μr = 100 ACK/s < μf = 187.5
    path = Path(C, 0.05, reverse_bandwidth=100.0)
    r = simulate_ode([ev(0.05, 2)], path, t_end_s=60, measure_from_s=40)
    assert sum(r.summary.throughput_pps) == pytest.approx(100.0, rel=1e-2)
    assert r.reverse_queue_pkts[-1] > 0


# --------------------------------------------------------------------------- join / leave
def test_flow_leaving_hands_its_share_back() -> None:
    flows = [ev(0.02, 2), ev(0.04, 2, stop_s=30.0)]
    r = simulate_ode(flows, Path(C, 0.02), t_end_s=70, measure_from_s=50)
    # after the leave, flow 0 alone fills the link (hand: C)
    assert r.summary.throughput_pps[0] == pytest.approx(C, rel=1e-2)
    # not active in the measured time: no throughput (None in the summary's JSON)
    assert math.isnan(r.summary.throughput_pps[1])
    assert r.summary.to_dict()["throughput_pps"][1] is None
    after = r.t > 30.0
    assert not r.active[1, after].any()
    assert np.all(r.windows_pkts[1, after] == 0.0)
    # before it left, equal shares (hand: C/2)
    before = (r.t > 20) & (r.t < 29)
    np.testing.assert_allclose(r.rates_pps[:, before].mean(axis=1), [C / 2, C / 2], rtol=1e-2)


def test_cross_traffic_takes_its_bandwidth() -> None:
    # a 50 pkt/s unresponsive source from 10 s: two Vegas flows share C - 50 (hand)
    r = simulate_ode(
        [ev(0.02, 2), ev(0.05, 2)],
        Path(C, 0.02),
        t_end_s=60,
        measure_from_s=40,
        cross_traffic=[(50.0, 10.0, math.inf)],
    )
    np.testing.assert_allclose(r.summary.throughput_pps, [(C - 50) / 2] * 2, rtol=1e-2)


def test_max_window_cap_is_respected() -> None:
    r = simulate_ode(
        [OdeFlow("reno", 0.2, max_window_pkts=10.0)], Path(C, 0.2, buffer=100), t_end_s=30
    )
    assert r.windows_pkts.max() <= 10.0 + 1e-6
    # capped window: rate = 10 / 0.2 s = 50 pkt/s (hand), no queue
    assert r.summary.throughput_pps[0] == pytest.approx(50.0, rel=1e-3)


# --------------------------------------------------------------------------- results, failure
def test_result_shapes_frame_and_json() -> None:
    r = simulate_ode([ev(0.02, 2), ev(0.04, 2)], Path(C, 0.02), t_end_s=10, n_points=101)
    assert r.t.shape == (101,)
    assert r.windows_pkts.shape == (2, 101) and r.rates_pps.shape == (2, 101)
    assert r.queue_pkts.shape == (101,)
    df = r.to_frame()
    assert len(df) == 202 and set(df["flow"]) == {0, 1}
    d = json.loads(json.dumps(r.to_dict()))
    assert d["status"] == 0 and d["engine"] == "ode"
    assert len(d["summary"]["throughput_pps"]) == 2


def test_step_budget_exhaustion_surfaces_as_status_not_arrays() -> None:
    r = simulate_ode([ev(0.02, 2), ev(0.04, 2)], Path(C, 0.02), t_end_s=60, max_rhs_evals=50)
    assert r.status == -1 and not r.success
    assert "max_rhs_evals" in r.message
    assert r.summary is None
    assert r.t.size < 1001  # no fabricated tail
    with pytest.raises(RuntimeError, match="max_rhs_evals"):
        r.raise_for_status()


def test_plot_returns_artists() -> None:
    import matplotlib

    matplotlib.use("Agg")
    r = simulate_ode([ev(0.02, 2)], Path(C, 0.02), t_end_s=5)
    artists = r.plot()
    assert len(artists) == 2


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"law": "cubic", "rtt_s": 0.1}, ValueError, "law"),
        ({"law": "vegas", "rtt_s": -0.1}, ValueError, "rtt_s"),
        ({"law": "vegas", "rtt_s": 0.1, "alpha_pkts": 3, "beta_pkts": 1}, ValueError, "beta"),
        (
            {"law": "enhanced-vegas", "rtt_s": 0.1, "alpha_pkts": 1, "beta_pkts": 2},
            ValueError,
            "alpha_pkts == beta_pkts",
        ),
        ({"law": "fast", "rtt_s": 0.1, "fast_gamma": 1.5}, ValueError, "fast_gamma"),
        ({"law": "reno", "rtt_s": 0.1, "start_s": 5, "stop_s": 2}, ValueError, "stop_s"),
        ({"law": "reno", "rtt_s": 0.1, "initial_window_pkts": 0.5}, ValueError, "initial"),
        ({"law": "reno", "rtt_s": "fast"}, ValueError, "rtt_s"),
        ({"law": "reno", "rtt_s": 0.1, "alpha_pkts": "2"}, TypeError, "alpha_pkts"),
    ],
)
def test_flow_validation(kwargs: dict[str, object], exc: type[Exception], match: str) -> None:
    with pytest.raises(exc, match=match):
        OdeFlow(**kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"t_end_s": 0}, ValueError, "t_end_s"),
        ({"t_end_s": 10, "n_points": 1}, ValueError, "n_points"),
        ({"t_end_s": 10, "switch_width_pkts": 0}, ValueError, "switch_width_pkts"),
        ({"t_end_s": 10, "method": "Euler"}, ValueError, "method"),
        ({"t_end_s": 10, "measure_from_s": 20}, ValueError, "measure_from_s"),
        ({"t_end_s": 10, "red": {"min_th": 5}}, TypeError, "red"),
        ({"t_end_s": 10, "cross_traffic": [(-1.0, 0.0, 5.0)]}, ValueError, "cross_traffic"),
        ({"t_end_s": 10, "max_rhs_evals": 0}, ValueError, "max_rhs_evals"),
    ],
)
def test_simulate_validation(kwargs: dict[str, object], exc: type[Exception], match: str) -> None:
    with pytest.raises(exc, match=match):
        simulate_ode([ev(0.02, 2)], Path(C, 0.02), **kwargs)  # type: ignore[arg-type]


def test_simulate_rejects_bad_flows_and_path() -> None:
    with pytest.raises(ValueError, match="flows"):
        simulate_ode([], Path(C, 0.02), t_end_s=1)
    with pytest.raises(TypeError, match=r"flows\[0\]"):
        simulate_ode(["vegas"], Path(C, 0.02), t_end_s=1)  # type: ignore[list-item]
    with pytest.raises(TypeError, match="path"):
        simulate_ode([ev(0.02, 2)], C, t_end_s=1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="start"):
        simulate_ode([ev(0.02, 2, start_s=5.0)], Path(C, 0.02), t_end_s=2)


def test_red_validation() -> None:
    with pytest.raises(ValueError, match="max_th_pkts"):
        RedQueue(min_th_pkts=10, max_th_pkts=5)
    with pytest.raises(ValueError, match="max_p"):
        RedQueue(max_p=0)
    with pytest.raises(ValueError, match="weight"):
        RedQueue(weight=1.0)


def test_red_probability_is_floyd_jacobson_ramp() -> None:
    red = RedQueue(min_th_pkts=15, max_th_pkts=45, max_p=0.02)
    # hand: 0 below 15, 0.02 (30-15)/(45-15) = 0.01 at 30, 1 from 45 (classic RED)
    np.testing.assert_allclose(red.probability([10.0, 30.0, 46.0]), [0.0, 0.01, 1.0])
    gentle = RedQueue(min_th_pkts=15, max_th_pkts=45, max_p=0.02, gentle=True)
    # hand: at 67.5 = 1.5 max_th: 0.02 + 0.98 * 0.5 = 0.51
    assert float(gentle.probability(67.5)) == pytest.approx(0.51)


@pytest.mark.parametrize(
    "case",
    ["vegas-alpha", "reno-red", "join-leave-cbr", "twelve-flows-sparse-jacobian"],
)
def test_solvers_agree(case: str) -> None:
    # the right-hand side is Lipschitz (ramps instead of jumps), so an implicit solver
    # (BDF, Radau) and LSODA must give the same trajectory; a jump in the RHS once let
    # BDF's Newton iteration freeze the queue and return a wrong equilibrium silently
    if case == "vegas-alpha":
        flows = [ev(0.02, 1.0), ev(0.1, 3.0)]
        kw: dict[str, object] = {"t_end_s": 60}
        path = Path(C, 0.02)
    elif case == "reno-red":
        flows = [OdeFlow("reno", 0.02), OdeFlow("reno", 0.1)]
        kw = {"t_end_s": 100, "red": RedQueue()}
        path = Path(C, 0.02, buffer=100)
    elif case == "twelve-flows-sparse-jacobian":  # n >= 8: BDF uses a sparse Jacobian
        flows = [ev(0.01 * (j + 1), 1 + j % 3, start_s=2.0 * j) for j in range(8)]
        flows += [OdeFlow("reno", 0.02 * (j + 1)) for j in range(4)]
        kw = {"t_end_s": 60}
        path = Path(C, 0.01, buffer=80)
    else:
        flows = [ev(0.02, 2), ev(0.05, 3, start_s=5.0, stop_s=40.0), OdeFlow("fast", 0.03)]
        kw = {"t_end_s": 60, "cross_traffic": [(60.0, 10.0, 30.0)], "measure_from_s": 35}
        path = Path(C, 0.02, buffer=60)
    runs = [simulate_ode(flows, path, method=m, **kw) for m in ("BDF", "LSODA", "Radau")]  # type: ignore[arg-type]
    for r in runs:
        assert r.success, r.message
    ref = np.array(runs[0].summary.throughput_pps)
    for r in runs[1:]:
        np.testing.assert_allclose(r.summary.throughput_pps, ref, rtol=2e-3, atol=1e-6)
        np.testing.assert_allclose(r.queue_pkts, runs[0].queue_pkts, rtol=0, atol=0.05)


def test_base_rtt_error_is_a_persistent_overestimate_matching_blb() -> None:
    # flow 2's RTT samples never fall below d + e: its BaseRTT over-estimates d by e, and
    # the equilibrium is Boutremans-Le Boudec's with x = (0, e) (analytic layer)
    e = 1.0 / C  # one packet's service time, the thesis's Table 3.6 magnitude
    flows = [ev(D1, 2.0), ev(0.191211, 2.0, base_rtt_error_s=e)]
    r = simulate_ode(flows, Path(C, D1), t_end_s=80, measure_from_s=60)
    assert r.summary.base_rtt_overestimate_s[1] == pytest.approx(e, rel=1e-6)
    blb = blb_equilibrium([2.0, 2.0], [0.0, e], C)
    np.testing.assert_allclose(r.summary.throughput_pps, blb.rates_pps, rtol=1e-2)
    with pytest.raises(ValueError, match="base_rtt_error_s"):
        OdeFlow("vegas", 0.1, base_rtt_error_s=-1.0)


def test_every_keyword_is_documented() -> None:
    # python-control's kwargs test: a parameter missing from the numpydoc "Parameters"
    # section (or misspelled there) fails here
    import inspect

    from tcpfluid import fairness
    from tcpfluid.fluid import equilibrium, ode

    funcs = [
        ode.simulate_ode,
        ode.OdeFlow,
        ode.RedQueue,
        equilibrium.low_utility_equilibrium,
        equilibrium.reno_equilibrium,
        fairness.thesis_two_flow_study,
        fairness.ho_different_rtt_study,
        fairness.period_throughputs,
    ]
    for fn in funcs:
        doc = inspect.getdoc(fn) or ""
        params = [
            p for p in inspect.signature(fn).parameters if p not in ("self", "overrides", "options")
        ]
        for p in params:
            assert p in doc, f"{fn.__qualname__}: parameter {p!r} is not documented"


def test_scenario_engine_raises_on_failure_and_matches_direct_run() -> None:
    from tcpfluid.fluid.ode import ode_problem, simulate_scenario_ode
    from tcpfluid.scenarios import build_scenario

    sc = build_scenario("thesis-two-flow", x2="30ms", duration="20s").with_algorithm(
        "enhanced-vegas", delta=2
    )
    with pytest.raises(RuntimeError, match="max_rhs_evals"):
        simulate_scenario_ode(sc, max_rhs_evals=20)
    # the scenario reduction: thesis Table 3.1 minimum RTTs 0.013211 s and 0.071211 s
    # (within 0.3 ms: the scenario also counts the ACKs' transmission times, eq. 5)
    prob = ode_problem(sc)
    assert prob.flows[0].rtt_s == pytest.approx(0.013211, abs=3e-4)
    assert prob.flows[1].rtt_s == pytest.approx(0.071211, abs=3e-4)
    assert prob.path.mu == pytest.approx(C)
    assert prob.flows[0].alpha_pkts == prob.flows[0].beta_pkts == 2.0
    # a law without a classical right-hand side: the reduction keeps it (the hybrid model
    # runs every law); the classical integrator refuses it by name
    qv = ode_problem(sc.with_algorithm("quick-vegas"))
    assert [f.law for f in qv.flows] == ["quick-vegas", "quick-vegas"]
    with pytest.raises(ValueError, match="no classical ODE right-hand side"):
        simulate_ode(qv.flows, qv.path, t_end_s=1.0)
    with pytest.raises(ValueError, match="no classical ODE right-hand side"):
        simulate_scenario_ode(sc.with_algorithm("quick-vegas"), model="classical")


@pytest.mark.parametrize("law", ["vegas", "enhanced-vegas"])
@pytest.mark.parametrize("w0", [1, 5])
def test_scenario_reduction_keeps_the_laws_initial_window(law: str, w0: int) -> None:
    # the window a flow starts at is the law's parameter, for Vegas and Enhanced Vegas alike
    from tcpfluid.fluid.ode import ode_problem
    from tcpfluid.scenarios import build_scenario

    sc = build_scenario("qv-basic", cbr="none").with_algorithm(law, initial_window=w0)
    assert ode_problem(sc).flows[0].initial_window_pkts == w0


def test_rejected_trial_steps_do_not_warn() -> None:
    # one Reno flow behind RED (10 Mb/s, thresholds 10/30): the solver's trial steps across
    # the loss switch overflow in its error norm and are rejected; the caller saw four
    # RuntimeWarnings from scipy beside a good result
    import warnings

    import tcpfluid
    from tcpfluid.scenarios.files import scenario_from_toml

    sc = scenario_from_toml(
        'duration = "30s"\n[[link]]\nname = "b"\nrate = "10Mbps"\ndelay = "10ms"\n'
        'buffer = 100\nqueue = "red"\n'
        "red = { min_th = 10, max_th = 30, max_p = 0.1, w_q = 0.002 }\n"
        '[[flow]]\nalgorithm = "reno"\nrtt = "40ms"\n'
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = tcpfluid.simulate(sc, "ode", model="classical")
    assert r.status == 0 and 0.0 < r.summary.utilization <= 1.0
