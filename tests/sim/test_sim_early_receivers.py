"""Early receivers: a data packet's last link hands it to the receiver when it admits it.

The receiver then needs no exit event of that link (``tcpfluid.sim._setup.early_receivers``):
its state is the flow's own and its ACKs enter a link that takes nothing else, in the order
the packets leave the last link. Checked here: a run is the same whether its receivers take
the packets early or at the exit events (the same network with each ACK link made RED with
thresholds no queue reaches, which is never early and drops nothing), and the early run has
one event less per data packet delivered (so every receiver took its packets early in the
one run and none did in the other). Which links qualify on the documents' dumbbells:
``test_sim_setup.py``.
"""

from __future__ import annotations

import math
from dataclasses import fields

import numpy as np

from tcpfluid.scenarios import FlowSpec, Link, Scenario
from tcpfluid.sim import simulate_packets


def _dumbbell(ack_red: bool) -> Scenario:
    red = {"min_th": 1e6, "max_th": 2e6} if ack_red else {}
    disc = "red" if ack_red else "drop-tail"
    links = [Link("R1-R2", 10e6, 0.01, 20.0), Link("R2-R1", 10e6, 0.01)]
    flows = []
    for k, d in enumerate((0.005, 0.02, 0.04), start=1):
        links += [
            Link(f"S{k}-R1", 100e6, d),
            Link(f"R1-S{k}", 100e6, d),
            Link(f"R2-D{k}", 100e6, 0.002),
            Link(f"D{k}-R2", 100e6, 0.002, discipline=disc, red=red),
        ]
        flows.append(
            FlowSpec(
                f"S{k}-D{k}",
                (f"S{k}-R1", "R1-R2", f"R2-D{k}"),
                (f"D{k}-R2", "R2-R1", f"R1-S{k}"),
                start_s=0.3 * k,
                algorithm="reno",
            )
        )
    return Scenario(name="early-receivers", links=links, flows=flows, duration_s=15.0)


def test_a_run_is_the_same_with_early_receivers() -> None:
    early = simulate_packets(_dumbbell(False))
    late = simulate_packets(_dumbbell(True))
    # losses at the 20-packet bottleneck, so recoveries and timeouts are part of the run
    assert sum(fl.fast_retransmits for fl in early.flows) > 10
    # one exit event less per data packet received: all three receivers early in the one
    # run, none in the other
    received = early.conservation["data"]["delivered"]
    assert late.events - early.events == received
    for a, b in zip(early.flows, late.flows, strict=True):
        for f in fields(a):
            va, vb = getattr(a, f.name), getattr(b, f.name)
            if isinstance(va, np.ndarray):
                assert np.array_equal(va, vb, equal_nan=True), f.name
            else:
                assert va == vb or (math.isnan(va) and math.isnan(vb)), f.name
    for a, b in zip(early.links, late.links, strict=True):
        for f in fields(a):
            if f.name == "red_avg_pkts":  # the RED links' average (never near min_th)
                continue
            va, vb = getattr(a, f.name), getattr(b, f.name)
            assert np.array_equal(va, vb), (a.name, f.name)
    assert early.conservation == late.conservation
