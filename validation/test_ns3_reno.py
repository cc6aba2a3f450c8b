"""ns-3 as an external referee for losses: one Reno flow on a 10 Mb/s × 100 ms dumbbell
with a 25-packet drop-tail buffer, 100 s, against ns-3's ``TcpLinuxReno`` on the same
dumbbell.

The requirement: the packet simulator, the round model and the hybrid model each within
10 % of ns-3's goodput, and the packet simulator's loss events within ±3 of ns-3's.

The ns-3 figures are constants measured once by ``benchmarks/ns3_reno.py`` (ns-3.44 from
its pip wheel ``ns3==3.44.post0``, in a separate virtual environment; ns-3 is not a
dependency of tcpfluid, so CI cannot rerun it)::

    python benchmarks/ns3_reno.py --ns3-python /tmp/ns3venv/bin/python --case reno-25

The script's docstring states the scenario and every ns-3 setting that differs from ns-3's
defaults to match the packet simulator's (one ACK per packet, initial window 2, 200 ms
minimum RTO, no SACK, no timestamps, no limited transmit, RFC 6582 recovery; 958-byte
segments so that each data packet is 1000 bytes on the wire and each ACK 42). The
scenario run here is the script's own (its function ``scenario``).

Why 10 % and ±3: the two simulators are different TCP implementations of the same
protocol. ns-3 opens the connection with a handshake (its data starts one RTT later), grows
its window by ACKed bytes (Linux's ``cwnd_cnt``), rounds its timer to 1 ms and runs its own
recovery code. Measured (the script's loss traces): slow start overshoots the 150-packet
pipe plus buffer in both, and each repairs the burst of holes its own way: ns-3 with one
fast recovery and one timeout (0.75 s, 1.07 s), the packet simulator with two of each
(0.65 s to 2.20 s, regrowing from a smaller ``ssthresh``); then one loss event every 7.9 s
in ns-3 and every 8.3 s in the packet simulator. So the start alone differs by two loss
events and the last event of the run may fall just inside or outside 100 s: ±3 on the
count. The goodputs differ by 2.0 % (packets), 2.5 % (rounds) and 0.2 % (hybrid); the
tolerance is the requirement's 10 %.

The 100 s were chosen before any run, from the requirement's 12-13 loss events (one every
8 s). The agreement of the fluid engines depends on them: the first 20 s (the same
script, ``--duration 20``) are where the start's overshoot costs the packet senders more
than the fluid engines. Slow start overshoots to 115 packets in the packet simulator
before the first drop is detected and leaves it, after its timeouts, climbing in
congestion avoidance from ``ssthresh`` 7.4; ns-3, after its one timeout (1.07 s), takes
its next loss at 16.4 s (the packet simulator at 17.5 s; the window climbs by one packet
per RTT). The round model halves 64 to 32 and climbs from there, reaching the link
about 4 s earlier (its first loss after the start at 13.0 s): +22.3 % over 0-20 s. The
hybrid's overshoot is a timeout with duplicate ACKs behind its holes, so its law reacts as
the packet sender's does, first to the fast retransmit (half the window), then to the
timeout at that half (``_hybrid_kernel.dupacks_behind``): its slow start after the timeout ends at
24.6 packets (48.7 before that rule), its first loss after the start comes at 14.6 s (12.1
s before) and it carries 10.0 % more than ns-3 over 0-20 s (24.2 % before). Both are
strict expected failures below, with the numbers; over 20-100 s, the start switched off
(the differences of the 100-s and 20-s runs' delivered packets), all three engines are
within 1.5 % of ns-3 (ns-3 1101.0 pkt/s, packets 1089.9, rounds 1090.2, hybrid 1084.5).
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import pytest

import tcpfluid
from tcpfluid.scenarios import Scenario

#: ns-3.44 (``ns3==3.44.post0``) TcpLinuxReno, ``benchmarks/ns3_reno.py --case reno-25``,
#: 100 s: packets delivered to the sink / 100 s (958-byte segments, 1000 bytes on the wire)
NS3_GOODPUT_PPS = 1034.03
#: the same run: entries into fast recovery (12) plus retransmission timeouts (1)
NS3_LOSS_EVENTS = 13
#: the same script and ns-3 with ``--duration 20``: 15,320 packets / 20 s (the start's
#: fast recovery and timeout, 0.75 s and 1.07 s, and one loss event at 16.4 s)
NS3_GOODPUT_20S_PPS = 766.0
#: the requirement's tolerance on goodput (module docstring)
GOODPUT_TOLERANCE = 0.10
#: the requirement's tolerance on the packet simulator's loss events (module docstring)
LOSS_EVENTS_TOLERANCE = 3


@pytest.fixture
def reno_25(ns3_script: Callable[[str], ModuleType]) -> Callable[[float], Scenario]:
    """``benchmarks/ns3_reno.py``'s case ``reno-25`` of a given duration (s): the scenario the
    ns-3 figures were measured beside."""
    script = ns3_script("ns3_reno")

    def scenario(duration_s: float) -> Scenario:
        sc: Scenario = script.scenario("reno-25", duration_s)
        return sc

    return scenario


@pytest.mark.parametrize("engine", ["packet", "rounds", "hybrid"])
def test_goodput_within_ten_percent_of_ns3_linux_reno(
    engine: str, reno_25: Callable[[float], Scenario]
) -> None:
    flow = tcpfluid.simulate(reno_25(100.0), engine).summary.flows[0]
    assert flow.throughput_pps == pytest.approx(NS3_GOODPUT_PPS, rel=GOODPUT_TOLERANCE)


def test_packet_loss_events_within_three_of_ns3_linux_reno(
    reno_25: Callable[[float], Scenario],
) -> None:
    flow = tcpfluid.simulate(reno_25(100.0), "packet").summary.flows[0]
    assert abs(flow.losses - NS3_LOSS_EVENTS) <= LOSS_EVENTS_TOLERANCE


def _start_costs_the_fluid_engines_less(measured: str) -> pytest.MarkDecorator:
    return pytest.mark.xfail(
        strict=True,
        raises=AssertionError,
        reason=(
            f"{measured} against ns-3's 766.0 pkt/s over the first 20 s: the start's "
            "overshoot leaves the packet senders climbing from a small window after their "
            "timeouts; the round model halves to 32, the hybrid's slow start after its "
            "timeout ends at about 25 (module docstring)"
        ),
    )


@pytest.mark.parametrize(
    "engine",
    [
        "packet",
        pytest.param("rounds", marks=_start_costs_the_fluid_engines_less("936.9 pkt/s, +22.3 %")),
        pytest.param("hybrid", marks=_start_costs_the_fluid_engines_less("842.7 pkt/s, +10.0 %")),
    ],
)
def test_first_20_s_goodput_within_ten_percent_of_ns3_linux_reno(
    engine: str, reno_25: Callable[[float], Scenario]
) -> None:
    flow = tcpfluid.simulate(reno_25(20.0), engine).summary.flows[0]
    assert flow.throughput_pps == pytest.approx(NS3_GOODPUT_20S_PPS, rel=GOODPUT_TOLERANCE)
