"""Eager links: a link that only feeds links of its own hands each packet on when it admits it.

Such a link needs no exit events (``tcpfluid.sim._setup.eager_links``): the links it feeds
receive nothing else, in its order, so their state at each arrival can be computed early.
Which links qualify is checked here on the documents' dumbbells; that the runs are those of
the queueing model is checked by the simulator's behavioural tests (tiny cases worked out
by hand, conservation, the documents' figures).
"""

from __future__ import annotations

from typing import Any

from tcpfluid.scenarios import build_scenario
from tcpfluid.sim import _setup


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
