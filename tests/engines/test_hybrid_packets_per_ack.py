"""The hybrid engine's ``packets_per_ack`` and the name ``"ode"`` taking the hybrid model's
options, on the asymmetric-networks paper's path (Fig. 1: the ACK link carries μr =
0.02133 Mb/s of 40-byte ACKs, 66.7 ACKs/s, below the 200 packets/s forward link).

The reference is the ACK clock, a bound independent of both engines: each ACK releases
``packets_per_ack`` packets, so Vegas's throughput is that many times μr; and the packet
simulator with delayed ACKs (each ACK acknowledging two packets) on the same path.
"""

from __future__ import annotations

import pytest

import tcpfluid
from tcpfluid.cli import main
from tcpfluid.engines import Hybrid
from tcpfluid.scenarios import build_scenario

MU_R = 0.021333e6 / (40 * 8)  # ACKs/s on the reverse link (the scenario's k = 75)


@pytest.fixture(scope="module")
def asymmetric():
    return build_scenario("asymmetric", duration="60s").with_algorithm("vegas")


def _throughput(result):
    (flow,) = result.summary.flows
    return flow.throughput_pps


@pytest.mark.parametrize("per_ack", [1.0, 2.0])
def test_the_ack_clock_bounds_the_hybrid_throughput(asymmetric, per_ack):
    """Within 1 %: the forward queue never empties once the window is open (60 s, the
    first second of slow start is about 1 % of the run)."""
    run = tcpfluid.simulate(asymmetric, Hybrid(packets_per_ack=per_ack))
    assert _throughput(run) == pytest.approx(per_ack * MU_R, rel=0.02)
    assert _throughput(run) <= per_ack * MU_R * 1.001


def test_two_packets_per_ack_agrees_with_the_packet_simulators_delayed_acks(asymmetric):
    """Throughput within 2 % (both at the ACK clock) and the settled window within 10 %
    (the hold-out's tolerance for windows)."""
    fluid = tcpfluid.simulate(asymmetric, "ode", packets_per_ack=2.0)
    packets = tcpfluid.simulate(asymmetric, "packet", delayed_ack=True)
    assert _throughput(fluid) == pytest.approx(_throughput(packets), rel=0.02)
    (f,), (p,) = fluid.summary.flows, packets.summary.flows
    assert f.settled_window_pkts == pytest.approx(p.settled_window_pkts, rel=0.10)


def test_packets_per_ack_below_one_is_refused():
    with pytest.raises(ValueError, match=r"packets_per_ack must be in \[1.0, inf\), got 0.5"):
        Hybrid(packets_per_ack=0.5)


def test_the_command_passes_hybrid_options_to_the_name_ode(capsys):
    """``-e ode`` runs the hybrid model and takes its options, as ``simulate(sc, "ode",
    ...)`` does; ``model=classical`` picks the classical model."""
    args = ["simulate", "asymmetric", "-a", "vegas", "--set", "duration=20s", "-q", "--json"]
    assert main([*args, "-e", "ode", "--option", "packets_per_ack=2"]) == 0
    assert main([*args, "-e", "ode", "--option", "model=classical"]) == 0
    capsys.readouterr()
    assert main([*args, "-e", "ode", "--option", "model=classical", "--option", "dt_s=0.01"]) == 2
    assert "applies to the hybrid model only" in capsys.readouterr().out  # --json: on stdout
