"""Checks of a packet run's inputs, made before anything runs: the scenario, the trace
interval and the options of :func:`tcpfluid.sim.simulate_packets` (the fields of
:class:`tcpfluid.engines.Packet`: one check for both)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .._validation import check_bool, check_choice, check_int, check_nonnegative, check_positive
from ..scenarios import Scenario
from ._setup import FAST_RECOVERIES, FLOW_RING0, LINK_RING0, NS2_VEGAS, red_params, sample_count

DEFAULT_SAMPLE_INTERVAL = 0.1
#: whose send time a delayed ACK of two packets echoes (:func:`~tcpfluid.sim.simulate_packets`)
DELAYED_ACK_ECHOES = ("first", "latest")
#: the options in seconds: name (with its unit suffix) -> (the older name without the
#: suffix, still accepted as an alias; the default)
SECONDS_OPTIONS: dict[str, tuple[str, float | None]] = {
    "sample_interval_s": ("sample_interval", None),
    "delack_timeout_s": ("delack_timeout", 0.1),
    "min_rto_s": ("min_rto", 0.2),
    "initial_rto_s": ("initial_rto", 1.0),
    "max_rto_s": ("max_rto", 60.0),
}
#: the fast recoveries in messages
_RECOVERIES = f"one of {', '.join(map(repr, FAST_RECOVERIES))}"
#: the options that are ``True`` or ``False``
_BOOL_OPTIONS = (
    "timeout_recover", "red_wait", "ns2_vegas_timing", "ns2_vegas_base_reset",
    "ns2_vegas_agent_delta", "ns2_vegas_integer_delta", "ns2_vegas_growth_check",
)  # fmt: skip
#: the smallest ``max_packets``: the rings of one link and one flow, the least any run
#: starts with (a run's own start is checked when it is set up)
MIN_PACKETS = LINK_RING0 + FLOW_RING0


def seconds_options(given: Mapping[str, Any]) -> dict[str, tuple[str, Any]]:
    """For each option of :data:`SECONDS_OPTIONS`: ``(the name the caller used, value)``
    from ``given`` (both names, ``None`` = not given), or the default under the suffixed
    name. Giving both names with different values is a ``ValueError``."""
    out: dict[str, tuple[str, Any]] = {}
    for name, (alias, default) in SECONDS_OPTIONS.items():
        v, a = given.get(name), given.get(alias)
        if v is not None and a is not None and v != a:
            raise ValueError(
                f"give {name} or its alias {alias}, not both: {name}={v!r}, {alias}={a!r}"
            )
        out[name] = (name, v) if v is not None else (alias, a) if a is not None else (name, default)
    return out


def trace_interval(
    scenario: Scenario,
    sample_interval: float | None,
    *,
    max_samples: int,
    max_values: int,
    name: str = "sample_interval_s",
) -> float:
    """The trace interval: ``sample_interval`` checked against the run's length (no longer
    than it) and the trace bounds (at most ``max_samples`` samples and ``max_values``
    values, the samples counted by :func:`~tcpfluid.sim._setup.sample_count`), or the
    default 0.1 s coarsened to fit them (to a 1-2-5 multiple of 0.1 s) and cut to the
    run's length. ``name``: the option's name in messages."""
    per_sample = 4 * (len(scenario.flows) + len(scenario.links)) + 1
    most = max(2, min(max_samples, max_values // per_sample))
    dur = scenario.duration_s
    if sample_interval is None:
        for k in itertools.count():  # 0.1, 0.2, 0.5, 1, 2, 5, ... s
            dt = DEFAULT_SAMPLE_INTERVAL * (1, 2, 5)[k % 3] * 10 ** (k // 3)
            if sample_count(dur, dt) <= most:
                return min(dt, dur)
    dt = check_positive(name, sample_interval)
    if dt > dur:
        raise ValueError(
            f"{name}={sample_interval!r} is longer than the run (duration {dur!r} s): "
            f"give 0 < {name} <= {dur!r}"
        )
    n = sample_count(dur, dt)
    if n > most:
        many = f"{n:,}" if n < 10**12 else f"{float(n):.3g}"
        raise ValueError(
            f"{name}={sample_interval!r} gives {many} samples over {dur} s; "
            f"at most {most:,} are kept for {len(scenario.flows)} flows and "
            f"{len(scenario.links)} links: give {name} >= {dur / (most - 1):g} "
            "(or leave it out: the default coarsens itself)"
        )
    return dt


def check_rings(scenario: Scenario, max_packets: int) -> None:
    """Refuse a ``max_packets`` below what the simulator's rings start with (every link's
    :data:`LINK_RING0` slots and every flow's :data:`FLOW_RING0`), before they are built."""
    room = len(scenario.link_table) * LINK_RING0 + len(scenario.flow_table) * FLOW_RING0
    if room > max_packets:
        raise ValueError(
            f"max_packets={max_packets:,} is below the {room:,} packet slots the simulator's "
            f"rings start with for {len(scenario.link_table)} links and "
            f"{len(scenario.flow_table)} flows; raise it"
        )


def check_scenario(scenario: Scenario) -> None:
    """Refuse a scenario the packet simulator cannot run (naming the link or flow)."""
    if not isinstance(scenario, Scenario):
        raise TypeError(
            f"scenario must be a tcpfluid.scenarios.Scenario, got {type(scenario).__name__}"
        )
    # on the scenario's columns: the links' rates (also checked when a link is made, unless
    # that is bypassed), the RED parameters of the links not plain drop-tail, the flows
    lt, ft = scenario.link_table, scenario.flow_table
    bad = np.flatnonzero(~((lt.rate_bps > 0) & np.isfinite(lt.rate_bps)))
    if bad.size:
        k = int(bad[0])
        raise ValueError(
            f"link {lt.names[k]!r}: rate must be > 0 and finite, got {float(lt.rate_bps[k])!r}"
        )
    for k in sorted(lt.special):
        red_params(lt.link(k))
    no_acks = np.diff(ft.rev_ptr) == 0
    late = ft.start_s >= scenario.duration_s
    if (no_acks | late).any():
        f = int(np.argmax(no_acks | late))
        if no_acks[f]:
            raise ValueError(
                f"flow {ft.names[f]!r} has no ACK path (reverse=()); the packet simulator needs "
                "the links its ACKs cross"
            )
        raise ValueError(
            f"flow {ft.names[f]!r} starts at start_s={float(ft.start_s[f])!r}, not before the "
            f"end of the run (duration {scenario.duration_s!r} s); give start_s < duration"
        )
    check_work(scenario)


#: the most transmissions a packet run may need (:func:`check_work`): at about 62 ns per
#: event and a few events per transmission (docs/simulator.md, "Inside the loop"), a few hours
MAX_TRANSMISSIONS = 5e10
_NS_PER_TRANSMISSION = 2 * 62


def transmissions_bound(scenario: Scenario) -> float:
    """An estimate from above of the packet transmissions of a run of ``scenario``: each
    flow at its path's slowest rate over its active time, scaled down to its share where
    the flows and CBR sources crossing a link would send more than it carries; each packet
    and ACK transmitted once per link it crosses."""
    dur = scenario.duration_s
    pkt_bits = 8.0 * scenario.packet_size_bytes
    lt, ft = scenario.link_table, scenario.flow_table
    # the flows' and the CBR sources' routes (link indices) and packets sent, one table
    cbr_routes = [np.array([lt.find(n) for n in c.links], dtype=np.int64) for c in scenario.cbr]
    lengths = np.concatenate([np.diff(ft.fwd_ptr), [r.size for r in cbr_routes]]).astype(int)
    idx = np.concatenate([ft.fwd_idx, *cbr_routes]).astype(np.int64)
    hops = np.concatenate([np.diff(ft.fwd_ptr) + np.diff(ft.rev_ptr), lengths[len(ft) :]])
    route_of = np.repeat(np.arange(hops.size), lengths)
    # a duration near the float range makes the bound inf (refused by check_work), silently
    # as float arithmetic does
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        cap = lt.rate_bps / pkt_bits * dur
        f_active = np.maximum(0.0, np.minimum(ft.stop_s, dur) - ft.start_s)
        f_rate = np.minimum.reduceat(lt.rate_bps[ft.fwd_idx], ft.fwd_ptr[:-1]) / pkt_bits
        c_sent = [
            c.rate_bps / pkt_bits * max(0.0, min(c.stop_s, dur) - c.start_s) for c in scenario.cbr
        ]
        sent = np.concatenate([f_rate * f_active, c_sent])
        offered = np.bincount(idx, weights=sent[route_of], minlength=len(lt))
        ratio = np.where(offered[idx] > cap[idx], cap[idx] / offered[idx], 1.0)
        share = np.ones(sent.size)
        np.minimum.at(share, route_of, ratio)
        return float(np.sum(sent * share * hops))


def check_work(scenario: Scenario) -> None:
    """Refuse, before anything is allocated, a run that would not end in a few hours
    (:func:`transmissions_bound` above :data:`MAX_TRANSMISSIONS`), naming ``duration``."""
    bound = transmissions_bound(scenario)
    if bound > MAX_TRANSMISSIONS:
        hours = bound * _NS_PER_TRANSMISSION * 1e-9 / 3600.0
        most = scenario.duration_s * (MAX_TRANSMISSIONS / bound)
        raise ValueError(
            f"duration={scenario.duration_s:g} s: the packet run may need up to {bound:.3g} "
            f"packet transmissions (about {hours:.3g} hours), more than {MAX_TRANSMISSIONS:.0e}; "
            f"give duration <= {most:.3g} s, lower rates, or use a fluid engine"
        )


def check_options(given: Mapping[str, Any], scenario: Scenario | None = None) -> dict[str, Any]:
    """The options in ``given`` (by name) checked, except the scenario and the sample
    interval; the times in seconds under their suffixed names (:func:`seconds_options`).
    ``scenario``: the run's, for the checks that need it (per-flow sequences' lengths, the
    flows ``laws`` names); ``None`` (an options object): those wait for the run."""
    flows = None if scenario is None else len(scenario.flows)
    seconds = seconds_options(given)
    out = {
        "seed": check_int("seed", given["seed"], minimum=0),
        "delayed_ack": per_flow_option(
            "delayed_ack", given["delayed_ack"], flows, (True, False), "True, False"
        ),
        "delayed_ack_echo": check_choice(
            "delayed_ack_echo", given["delayed_ack_echo"], DELAYED_ACK_ECHOES
        ),
        **{n: check_positive(*seconds[n]) for n in SECONDS_OPTIONS if n != "sample_interval_s"},
        "fine_retransmit": _bool_or_none("fine_retransmit", given["fine_retransmit"]),
        "send_overhead_s": check_nonnegative("send_overhead_s", given["send_overhead_s"]),
        "start_delay_s": _start_delays(given["start_delay_s"], flows),
        **{n: check_bool(n, given[n]) for n in _BOOL_OPTIONS},
        "fast_recovery": per_flow_option(
            "fast_recovery", given["fast_recovery"], flows, tuple(FAST_RECOVERIES), _RECOVERIES
        ),
        "max_packets": check_int("max_packets", given["max_packets"], minimum=MIN_PACKETS),
        "laws": _laws(given["laws"], scenario),
    }
    if not out["min_rto_s"] <= out["max_rto_s"]:
        (n_lo, v_lo), (n_hi, v_hi) = seconds["min_rto_s"], seconds["max_rto_s"]
        raise ValueError(f"{n_lo} must be <= {n_hi}, got {n_lo}={v_lo!r}, {n_hi}={v_hi!r}")
    return out


def _start_delays(value: Any, flows: int | None) -> float | tuple[float, ...]:
    """``start_delay_s`` checked: one delay >= 0 s for every flow, or a sequence of them,
    one per flow (``flows``; ``None``: the length is not checked here)."""
    if isinstance(value, str | bytes) or not isinstance(value, Sequence | np.ndarray):
        return check_nonnegative("start_delay_s", value)
    got = tuple(check_nonnegative(f"start_delay_s[{i}]", v) for i, v in enumerate(value))
    if flows is not None and len(got) != flows:
        raise ValueError(
            f"start_delay_s as a sequence must hold one delay per flow ({flows} flows), "
            f"got {len(got)}"
        )
    return got


def _bool_or_none(name: str, value: Any) -> bool | None:
    if value is None:
        return None
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be True, False or None, got {value!r}")
    return bool(value)


def _laws(laws: Any, scenario: Scenario | None) -> Any:
    """``laws`` checked: ``None`` or a mapping of the flows' names (``scenario``'s)."""
    if laws is None:
        return None
    if not isinstance(laws, Mapping):
        raise TypeError(
            f"laws must map flow names to ControlLaw objects ({{'S1-D1': law}}), got "
            f"{type(laws).__name__} {laws!r}"
        )
    if scenario is not None:
        known = {f.name for f in scenario.flows}
        extra = sorted(set(laws) - known)
        if extra:
            raise ValueError(f"laws names unknown flow(s) {extra}; flows: {sorted(known)}")
    return laws


def per_flow_option(name: str, value: Any, flows: int | None, choices: tuple[Any, ...],
                    words: str) -> Any:  # fmt: skip
    """A sender option that is one of ``choices`` (of their type: ``True`` is not ``1``; a
    NumPy bool is a bool) for every flow, or a sequence of them, one per flow (``flows`` of
    them; ``None``: the length is not checked here); ``words`` names the choices in the
    messages."""

    def one(v: Any) -> Any:
        """The choice ``v`` is (a NumPy bool is a bool), else ``None``."""
        v = bool(v) if isinstance(v, np.bool_) else v
        return next((c for c in choices if type(v) is type(c) and v == c), None)

    if one(value) is not None:
        return one(value)
    one_of = f"one {words.replace(', ', ' or ')}" if "one of" not in words else words
    if isinstance(value, str) and all(isinstance(c, str) for c in choices):
        raise ValueError(f"{name} must be {words} (or one per flow), got {value!r}")
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise TypeError(
            f"{name} must be {words} or a sequence of them (one per flow), got {value!r}"
        )
    got = tuple(map(one, value))
    short = flows is not None and len(got) != flows
    if short or None in got:
        per = f" ({flows} flows)" if short else ""
        raise ValueError(f"{name} as a sequence must hold {one_of} per flow{per}, got {value!r}")
    return got


def check_ns2_vegas(scenario: Scenario, laws: Sequence[Any], opts: Mapping[str, Any]) -> None:
    """Refuse ``fast_recovery="ns2-vegas"`` for a flow whose law (``laws``: one per flow)
    does not cut by Vegas's rule, or with ``fine_retransmit=False`` (``opts``: the checked
    options; docs/simulator.md, "Fast recovery")."""
    from ..algorithms.vegas import Vegas

    recoveries = np.broadcast_to(opts["fast_recovery"], len(laws))
    for fl, law, rec in zip(scenario.flows, laws, recoveries, strict=True):
        if rec != NS2_VEGAS:
            continue
        if not isinstance(law, Vegas):
            raise ValueError(
                f"fast_recovery={NS2_VEGAS!r} (flow {fl.name!r}) is ns-2's Vegas agent's "
                f"recovery; it needs a law with Vegas's loss rule (vegas, enhanced-vegas, "
                f"forward-vegas, quick-vegas, itcp-vegas), got {type(law).__name__}; give "
                f"that flow 'newreno', 'reno' or 'reno-exit'"
            )
        if opts["fine_retransmit"] is False:
            raise ValueError(
                f"fast_recovery={NS2_VEGAS!r} (flow {fl.name!r}) has ns-2's Vegas agent's own "
                "fine-grained check on every duplicate ACK; it cannot take "
                "fine_retransmit=False (give None or True)"
            )
