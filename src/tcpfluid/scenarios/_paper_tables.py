"""Named scenarios of the documents' tables: the TCP-Ho paper's fairness and friendliness
setups (§5.2, Tables 5-7: ``ho-fairness``, ``ho-different-rtt``, ``ho-friendliness``;
docs/paper-tables.md) and Tsang's thesis's many-flow network (ch. 3 Table 3.19:
``thesis-many-flows``; docs/thesis-tables.md, "The many-flow network").
"""

from __future__ import annotations

import random
from typing import Any

from .. import units
from .catalogue import COMMON_DEFAULTS, Builder, _dumbbell, _mixed, register
from .model import Link, Scenario, _int, _real
from .topology import _core_wire, _host_pairs, _law, _red, _scenario

__all__ = ["HO_DIFFERENT_RTTS_MS", "HO_MEASURE_FROM_S", "THESIS_ROUTERS"]

#: the RTTs of the five ``ho-different-rtt`` sources, ms (*ours*: the paper's Fig. 13 is not
#: in its text). Source i's RTT is i times the §5.2.1 path's 50 ms (2 × (1 + 23 + 1) ms),
#: its access link's one-way delay raised to match; the trunk and the destinations' access
#: links are the text's
HO_DIFFERENT_RTTS_MS: tuple[float, ...] = (50.0, 100.0, 150.0, 200.0, 250.0)

#: start of the measurement window of the §5.2 tables, s (*ours*: the paper says "under the
#: steady state" and gives times to balance up to 6.5 s)
HO_MEASURE_FROM_S = 10.0

_HO_DEFAULTS: dict[str, Any] = {
    "access_bandwidth": "1Gbps", "access_delay": "1ms", **COMMON_DEFAULTS,
}  # fmt: skip


def _ho_different_rtt(p: dict[str, Any]) -> Scenario:
    """The TCP-Ho paper §5.2.1, Table 6: source i's round trip ``2 × (x_i + core_delay +
    access_delay)``, ``x_i`` its own access delay, one source per RTT of ``rtts``."""
    bw, acc_bw, core_d, buf = _core_wire(p)
    acc_d = units.time_or_zero(p["access_delay"], name="access_delay")
    raw = p["rtts"]
    items = [x.strip() for x in raw.split(",")] if isinstance(raw, str) else list(raw)
    if not items or any(x == "" for x in items):
        raise ValueError(
            f"rtts must be a comma-separated list of times such as '50ms,100ms', got {raw!r}"
        )
    head = [Link("R1-R2", bw, core_d, buf), Link("R2-R1", bw, core_d, buf)]
    xs: list[float] = []
    shortest = 2.0 * (2.0 * acc_d + core_d)
    for item in items:
        rtt = units.seconds(item, name="rtts")
        if rtt < shortest - 1e-12:
            raise ValueError(
                f"rtts: {item!r} is shorter than {shortest * 1e3:g} ms, the round trip of "
                "the trunk and 1 ms access links at both ends (2 x (2 x access_delay + "
                "core_delay))"
            )
        xs.append(rtt / 2.0 - core_d - acc_d)
    links, flows = _host_pairs(head, len(xs), "R1", "R2", acc_bw, xs, acc_d, laws=_law(p))
    return _mixed(_scenario("ho-different-rtt", p, links, flows), p)


#: name, its own defaults (beside :data:`_HO_DEFAULTS`; every run 60 s, the length *ours*),
#: description, builder (``None``: the dumbbell of ``flows`` sources)
_HO_SCENARIOS: tuple[tuple[str, dict[str, Any], str, Builder | None], ...] = (
    (
        "ho-fairness",
        {"bandwidth": "100Mbps", "rtt": "50ms", "buffer": 300, "flows": 5},
        "TCP-Ho paper §5.2.1 Table 5: five sources of one scheme on a 100 Mb/s x 23 ms "
        "trunk (1 Gb/s 1 ms access links: RTT 50 ms), 300-packet buffer, all starting at "
        "0 s; 60 s (the run length is ours)",
        None,
    ),
    (
        "ho-different-rtt",
        {
            "bandwidth": "100Mbps",
            "core_delay": "23ms",
            "rtts": ",".join(f"{r:g}ms" for r in HO_DIFFERENT_RTTS_MS),
            "buffer": 300,
        },
        "TCP-Ho paper §5.2.1 Table 6: five sources with different RTTs on a 100 Mb/s x "
        "23 ms trunk, 1 Gb/s access links, 300-packet buffer; the paper's Fig. 13 is not "
        "in its text: the RTTs (rtts=50ms,...,250ms, one source each; the source's access "
        "delay sets it) and the 60 s run are ours",
        _ho_different_rtt,
    ),
    (
        "ho-friendliness",
        {"bandwidth": "10Mbps", "rtt": "6ms", "buffer": 120, "flows": 20},
        "TCP-Ho paper §5.2.2 Table 7: 20 connections on a 10 Mb/s x 1 ms connection link "
        "(1 Gb/s 1 ms access links: RTT 6 ms), 120-packet buffer; algorithm takes a mix "
        "such as reno:15,vegas:5; 60 s (the run length is ours)",
        None,
    ),
)
for _name, _defaults, _description, _builder in _HO_SCENARIOS:
    register(
        _name, defaults={**_HO_DEFAULTS, **_defaults, "duration": "60s"}, description=_description
    )(_builder or _dumbbell(_name, cbr=False, mixed=True))


#: the thesis's two RED routers (Table 3.19): name -> (buffer, min_th, max_th), packets
THESIS_ROUTERS: dict[str, tuple[int, int, int]] = {
    "red-5-15": (100, 5, 15),
    "red-54-108": (217, 54, 108),
}


@register(
    "thesis-many-flows",
    defaults={
        "flows": 30, "router": "red-5-15", "bandwidth": "10Mbps", "core_delay": "25ms",
        "access_factor": 10, "delay_min": "45ms", "delay_max": "50ms", "start_within": "3s",
        "seed": 1, "red_max_p": 0.02, "red_w_q": 0.002, "duration": "60s", **COMMON_DEFAULTS,
        "packet_size": "576B",
    },
    description=(
        "Tsang's thesis ch. 3 Table 3.19: N flows (30, 100 or 200) share a 10 Mb/s, 25 ms "
        "RED link (router=red-5-15: buffer 100, thresholds 5/15; red-54-108: buffer 217, "
        "54/108; max_p 0.02, w_q 0.002); access links of bandwidth x access_factor / N "
        "(10 Mb/s x 10 / N); one-way propagation uniform in 45-50 ms; starts uniform in the "
        "first 3 s; 576-byte packets; 60 s (seed draws the delays and starts)"
    ),
)  # fmt: skip
def _thesis_many_flows(p: dict[str, Any]) -> Scenario:
    """Tsang's thesis Table 3.19: N flows with random delays and starts behind RED, access
    links at ``bandwidth`` × ``access_factor`` / N."""
    n = _int("flows", p["flows"], minimum=1)
    router = p["router"]
    if router not in THESIS_ROUTERS:
        raise ValueError(
            f"router must be one of {', '.join(THESIS_ROUTERS)} (Tsang's thesis Table 3.19), "
            f"got {router!r}"
        )
    buf, lo, hi = THESIS_ROUTERS[router]
    bw = units.bits_per_second(p["bandwidth"], name="bandwidth")
    core_d = units.time_or_zero(p["core_delay"], name="core_delay")
    factor = _real("access_factor", p["access_factor"], "a number in [1, 1e6] such as 10")
    if not 1.0 <= factor <= 1e6:
        raise ValueError(
            "access_factor must be a number in [1, 1e6] (access links of bandwidth x "
            f"access_factor / flows: at least each flow's share of the bottleneck), got "
            f"{p['access_factor']!r}"
        )
    acc_bw = bw * factor / n
    d_lo = units.time_or_zero(p["delay_min"], name="delay_min")
    d_hi = units.time_or_zero(p["delay_max"], name="delay_max")
    if not core_d <= d_lo <= d_hi:
        raise ValueError(
            f"delay_min and delay_max must satisfy core_delay <= delay_min <= delay_max (the "
            f"one-way propagation includes the bottleneck's), got core_delay={p['core_delay']!r}, "
            f"delay_min={p['delay_min']!r}, delay_max={p['delay_max']!r}"
        )
    within = units.time_or_zero(p["start_within"], name="start_within")
    duration = units.seconds(p["duration"], name="duration")
    if not within < duration:
        raise ValueError(
            f"start_within must be shorter than duration (every flow starts inside the run), "
            f"got start_within={p['start_within']!r}, duration={p['duration']!r}"
        )
    seed = _int("seed", p["seed"], minimum=0)
    red = _red(p, float(lo), float(hi))
    head = [
        Link("R1-R2", bw, core_d, float(buf), discipline="red", red=red),
        Link("R2-R1", bw, core_d, float(buf)),
    ]
    draw = random.Random(seed).random
    pairs = [(draw(), draw()) for _ in range(n)]  # in this order: a flow's delay, its start
    src = [d_lo + (d_hi - d_lo) * u - core_d for u, _ in pairs]
    starts = [within * u for _, u in pairs]
    links, flows = _host_pairs(head, n, "R1", "R2", acc_bw, src, 0.0, laws=_law(p), start_s=starts)
    return _scenario("thesis-many-flows", p, links, flows)
