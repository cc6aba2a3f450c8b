"""Mechanisms that explain differences (docs/report.md, "Reasons: mechanisms"): each an
entry of ``docs/mechanisms.md``, the experiment that switches it off, and the declared
**scope** of the cells it moves; a differing cell no scope covers is ``unexplained``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ._table import ALGORITHM_NAMES, MIXED_LAWS, ODE, PACKET, ROUNDS

_NE = "validation/test_new_equilibrium_layers.py::"
_HYB = "validation/test_hybrid_rows.py::"
_REACH_NW = "rounds from the change until the window reaches nW"
_HALVES = "convergence after the bandwidth halves (80 s)"
_DOUBLES = "convergence after the bandwidth doubles (160 s)"
_RAMP = "ramp-up: time to equilibrium"
_SS_EXIT_ROW = "window of the round that leaves slow start"
_THESIS = "smaller flow's share of the two goodputs, 10–60 s"
_MF_SPREAD = "spread of the flows' goodputs (std/mean), 20–60 s"
_RENO_MEAN = "mean throughput of a Reno flow, 10–60 s"
_HF, _TMF = "ho-friendliness", "thesis-many-flows"
_RENO_VEGAS: dict[str, tuple[Any, ...]] = {"pair": ("reno-vegas",)}
_QV_MANY: dict[str, tuple[Any, ...]] = {"scenario": ("qv-many-flows",)}
#: the many-flows section's fairness rows (its utilization rows are not these mechanisms')
_MF_SHARES = "spread of the flows' shares (std/mean)"
_RED_30: dict[str, tuple[Any, ...]] = {"router": ("red-5-15",), "flows": (30,)}
#: Table 3.26's rows (router, flows, Vegas-3 %) whose experiment
#: (``delayed-ack-echo``) runs: the ones the switch turns from differing to agreeing
DELAYED_ACK_ECHO_CASES: tuple[tuple[str, int, tuple[int, ...]], ...] = (
    ("red-54-108", 30, (30, 50, 70, 90, 100)),
)
#: Table 3.25a's mixes (Vegas-3 %, 30 flows behind RED-54-108) whose rows the experiment
#: of ``ns2-red-wait`` turns from differing to agreeing
RED_WAIT_MIXES = (50, 70)
#: Table 3.21's laws (alone, 100 flows, either router) whose rows the experiment of
#: ``ns2-vegas-round-timing`` turns from differing to agreeing
NS2_VEGAS_TIMING_LAWS = ("vegas-1", "vegas-2")
#: new-equilibrium's Quick Vegas rows (n-fold rise) whose packet cells the experiment of
#: ``train-queue`` turns from differing to agreeing, and whose round-model cells that of
#: ``train-runs`` does
TRAIN_QUEUE_N, TRAIN_RUNS_N = (3, 5, 6, 7, 8, 9, 10), (4, 5, 6, 7, 8, 9, 10)
#: convergence-bdp's Quick Vegas BDPs (kb) whose round-model cells after the doubling the
#: experiment of ``train-queue-settling`` turns from differing to agreeing
TRAIN_QUEUE_SETTLING_KB = (2000.0, 4000.0)
#: thesis-fairness's (setting, x2 values in ms) whose round-model cells the experiment of
#: ``feedback-lag`` turns from differing to agreeing
FEEDBACK_LAG_CASES: tuple[tuple[str, tuple[int, ...]], ...] = (
    ("vegas-1", (30, 40, 50, 60, 70)),
    ("vegas-2", (100,)),
)
#: thesis-fairness's (setting, x2 values in ms) whose ODE cells the experiment of
#: ``whole-packet-pipes`` turns from differing to agreeing
WHOLE_PACKET_PIPES_CASES: tuple[tuple[str, tuple[int, ...]], ...] = (("vegas-1", (10,)),)
#: the asymmetric section's Reno rows (Table I's k, Table II's reverse buffer B_r, ACKs)
#: whose packet cells the experiment of ``ns2-timeout-bugfix`` turns from differing to agreeing
TIMEOUT_BUGFIX_K, TIMEOUT_BUGFIX_BR = (3, 5, 7), (6, 10, 20, 40)


def _scope(
    section: str,
    columns: str | tuple[str, ...],
    quantities: str | tuple[str, ...] | None,
    algorithms: str | tuple[str, ...],
    **case: tuple[Any, ...],
) -> Scope:
    """A :class:`Scope` of one section from a name or a tuple of names for each of its
    fields (``quantities`` None: any quantity); ``case``: each key's accepted values."""

    def names(v: str | tuple[str, ...]) -> tuple[str, ...]:
        return (v,) if isinstance(v, str) else v

    qs = None if quantities is None else names(quantities)
    return Scope((section,), names(columns), qs, names(algorithms), case)


def _thesis(column: str, setting: str, x2_ms: tuple[int, ...]) -> Scope:
    """A thesis-fairness scope: one column, one thesis setting, the x2 values tested."""
    algorithm = "Vegas" if setting == "vegas-1_3" else "Enhanced Vegas"
    return _scope("thesis-fairness", column, _THESIS, algorithm, setting=(setting,), x2_ms=x2_ms)


def _vegas_delta(column: str, delta: int, quantities: tuple[str, ...]) -> Scope:
    """A thesis-vegas-delta scope: one column, one δ, the rows of these result keys."""
    q = {"delta": (delta,), "quantity": quantities}
    return _scope("thesis-vegas-delta", column, None, "Enhanced Vegas", **q)


#: Table 7's round-model cells that the growth share of the overflows turns to agree with
#: the packet simulator (``overflow-share``): (pair, proportion, scheme or None for the
#: spread of the shares); the experiment's ``CELLS``
OVERFLOW_SHARE_CELLS: tuple[tuple[str, str, str | None], ...] = (
    ("fast-vegas", "10-10", None),
    ("fast-vegas", "10-10", "fast"),
    ("fast-vegas", "10-10", "vegas"),
    ("fast-vegas", "5-15", "fast"),
    ("fast-vegas", "5-15", "vegas"),
)
#: Table 7's round-model cells where the report's packet cell agrees with the paper and the
#: round model's agrees with the packet simulator run with the phase effect broken
#: (``fluid-without-phase``): (pair, proportion, scheme or None for the spread of the shares)
PHASE_FREE_CELLS: tuple[tuple[str, str, str | None], ...] = (
    ("tcp-ho-reno", "15-5", None),
    ("tcp-ho-reno", "10-10", "tcp-ho"),
    ("tcp-ho-reno", "10-10", "reno"),
    ("tcp-ho-reno", "5-15", "reno"),
)
#: Table 7's packet-simulator cell that the phase effect's switch-off turns from differing to
#: agreeing with the paper (``fast-burst-timeouts``): (pair, proportion, scheme)
FAST_BURST_TIMEOUT_CELLS: tuple[tuple[str, str, str], ...] = (("fast-tcp-ho", "10-10", "fast"),)
#: Table 7's packet-simulator cells that ns-2's FAST agent's SACK recovery
#: (``fast_recovery="ns2-fast"``, the report's setting) turns from differing to agreeing with
#: the paper (``ns2-fast-sack``): (pair, proportion, scheme); the experiment's cells
NS2_FAST_CELLS: tuple[tuple[str, str, str], ...] = (
    ("fast-vegas", "10-10", "fast"),
    ("fast-vegas", "5-15", "fast"),
    ("fast-reno", "10-10", "reno"),
    ("fast-reno", "5-15", "fast"),
    ("fast-reno", "5-15", "reno"),
)


def _friend(column: str, pair: str, proportion: str, scheme: str | None) -> Scope:
    """A ho-friendliness scope: one column, one mix, its spread (``scheme`` None) or one
    scheme's mean throughput (rows are named after the first scheme of the pair)."""
    first = next(  # the longest law name the pair starts with ("tcp-ho-reno": TCP-Ho)
        ALGORITHM_NAMES[a]
        for a in sorted(ALGORITHM_NAMES, key=len, reverse=True)
        if pair.startswith(f"{a}-")
    )
    mix = {"pair": (pair,), "proportion": (proportion,)}
    if scheme is None:
        quantity = "spread of the 20 flows' shares (std/mean), 10–60 s"
        return _scope("ho-friendliness", column, quantity, first, **mix, quantity=("fairness",))
    quantity = f"mean throughput of a {ALGORITHM_NAMES[scheme]} flow, 10–60 s"
    return _scope("ho-friendliness", column, quantity, first, **mix, scheme=(scheme,))


def _vegas3_reno_goodputs(flows: int, vegas_percent: tuple[int, ...]) -> Scope:
    """A thesis-many-flows scope: the packet simulator's mean goodputs of the Vegas-3 and
    the Reno flows of ``flows`` connections behind RED 54-108 at these Vegas shares."""
    qs = tuple(f"mean goodput of the {k} flows, 20–60 s" for k in ("Vegas-3", "Reno"))
    case = {"router": ("red-54-108",), "flows": (flows,), "law": ("vegas-3",)}
    return _scope(_TMF, PACKET, qs, ("Enhanced Vegas", "Reno"), **case, vegas_percent=vegas_percent)


@dataclass(frozen=True)
class Scope:
    """The cells a mechanism moves: report sections, engine columns, row quantities
    (``None``: any) and algorithms (display names), and per key of the rows' declared
    :attr:`~._table.Row.case` the values the experiment covers."""

    sections: tuple[str, ...]
    columns: tuple[str, ...]
    quantities: tuple[str, ...] | None
    algorithms: tuple[str, ...]
    case: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)

    def covers(
        self, section: str, column: str, quantity: str, algorithm: str, case: Mapping[str, Any]
    ) -> bool:
        """True when the cell is in the scope."""
        return (
            section in self.sections
            and column in self.columns
            and (self.quantities is None or quantity in self.quantities)
            and algorithm in self.algorithms
            and all(k in case and case[k] in v for k, v in self.case.items())
        )


@dataclass(frozen=True)
class Mechanism:
    """A mechanism: ``id`` (its anchor in ``docs/mechanisms.md``), ``experiment`` (the
    pytest node id of the test that switches it off and asserts that the rows of its scopes
    then agree) and ``scopes``."""

    id: str
    experiment: str
    scopes: tuple[Scope, ...]

    def covers(self, *cell: Any) -> bool:
        """True when one of the scopes covers the cell (:meth:`Scope.covers`'s arguments)."""
        return any(sc.covers(*cell) for sc in self.scopes)


def _mechanism(id: str, experiment: str, *scopes: Scope) -> Mechanism:
    return Mechanism(id, experiment, scopes)


_QV = "Quick Vegas"
_VR = "validation/test_report_reasons.py::"
_TM = "validation/test_thesis_mechanisms.py::"
_XL = "validation/test_cross_layer.py::"
_CB = "convergence-bdp"
_CR = "validation/test_conv_rows.py::"
_CONV_HALVED, _CONV_DOUBLED = "convergence, bandwidth halved", "convergence, bandwidth doubled"
_CONV_ALL = ("convergence, new connection", _CONV_HALVED, _CONV_DOUBLED)
_UTIL = "bottleneck utilization by the flows' goodput, 10–60 s"
_GOODPUTS = ("goodput of connection 1, 10–60 s", "goodput of connection 2, 10–60 s")
_HO_SPREAD = "spread of the flows' shares (std/mean), 10–60 s"
# fmt: off
MECHANISMS: tuple[Mechanism, ...] = (
    _mechanism("train-queue",
        f"{_NE}test_packet_counts_to_nw_agree_with_eq_12_once_the_train_queue_is_off",
        _scope("new-equilibrium", PACKET, _REACH_NW, _QV, n=TRAIN_QUEUE_N)),
    _mechanism("train-queue-vs-document",
        f"{_NE}test_qv_basic_doubling_settles_as_the_document_reports_once_the_train_queue_is_off",
        _scope("basic", PACKET, _DOUBLES, _QV, scenario=("qv-basic",))),
    _mechanism("train-runs",
        f"{_NE}test_round_model_counts_to_nw_agree_with_eq_12_with_the_train_spread_evenly",
        _scope("new-equilibrium", ROUNDS, _REACH_NW, _QV, n=TRAIN_RUNS_N)),
    _mechanism("hybrid-train-increments",
        f"{_HYB}test_quick_vegas_rounds_to_nw_follow_eq_12_without_the_train_queue",
        _scope("new-equilibrium", ODE, _REACH_NW, _QV, n=(3, 7, 8, 9))),
    _mechanism("packet-train-switched-off-in-hybrid",
        f"{_NE}test_hybrid_doubling_settles_with_the_packets_once_their_train_queue_is_switched_off",
        _scope(_CB, ODE, _CONV_DOUBLED, _QV, bdp_kb=(3000.0, 4000.0, 5000.0))),
    _mechanism("train-queue-settling",
        f"{_NE}test_round_model_doubling_settles_with_the_packets_once_both_trains_queues_are_off",
        _scope(_CB, ROUNDS, _CONV_DOUBLED, _QV, bdp_kb=TRAIN_QUEUE_SETTLING_KB)),
    _mechanism("whole-packet-windows",
        f"{_HYB}test_vegas_at_150_kb_follows_the_packets_with_whole_packet_windows_and_fifo_samples",
        _scope(_CB, ODE, _CONV_ALL, "Vegas", bdp_kb=(150.0,))),
    _mechanism("whole-packet-acks",
        f"{_CR}test_vegas_150_kb_round_model_follows_the_packets_with_a_packet_senders_ack_count",
        _scope(_CB, ROUNDS, _CONV_HALVED, "Vegas", bdp_kb=(150.0,))),
    _mechanism("whole-packet-cycle-bottom",
        f"{_CR}test_quick_vegas_150_kb_halving_cycle_bottom_with_a_packet_senders_ack_count",
        _scope(_CB, ROUNDS, _CONV_HALVED, _QV, bdp_kb=(150.0,))),
    _mechanism("near-band-whole-packets",
        f"{_CR}test_quick_vegas_1000_kb_ramp_in_the_hybrid_follows_the_packets_with_whole_packets",
        _scope(_CB, ODE, "convergence, new connection", _QV, bdp_kb=(1000.0,))),
    _mechanism("ring-at-band-edge", f"{_CR}test_fast_ring_extreme_at_the_band_edge",
        _scope(_CB, ROUNDS, _CONV_DOUBLED, "FAST", bdp_kb=(500.0,)),
        _scope(_CB, ODE, _CONV_HALVED, "FAST", bdp_kb=(1000.0,))),
    _mechanism("micro-queue",
        f"{_HYB}test_quick_vegas_regrowth_after_the_halving_sees_a_packet_micro_queue",
        _scope(_CB, ODE, _CONV_HALVED, _QV, bdp_kb=(3000.0, 5000.0)),
        _scope("basic", ODE, _HALVES, _QV, scenario=("qv-basic",))),
    _mechanism("micro-queue-in-the-mean",
        f"{_CR}test_quick_vegas_1000_kb_halving_hybrid_settles_with_packets_blind_to_the_micro_"
        "queue",
        _scope(_CB, ODE, _CONV_HALVED, _QV, bdp_kb=(1000.0,))),
    _mechanism("queue-memory-cycle",
        f"{_XL}test_quick_vegas_halving_at_3000_kb_cycles_in_the_round_model_through_its_queue_"
        "memory",
        _scope(_CB, ROUNDS, _CONV_HALVED, _QV, bdp_kb=(3000.0,))),
    _mechanism("settling-band",
        f"{_CR}test_fast_packet_halving_follows_the_paper_with_a_one_percent_band",
        _scope("basic", PACKET, (_HALVES,), "FAST")),
    _mechanism("feedback-lag",
        "validation/test_thesis_feedback_lag.py::"
        "test_thesis_round_model_shares_agree_without_the_feedback_lag",
        *(_thesis(ROUNDS, setting, x2s) for setting, x2s in FEEDBACK_LAG_CASES)),
    _mechanism("long-flow-train",
        "validation/test_fairness_train.py::"
        "test_the_round_model_has_no_train_and_agrees_with_a_packet_run_without_one",
        _thesis(ROUNDS, "vegas-1", (80,))),
    _mechanism("whole-packet-pipes",
        "validation/test_thesis_whole_packet_pipes.py::"
        "test_thesis_hybrid_shares_agree_with_whole_packet_windows",
        *(_thesis(ODE, setting, x2s) for setting, x2s in WHOLE_PACKET_PIPES_CASES)),
    _mechanism("whole-packet-growth",
        "validation/test_thesis_vegas_delta_growth.py::"
        "test_fluid_delta_cycle_is_a_packet_sender_whose_increase_leaves_mid_round",
        _vegas_delta(ROUNDS, 1, ("delta_max", "delta_mean")),
        _vegas_delta(ROUNDS, 2, ("delta_max", "delta_mean")),
        _vegas_delta(ODE, 1, ("delta_max", "delta_mean")),
        _vegas_delta(ODE, 2, ("delta_mean",))),
    # several Enhanced Vegas flows on the hold-out (benchmarks/holdout.py): no report
    # section runs them, so no cell is in its scope
    _mechanism("window-fraction-drift",
        "validation/test_settling_window_fractions.py::"
        "test_fluid_time_agrees_with_packets_whose_windows_stay_whole"),
    _mechanism("base-rtt-error",
        f"{_VR}test_thesis_vegas_1_3_ode_agrees_given_the_packet_base_rtt_error",
        _thesis(ODE, "vegas-1_3", (100,))),
    _mechanism("unequal-overflow-drops",
        f"{_VR}test_fast_many_flows_engines_part_only_where_the_buffer_overflows",
        _scope("many-flows", (PACKET, ODE), _MF_SHARES, "FAST", **_QV_MANY)),
    _mechanism("overflow-hits-every-flow",
        "validation/test_fairness_many_flows.py::"
        "test_fast_many_flows_index_follows_the_paper_when_an_overflow_hits_few_flows",
        _scope("many-flows", ROUNDS, _MF_SHARES, "FAST", **_QV_MANY)),
    _mechanism("overflow-reaches-every-rtt",
        "validation/test_many_flows_different_rtt_overflow.py::"
        "test_fast_different_rtt_round_model_follows_the_packets_when_an_overflow_reaches_few_flows",
        _scope("many-flows", ROUNDS, _MF_SHARES, "FAST", scenario=("qv-different-rtt",),
               period_s=((0, 50), (50, 100), (100, 150)))),
    _mechanism("thesis-initial-window",
        f"{_TM}test_table_3_27_first_base_rtt_is_the_delayed_ack_timer_from_one_packet",
        _scope("thesis-delayed-ack", PACKET, "first recorded BaseRTT, median over the Vegas flows",
               "Enhanced Vegas", quantity=("first_base_rtt_median",))),
    _mechanism("senders-slow-start-lag",
        f"{_XL}test_quick_vegas_4000_kb_exit_agrees_with_the_closed_form_without_the_senders_lag",
        _scope("critical-window", (PACKET, ROUNDS, ODE), _SS_EXIT_ROW, _QV, bdp_kb=(4000.0,))),
    _mechanism("phase-effect",
        "validation/test_ho_table7_mechanisms.py::"
        "test_table_7_reno_means_agree_once_random_send_times_break_the_phase_effect",
        _scope(_HF, PACKET, _RENO_MEAN, "Reno", **_RENO_VEGAS, proportion=("15-5", "10-10"))),
    _mechanism("escaped-overflows",
        "validation/test_many_flows_who_loses.py::"
        "test_full_scale_reno_index_follows_the_paper_once_random_send_times_break_the_phase",
        _scope("many-flows", PACKET, _MF_SHARES, "Reno", **_QV_MANY, period_s=((100.0, 200.0),))),
    _mechanism("vegas-standing-backlog",
        "validation/test_ho_table7_vegas_backlog.py::"
        "test_table_7_reno_means_agree_once_the_vegas_flows_hold_ns2s_backlog_on_the_path_base_rtt",
        _scope(_HF, PACKET, _RENO_MEAN, "Reno", **_RENO_VEGAS,
               proportion=("15-5", "10-10", "5-15"))),
    _mechanism("overflow-share",
        "validation/test_ho_table7_overflow_share.py::"
        "test_table_7_fast_cells_agree_with_the_packets_when_overflows_fall_on_the_growth",
        *(_friend(ROUNDS, *cell) for cell in OVERFLOW_SHARE_CELLS)),
    _mechanism("fluid-without-phase",
        "validation/test_ho_table7_overflow_share.py::"
        "test_table_7_tcp_ho_round_model_cells_are_the_packets_without_the_phase_effect",
        *(_friend(ROUNDS, *cell) for cell in PHASE_FREE_CELLS)),
    _mechanism("fast-burst-timeouts",
        "validation/test_ho_table7_mechanisms.py::"
        "test_table_7_fast_mean_beside_tcp_ho_agrees_once_random_send_times_break_the_phase_effect",
        *(_friend(PACKET, *cell) for cell in FAST_BURST_TIMEOUT_CELLS)),
    _mechanism("hybrid-growth-share-carry",
        "validation/test_ho_table5_reno_growth_share.py::"
        "test_the_hybrids_reno_utilization_agrees_when_overflows_are_shared_in_proportion",
        _scope("ho-fairness", ODE, _UTIL, "Reno", table=("5",))),
    _mechanism("hybrid-newreno-holes",
        "validation/test_ho_table6_fast_recovery.py::"
        "test_table_6_fast_spread_of_the_hybrid_is_the_newreno_senders_not_the_sack_senders",
        _scope("ho-fairness", ODE, _HO_SPREAD, "FAST", table=("6",), algorithm=("fast",),
               quantity=("fairness",))),
    _mechanism("ns2-timeout-bugfix",
        "validation/test_asymmetric_reno_bugfix.py::"
        "test_asymmetric_reno_packet_cells_follow_the_paper_without_ns2s_timeout_bugfix",
        _scope("asymmetric", PACKET, "throughput", "Reno", table=("I/III",), k=TIMEOUT_BUGFIX_K),
        _scope("asymmetric", PACKET, "throughput", "Reno", table=("II",),
               reverse_buffer=TIMEOUT_BUGFIX_BR)),
    _mechanism("ns2-fast-sack",
        "validation/test_ho_table7_ns2_fast.py::"
        "test_table_7_fast_mix_cells_follow_the_paper_with_ns2_fast_sack_recovery",
        *(_friend(PACKET, *cell) for cell in NS2_FAST_CELLS),
        _scope("ho-fairness", PACKET, _HO_SPREAD, "FAST", table=("5",), algorithm=("fast",),
               quantity=("fairness",))),
    _mechanism("delayed-ack-echo",
        f"{_TM}test_delayed_acks_echoing_the_latest_packet_give_the_thesis_goodputs",
        _scope("thesis-delayed-ack", PACKET, _GOODPUTS, "Vegas", acks=("da-ia",)),
        *(  # Vegas-3 alone; its mixes with Reno
            _scope("thesis-delayed-ack", PACKET, _MF_SPREAD, ("Enhanced Vegas", MIXED_LAWS),
                   router=(router,), flows=(n,), vegas_percent=pcts)
            for router, n, pcts in DELAYED_ACK_ECHO_CASES
        )),
    _mechanism("ns2-red-wait",
        "validation/test_thesis_red_wait.py::"
        "test_table_3_25a_vegas_to_reno_goodput_follows_the_thesis_with_ns2_red_wait",
        _vegas3_reno_goodputs(30, RED_WAIT_MIXES)),
    _mechanism("ns2-vegas-round-timing",
        "validation/test_thesis_vegas_round_timing.py::"
        "test_table_3_21_spread_at_100_flows_follows_the_thesis_with_ns2_round_timing",
        _scope(_TMF, PACKET, _MF_SPREAD, "Enhanced Vegas", router=("red-5-15", "red-54-108"),
               flows=(100,), law=NS2_VEGAS_TIMING_LAWS),
        _vegas3_reno_goodputs(200, (50,))),
    _mechanism("hybrid-without-ns2-vegas-agent",
        "validation/test_thesis_hybrid_vegas_agent.py::"
        "test_hybrid_vegas3_spread_follows_the_packets_once_their_vegas_flows_recover_as_newreno",
        # the spread of Vegas-3 alone (no Vegas share)
        _scope(_TMF, ODE, _MF_SPREAD, "Enhanced Vegas", **_RED_30, law=("vegas-3",))),
    # ns-3's TcpVegas beside the packet simulator (benchmarks/ns3_dumbbell.py): no report
    # section compares with ns-3, so no cell is in its scope
    _mechanism("ns3-linux-vegas",
        "validation/test_ns3_vegas_dumbbell.py::"
        "test_ns3_holds_the_vegas_band_with_ns2s_rules_and_not_with_its_own"),
)
# fmt: on


def explain(
    section: str, column: str, quantity: str, algorithm: str, case: Mapping[str, Any] | None = None
) -> tuple[Mechanism, ...]:
    """The mechanisms whose scope covers a differing cell (empty: unexplained)."""
    cell = (section, column, quantity, algorithm, case or {})
    return tuple(m for m in MECHANISMS if m.covers(*cell))
