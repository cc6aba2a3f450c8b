"""Eager links: a link that only feeds links of its own hands each packet on when it admits it.

Such a link needs no exit events (``tcpfluid.sim._setup.eager_links``): the links it feeds
receive nothing else, in its order, so their state at each arrival can be computed early.
That must not change a single result, only the number of events; the reference is the same
run with an exit event at every link (``_setup.FOLD_LINKS = False``, the loop's behaviour
before folding).
"""

from __future__ import annotations

from typing import Any

import pytest
from _simkit import assert_same_run, joining_groups

from tcpfluid.scenarios import build_scenario
from tcpfluid.sim import _setup, simulate_packets


def _flags(name: str, **kw: Any) -> tuple[set[str], set[str]]:
    sc = build_scenario(name, **kw)
    eager, fed = _setup.eager_links(sc)
    names = [lk.name for lk in sc.links]
    return {names[i] for i in eager.nonzero()[0]}, {names[i] for i in fed.nonzero()[0]}


def test_eager_links_of_the_documents_dumbbells() -> None:
    # qv-basic: the bottleneck feeds the flow's and the CBR's exit links (unlimited buffers,
    # nothing else enters them); the ACK path has one flow, so each ACK link feeds the next
    eager, fed = _flags("qv-basic")
    assert eager == {"R1-R2", "D1-R2", "R2-R1"}
    assert fed == {"R2-D1", "R2-D2", "R2-R1", "R1-S1"}
    # 60 flows share both bottlenecks: only they are eager; a flow's access links are
    # first hops or fed by a link with many inputs
    eager, fed = _flags("qv-many-flows")
    assert eager == {"R1-R2", "R2-R1"}
    assert fed == {f"R2-D{k}" for k in range(1, 61)} | {f"R1-S{k}" for k in range(1, 61)}
    # finite buffers (the asymmetric paper's 15- and 10-packet bottlenecks) can drop: the
    # links before them keep their exit events
    eager, fed = _flags("asymmetric")
    assert eager == {"R1-R2", "R2-R1"}
    assert fed == {"R2-H4", "R1-H1"}
    # RED may drop too: the RED bottleneck itself is eager, what feeds it is not
    eager, _ = _flags("thesis-two-flow", queue="red")
    assert eager == {"R1-R2", "R2-R1"}


@pytest.mark.parametrize(
    "case",
    [
        # CBR cross traffic, eager links on both paths, the fed ACK link R2-R1 sampled
        ("qv-basic", "vegas", {"duration": "8s"}, {}),
        # losses on a finite buffer, delayed ACKs and their timer
        ("qv-basic", "reno", {"duration": "12s", "buffer": 60}, {"delayed_ack": True}),
        # an ACK-path bottleneck that drops ACKs
        ("asymmetric", "reno", {"duration": "30s"}, {}),
        # RED at the bottleneck (its random numbers drawn in the same order)
        ("thesis-two-flow", "reno", {"queue": "red", "duration": "30s"}, {}),
    ],
    ids=lambda c: f"{c[0]}-{c[1]}",
)
def test_eager_links_change_no_result(
    case: tuple[str, str, dict[str, Any], dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    name, law, kw, opt = case
    sc = build_scenario(name, **kw).with_algorithm(law)
    folded = simulate_packets(sc, **opt)
    monkeypatch.setattr(_setup, "FOLD_LINKS", False)
    every_exit = simulate_packets(sc, **opt)
    assert_same_run(folded, every_exit, events=False)
    assert folded.events < every_exit.events


def test_eager_links_with_joining_flows_and_losses(monkeypatch: pytest.MonkeyPatch) -> None:
    sc = joining_groups("reno")
    folded = simulate_packets(sc, delayed_ack=True)
    monkeypatch.setattr(_setup, "FOLD_LINKS", False)
    every_exit = simulate_packets(sc, delayed_ack=True)
    assert_same_run(folded, every_exit, events=False)
    assert sum(f.loss_t_s.size for f in folded.flows) > 0
    # each data packet and ACK crosses one eager bottleneck: one exit event less each
    assert every_exit.events - folded.events > folded.data_packets
