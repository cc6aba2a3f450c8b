"""Path construction, eq. (5) of the Quick Vegas paper, and input validation."""

import math

import pytest

from tcpfluid import Path


def test_basic_path():
    p = Path("50Mbps", "100ms")
    assert p.mu == pytest.approx(6250.0)
    assert p.d == pytest.approx(0.1)
    assert p.bdp == pytest.approx(625.0)  # the documents' "5 Mb BDP"
    assert math.isinf(p.buffer_pkts)
    assert p.reverse_mu is None
    assert p.effective_rate == p.mu
    assert not p.ack_path_limits


def test_eq5_quick_vegas_section5_topology():
    # The Quick Vegas paper §5: 1 Gb/s 1 ms access links and a 50 Mb/s 48 ms link: tau = 100 ms.
    # d = tau + (1 + a)(1/125000 + 1/6250 + 1/125000) with a = 40/1000 (eq. 5), by hand:
    d = 0.1 + 1.04 * (2 / 125000 + 1 / 6250)
    p = Path.from_links(["1Gbps", "50Mbps", "1Gbps"], "100ms")
    assert p.d == pytest.approx(d, rel=1e-12)
    assert p.mu == pytest.approx(6250.0)
    assert p.tau == pytest.approx(0.1)
    # the papers' approximation 1 + a ~ 1
    q = Path.from_links(["1Gbps", "50Mbps", "1Gbps"], "100ms", include_ack_size=False)
    assert q.d == pytest.approx(0.1 + 2 / 125000 + 1 / 6250)
    # the document's equilibrium window 630 lies in [mu d + alpha, mu d + beta] = [628.1, 630.1]
    assert p.bdp + 2 <= 630 <= p.bdp + 4 + 0.5


def test_reverse_link_in_acks_per_second():
    # the asymmetric-network paper's example: 32 kb/s with 40-byte ACKs is 100 ACKs/s;
    # 2.4 Mb/s forward is 300 pkt/s
    p = Path("2.4Mbps", "100ms", reverse_bandwidth="32kbps", reverse_buffer=10)
    assert p.reverse_mu == pytest.approx(100.0)
    assert p.asymmetry == pytest.approx(3.0)
    assert p.effective_rate == pytest.approx(100.0)
    assert p.reverse_buffer_pkts == 10
    # 100 ACKs/s < 300 packets/s: the ACK path clocks the sender
    assert p.ack_path_limits
    # 128 kb/s of 40-byte ACKs is 400 ACKs/s, above the forward 300 packets/s
    assert not Path("2.4Mbps", "100ms", reverse_bandwidth="128kbps").ack_path_limits


def test_from_bdp():
    p = Path.from_bdp("5000Kb", "100ms")
    assert p.bdp == pytest.approx(625.0)
    assert p.mu == pytest.approx(6250.0)


def test_frozen():
    p = Path(100, 0.1)
    with pytest.raises(AttributeError):
        p.mu = 5  # type: ignore[misc]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"bandwidth": 0, "rtt": 0.1}, "bandwidth must be > 0"),
        ({"bandwidth": -3, "rtt": 0.1}, "bandwidth"),
        ({"bandwidth": "50 Mfurlongs", "rtt": 0.1}, "bandwidth"),
        ({"bandwidth": 100, "rtt": float("nan")}, "rtt must be finite"),
        ({"bandwidth": 100, "rtt": 0.1, "buffer": 0.5}, "buffer must be at least 1 packet"),
        ({"bandwidth": 100, "rtt": 0.1, "reverse_buffer": 5}, "without reverse_bandwidth"),
        ({"bandwidth": 100, "rtt": 0.1, "reverse_bandwidth": 0}, "reverse_bandwidth"),
        ({"bandwidth": 100, "rtt": 0.1, "packet_size": 0}, "packet_size"),
    ],
)
def test_bad_paths(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Path(**kwargs)


def test_from_links_errors():
    with pytest.raises(ValueError, match="rates"):
        Path.from_links([], "100ms")
    with pytest.raises(ValueError, match=r"rates\[1\]"):
        Path.from_links(["1Gbps", "0Mbps"], "100ms")


def test_with_bandwidth_keeps_everything_but_the_rate():
    """The same path at another bottleneck rate: 25 Mb/s of 1000-byte packets is
    25e6 / 8000 = 3125 packets/s; the base RTT, sizes, buffer and ACK path are kept, and a
    path built from links (eq. (5)) keeps its d, not its per-link rates."""
    p = Path("50Mbps", "100ms", buffer=120, reverse_bandwidth=400, reverse_buffer=10)
    q = p.with_bandwidth("25Mbps")
    assert q.mu == 3125.0 and q.d == 0.1 and q.bdp == pytest.approx(312.5)
    assert (q.buffer_pkts, q.reverse_mu, q.reverse_buffer_pkts) == (120.0, 400.0, 10.0)
    assert (q.packet_size_bytes, q.ack_size_bytes) == (1000.0, 40.0)
    assert p.mu == 6250.0  # the original is unchanged
    assert math.isinf(Path(100, 0.1).with_bandwidth(50).buffer_pkts)
    linked = Path.from_links(["1Gbps", "50Mbps"], "80ms")
    moved = linked.with_bandwidth("10Mbps")
    assert moved.d == linked.d and moved.mu == 1250.0
    assert moved.tau is None and moved.link_rates == ()
    with pytest.raises(ValueError, match="bandwidth"):
        p.with_bandwidth(-1)


@pytest.mark.parametrize(
    "path",
    [
        Path("10Mbps", "100ms", buffer=100),  # mu = 1250 pkt/s, mu d = 125 packets
        # an ACK path of 32 kb/s at 40-byte ACKs: 100 ACKs/s clock the flows, 10 packets a d
        Path("10Mbps", "100ms", reverse_bandwidth="32kbps"),
    ],
)
def test_a_path_as_a_scenario_has_base_rtt_d_and_the_paths_bottleneck(path):
    from tcpfluid import simulate

    sc = path.scenario("vegas", 20.0, flows=2)
    # the scenario's own route to a base RTT: the links' delays and transmission times
    assert [sc.base_rtt_s(f) for f in sc.flows] == pytest.approx([path.d, path.d], rel=1e-12)
    # two settled Vegas flows (alpha = 2, beta = 4) fill the pipe of the rate that clocks
    # them and keep 2..4 packets each queued: sum of windows in [pipe + 4, pipe + 8]
    windows = [f.settled_window_pkts for f in simulate(sc, "packet").summary.flows]
    pipe = path.effective_rate * path.d
    assert pipe + 4.0 <= sum(windows) <= pipe + 8.0


@pytest.mark.parametrize(("kwargs", "match"), [({"flows": 0}, "flows"), ({"flows": 1.5}, "flows")])
def test_a_path_as_a_scenario_refuses_bad_counts(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Path("10Mbps", "100ms").scenario("vegas", 1.0, **kwargs)


def test_a_path_shorter_than_a_packet_and_an_ack_has_no_scenario():
    # 1250 pkt/s: a 1000-byte packet takes 0.8 ms and a 40-byte ACK 0.032 ms
    with pytest.raises(ValueError, match=r"rtt: d = 0.0008 s .* give rtt >= 0.000832 s"):
        Path(1250, 0.0008).scenario("vegas", 1.0)
