"""The TCP-Ho paper's fairness and friendliness setups (§5.2, Tables 5-7), as named scenarios:
``ho-fairness``, ``ho-different-rtt`` (its RTTs *ours*, :data:`HO_DIFFERENT_RTTS_MS`) and
``ho-friendliness`` (``algorithm`` a mix such as ``"reno:15,vegas:5"``). Each setting and
reading: docs/paper-tables.md.
"""

from __future__ import annotations

from typing import Any

from .. import units
from .catalogue import COMMON_DEFAULTS, Builder, _dumbbell, _mixed, register
from .model import Link, Scenario
from .topology import _core_wire, _host_pairs, _law, _scenario

__all__ = ["HO_DIFFERENT_RTTS_MS", "HO_MEASURE_FROM_S"]

#: the RTTs of the five ``ho-different-rtt`` sources, ms (*ours*: the paper's Fig. 13 is not
#: in its text). Source i's RTT is i times the §5.2.1 path's 50 ms (2 × (1 + 23 + 1) ms),
#: its access link's one-way delay raised to match; the trunk and the destinations' access
#: links are the text's
HO_DIFFERENT_RTTS_MS: tuple[float, ...] = (50.0, 100.0, 150.0, 200.0, 250.0)

#: start of the measurement window of the §5.2 tables, s (*ours*: the paper says "under the
#: steady state" and gives times to balance up to 6.5 s)
HO_MEASURE_FROM_S = 10.0

_HO_DEFAULTS: dict[str, Any] = {
    "access_bandwidth": "1Gbps",
    "access_delay": "1ms",
    **COMMON_DEFAULTS,
}


def _ho_different_rtt(p: dict[str, Any]) -> Scenario:
    """The TCP-Ho paper §5.2.1, Table 6: one source per RTT of ``rtts`` (module docstring).

    Source i's round trip is ``2 × (x_i + core_delay + access_delay)`` (propagation), with
    ``x_i`` its own access link's one-way delay and ``access_delay`` the destination's.

    Raises
    ------
    ValueError
        An RTT shorter than the trunk's and the destination's round trip plus the text's
        1 ms source access delay, or ``rtts`` not a comma-separated list of times.
    """
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
        x = rtt / 2.0 - core_d - acc_d
        if rtt < shortest - 1e-12:
            raise ValueError(
                f"rtts: {item!r} is shorter than {shortest * 1e3:g} ms, the round trip of "
                "the trunk and 1 ms access links at both ends (2 x (2 x access_delay + "
                "core_delay))"
            )
        xs.append(x)
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
