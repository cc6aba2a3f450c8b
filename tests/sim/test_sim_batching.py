"""Batched round decisions and progress reports of the packet simulator.

The compiled loop defers a flow's round decision while no event can depend on it (nothing
reaches the flow, its first link or the trace sampler, and nothing it would send could have
left its first link yet), so the decisions of several flows are taken in one return to
Python. Flows that share one law object each decide on their own state: that must not
change a single event, the reference being the same run with one law object per flow.
"""

from __future__ import annotations

from typing import Any

import pytest
from _simkit import assert_same_run, joining_groups

from tcpfluid.algorithms import get_law
from tcpfluid.scenarios import build_scenario
from tcpfluid.sim import engine, simulate_packets


def _decisions_taken(res: Any) -> tuple[int, int]:
    """The round and the loss decisions of a packet run."""
    return (sum(f.round_t_s.size for f in res.flows), sum(f.loss_t_s.size for f in res.flows))


@pytest.mark.parametrize("algorithm", ["vegas", "quick-vegas", "reno", "fast"])
def test_grouped_laws_equal_one_law_per_flow(algorithm: str) -> None:
    sc = joining_groups(algorithm)
    grouped = simulate_packets(sc)
    own = simulate_packets(sc, laws={f.name: get_law(algorithm) for f in sc.flows})
    assert_same_run(grouped, own)
    if algorithm == "reno":
        assert _decisions_taken(grouped)[1] > 0  # the losses path is exercised too


def test_progress_reports_fractions_up_to_one(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[float] = []
    monkeypatch.setattr(engine, "_YIELD_EVENTS", 5000)
    monkeypatch.setattr(engine, "_PROGRESS_EVERY_S", 0.0)
    sc = build_scenario("qv-basic", duration="5s", cbr="none").with_algorithm("vegas")
    res = simulate_packets(sc, progress=seen.append)
    assert len(seen) >= 10
    assert all(0.0 <= x <= 1.0 for x in seen)
    assert seen == sorted(seen) and seen[-1] == 1.0
    # reporting changes nothing
    assert_same_run(res, simulate_packets(sc))


def test_progress_must_be_callable() -> None:
    sc = build_scenario("qv-basic", duration="1s", cbr="none").with_algorithm("vegas")
    with pytest.raises(TypeError, match="progress"):
        simulate_packets(sc, progress=0.5)  # type: ignore[arg-type]


def test_grouped_laws_when_flows_share_their_first_link() -> None:
    # three flows enter the same RED link first (a deferred decision blocks it for the
    # others), with delayed ACKs and a CBR source on it: the blocking rules are exercised
    from tcpfluid.scenarios import CbrSource, FlowSpec, Link, Scenario

    red = {"min_th": 5, "max_th": 15, "max_p": 0.1, "w_q": 0.02}
    sc = Scenario(
        name="shared-first-link",
        links=(
            Link("C", 20e6, 0.01, 40, discipline="red", red=red),
            Link("R", 2e6, 0.01, 50),
        ),
        flows=tuple(
            FlowSpec(f"f{i}", ("C",), ("R",), start_s=0.2 * i, algorithm=a)
            for i, a in enumerate(("vegas", "vegas", "reno"))
        ),
        cbr=(CbrSource("x", 4e6, start_s=1.0, stop_s=3.0, links=("C",)),),
        duration_s=5.0,
    )
    grouped = simulate_packets(sc, delayed_ack=True, seed=3)
    own = {f.name: get_law(str(f.algorithm)) for f in sc.flows}
    assert_same_run(grouped, simulate_packets(sc, delayed_ack=True, seed=3, laws=own))
    assert sum(lk.drops_total for lk in grouped.links) > 0
