"""The end of a packet run: the compiled loop's arrays turned into a :class:`PacketResult`.

:func:`collect` cuts the round records and the fixed-interval samples into one
:class:`~tcpfluid.sim.FlowTrace` per flow and one :class:`~tcpfluid.sim.LinkTrace` per link,
and :func:`conservation` checks that every packet is accounted for (sent = delivered +
dropped + still in a link).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from .._engine_summary import law_band
from ..algorithms._common import backlog
from . import _core as C
from ._results import FlowTrace, LinkTrace, PacketResult

if TYPE_CHECKING:  # pragma: no cover
    from .engine import _Sim

__all__ = ["collect", "conservation"]

FloatArray = NDArray[np.float64]


def _in_flight(sim: _Sim) -> dict[int, int]:
    """Packets of each kind (data, ACK, CBR) still held by a link."""
    kinds = {C.KIND_DATA: 0, C.KIND_ACK: 0, C.KIND_CBR: 0}
    li = sim.li
    rkind = sim.ri[:, C.RI_TAG] & C.KIND_MASK
    for link in range(sim.nl):
        off, cap = int(li[link, C.J_OFF]), int(li[link, C.J_CAP])
        head, tail = int(li[link, C.J_HEAD]), int(li[link, C.J_TAIL])
        if tail > head:
            k = rkind[off + np.arange(head, tail) % cap]
            for kind in kinds:
                kinds[kind] += int(np.count_nonzero(k == kind))
    return kinds


def conservation(sim: _Sim) -> dict[str, Any]:
    """For ``data``, ``ack`` and ``cbr`` packets: sent, delivered, dropped, in flight and
    whether they add up; ``conserved``: whether they do for all three."""
    cnt = sim.gi
    fl = _in_flight(sim)
    out: dict[str, Any] = {}
    ok = True
    for label, kind, (s, r, d) in (
        ("data", C.KIND_DATA, (C.N_DATA_SENT, C.N_DATA_RCVD, C.N_DATA_DROP)),
        ("ack", C.KIND_ACK, (C.N_ACK_SENT, C.N_ACK_RCVD, C.N_ACK_DROP)),
        ("cbr", C.KIND_CBR, (C.N_CBR_SENT, C.N_CBR_RCVD, C.N_CBR_DROP)),
    ):
        entry = {
            "sent": int(cnt[s]),
            "delivered": int(cnt[r]),
            "dropped": int(cnt[d]),
            "in_flight": fl[kind],
        }
        entry["conserved"] = entry["sent"] == (
            entry["delivered"] + entry["dropped"] + entry["in_flight"]
        )
        ok = ok and bool(entry["conserved"])
        out[label] = entry
    out["conserved"] = ok
    return out


def _flow_traces(sim: _Sim, n: int, safe_dt: FloatArray) -> list[FlowTrace]:
    """One trace per flow from the round records and the first ``n`` samples."""
    sc = sim.scenario
    dec = sim.decisions
    flows = []
    # every per-flow array is a row of one array computed for all flows at once
    rec = sim.rec[: int(sim.gi[C.G_NREC])]
    order = np.argsort(rec[:, 9].astype(np.intp), kind="stable")
    cols = np.ascontiguousarray(rec[order, :9].T)
    delta = backlog(cols[1], cols[6], cols[3])
    bounds = np.searchsorted(rec[order, 9], np.arange(len(sc.flows) + 1))
    sf = np.ascontiguousarray(sim.s_flow[:n].transpose(1, 2, 0))  # flow, column, time
    good = sf[:, 1, :]
    gp_all = np.diff(good, axis=1, prepend=good[:, :1]) / safe_dt
    fi, ff = sim.fi, sim.ff
    for f, fl in enumerate(sc.flows):
        a, b = int(bounds[f]), int(bounds[f + 1])
        loss = np.asarray(dec.losses[f], dtype=np.float64).reshape(-1, 4).T.copy()
        flows.append(
            FlowTrace(
                name=fl.name,
                algorithm=dec.laws[f].name,
                start_s=fl.start_s,
                stop_s=fl.stop_s,
                round_t_s=cols[0, a:b],
                round_cwnd_pkts=cols[1, a:b],
                round_next_cwnd_pkts=cols[2, a:b],
                round_rtt_mean_s=cols[3, a:b],
                round_rtt_min_s=cols[4, a:b],
                round_rtt_max_s=cols[5, a:b],
                round_base_rtt_s=cols[6, a:b],
                round_delta_pkts=delta[a:b],
                round_phase=cols[7, a:b],
                round_ssthresh_pkts=cols[8, a:b],
                cwnd_pkts=sf[f, 0],
                goodput_pps=gp_all[f],
                srtt_s=sf[f, 3],
                loss_t_s=loss[0],
                loss_kind=loss[1],
                loss_cwnd_before_pkts=loss[2],
                loss_cwnd_after_pkts=loss[3],
                sent_pkts=int(fi[f, C.I_SENT]),
                delivered_pkts=int(fi[f, C.I_GOOD]),
                retransmissions=int(fi[f, C.I_RETX]),
                fast_retransmits=int(fi[f, C.I_FASTRETX]),
                timeouts=int(fi[f, C.I_TIMEOUTS]),
                acks_sent=int(fi[f, C.I_ACKS_SENT]),
                base_rtt_s=float(ff[f, C.F_BASE]),
            )
        )
    return flows


def _link_traces(sim: _Sim, n: int, safe_dt: FloatArray) -> list[LinkTrace]:
    """One trace per link from the first ``n`` samples and the link counters."""
    links = []
    for i, lk in enumerate(sim.scenario.links):
        by = sim.s_link[:n, i, 2]
        util = np.diff(by, prepend=by[:1]) / (safe_dt * lk.rate_bps / 8.0)
        links.append(
            LinkTrace(
                name=lk.name,
                rate_bps=lk.rate_bps,
                queue_pkts=sim.s_link[:n, i, 0].copy(),
                drops=sim.s_link[:n, i, 1].copy(),
                utilization=util,
                red_avg_pkts=sim.s_link[:n, i, 3].copy(),
                arrivals=int(sim.li[i, C.J_ARR]),
                drops_total=int(sim.li[i, C.J_DROPS]),
                data_drops=int(sim.li[i, C.J_DROPS_DATA]),
                max_queue_pkts=int(sim.li[i, C.J_MAXQ]),
                bytes_out=float(sim.lf[i, C.L_BYTES_OUT]),
            )
        )
    return links


def collect(sim: _Sim, wall: float, seed: int) -> PacketResult:
    """The result of the finished run ``sim`` (``wall``: its wall-clock time, s)."""
    n = int(sim.gi[C.G_NSAMP])
    t = sim.s_t[:n].copy()
    dt = np.diff(t, prepend=t[:1]) if n else t
    safe_dt = np.where(dt > 0, dt, np.inf)
    return PacketResult(
        scenario=sim.scenario,
        t_s=t,
        flows=tuple(_flow_traces(sim, n, safe_dt)),
        links=tuple(_link_traces(sim, n, safe_dt)),
        conservation=conservation(sim),
        events=int(sim.gi[C.G_EVENTS]),
        wall_time_s=wall,
        seed=seed,
        law_calls=sim.decisions.law_calls,
        law_time_s=sim.decisions.law_time_s,
        settle_band_pkts=tuple(law_band(law) for law in sim.decisions.laws),
    )
