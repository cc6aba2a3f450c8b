"""Unit parsing: every expected value below is computed by hand in the comment beside it."""

import math

import pytest

from tcpfluid import units


@pytest.mark.parametrize(
    ("text", "pps"),
    [
        ("50Mbps", 6250.0),  # 50e6 / 8000
        ("1.5 Mb/s", 187.5),  # 1.5e6 / 8000 (the thesis bottleneck)
        ("1Gbps", 125000.0),
        ("32kbps", 4.0),
        ("2 MB/s", 2000.0),  # 2e6 bytes/s / 1000 bytes
        ("6250 pps", 6250.0),
        ("6250 pkt/s", 6250.0),
        (6250, 6250.0),
    ],
)
def test_rate_pps(text, pps):
    assert units.rate_pps(text) == pytest.approx(pps)


def test_rate_with_other_packet_size():
    # 12 Mb/s with 1500-byte packets: 12e6 / 12000 = 1000 pkt/s
    assert units.rate_pps("12Mbps", packet_size_bytes=1500) == pytest.approx(1000.0)


@pytest.mark.parametrize(
    ("text", "s"),
    [("100ms", 0.1), ("1.5 s", 1.5), ("250us", 250e-6), ("2 min", 120.0), (0.048, 0.048)],
)
def test_seconds(text, s):
    assert units.seconds(text) == pytest.approx(s)


@pytest.mark.parametrize(
    ("text", "pkts"),
    [
        ("5000Kb", 625.0),  # 5e6 bits / 8000
        ("100Kb", 12.5),
        ("5 Mb", 625.0),
        ("64 kB", 64.0),
        ("630 pkts", 630.0),
        (630, 630.0),
    ],
)
def test_packets(text, pkts):
    assert units.packets(text) == pytest.approx(pkts)


@pytest.mark.parametrize(
    ("text", "b"), [("1 kB", 1000.0), ("1000B", 1000.0), ("40 bytes", 40.0), ("1 KiB", 1024.0)]
)
def test_bytes(text, b):
    assert units.bytes_(text) == pytest.approx(b)


@pytest.mark.parametrize(
    ("func", "value", "match"),
    [
        (units.rate_pps, "50 furlongs", "bandwidth"),
        (units.rate_pps, "-5Mbps", "bandwidth"),
        (units.rate_pps, 0, "bandwidth"),
        (units.rate_pps, math.nan, "bandwidth"),
        (units.seconds, "100 parsecs", "unknown time unit"),
        (units.seconds, "0ms", "time"),
        (units.packets, "5000 Kbps", "bdp"),
        (units.bytes_, "1 kbps", "packet_size"),
        (units.seconds, "fast", "cannot parse"),
    ],
)
def test_bad_values_name_the_parameter(func, value, match):
    with pytest.raises(ValueError, match=match):
        func(value)


def test_wrong_type():
    with pytest.raises(TypeError, match="time"):
        units.seconds([0.1])
    with pytest.raises(TypeError, match="bandwidth"):
        units.rate_pps(True)


@pytest.mark.parametrize("text", ["0Mbps", "-5Mbps", "0 Mb/s", "0pps"])
def test_a_rate_of_zero_or_below_is_refused_as_such_naming_the_parameter(text):
    # a rate that parses but is not > 0: the range, not "not a rate"
    with pytest.raises(ValueError, match=rf"^bandwidth must be > 0, got '{text}'$"):
        units.link_rate_bps(text, name="bandwidth")


@pytest.mark.parametrize("text", ["5kB", "5 parsecs", "10ms"])
def test_a_value_in_another_unit_is_not_a_rate(text):
    with pytest.raises(ValueError, match=rf"^bandwidth: '{text}' is not a rate"):
        units.link_rate_bps(text, name="bandwidth")


def test_a_share_out_of_range_names_it_once() -> None:
    with pytest.raises(ValueError, match=r"^share must be a share in \(0%, 100%\), got '100%'$"):
        units.share("100%")
    with pytest.raises(ValueError, match=r"^cbr must be a share in"):
        units.share("0%", name="cbr")


@pytest.mark.parametrize("number", [6250, 0.5, 1e9])
def test_a_rate_written_without_a_unit_reads_as_the_bare_number(number) -> None:
    # A string without a unit means what the number means (as units.seconds reads "10"):
    # packets per second for rate_pps, bits per second for bits_per_second.
    assert units.rate_pps(str(number)) == units.rate_pps(number) == float(number)
    assert units.bits_per_second(str(number)) == float(number)
    with pytest.raises(ValueError, match="bandwidth must be > 0, got '-1'"):
        units.rate_pps("-1")
