"""The same scenario with another start order: :func:`start_jitter`, the one definition of
the senders' start delays that move only the order and phase of the flows' first packets."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from .._validation import check_int
from ._checks import check_scenario

if TYPE_CHECKING:  # pragma: no cover
    from ..scenarios import Scenario

#: the bound of the start jitter: bottleneck packet times, and a fraction of the shortest
#: base RTT (the smaller of the two)
JITTER_PACKET_TIMES = 2.0
JITTER_RTT_FRACTION = 0.01


def start_jitter(scenario: Scenario, seed: int | Sequence[int]) -> tuple[float, ...]:
    """Each sender's start delay, s, that runs ``scenario`` again with another start order:
    the packet simulator's ``start_delay_s`` (:func:`simulate_packets`), drawn uniform below
    ``min(2 packet times of the bottleneck, 1 % of the shortest base RTT)``.

    The flows' first packets still meet at the bottleneck within two of its service slots,
    so only their order and phase change; no flow gains a hundredth of a round, and the
    run's changes and summary keep the scenario's start times. Real hosts' start-up times
    differ by far more (docs/fluid-promises.md, "The packet simulator against itself").

    Parameters
    ----------
    scenario
        The scenario (:class:`tcpfluid.scenarios.Scenario`).
    seed
        An integer >= 0, or a non-empty sequence of them (the entropy of
        ``numpy.random.default_rng``): same seed, same delays.

    Examples
    --------
    >>> from tcpfluid.scenarios import rtt_dumbbell
    >>> sc = rtt_dumbbell(8e6, [0.02, 0.02], ["vegas", "vegas"], duration_s=5.0)
    >>> d = start_jitter(sc, 1)  # 1 ms a packet: 1 % of the base RTT (21.2 ms) binds
    >>> len(d), 0.0 <= min(d) <= max(d) < 0.01 * 0.021248, d == start_jitter(sc, 1)
    (2, True, True)
    """
    from ..engines._base import bottleneck_name

    check_scenario(scenario)
    if isinstance(seed, Sequence) and not isinstance(seed, str):
        if not seed:
            raise ValueError("seed must be an integer >= 0 or a non-empty sequence of them, got ()")
        entropy: int | list[int] = [
            check_int(f"seed[{i}]", s, minimum=0) for i, s in enumerate(seed)
        ]
    else:
        entropy = check_int("seed", seed, minimum=0)
    packet_s = 8.0 * scenario.packet_size_bytes / scenario.link(bottleneck_name(scenario)).rate_bps
    rtt_s = min(scenario.base_rtts_s())
    bound = min(JITTER_PACKET_TIMES * packet_s, JITTER_RTT_FRACTION * rtt_s)
    return tuple(np.random.default_rng(entropy).uniform(0.0, bound, len(scenario.flows)).tolist())
