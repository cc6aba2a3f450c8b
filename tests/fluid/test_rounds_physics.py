"""Rules of the round physics (:mod:`tcpfluid.fluid._rounds_physics`; the hybrid kernel
compiles its place offsets in), each against an independent route: the growth share of an
overflow worked by hand, and the offsets of a flow's place in a slow-start burst
(:func:`~tcpfluid.fluid._rounds_physics.place_offset`) against a walk along the burst.

The walk builds the train docs/round-model.md ("Places in the burst") describes, piece by
piece: ``c`` cycles, each carrying a run of ``z_j / c`` growth packets of every flow in the
flows' order, each growth packet adding one packet to the queue above the round's first.
A flow's mean queue is the average over its pieces, its last packet's and first packet's
are the queue at the ends of its runs; the round's are the same over every piece. With
every flow placed and a ramp of ``Z`` packets at one packet per second, the offsets are
those differences in packets (= seconds): an independent route to the closed form.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from tcpfluid.fluid._rounds_physics import growth_shares, place_offset

#: pieces a growth packet is cut into (the queue is linear along a piece, so its
#: middle's queue is the piece's mean and the walk's means are exact)
N_PIECES = 6

Queues = tuple[Fraction, Fraction, Fraction]


def _walk(z: list[int], c: int) -> tuple[list[Queues], Queues]:
    """Each flow's (mean, last, first) queue over its growth pieces, packets, and the
    round's over every piece (exact fractions)."""
    queue = Fraction(0)
    step = Fraction(1, N_PIECES)
    seen: list[list[Fraction]] = [[] for _ in z]
    for _cycle in range(c):
        for j, zj in enumerate(z):
            for _piece in range(zj * N_PIECES // c):
                seen[j].append(queue + step / 2)  # the piece's middle
                queue += step

    def ends(s: list[Fraction]) -> Queues:  # the last piece's end, the first one's start
        return sum(s, Fraction(0)) / len(s), max(s) + step / 2, min(s) - step / 2

    return [ends(s) for s in seen], ends([q for s in seen for q in s])


@pytest.mark.parametrize(("z", "c"), [([4, 4, 4], 2), ([2, 6, 10, 4], 2), ([3, 9, 6], 3)])
def test_the_offsets_are_the_walk_along_the_burst(z: list[int], c: int) -> None:
    """Each offset is the flow's queue less the round's: mean, last packet's (the
    maximum) and first packet's (the minimum), to rounding."""
    total = sum(z)
    flows, (r_mean, r_last, r_first) = _walk(z, c)
    ahead = 0
    for j, zj in enumerate(z):
        got = place_offset(
            float(ahead), float(zj), float(total), float(total), float(total), float(c)
        )
        mean, last, first = flows[j]
        want = (mean - r_mean, last - r_last, first - r_first)
        assert got == pytest.approx([float(x) for x in want], abs=1e-12), j
        ahead += zj


def test_no_growth_no_offset() -> None:
    """A round without growth has no ramp per packet: every offset is 0 (no division)."""
    assert place_offset(0.0, 0.0, 0.0, 0.0, 0.004, 2.0) == (0.0, 0.0, 0.0)


def test_growth_shares_deal_each_groups_overflow_first_on_its_growth() -> None:
    # two groups of two flows, worked by hand: group 1 loses 3 packets and grew by 1 + 2,
    # so the growth takes all of them; group 2 did not grow, so its 10 go by window
    # (10 × 5/20, 10 × 15/20); one group with a scalar overflow: 4 of 5 on the growth
    # (4 × 1/4 + 1 × 10/40, 4 × 3/4 + 1 × 30/40)
    got = growth_shares(np.array([3.0, 10.0]), np.array([1.0, 2.0, 0.0, 0.0]),
                        np.array([10.0, 30.0, 5.0, 15.0]))  # fmt: skip
    np.testing.assert_allclose(got, [1.0, 2.0, 2.5, 7.5], rtol=1e-15)
    one = growth_shares(5.0, np.array([1.0, 3.0]), np.array([10.0, 30.0]))
    np.testing.assert_allclose(one, [1.25, 3.75], rtol=1e-15)
