"""Mechanisms that explain differences, each with the experiment that switches it off.

A :class:`Mechanism` is an identifier (its entry in ``docs/mechanisms.md``, which says
what it is and what its experiment shows), the experiment (a test that switches the
mechanism off and asserts that the rows then agree) and its declared **scope**: the
sections, engine columns, quantities and algorithms it moves. A differing cell is linked
to the mechanisms whose scope covers its (section, column, quantity, algorithm), never by
a row's text; a cell that no scope covers is ``unexplained``. This module holds no prose:
the documentation file does.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._table import ODE, PACKET, ROUNDS

__all__ = ["DOC", "MECHANISMS", "Mechanism", "explain"]

#: where the entries are, relative to the repository's root
DOC = "docs/mechanisms.md"

_NE = "tests/analytic/test_new_equilibrium_layers.py::"
_HYB = "tests/fluid/test_hybrid_rows.py::"
_REACH_NW = "rounds from the change until the window reaches nW"
_DOUBLED_REACH = "bandwidth doubled: rounds until the window reaches nW (n = 2, W = μd/2)"
_CONV = ("convergence, new connection", "convergence, bandwidth halved")
_CONV_ALL = (*_CONV, "convergence, bandwidth doubled")
_HALVES = "convergence after the bandwidth halves (80 s)"
_DOUBLES = "convergence after the bandwidth doubles (160 s)"
_RAMP = "ramp-up: time to equilibrium"
_THESIS = "smaller flow's share of the two goodputs, 10–60 s"


@dataclass(frozen=True)
class Mechanism:
    """A mechanism, its experiment and its scope (``None``: any).

    Attributes
    ----------
    id
        The entry's anchor in ``docs/mechanisms.md``.
    experiment
        The pytest node id of the test that switches the mechanism off and asserts that
        the rows of its scope then agree.
    sections, columns, quantities, algorithms
        The scope: report sections, engine columns, row quantities and algorithms (display
        names) whose cells the mechanism moves.
    """

    id: str
    experiment: str
    sections: tuple[str, ...]
    columns: tuple[str, ...]
    quantities: tuple[str, ...] | None
    algorithms: tuple[str, ...]

    def covers(self, section: str, column: str, quantity: str, algorithm: str) -> bool:
        """True when the cell (``section``, ``column``, ``quantity``, ``algorithm``) is in
        the scope."""
        return (
            section in self.sections
            and column in self.columns
            and (self.quantities is None or quantity in self.quantities)
            and algorithm in self.algorithms
        )

    @property
    def link(self) -> str:
        """``docs/mechanisms.md#<id>``."""
        return f"{DOC}#{self.id}"


MECHANISMS: tuple[Mechanism, ...] = (
    Mechanism(
        "train-queue",
        f"{_NE}test_train_queue_of_per_ack_increments_slows_the_packet_ramp",
        ("new-equilibrium", "convergence-bdp"),
        (PACKET,),
        (_REACH_NW, _DOUBLED_REACH),
        ("Quick Vegas",),
    ),
    Mechanism(
        "train-queue-vs-document",
        f"{_NE}test_qv_basic_doubling_settles_as_the_document_reports_once_the_train_queue_is_off",
        ("basic",),
        (PACKET,),
        (_DOUBLES,),
        ("Quick Vegas",),
    ),
    Mechanism(
        "train-runs",
        f"{_NE}test_round_model_ramp_follows_the_packets_with_the_trains_runs",
        ("new-equilibrium",),
        (ROUNDS,),
        (_REACH_NW,),
        ("Quick Vegas",),
    ),
    Mechanism(
        "hybrid-train-increments",
        f"{_HYB}test_quick_vegas_rounds_to_nw_follow_eq_12_without_the_train_queue",
        ("new-equilibrium",),
        (ODE,),
        (_REACH_NW,),
        ("Quick Vegas",),
    ),
    Mechanism(
        "packet-train-switched-off-in-hybrid",
        f"{_NE}test_hybrid_doubling_settles_with_the_packets_once_their_train_queue_is_switched_off",
        ("convergence-bdp",),
        (ODE,),
        ("convergence, bandwidth doubled",),
        ("Quick Vegas",),
    ),
    Mechanism(
        "whole-packet-windows",
        f"{_HYB}test_vegas_at_150_kb_follows_the_packets_with_whole_packet_windows_and_fifo_samples",
        ("convergence-bdp",),
        (ODE,),
        _CONV_ALL,
        ("Vegas",),
    ),
    Mechanism(
        "packet-ack-count",
        "tests/test_conv_rows.py::"
        "test_vegas_150_kb_round_model_follows_the_packets_with_a_packet_senders_ack_count",
        ("convergence-bdp",),
        (ROUNDS,),
        _CONV_ALL,
        ("Vegas",),
    ),
    Mechanism(
        "micro-queue",
        f"{_HYB}test_quick_vegas_regrowth_after_the_halving_sees_a_packet_micro_queue",
        ("convergence-bdp", "basic"),
        (ODE,),
        ("convergence, bandwidth halved", _HALVES),
        ("Quick Vegas",),
    ),
    Mechanism(
        "queue-memory-cycle",
        "tests/fluid/test_cross_layer.py::"
        "test_quick_vegas_halving_at_3000_kb_cycles_in_the_round_model_through_its_queue_memory",
        ("convergence-bdp",),
        (ROUNDS,),
        ("convergence, bandwidth halved",),
        ("Quick Vegas",),
    ),
    Mechanism(
        "settling-band",
        "tests/test_conv_rows.py::test_fast_packet_times_all_follow_the_paper_with_a_one_percent_band",
        ("basic",),
        (PACKET,),
        (_RAMP, _HALVES, _DOUBLES),
        ("FAST",),
    ),
    Mechanism(
        "feedback-lag",
        "tests/fluid/test_rounds_async.py::test_thesis_vegas_1_at_x2_50ms_differs_by_the_feedback_lag",
        ("thesis-fairness",),
        (ROUNDS,),
        (_THESIS,),
        ("Enhanced Vegas",),
    ),
    Mechanism(
        "long-flow-train",
        "tests/test_fairness_train.py::"
        "test_the_round_model_has_no_train_and_agrees_with_a_packet_run_without_one",
        ("thesis-fairness",),
        (ROUNDS,),
        (_THESIS,),
        ("Enhanced Vegas",),
    ),
    Mechanism(
        "whole-packet-pipes",
        f"{_HYB}test_thesis_vegas_1_at_x2_70ms_follows_the_packets_with_whole_packet_windows",
        ("thesis-fairness",),
        (ODE,),
        (_THESIS,),
        ("Enhanced Vegas",),
    ),
    Mechanism(
        "base-rtt-error",
        "tests/test_report_reasons.py::"
        "test_thesis_vegas_1_3_ode_agrees_given_the_packet_base_rtt_error",
        ("thesis-fairness",),
        (ODE,),
        (_THESIS,),
        ("Vegas",),
    ),
    Mechanism(
        "unequal-overflow-drops",
        "tests/test_report_reasons.py::"
        "test_fast_many_flows_fairness_is_lost_only_to_buffer_overflows",
        ("many-flows",),
        (PACKET, ODE),
        None,
        ("FAST",),
    ),
    Mechanism(
        "overflow-hits-every-flow",
        "tests/test_fairness_many_flows.py::"
        "test_fast_many_flows_index_follows_the_paper_when_an_overflow_hits_few_flows",
        ("many-flows",),
        (ROUNDS,),
        None,
        ("FAST",),
    ),
)


def explain(section: str, column: str, quantity: str, algorithm: str) -> tuple[Mechanism, ...]:
    """The mechanisms whose scope covers a differing cell (empty: unexplained)."""
    return tuple(m for m in MECHANISMS if m.covers(section, column, quantity, algorithm))
