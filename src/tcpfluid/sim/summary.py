"""Summary of a packet-level run, with the same public keys as the round model's.

Definitions are those of :func:`tcpfluid.metrics.summarise` (the same computation, so the
same values as the summary of :func:`tcpfluid.simulate`), applied to each flow's round trace
(one sample per round boundary); utilization counts the bytes the bottleneck
(:func:`tcpfluid.scenarios.bottleneck`) carried, all traffic. docs/simulator.md, "Results".
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from .. import metrics
from ..metrics import _finite_or_none
from ..metrics.summary import traced_summary
from ..results import EngineSummary
from ..scenarios import bottleneck

if TYPE_CHECKING:  # pragma: no cover
    from ._results import PacketResult

__all__ = ["PacketSummary", "summarise"]

FloatArray = NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class PacketSummary(EngineSummary):
    """Summary metrics of a :class:`~tcpfluid.sim.PacketResult` (arrays over flows).

    The fields every engine's summary has are those of
    :class:`~tcpfluid.results.EngineSummary`: here the slow-start exit and the
    windows come from each flow's round trace, ``utilization`` counts the bytes the
    bottleneck carried (all traffic), ``losses`` the loss events handed to the law.

    Attributes
    ----------
    bottleneck
        Name of the link used for ``utilization``.
    retransmissions, timeouts
        Per flow: retransmitted packets, timeouts.
    packets_per_s, events_per_s
        Simulated data packets and events per wall-clock second of the run.
    conserved
        Whether every packet was accounted for (sent = delivered + dropped + in flight).
    """

    bottleneck: str
    retransmissions: NDArray[np.int64]
    timeouts: NDArray[np.int64]
    packets_per_s: float
    events_per_s: float
    conserved: bool

    def _own_keys(self) -> dict[str, Any]:
        return {
            "retransmissions": [int(x) for x in self.retransmissions],
            "timeouts": [int(x) for x in self.timeouts],
            "packets_per_s": _finite_or_none(self.packets_per_s),
            "events_per_s": _finite_or_none(self.events_per_s),
            "conserved": bool(self.conserved),
        }


def summarise(res: PacketResult) -> PacketSummary:
    """Compute the :class:`PacketSummary` of a run (definitions in the module docstring)."""
    sc = res.scenario
    t_end = sc.duration_s
    cbr = metrics.bandwidth_changes([(c.start_s, c.stop_s) for c in sc.cbr], t_end)
    bott = bottleneck(sc)  # the one rule of every engine (tcpfluid.scenarios.bottleneck)
    assert bott is not None
    capacity_bytes = bott.rate_bps / 8.0 * t_end  # 0 when the product underflows
    util = res.link(bott.name).bytes_out / capacity_bytes if capacity_bytes > 0 else math.nan
    return traced_summary(
        PacketSummary, res.flows, res.settle_band_pkts, cbr, t_end,
        utilization=float(util),
        bottleneck=bott.name,
        retransmissions=np.array([fl.retransmissions for fl in res.flows], dtype=np.int64),
        timeouts=np.array([fl.timeouts for fl in res.flows], dtype=np.int64),
        packets_per_s=res.packets_per_s,
        events_per_s=res.events_per_s,
        conserved=res.conserved,
    )  # fmt: skip
