"""``tcpfluid simulate --engine packet`` and the scenario builders added with the simulator.

Expected numbers are hand computations from the documents' topologies (stated inline).
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from tcpfluid.cli import main
from tcpfluid.results import PUBLIC_KEYS
from tcpfluid.scenarios import build_scenario

ROUND_KEYS = {*PUBLIC_KEYS, "change_times_s", "losses"}


def _json(capsys: Any, *argv: str) -> dict[str, Any]:
    assert main(["simulate", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_packet_engine_same_keys_as_rounds_plus_speed(capsys: Any) -> None:
    args = ("qv-basic", "-a", "vegas", "--set", "cbr=none", "--set", "duration=20s")
    packet = _json(capsys, *args, "--engine", "packet")
    rounds = _json(capsys, *args, "--engine", "rounds")
    assert packet["engine"] == "packet"
    assert ROUND_KEYS <= set(packet)
    assert ROUND_KEYS <= set(rounds)
    assert {"events_per_s", "packets_per_s"} <= set(packet)
    assert packet["packets_per_s"] > 0
    # one event per data packet on this path (its ACK reaching the sender): every other
    # link hands packets on when it admits them, the last data link to the receiver
    # (docs/simulator.md, "Eager links" and "Early receivers"); timers add a few
    assert 0.95 < packet["events_per_s"] / packet["packets_per_s"] < 1.05
    assert packet["conserved"] is True
    # both engines leave slow start at 64 packets on this path (document 000 Fig. 1)
    assert packet["ss_exit_window"] == rounds["ss_exit_window"] == 64


def test_packet_engine_set_override(capsys: Any) -> None:
    out = _json(
        capsys, "asymmetric", "-a", "vegas", "-e", "packet", "--set", "k=5",
        "--set", "duration=40s", "--set", "alpha=1", "--set", "beta=3",
    )  # fmt: skip
    # k = 5: the ACK link carries 200 / 5 = 40 ACKs/s, and Vegas is clocked to it
    assert out["throughput_pps"][0] == pytest.approx(40.0, rel=0.1)


def test_packet_engine_bad_set_is_an_error(capsys: Any) -> None:
    assert main(["simulate", "asymmetric", "-a", "vegas", "-e", "packet", "--set", "k=-1"]) == 2
    assert "k must be a number > 0" in capsys.readouterr().err


def test_qv_many_flows_groups() -> None:
    sc = build_scenario("qv-many-flows")
    assert len(sc.flows) == 60
    starts = [f.start_s for f in sc.flows]
    assert starts == [0.0] * 20 + [100.0] * 20 + [200.0] * 20
    assert all(f.stop_s == f.start_s + 300.0 for f in sc.flows)
    assert sc.link("R1-R2").buffer_pkts == 1500
    assert sc.link("R1-R2").rate_bps == 1e9
    with pytest.raises(ValueError, match="groups must be <= flows"):
        build_scenario("qv-many-flows", flows=2, groups=3)


def _rtt(sc: Any, i: int) -> float:
    fl = sc.flows[i]
    return sum(sc.link(n).delay_s for n in (*fl.forward, *fl.reverse))


def test_different_rtt_groups() -> None:
    sc = build_scenario("qv-different-rtt", flows_per_group=2)
    assert len(sc.flows) == 6
    rtts = [round(_rtt(sc, i), 9) for i in range(6)]
    assert rtts == [0.05, 0.05, 0.1, 0.1, 0.2, 0.2]
    assert all("R3-R4" in f.forward for f in sc.flows)
    with pytest.raises(ValueError, match="shorter than the core"):
        build_scenario("qv-different-rtt", rtt1="5ms")


def test_thesis_topology_delays() -> None:
    # document 001 Table 3.1: x = 1 ms gives 6 ms of round-trip propagation, x = 90 ms 184
    sc = build_scenario("thesis-two-flow", x2="90ms")
    assert _rtt(sc, 0) == pytest.approx(0.006)
    assert _rtt(sc, 1) == pytest.approx(0.184)
    assert sc.link("R1-R2").discipline == "drop-tail"
    red = build_scenario("thesis-two-flow", queue="red").link("R1-R2")
    assert red.discipline == "red"
    assert dict(red.red) == {"min_th": 15.0, "max_th": 45.0, "max_p": 0.02, "w_q": 0.002}
    assert len(build_scenario("thesis-two-flow", flows=1).flows) == 1
    with pytest.raises(ValueError, match="flows must be 1 or 2"):
        build_scenario("thesis-two-flow", flows=3)


@pytest.mark.parametrize("k", [0.5, 3, 5, 7])
def test_asymmetric_reverse_rate(k: float) -> None:
    # document 003: mu_f = 1.6 Mb/s / 8000 bits = 200 packets/s, mu_r = mu_f / k ACKs/s of
    # 40 bytes
    sc = build_scenario("asymmetric", k=k)
    assert sc.link("R1-R2").rate_bps / 8000 == pytest.approx(200.0)
    assert sc.link("R2-R1").rate_bps / 320 == pytest.approx(200.0 / k)
    assert sc.link("R1-R2").buffer_pkts == 15
    assert sc.link("R2-R1").buffer_pkts == 10


def test_ho_basic_and_itcp_defaults() -> None:
    ho = build_scenario("ho-basic")
    assert ho.link("R1-R2").buffer_pkts == 1000  # document 004 §5.1.2
    assert [(c.start_s, c.stop_s) for c in ho.cbr] == [(80.0, 160.0)]
    it = build_scenario("itcp-long-delay")
    # document 002 §4.2: 622 Mb/s backbone with a 110 ms link delay; 10 ms host links
    assert it.link("R1-R2").rate_bps == 622e6
    assert it.link("R1-R2").delay_s == pytest.approx(0.110)
    assert _rtt(it, 0) == pytest.approx(0.260)
    assert math.isinf(it.link("R1-R2").buffer_pkts)
