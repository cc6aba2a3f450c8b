"""Tsang's thesis, ch. 3 §4.4-4.5: ``thesis-many-flows``, the many-flow network of its
Table 3.19 (N TCP senders behind a 10 Mb/s, 25 ms RED link, random delays and starts).
The readings the library takes where the table and its text leave a choice (*ours*):
docs/thesis-tables.md, "The many-flow network".
"""

from __future__ import annotations

import random
from typing import Any

from .. import units
from .catalogue import COMMON_DEFAULTS, register
from .model import Link, Scenario, _int, _real
from .topology import _host_pairs, _law, _red, _scenario

__all__ = ["THESIS_ROUTERS"]

#: the thesis's two RED routers (Table 3.19): name -> (buffer, min_th, max_th), packets
THESIS_ROUTERS: dict[str, tuple[int, int, int]] = {
    "red-5-15": (100, 5, 15),
    "red-54-108": (217, 54, 108),
}


@register(
    "thesis-many-flows",
    defaults={
        "flows": 30,
        "router": "red-5-15",
        "bandwidth": "10Mbps",
        "core_delay": "25ms",
        "access_factor": 10,
        "delay_min": "45ms",
        "delay_max": "50ms",
        "start_within": "3s",
        "seed": 1,
        "red_max_p": 0.02,
        "red_w_q": 0.002,
        "duration": "60s",
        **COMMON_DEFAULTS,
        "packet_size": "576B",
    },
    description=(
        "Tsang's thesis ch. 3 Table 3.19: N flows (30, 100 or 200) share a 10 Mb/s, 25 ms "
        "RED link (router=red-5-15: buffer 100, thresholds 5/15; red-54-108: buffer 217, "
        "54/108; max_p 0.02, w_q 0.002); access links of bandwidth x access_factor / N "
        "(10 Mb/s x 10 / N); one-way "
        "propagation uniform in 45-50 ms; starts uniform in the first 3 s; 576-byte "
        "packets; 60 s (seed draws the delays and starts)"
    ),
)
def _thesis_many_flows(p: dict[str, Any]) -> Scenario:
    """Tsang's thesis ch. 3 Table 3.19: N flows with random delays and starts behind RED.

    Every access link runs at ``bandwidth`` × ``access_factor`` / N (the thesis: 10 Mb/s ×
    10 / N, slower than the bottleneck for N > 10 and ten times each flow's share of it);
    ``access_factor=N`` gives access links at the bottleneck's rate.
    """
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
    draw = random.Random(seed)
    src: list[float] = []
    starts: list[float] = []
    for _ in range(n):  # in this order: a flow's delay, then its start
        one_way = d_lo + (d_hi - d_lo) * draw.random()
        starts.append(within * draw.random())
        src.append(one_way - core_d)
    links, flows = _host_pairs(head, n, "R1", "R2", acc_bw, src, 0.0, laws=_law(p), start_s=starts)
    return _scenario("thesis-many-flows", p, links, flows)
