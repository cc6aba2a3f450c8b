"""The named scenarios (the documents' setups), registered with :func:`register`.

Writing a builder, the keys every scenario takes (``start_spread``, ``start_seed``) and
what a shortened run keeps: docs/your-own-scenario.md, "A named scenario in the library".
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .. import units
from ..queueing import check_discipline
from .model import MAX_FLOWS, FlowSpec, Link, Scenario, _buffer, _int, _real, paused_gc
from .topology import (
    ACCESS_FACTOR,
    LAW_PARAMETER_KEYS,
    _access_topology,
    _cbr_schedule,
    _core_wire,
    _host_pairs,
    _law,
    _red,
    _scenario,
    law_params,
    rates_with_units,
)

__all__ = [
    "COMMON_DEFAULTS", "LAW_PARAMETER_KEYS", "SCENARIOS", "START_SPREAD_DEFAULTS", "ScenarioSpec",
    "build_scenario", "law_params", "register", "scenario_names", "scenario_parameters",
]  # fmt: skip


Builder = Callable[[dict[str, Any]], Scenario]


@dataclass(frozen=True)
class ScenarioSpec:
    """A registered scenario: its builder, default parameters and a one-line description."""

    builder: Builder
    defaults: Mapping[str, Any]
    description: str


#: the registered scenarios, by name
SCENARIOS: dict[str, ScenarioSpec] = {}

#: the parameters every document's setup shares (sizes, the law and the parameters the
#: laws declare as scenario keys)
COMMON_DEFAULTS: dict[str, Any] = {
    "packet_size": "1000B", "ack_size": "40B", "algorithm": None,
    **dict.fromkeys(LAW_PARAMETER_KEYS),
}  # fmt: skip


#: the keys every scenario takes besides its own: each flow starts (and stops) a seeded
#: random offset in ``[0, start_spread)`` later (docs/your-own-scenario.md)
START_SPREAD_DEFAULTS: dict[str, Any] = {"start_spread": 0, "start_seed": 0}


def register(
    name: str, *, defaults: Mapping[str, Any], description: str
) -> Callable[[Builder], Builder]:
    """Decorator: register ``builder`` as the scenario ``name`` (docs/your-own-scenario.md);
    ValueError if ``name`` is taken."""

    def deco(builder: Builder) -> Builder:
        if name in SCENARIOS:
            raise ValueError(f"scenario {name!r} is already registered")
        SCENARIOS[name] = ScenarioSpec(
            builder, {**dict(defaults), **START_SPREAD_DEFAULTS}, description
        )
        return builder

    return deco


def scenario_names() -> tuple[str, ...]:
    """Names of the registered scenarios."""
    return tuple(SCENARIOS)


def scenario_parameters(name: str) -> tuple[str, ...]:
    """The parameters (override keys) of the named scenario or scenario file ``name``;
    ValueError if it is neither."""
    if isinstance(name, str) and name in SCENARIOS:
        return tuple(SCENARIOS[name].defaults)
    from .files import file_parameters, is_scenario_file

    if is_scenario_file(name):
        return file_parameters(name)
    raise ValueError(
        f"unknown scenario {name!r}; valid scenarios: {', '.join(SCENARIOS)}, or the path of "
        "a scenario file (NAME.toml)"
    )


def build_scenario(name: str, /, **overrides: Any) -> Scenario:
    """Build the scenario registered as ``name`` with some parameters overridden.

    Parameters
    ----------
    name
        One of :func:`scenario_names`, or the path of a scenario file (ending in
        ``.toml``: :func:`tcpfluid.scenarios.files.load_scenario`).
    **overrides
        Parameter values (numbers or strings with units, as ``--set key=value`` gives).
        Rates (``bandwidth``, ``access_bandwidth``, ``cbr``) need a unit: ``"50Mbps"`` or
        ``"6250pps"`` (:func:`tcpfluid.units.link_rate_bps`). ``algorithm`` takes a
        law's name or a mix of laws such as ``"vegas:8,reno:2"``
        (:func:`tcpfluid.scenarios.mix.with_mix`).

    Raises
    ------
    ValueError
        Unknown scenario or parameter (listing the valid ones), a value out of range, a
        rate without a unit, or a duration that ends before any flow starts.
    """
    if not isinstance(name, str) or name not in SCENARIOS:
        from .files import is_scenario_file, load_scenario

        if is_scenario_file(name):
            return load_scenario(name, **overrides)
        raise ValueError(
            f"unknown scenario {name!r}; valid scenarios: {', '.join(SCENARIOS)}, or the "
            "path of a scenario file (NAME.toml; docs/your-own-scenario.md)"
        )
    spec = SCENARIOS[name]
    unknown = sorted(k for k in overrides if k not in spec.defaults)
    if unknown:
        raise ValueError(
            f"unknown parameter {unknown[0]!r} for scenario {name!r}; valid parameters: "
            f"{', '.join(spec.defaults)}"
        )
    mix = overrides.get("algorithm")
    if isinstance(mix, str) and (":" in mix or "," in mix):  # built without, then mixed
        from .mix import with_mix

        return with_mix(build_scenario(name, **{**overrides, "algorithm": None}), mix)
    merged = rates_with_units({**dict(spec.defaults), **overrides})
    note = _keep_access_faster(name, merged, overrides)
    with paused_gc():  # the checks too: they allocate per flow
        return _finish(spec.builder(merged), merged, note)


def _finish(sc: Scenario, p: Mapping[str, Any], note: str = "") -> Scenario:
    """``sc`` as it runs: starts spread (``p``'s ``start_spread``/``start_seed``), late flows
    left out, ``note`` added, refused when it cannot carry a packet."""
    sc = _spread_starts(sc, p).without_late_flows()
    if note:
        sc = replace(sc, notes=(*sc.notes, note))
    _check_runnable(sc)
    return sc


def _keep_access_faster(name: str, p: dict[str, Any], overrides: Mapping[str, Any]) -> str:
    """With ``bandwidth`` overridden at or above the access rate, raise ``access_bandwidth``
    to :data:`ACCESS_FACTOR` times it; a note saying so, or ``""``."""
    if (
        "bandwidth" not in overrides
        or "access_bandwidth" in overrides
        or "access_bandwidth" not in p
    ):
        return ""
    bw = units.bits_per_second(p["bandwidth"], name="bandwidth")
    acc = units.bits_per_second(p["access_bandwidth"], name="access_bandwidth")
    if acc > bw:
        return ""
    raised = ACCESS_FACTOR * bw
    p["access_bandwidth"] = f"{raised!r}bps"
    return (
        f"access links raised from {acc / 1e6:g} to {raised / 1e6:g} Mb/s so that the "
        f"bottleneck stays the {name} core link at bandwidth={overrides['bandwidth']} "
        "(--set access_bandwidth=... chooses them)"
    )


def _spread_starts(sc: Scenario, p: Mapping[str, Any]) -> Scenario:
    """``sc`` with each flow's start and stop moved by a seeded offset in ``[0, start_spread)``."""
    raw = p["start_spread"]
    try:
        width = units.time_or_zero(raw, name="start_spread")
    except ValueError:
        raise ValueError(
            f"start_spread must be a finite time >= 0 such as '8us' (0: off), got {raw!r}"
        ) from None
    seed = _int("start_seed", p["start_seed"], minimum=0)
    if width == 0.0:
        return sc
    draw = random.Random(seed).random  # stable across Python versions for a given seed
    ft = sc.flow_table
    off = width * np.array([draw() for _ in range(len(ft))], dtype=np.float64)
    note = (
        f"each flow starts (and stops) a seeded offset in [0, {width:g} s) later "
        f"(start_spread={width:g} s, start_seed={seed})"
    )
    return sc.with_flow_table(
        ft.with_times(ft.start_s + off, ft.stop_s + off),
        notes=(*sc.notes, note),
        start_spread_s=width,
    )


def _check_runnable(sc: Scenario) -> None:
    """Refuse a run in which no packet can be carried or acknowledged."""
    from .reduction import bottleneck

    link = bottleneck(sc)
    assert link is not None
    packets = link.rate_bps / (8.0 * sc.packet_size_bytes) * sc.duration_s
    if not packets >= 1.0:
        raise ValueError(
            f"scenario {sc.name!r}: the bottleneck {link.name!r} ({link.rate_bps:g} b/s) "
            f"carries {packets:.3g} packets of packet_size={sc.packet_size_bytes:g} bytes in "
            f"duration={sc.duration_s:g} s, less than one; give a larger bandwidth or "
            "duration, or a smaller packet_size"
        )
    first_ack = float(np.min(sc.flow_table.start_s + sc.base_rtts_s()))
    if not first_ack < sc.duration_s:
        raise ValueError(
            f"scenario {sc.name!r}: duration={sc.duration_s:g} s ends before any flow's first "
            f"round trip is over (the earliest at {first_ack:g} s: start + base RTT from rtt "
            "and the links' delays); give a longer duration or a shorter rtt"
        )


#: the Quick Vegas and TCP-Ho papers' single-bottleneck setup: a 50 Mb/s x 100 ms dumbbell
#: with CBR cross traffic of half the bottleneck from 80 s to 160 s
_DUMBBELL_CBR_DEFAULTS: dict[str, Any] = {
    "bandwidth": "50Mbps", "rtt": "100ms", "access_bandwidth": "1Gbps", "access_delay": "1ms",
    "buffer": "inf", "duration": "240s", "cbr": "50%", "cbr_start": "80s", "cbr_stop": "160s",
    "flows": 1, **COMMON_DEFAULTS,
}  # fmt: skip


def _dumbbell(name: str, *, cbr: bool = True, mixed: bool = False) -> Builder:
    """The builder of ``flows`` flows on the access dumbbell (with its CBR when ``cbr``;
    ``mixed``: ``algorithm`` may name a mix)."""

    def build(p: dict[str, Any]) -> Scenario:
        n = _int("flows", p["flows"], minimum=1)
        sc = _access_topology(p, n_flows=n, scenario=name, cbr=_cbr_schedule(p) if cbr else ())
        return _mixed(sc, p) if mixed else sc

    return build


def _mixed(sc: Scenario, p: Mapping[str, Any]) -> Scenario:
    """``sc`` with the mix of ``p["algorithm"]`` (``"reno:15,vegas:5"`` or one name)."""
    from .mix import with_mix

    alg = p.get("algorithm")
    return sc if alg is None else with_mix(sc, str(alg))


register(
    "qv-basic",
    defaults=_DUMBBELL_CBR_DEFAULTS,
    description=(
        "Quick Vegas paper §5.1: 50 Mb/s x 100 ms dumbbell (1 Gb/s 1 ms access links, "
        "48 ms core), 1000-byte packets, CBR of half the bottleneck (25 Mb/s) from 80 s to "
        "160 s (cbr=none: no CBR; cbr=10Mbps or cbr=30% for another rate)"
    ),
)(_dumbbell("qv-basic"))


@register(
    "qv-many-flows",
    defaults={
        "bandwidth": "1Gbps", "rtt": "100ms", "access_bandwidth": "1Gbps", "access_delay": "1ms",
        "buffer": 1500, "flows": 60, "groups": 3, "group_interval": "100s", "active": "300s",
        "duration": "500s", **COMMON_DEFAULTS,
    },
    description=(
        "Quick Vegas paper §5.3.1: 60 flows on a 1 Gb/s x 100 ms dumbbell with "
        "1500-packet buffers, groups of 20 starting at 0, 100 and 200 s, each "
        "active 300 s"
    ),
)  # fmt: skip
def _qv_many_flows(p: dict[str, Any]) -> Scenario:
    n = _int("flows", p["flows"], minimum=1)
    groups = _int("groups", p["groups"], minimum=1)
    if groups > n:
        raise ValueError(f"groups must be <= flows={n}, got groups={groups}")
    interval = units.time_or_inf(p["group_interval"], name="group_interval")
    active = units.time_or_inf(p["active"], name="active")
    if active <= 0:
        raise ValueError(f"active must be > 0, got {p['active']!r}")
    sc = _access_topology(p, n_flows=n, scenario="qv-many-flows")
    ft = sc.flow_table
    start = ((np.arange(len(ft), dtype=np.int64) * groups // n) * interval).astype(np.float64)
    return sc.with_flow_table(ft.with_times(start, start + active))


@register(
    "qv-different-rtt",
    defaults={
        "bandwidth": "1Gbps", "access_bandwidth": "1Gbps", "core_delay": "5ms", "rtt1": "50ms",
        "rtt2": "100ms", "rtt3": "200ms", "flows_per_group": 20, "buffer": 1500, "duration": "200s",
        **COMMON_DEFAULTS,
    },
    description=(
        "Quick Vegas paper §5.3.2: three groups of flows with different RTTs "
        "sharing the R3-R4 bottleneck, 1500-packet drop-tail buffers, 200 s. The "
        "paper's Fig. 15 (rates and delays) is not in its text: the RTTs, core "
        "delay and rates here are ours"
    ),
)  # fmt: skip
def _qv_different_rtt(p: dict[str, Any]) -> Scenario:
    per = _int("flows_per_group", p["flows_per_group"], minimum=1, maximum=MAX_FLOWS // 3)
    bw, acc_bw, core_d, buf = _core_wire(p)
    head = [Link("R3-R4", bw, core_d, buf), Link("R4-R3", bw, core_d, buf)]
    delays: list[float] = []
    for key in ("rtt1", "rtt2", "rtt3"):
        rtt = units.seconds(p[key], name=key)
        acc_d = (rtt / 2.0 - core_d) / 2.0
        if acc_d < 0.0:
            raise ValueError(
                f"{key}={p[key]!r} is shorter than the core's round trip (2 x core_delay = "
                f"{2.0 * core_d:g} s)"
            )
        delays.append(acc_d)
    acc = np.repeat(delays, per)  # the three groups of flows, in order
    links, flows = _host_pairs(head, 3 * per, "R3", "R4", acc_bw, acc, acc, laws=_law(p))
    return _scenario("qv-different-rtt", p, links, flows)


register(
    "ho-basic",
    defaults={**_DUMBBELL_CBR_DEFAULTS, "buffer": 1000},
    description=(
        "TCP-Ho paper §5.1.2: 50 Mb/s x 48 ms trunk (1 Gb/s 1 ms access links), "
        "1000-packet buffer, CBR of half the bottleneck from 80 s to 160 s; with flows=5, "
        "bandwidth=100Mbps, rtt=50ms, buffer=300 the fairness setup of §5.2.1"
    ),
)(_dumbbell("ho-basic"))


@register(
    "thesis-two-flow",
    defaults={
        "x1": "1ms", "x2": "30ms", "flows": 2, "bandwidth": "1.5Mbps", "access_bandwidth": "10Mbps",
        "core_delay": "1ms", "dest_delay": "1ms", "buffer": 100, "queue": "drop-tail",
        "red_min": 15, "red_max": 45, "red_max_p": 0.02, "red_w_q": 0.002, "duration": "100s",
        **COMMON_DEFAULTS,
    },
    description=(
        "Tsang's thesis ch. 3 Fig. 3.1: two sources sharing a 1.5 Mb/s link; access "
        "delays x1, x2 (x2=30ms gives the 64 ms flow, x2=90ms the 184 ms one), "
        "10 Mb/s access links, 100-packet buffer at R1, queue=drop-tail or red "
        "(thresholds 15/45, 1/linterm = 0.02, w_q = 0.002); flows=1 runs connection "
        "1 alone; duration is ours"
    ),
)  # fmt: skip
def _thesis_two_flow(p: dict[str, Any]) -> Scenario:
    n = _int("flows", p["flows"], minimum=1)
    if n > 2:
        raise ValueError(f"flows must be 1 or 2 (the thesis's two connections), got {n}")
    bw, acc_bw, core_d, buf = _core_wire(p)
    dest_d = units.time_or_zero(p["dest_delay"], name="dest_delay")
    queue = check_discipline("queue", p["queue"])
    red: dict[str, float] = {}
    if queue == "red":
        lo = _real("red_min", p["red_min"], "a number of packets such as 15")
        red = _red(p, lo, _real("red_max", p["red_max"], "a number of packets such as 45"))
    head = [
        Link("R1-R2", bw, core_d, buf, discipline=queue, red=red),
        Link("R2-R1", bw, core_d, buf),
    ]
    xs = [units.time_or_zero(p[f"x{i}"], name=f"x{i}") for i in range(1, n + 1)]
    links, flows = _host_pairs(head, n, "R1", "R2", acc_bw, xs, dest_d, laws=_law(p))
    return _scenario("thesis-two-flow", p, links, flows)


@register(
    "asymmetric",
    defaults={
        "k": 3, "bandwidth": "1.6Mbps", "forward_delay": "50ms", "reverse_delay": "50ms",
        "forward_buffer": 15, "reverse_buffer": 10, "access_bandwidth": "10Mbps",
        "access_delay": "0ms", "duration": "200s", **COMMON_DEFAULTS,
    },
    description=(
        "Asymmetric-network paper Fig. 1 / Tables I-III: forward link mu_f = 1.6 Mb/s "
        "(200 pkt/s), reverse link mu_r = mu_f / k ACKs/s, 50 ms each way, buffers 15 "
        "packets forward and 10 ACKs back (the paper ran Vegas with alpha=1, beta=3); "
        "host links and duration are ours"
    ),
)  # fmt: skip
def _asymmetric(p: dict[str, Any]) -> Scenario:
    pkt = units.bytes_(p["packet_size"], name="packet_size")
    ack = units.bytes_(p["ack_size"], name="ack_size")
    k = _real("k", p["k"], "a number > 0 (mu_f / mu_r) such as 3")
    if not k > 0:
        raise ValueError(f"k must be a number > 0 (mu_f / mu_r), got {p['k']!r}")
    fwd_bps = units.bits_per_second(p["bandwidth"], name="bandwidth")
    mu_f = fwd_bps / (8.0 * pkt)
    rev_bps = mu_f / k * 8.0 * ack  # mu_r = mu_f / k ACKs per second
    acc_bw = units.bits_per_second(p["access_bandwidth"], name="access_bandwidth")
    acc_d = units.time_or_zero(p["access_delay"], name="access_delay")
    tf = units.time_or_zero(p["forward_delay"], name="forward_delay")
    tr = units.time_or_zero(p["reverse_delay"], name="reverse_delay")
    bf = _buffer("forward_buffer", p["forward_buffer"], pkt)
    br = _buffer("reverse_buffer", p["reverse_buffer"], pkt)
    links = [
        Link("H1-R1", acc_bw, acc_d),
        Link("R1-R2", fwd_bps, tf, bf),
        Link("R2-H4", acc_bw, acc_d),
        Link("H4-R2", acc_bw, acc_d),
        Link("R2-R1", rev_bps, tr, br),
        Link("R1-H1", acc_bw, acc_d),
    ]
    flow = FlowSpec(
        name="H1-H4",
        forward=("H1-R1", "R1-R2", "R2-H4"),
        reverse=("H4-R2", "R2-R1", "R1-H1"),
        algorithm=p.get("algorithm"),
        params=law_params(p),
    )
    return _scenario("asymmetric", p, links, [flow])


# The iTCP-Vegas paper §4; its readings (errata N4, N5): docs/paper-tables.md, Tables 1-2
register(
    "itcp-long-delay",
    defaults={
        "bandwidth": "622Mbps", "rtt": "260ms", "access_bandwidth": "1Gbps", "access_delay": "10ms",
        "buffer": "inf", "flows": 1, "duration": "100s", **COMMON_DEFAULTS,
    },
    description=(
        "iTCP-Vegas paper §4: one flow over a 622 Mb/s backbone with 110 ms link "
        "delay between Gigabit-Ethernet LANs (10 ms host links: RTT 260 ms), 100 s; "
        "bandwidth=155Mbps rtt=240ms...840ms duration=200s for its Table 2 (whose "
        "values are RTTs); buffer and packet size are ours (the paper is silent)"
    ),
)(_dumbbell("itcp-long-delay", cbr=False))  # fmt: skip
