"""The event heap of the compiled loop (``_core.set_key``): after any sequence of key
changes, its top is the source with the smallest key (time, then the tie-break number
given when the key was set), checked against a plain Python model of the keys, and every
slot keeps the heap order. Several times are equal on purpose (ties) and some keys are
infinite (idle sources)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tcpfluid.sim import _core as C


def _heap(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    ht = np.full((2, n), np.inf)
    hi = np.zeros((C.NH, n), dtype=np.int64)
    hi[C.H_HEAP] = np.arange(n)
    hi[C.H_POS] = np.arange(n)
    return hi, ht, np.zeros(C.NGI, dtype=np.int64)


def test_the_top_is_the_smallest_time_then_the_oldest_tie_break() -> None:
    rng = np.random.default_rng(3)
    for n in (1, 2, 7, 64, 301):
        hi, ht, gi = _heap(n)
        # the plain model: each source's key (time, tie-break number), as arrays so that
        # every check after every update is one array comparison
        model_t = np.full(n, math.inf)
        model_tie = np.full(n, -1, dtype=np.int64)
        sources = np.arange(n)
        child = np.arange(1, n)
        parent = (child - 1) // 2
        for _ in range(3000):
            src = int(rng.integers(n))
            u = rng.random()
            t = math.inf if u < 0.1 else float(rng.integers(20)) * 0.5  # many equal times
            model_t[src], model_tie[src] = t, int(gi[C.G_SEQ])
            C._set_key_call(hi, ht, gi, src, t)
            finite = model_t < math.inf
            if finite.any():  # the smallest (time, tie-break) of the finite keys
                first = np.flatnonzero(model_t == model_t.min())
                top = first[np.argmin(model_tie[first])]
                assert int(hi[C.H_HEAP, 0]) & C.SRC_MASK == top
            # each source's key and its slot
            assert np.array_equal(ht[C.HT_SRC, :n], model_t)
            assert np.array_equal(hi[C.H_HEAP, hi[C.H_POS, :n]] & C.SRC_MASK, sources)
            # heap order between finite keys: (time, slot word) of a parent below its child's
            pt, ct = ht[C.HT_HEAP, parent], ht[C.HT_HEAP, child]
            pw, cw = hi[C.H_HEAP, parent], hi[C.H_HEAP, child]
            below = (pt < ct) | ((pt == ct) & (pw < cw))
            assert below[ct < math.inf].all()


def test_a_run_that_would_exhaust_the_tie_break_numbers_stops_with_a_clear_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a heap slot packs the tie-break number above SRC_BITS source bits of an int64: the
    # numbers run out after 2**(63 - SRC_BITS) key updates, and the run must stop before,
    # not order events wrongly. With the limit lowered, a short run reaches it.
    from tcpfluid.scenarios import build_scenario
    from tcpfluid.sim import engine

    assert engine._MAX_KEY_UPDATES < 1 << (63 - C.SRC_BITS)
    monkeypatch.setattr(engine, "_MAX_KEY_UPDATES", 1000)
    sc = build_scenario("qv-basic", cbr="none", duration="5s").with_algorithm("vegas")
    with pytest.raises(RuntimeError, match=r"ran out of tie-break numbers.*limit of 1,000"):
        engine.simulate_packets(sc)
