"""ns-3 as a referee for who gets the link, in ns-3's ``TcpLinuxReno`` and in the packet
simulator: three Reno flows with base RTTs of 11.3, 14 and 36 ms on 10.3 Mb/s with a
7-packet drop-tail buffer (the hold-out's seed-1 scenario 46, 6.23 s, no CBR); and two Reno
flows of 125 and 142 ms on 11 Mb/s with a 48-packet buffer, 400 s (seed 80's scenario 14
at a tenth of its rates and buffer, without its CBR: the packets split it as the whole
scenario, 0.185 / 0.815 against 0.21 / 0.79, where both fluid engines give 0.55 / 0.45).

Both simulators send at deterministic times, and both split this link by a phase effect
(docs/mechanisms.md, ``phase-effect``): the 14-ms flow takes most of it. With a random wait
before each data packet of up to one bottleneck packet time (0.8 ms; the packet
simulator's ``send_overhead_s``, ns-3's sender access links delaying each packet by a
uniform random time in [0, 0.8 ms] without reordering) the two simulators agree on the
split. The fluid engines have no phase and agree with neither.

The ns-3 figures are constants measured once by ``benchmarks/ns3_dumbbell.py`` (ns-3.44
from its pip wheel ``ns3==3.44.post0``, in a separate virtual environment; ns-3 is not a
dependency of tcpfluid, so CI cannot rerun it)::

    python benchmarks/ns3_dumbbell.py --case s1-46 --ns3-python /tmp/ns3venv/bin/python \\
        --ns3-sack [--ns3-jitter 0.0008 --send-overhead 0.0008 --seed 1|2|3]
    python benchmarks/ns3_dumbbell.py --case s80-14-tenth --ns3-python ... --ns3-sack \\
        [--ns3-jitter 0.00073 --send-overhead 0.00073 --seed 1|2]

ns-3 runs with SACK here: without it, its NewReno repair after a timeout spirals (a fast
recovery every RTT at a window of 2-4 packets; ``benchmarks/ns3_reno.py``'s docstring);
its deterministic split is nearly the same without SACK (0.248 / 0.621 / 0.131). The
scenario run here is the script's own (its function ``scenario``), so the two cannot
drift apart.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import numpy as np
import pytest

import tcpfluid
from tcpfluid.scenarios import Scenario

#: ns-3.44 TcpLinuxReno with SACK, deterministic send times: each flow's share of the
#: packets delivered over the run (11.3, 14, 36 ms)
NS3_SHARES = (0.265, 0.632, 0.102)
#: the same with ``--ns3-jitter 0.0008``, seeds 1, 2, 3
NS3_JITTER_SHARES = (
    (0.429, 0.436, 0.135),
    (0.435, 0.435, 0.130),
    (0.355, 0.529, 0.116),
)
#: the random wait, s: one bottleneck packet time (8000 bits / 10.3 Mb/s = 0.78 ms)
JITTER_S = 0.0008
#: the seeds of the packet simulator's random waits (three, as ns-3's)
SEEDS = (1, 2, 3)
#: tolerance on a flow's share averaged over the three seeds: ns-3's own three seeds span
#: 0.08 on flows 0 and 1 (0.355-0.435, 0.435-0.529), so a three-seed mean is uncertain by
#: about 0.08 / sqrt(3) = 0.05 on each side
MEAN_SHARE_TOLERANCE = 0.05


@pytest.fixture
def case(ns3_script: Callable[[str], ModuleType]) -> Callable[[str], Scenario]:
    """``benchmarks/ns3_dumbbell.py``'s case by name: the scenario the ns-3 figures were
    measured on (the script's own ``scenario``)."""
    script = ns3_script("ns3_dumbbell")

    def scenario(name: str) -> Scenario:
        index, seed, duration, scale = script.CASES[name]
        sc: Scenario = script.scenario(index, seed, duration, scale)
        return sc

    return scenario


def _shares(sc: Scenario, engine: str, **opts: object) -> np.ndarray:
    flows = tcpfluid.simulate(sc, engine, **opts).summary.flows
    thr = np.array([f.throughput_pps for f in flows])
    return thr / thr.sum()


def test_deterministic_send_times_give_the_14_ms_flow_most_of_the_link_in_both(
    case: Callable[[str], Scenario],
) -> None:
    """The phase effect is not the packet simulator's alone: ns-3 gives the 14-ms flow 2.4
    times the 11.3-ms flow's packets (0.632 / 0.265); the packet simulator 9 times
    (0.843 / 0.092), where the fluid engines give it less than the 11.3-ms flow. Asserted:
    more than twice (ns-3's ratio rounded down), and at least ns-3's share for the 14-ms
    flow (the packet simulator's phase is the stronger of the two)."""
    packets = _shares(case("s1-46"), "packet")
    assert packets[1] > 2.0 * packets[0]
    assert packets[1] >= NS3_SHARES[1]


def _ns3_jitter_mean() -> np.ndarray:
    return np.mean(np.array(NS3_JITTER_SHARES), axis=0)


def test_random_send_times_give_the_packets_ns3s_split(case: Callable[[str], Scenario]) -> None:
    """Packet simulator with ``send_overhead_s`` = 0.8 ms, seeds 1-3, mean shares
    0.442 / 0.438 / 0.120 against ns-3's jittered 0.406 / 0.467 / 0.127."""
    sc = case("s1-46")
    runs = [_shares(sc, "packet", seed=s, send_overhead_s=JITTER_S) for s in SEEDS]
    mean = np.mean(np.array(runs), axis=0)
    assert np.all(np.abs(mean - _ns3_jitter_mean()) <= MEAN_SHARE_TOLERANCE)


def _no_phase(measured: str) -> pytest.MarkDecorator:
    return pytest.mark.xfail(
        strict=True,
        raises=AssertionError,
        reason=(
            f"{measured} against ns-3's jittered 0.406 / 0.467 / 0.127: the fluid engines "
            "give the shortest RTT the most, ns-3 and the packet simulator with random send "
            "times the 14-ms flow as much or more (a residue of the phase at a 7-packet "
            "buffer); nearer the randomised packets than the deterministic ones, not within"
        ),
    )


@pytest.mark.parametrize(
    "engine",
    [
        pytest.param("rounds", marks=_no_phase("0.553 / 0.385 / 0.061")),
        pytest.param("hybrid", marks=_no_phase("0.478 / 0.377 / 0.145")),
    ],
)
def test_fluid_shares_against_ns3_with_random_send_times(
    engine: str, case: Callable[[str], Scenario]
) -> None:
    shares = _shares(case("s1-46"), engine)
    assert np.all(np.abs(shares - _ns3_jitter_mean()) <= MEAN_SHARE_TOLERANCE)


# --- seed 80's scenario 14 at a tenth of its rates and buffer ------------------------------

#: ns-3.44 TcpLinuxReno with SACK, ``--case s80-14-tenth`` (two Reno flows, 125 and 142 ms,
#: 11 Mb/s, 48 packets, 400 s), deterministic: the 125-ms flow's share, and each flow's loss
#: events (fast recoveries plus timeouts)
NS3_TENTH_SHARE = 0.174
NS3_TENTH_LOSS_EVENTS = (197, 23)
#: the same with ``--ns3-jitter 0.00073`` (one bottleneck packet time), seeds 1 and 2
NS3_TENTH_JITTER_SHARES = (0.503, 0.545)
#: one bottleneck packet time at 11 Mb/s, s
TENTH_JITTER_S = 0.00073
#: the split of two flows that share the overflows: above this, the 125-ms flow is not
#: locked out (the fluid engines give it 0.54-0.56)
LOCKED_OUT_BELOW = 0.3
#: the hold-out's tolerance on a share (10 % of the referee's, here ns-3's jittered mean
#: 0.524: 0.052), wider than ns-3's own two seeds (0.503-0.545)
TENTH_SHARE_TOLERANCE = 0.10


def test_deterministic_send_times_lock_the_125_ms_flow_out_in_both(
    case: Callable[[str], Scenario],
) -> None:
    """ns-3: the 125-ms flow gets 0.174 of the packets and takes 197 loss events against
    the 142-ms flow's 23; the packet simulator: 0.185, 170 against 24. Asserted: the
    packets' 125-ms flow below 0.3 and with more than five times the other's loss events
    (ns-3's ratio 8.6)."""
    res = tcpfluid.simulate(case("s80-14-tenth"), "packet")
    flows = res.summary.flows
    thr = np.array([f.throughput_pps for f in flows])
    assert thr[0] / thr.sum() < LOCKED_OUT_BELOW
    assert flows[0].losses > 5 * flows[1].losses


def test_random_send_times_give_the_packets_ns3s_split_at_a_tenth_scale(
    case: Callable[[str], Scenario],
) -> None:
    """Packet simulator with ``send_overhead_s`` = 0.73 ms, seeds 1 and 2 (0.504, 0.545),
    against ns-3 with the same random delay, seeds 1 and 2 (0.503, 0.545)."""
    sc = case("s80-14-tenth")
    runs = [_shares(sc, "packet", seed=s, send_overhead_s=TENTH_JITTER_S)[0] for s in (1, 2)]
    ref = float(np.mean(NS3_TENTH_JITTER_SHARES))
    assert float(np.mean(runs)) == pytest.approx(ref, rel=TENTH_SHARE_TOLERANCE)


@pytest.mark.parametrize("engine", ["rounds", "hybrid"])
def test_fluid_split_is_ns3s_with_random_send_times_at_a_tenth_scale(
    engine: str, case: Callable[[str], Scenario]
) -> None:
    """Round model 0.558, hybrid 0.540 for the 125-ms flow, against ns-3 with random send
    times; the deterministic ns-3 (0.174) is what the hold-out's packets resemble."""
    share = float(_shares(case("s80-14-tenth"), engine)[0])
    ref = float(np.mean(NS3_TENTH_JITTER_SHARES))
    assert share == pytest.approx(ref, rel=TENTH_SHARE_TOLERANCE)
