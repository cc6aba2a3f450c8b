"""The packet simulator's set-up of a run (:mod:`tcpfluid.sim._setup`), each rule on cases
worked by hand.

* Doubling a ring (``grow_ring``): the live entries keep their counters' slots in the
  doubled ring, the other rings are untouched, and arrays that must grow keep every used
  row and are zero after them.
* Eager links: a link that only feeds links of its own hands each packet on when it admits
  it. Such a link needs no exit events (``eager_links``): the links it feeds receive
  nothing else, in its order, so their state at each arrival can be computed early. Which
  links qualify is checked here on the documents' dumbbells; that the runs are those of
  the queueing model is checked by the simulator's behavioural tests (tiny cases worked
  out by hand, conservation, the documents' figures).
* Early receivers (``early_receivers``): which links hand their packets to the receivers
  when they admit them, on the documents' dumbbells (that a run is the same with them:
  ``test_sim_early_receivers.py``).
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from tcpfluid.scenarios import Scenario, build_scenario
from tcpfluid.sim import _core as C
from tcpfluid.sim import _setup, engine, simulate_packets
from tcpfluid.sim._setup import grow_ring

COLS = (0, 1, 2, 3)  # offset, capacity, lowest live counter, highest


def _rings() -> tuple[tuple[np.ndarray, np.ndarray], np.ndarray]:
    # two rings of 4 slots in rows 0-3 and 4-7; ring 0 holds counters 6..9 (wrapped)
    f = np.zeros((8, 2))
    i = np.zeros((8, 3), dtype=np.int64)
    table = np.array([[0, 4, 6, 10], [4, 4, 0, 3]], dtype=np.int64)
    for c in range(6, 10):
        f[c % 4] = (c, -c)
        i[c % 4] = (c, 2 * c, 3 * c)
    for c in range(3):
        f[4 + c] = (100 + c, 0.5)
        i[4 + c] = (100 + c, 7, 7)
    return (f, i), table


def test_grow_moves_the_live_entries_to_their_slots_in_the_doubled_ring() -> None:
    (f, i), table = _rings()
    other_f, other_i = f[4:8].copy(), i[4:8].copy()
    (f2, i2), used = grow_ring((f, i), 8, table, 0, COLS)
    assert used == 16 and table[0, 0] == 8 and table[0, 1] == 8
    assert f2.shape[0] >= 16 and i2.shape[0] == f2.shape[0]
    for c in range(6, 10):
        k = 8 + c % 8
        assert tuple(f2[k]) == (c, -c)
        assert tuple(i2[k]) == (c, 2 * c, 3 * c)
    # the other ring is where it was, and rows past the used ones are zero
    np.testing.assert_array_equal(f2[4:8], other_f)
    np.testing.assert_array_equal(i2[4:8], other_i)
    unused = [k for k in range(8, f2.shape[0]) if not 14 <= k <= 15 and not 8 <= k <= 9]
    assert not f2[unused].any() and not i2[unused].any()
    assert f2.dtype == f.dtype and i2.dtype == i.dtype
    assert f2.flags.c_contiguous and i2.flags.c_contiguous


def test_grow_within_the_arrays_keeps_them() -> None:
    (f, i), table = _rings()
    f = np.concatenate([f, np.zeros((8, 2))])
    i = np.concatenate([i, np.zeros((8, 3), dtype=np.int64)])
    (f2, i2), used = grow_ring((f, i), 8, table, 1, COLS)
    assert f2 is f and i2 is i and used == 16
    for c in range(3):
        assert tuple(f2[8 + c]) == (100 + c, 0.5)


def test_a_link_ring_row_is_one_aligned_cache_line_and_grows_bit_for_bit() -> None:
    from tcpfluid.sim._setup import ALIGN, link_ring_views

    rf, ri = link_ring_views(8)
    assert rf.shape == (8, C.NRF) and rf.strides[0] == ALIGN == 64
    assert rf.ctypes.data % ALIGN == 0 and np.shares_memory(rf, ri)
    table = np.array([[0, 4, 2, 6]], dtype=np.int64)  # one ring of 4 slots, counters 2..5
    tags = {}
    for c in range(2, 6):
        rf[c % 4, C.RF_EXIT] = 0.1 * c
        ri[c % 4, C.RI_SEQ] = -c  # negative: as a float, a NaN bit pattern
        tags[c] = (c << C.TAG_FLOW) | (3 << C.TAG_POS) | C.KIND_ACK  # a subnormal as a float
        ri[c % 4, C.RI_TAG] = tags[c]
    (rf2,), used = grow_ring((rf,), 4, table, 0, COLS)
    ri2 = rf2.view(np.int64)
    assert used == 12 and rf2.ctypes.data % ALIGN == 0
    for c in range(2, 6):
        k = 4 + c % 8
        assert rf2[k, C.RF_EXIT] == 0.1 * c
        assert ri2[k, C.RI_SEQ] == -c and ri2[k, C.RI_TAG] == tags[c]
        assert ri2[k, C.RI_TAG] >> C.TAG_FLOW == c
        assert (ri2[k, C.RI_TAG] >> C.TAG_POS) & C.POS_MASK == 3
        assert ri2[k, C.RI_TAG] & C.KIND_MASK == C.KIND_ACK


# ------------------------------------------------------------------ eager links
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


# ------------------------------------------------------------------ early receivers
def _early(sc: Scenario, **options: Any) -> tuple[set[str], set[str]]:
    """(links whose receivers take packets early, links fed by those receivers)."""
    given = {
        k: p.default for k, p in inspect.signature(simulate_packets).parameters.items()
    } | options
    sim = engine._checked_sim(sc, given)
    names = [lk.name for lk in sc.links]
    rx = {names[i] for i in np.nonzero(sim.li[:, C.J_RX])[0]}
    fed = {names[i] for i in np.nonzero(sim.li[:, C.J_FED])[0]}
    return rx, fed


def test_early_receivers_of_the_documents_dumbbells() -> None:
    sc = build_scenario("qv-many-flows").with_algorithm("vegas")
    rx, fed = _early(sc)
    assert rx == {f"R2-D{k}" for k in range(1, 61)}
    # each flow's first ACK link takes only its receiver's ACKs: fed by it
    assert {f"D{k}-R2" for k in range(1, 61)} <= fed
    # delayed ACKs wait for the receiver's timer: the exit events stay
    assert _early(sc, delayed_ack=True)[0] == set()
    # qv-basic: the CBR source's packets end at R2-D2, which keeps its exit events
    rx, _ = _early(build_scenario("qv-basic").with_algorithm("vegas"))
    assert rx == {"R2-D1"}
    # a RED bottleneck does not matter (the receivers' links are drop-tail: their drops
    # need no random numbers, which are drawn in the order of the events)
    rx, _ = _early(build_scenario("thesis-two-flow", queue="red").with_algorithm("vegas"))
    assert "R2-D1" in rx
