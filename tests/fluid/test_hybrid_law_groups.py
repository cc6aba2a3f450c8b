"""The hybrid model's flows grouped by law object.

A law decides each flow from that flow's own state and round sample, so how the flows
are grouped into law objects cannot change a result: one law object for every flow (its
state arrays are the flows' own; a boundary hands it views of the sample's rows) and one
law object per flow (each boundary gathers a flow's row and scatters its action back)
must give the same run bit for bit, including boundaries where only some flows' rounds
ended, joining and leaving flows, losses and an ACK-path queue.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from _hashkit import assert_same

from tcpfluid.algorithms import get_law
from tcpfluid.algorithms.base import RoundAction, RoundSample, State
from tcpfluid.algorithms.mixed import MixedLaw
from tcpfluid.algorithms.vegas import Vegas
from tcpfluid.fluid.hybrid import simulate_hybrid

_CASES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    # three RTT groups joining at different times, drop-tail losses
    (
        "vegas",
        {},
        {
            "mu_pps": 2000.0,
            "base_rtt_s": [0.05] * 3 + [0.08] * 3 + [0.12] * 3,
            "duration_s": 30.0,
            "buffer_pkts": 40.0,
            "flow_start_s": [0.0] * 3 + [5.0] * 3 + [10.0] * 3,
        },
    ),
    ("reno", {}, {"mu_pps": 1000.0, "base_rtt_s": [0.04, 0.06, 0.1], "duration_s": 30.0,
                  "buffer_pkts": 30.0, "flow_stop_s": [np.inf, 20.0, np.inf]}),
    ("tcp-ho", {}, {"mu_pps": 1500.0, "base_rtt_s": [0.05, 0.1], "duration_s": 20.0,
                    "cross_traffic": [(500.0, 5.0, 15.0)]}),
    ("forward-vegas", {}, {"mu_pps": 1000.0, "base_rtt_s": [0.06] * 3, "duration_s": 20.0,
                           "buffer_pkts": 30.0, "reverse_mu_pps": 400.0,
                           "reverse_buffer_pkts": 5.0}),
]  # fmt: skip


@pytest.mark.parametrize("case", _CASES, ids=lambda c: c[0])
def test_one_law_object_for_all_flows_equals_one_per_flow(
    case: tuple[str, dict[str, Any], dict[str, Any]],
) -> None:
    name, params, kw = case
    n = len(kw["base_rtt_s"])
    shared = simulate_hybrid(get_law(name, **params), **kw)
    apart = simulate_hybrid([get_law(name, **params) for _ in range(n)], **kw)
    assert sum(len(f.round_t_s) for f in shared.flows) > 100
    assert_same(shared, apart)


def test_two_laws_with_a_flow_each_and_a_shared_object() -> None:
    """Vegas flows 0 and 2 share one object, Reno flow 1 runs alone: each flow's rounds
    are those of the same flows with one object each."""
    kw: dict[str, Any] = {
        "mu_pps": 1000.0,
        "base_rtt_s": [0.04, 0.06, 0.1],
        "duration_s": 30.0,
        "buffer_pkts": 40.0,
        "flow_start_s": [0.0, 3.0, 7.0],
        "flow_stop_s": [np.inf, 25.0, np.inf],
    }
    vegas = get_law("vegas")
    shared = simulate_hybrid([vegas, get_law("reno"), vegas], **kw)
    apart = simulate_hybrid([get_law("vegas"), get_law("reno"), get_law("vegas")], **kw)
    assert shared.algorithms == ("vegas", "reno", "vegas")
    assert_same(shared, apart)


class _VegasWithoutOut(Vegas):
    """Vegas whose ``on_round`` does not take ``out=`` (a law written before the keyword):
    the engine writes the action it returns."""

    def on_round(self, state: State, sample: RoundSample) -> RoundAction:  # type: ignore[override]
        return super().on_round(state, sample)


def test_a_law_without_out_decides_as_one_with_it() -> None:
    """One law object for every flow is handed ``out=`` views when its ``on_round`` takes
    the keyword; a law that does not is called without it and its returned action is
    copied: the same rounds bit for bit, also for three flows in separate objects."""
    kw: dict[str, Any] = {
        "mu_pps": 2000.0,
        "base_rtt_s": [0.05, 0.08, 0.12],
        "duration_s": 20.0,
        "buffer_pkts": 30.0,
        "flow_start_s": [0.0, 2.0, 4.0],
    }
    with_out = simulate_hybrid(Vegas(), **kw)
    assert sum(len(f.round_t_s) for f in with_out.flows) > 100
    assert_same(with_out, simulate_hybrid(_VegasWithoutOut(), **kw))
    assert_same(with_out, simulate_hybrid([_VegasWithoutOut() for _ in range(3)], **kw))


_EVERY_LAW = ["vegas", "enhanced-vegas", "quick-vegas", "tcp-ho", "itcp-vegas", "forward-vegas",
              "reno", "fast"]  # fmt: skip


@pytest.mark.parametrize("name", _EVERY_LAW)
def test_the_compiled_loop_decides_as_the_law_called_from_python(name: str) -> None:
    """The compiled loop calls a law's compiled rules itself; a subclass whose
    ``on_round`` and ``on_loss`` are its own methods (calling the law's) is called from
    Python at each boundary. Both routes must give the same run bit for bit, losses
    (drop-tail, an ACK-path bottleneck, a timeout rule) and joining flows included, and
    one law object for some flows beside the Python-called ones."""
    law = get_law(name)
    cls = type(law)

    class FromPython(cls):  # type: ignore[valid-type, misc]
        def on_round(self, state: State, sample: RoundSample) -> RoundAction:  # type: ignore[override]
            return super().on_round(state, sample)

        def on_loss(self, state: State, index: Any, kind: int, cwnd: Any) -> Any:  # type: ignore[override]
            return super().on_loss(state, index, kind, cwnd)

    base: dict[str, Any] = {
        "mu_pps": 1500.0,
        "base_rtt_s": [0.04, 0.06, 0.1, 0.05],
        # 12 s: every flow has joined by 6 s and loses packets more than ten times on the
        # 6-packet buffer; the same round phases and loss kinds as over 25 s (measured)
        "duration_s": 12.0,
        "flow_start_s": [0.0, 1.0, 3.0, 6.0],
    }
    lossy = {**base, "buffer_pkts": 6.0}
    ack_path = {**base, "buffer_pkts": 25.0, "reverse_mu_pps": 700.0, "reverse_buffer_pkts": 8.0}
    for kw in (lossy, ack_path):
        compiled = simulate_hybrid(law, **kw)
        if kw is lossy:
            assert all(len(f.loss_t_s) > 0 for f in compiled.flows)
        assert_same(compiled, simulate_hybrid(FromPython(**law.params()), **kw))
        mixed = [FromPython(**law.params()), law, law, FromPython(**law.params())]
        assert_same(compiled, simulate_hybrid(mixed, **kw))


@pytest.mark.parametrize("groups", [[[0, 2], [1, 3]], [[2, 0], [3, 1]]])
def test_a_mixed_law_runs_as_its_laws_one_per_flow(groups: list[list[int]]) -> None:
    """A MixedLaw is its laws, each deciding for its group: the same run as a list of one law
    per flow (Vegas's α given per flow in the group's own order, groups listed unsorted too)."""
    alpha = {0: 1.0, 2: 3.0}
    vegas = get_law("vegas", alpha=[alpha[j] for j in groups[0]], beta=4.0)
    reno = get_law("reno")
    kw: dict[str, Any] = {"mu_pps": 1000.0, "base_rtt_s": [0.05, 0.08, 0.05, 0.06],
                          "duration_s": 20.0, "buffer_pkts": 60.0}  # fmt: skip
    mixed = simulate_hybrid(MixedLaw([vegas, reno], groups), **kw)
    per_flow = [
        get_law("vegas", alpha=alpha[j], beta=4.0) if j in alpha else reno for j in range(4)
    ]
    one_each = simulate_hybrid(per_flow, **kw)
    np.testing.assert_array_equal(mixed.window_pkts, one_each.window_pkts)
    np.testing.assert_array_equal(mixed.delivered_pkts, one_each.delivered_pkts)
    assert mixed.algorithms == one_each.algorithms


def test_a_mixed_law_for_other_flows_is_refused() -> None:
    law = MixedLaw([get_law("vegas"), get_law("reno")], [[0], [1]])
    with pytest.raises(ValueError, match="MixedLaw for 2 flows, the run has 3"):
        simulate_hybrid(law, mu_pps=1000.0, base_rtt_s=[0.05] * 3, duration_s=1.0)
