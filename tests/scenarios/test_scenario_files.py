"""Scenario files (tcpfluid.scenarios.files): what a file derives, overrides, errors naming
the file, table and key, and the round trip of every named scenario through a file.

Expected numbers are worked out by hand from the file's values and the Quick Vegas
paper's eq. 5 (base RTT = propagation + a data packet's and an ACK's transmission times).
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

import tcpfluid
from tcpfluid.scenarios import bottleneck, build_scenario, scenario_names, scenario_to_toml
from tcpfluid.scenarios.files import file_parameters, load_scenario, scenario_from_toml

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "scenarios"
EIGHT = EXAMPLES / "eight-vegas-two-reno.toml"

SMALL = """
name = "small"
duration = "20s"

[[link]]
name = "core"
rate = "10Mbps"
delay = "5ms"
buffer = 50

[[flow]]
algorithm = "vegas"
count = 2
rtt = ["30ms", "50ms"]
"""


def test_the_example_as_written() -> None:
    sc = tcpfluid.load_scenario(EIGHT)
    assert sc.name == "eight-vegas-two-reno" and sc.duration_s == 60.0
    names = [f.name for f in sc.flows]
    assert names == [*(f"vegas-{i}" for i in range(1, 9)), "reno-1", "reno-2"]
    assert [f.algorithm for f in sc.flows] == ["vegas"] * 8 + ["reno"] * 2
    assert all(dict(f.params) == {"alpha": 2, "beta": 4} for f in sc.flows[:8])
    assert [f.start_s for f in sc.flows] == [0.0] * 8 + [20.0, 20.0]
    # base RTT = rtt + 1000-byte and 40-byte transmission on the 100 Mb/s core (80 us +
    # 3.2 us) and on two 1 Gb/s access links each way (2 x 8 us + 2 x 0.32 us)
    extra = 8000 / 100e6 + 320 / 100e6 + 2 * 8000 / 1e9 + 2 * 320 / 1e9
    rtts = [20, 40, 60, 80, 100, 120, 40, 60, 60, 60]
    for f, r in zip(sc.flows, rtts, strict=True):
        assert sc.base_rtt_s(f) == pytest.approx(r / 1000 + extra, rel=1e-12)
    core = sc.link("bottleneck")
    assert (core.rate_bps, core.delay_s, core.buffer_pkts) == (100e6, 0.01, 300.0)
    # the access links are ten times faster than the fastest declared link: never the
    # bottleneck
    assert bottleneck(sc).name == "bottleneck"
    assert sc.link("vegas-1-in").rate_bps == 1e9
    assert sc.flows[0].reverse == ("vegas-1-out-ack", "bottleneck-rev", "vegas-1-in-ack")


def test_build_scenario_takes_a_file_and_overrides() -> None:
    sc = build_scenario(str(EIGHT), bandwidth="200Mbps", rtt="50ms", duration="30s")
    assert sc.link("bottleneck").rate_bps == 200e6 and sc.duration_s == 30.0
    # rtt=... sets every flow's: access delay (50 ms - 2 x 10 ms) / 4 = 7.5 ms
    assert [sc.link(f"{f.name}-in").delay_s for f in sc.flows] == pytest.approx([0.0075] * 10)
    sc = load_scenario(
        EIGHT,
        **{
            "link.bottleneck.buffer": "100",
            "flow.2.start": "5s",
            "flow.1.count": 3,
            "flow.1.rtt": "50ms",
        },
    )
    assert sc.link("bottleneck").buffer_pkts == 100.0
    assert [f.start_s for f in sc.flows] == [0.0] * 3 + [5.0, 5.0]
    assert "link.bottleneck.rate" in file_parameters(EIGHT)
    # a list of per-flow values must match the group's count, and says so
    with pytest.raises(ValueError, match=r"\[\[flow\]\] 1, key 'rtt': lists 8 values"):
        load_scenario(EIGHT, **{"flow.1.count": 3})


def test_several_links_paths_red_and_cbr() -> None:
    text = """
duration = "40s"
[[link]]
name = "a"
rate = "20Mbps"
delay = "2ms"
[[link]]
name = "b"
rate = "10Mbps"
delay = "8ms"
buffer = 80
queue = "red"
red = { min_th = 10, max_th = 30, max_p = 0.05 }
[[flow]]
name = "long"
algorithm = "vegas"
path = ["a", "b"]
[[flow]]
name = "short"
algorithm = "vegas"
path = ["b"]
rtt = "40ms"
[[cbr]]
rate = "50%"
path = ["b"]
start = "10s"
stop = "20s"
"""
    sc = scenario_from_toml(text)
    long, short = sc.flows
    assert long.forward == ("a", "b") and long.reverse == ("b-rev", "a-rev")
    # no rtt: the path's own round trip, 2 x (2 + 8) ms plus transmission
    assert sc.base_rtt_s(long) == pytest.approx(
        0.02 + 8000 / 20e6 + 8000 / 10e6 + 320 / 20e6 + 320 / 10e6
    )
    assert short.forward == ("short-in", "b", "short-out")
    assert sc.link("b").red_parameters()["max_p"] == 0.05
    (cbr,) = sc.cbr
    assert cbr.rate_bps == 5e6 and (cbr.start_s, cbr.stop_s) == (10.0, 20.0)
    # both flows cross b, the slowest link of each: one shared bottleneck, RED, unequal
    # base RTTs and cross traffic on it, which every engine models
    from tcpfluid.scenarios import check_engine, fluid_view

    view = fluid_view(sc)
    assert view.bottleneck == "b" and view.shared and view.discipline == "red"
    check_engine(view, "ode")


@pytest.mark.parametrize("name", scenario_names())
def test_every_named_scenario_round_trips_through_a_file(name: str, tmp_path: Path) -> None:
    sc = build_scenario(name)
    path = tmp_path / f"{name}.toml"
    path.write_text(scenario_to_toml(sc), encoding="utf-8")
    assert load_scenario(path) == sc
    # with an algorithm and parameters on the flows, too
    sc = build_scenario(name, alpha=1).with_algorithm("vegas")
    assert scenario_from_toml(scenario_to_toml(sc)) == sc


def _err(text: str, *, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        scenario_from_toml(text, source="bad.toml")


@pytest.mark.parametrize(
    ("text", "match"),
    [
        (SMALL.replace('duration = "20s"', ""), r"bad\.toml: top level, key 'duration': missing"),
        ("colour = 1\n" + SMALL, r"bad\.toml: top level, key 'colour': unknown key"),
        (
            SMALL.replace('rate = "10Mbps"', 'rate = "fast"'),
            r"\[\[link\]\] 1 \('core'\), key 'rate'",
        ),
        (SMALL.replace("buffer = 50", "buffer = -5"), r"\[\[link\]\] 1 \('core'\), key 'buffer'"),
        (SMALL.replace('"30ms", "50ms"', '"30ms"'), r"\[\[flow\]\] 1, key 'rtt': lists 1 values"),
        (SMALL.replace('"30ms", "50ms"', '"5ms", "50ms"'), r"key 'rtt': '5ms'.*shorter than"),
        (SMALL.replace('algorithm = "vegas"', 'algorithm = "vegaz"'), r"key 'algorithm'.*vegaz"),
        (SMALL + '\n[[cbr]]\nrate = "1Mbps"\npath = ["nowhere"]\n', r"\[\[cbr\]\] 1, key 'path'"),
        (SMALL.replace("count = 2", "count = 0"), r"\[\[flow\]\] 1, key 'count'"),
        (SMALL.replace("buffer = 50", 'buffer = 50\nqueue = "fifo"'), r"key 'queue'.*fifo"),
        (
            SMALL + "params = { alpha = 1, zeta = 2 }\n",
            r"key 'params\.zeta': unknown parameter 'zeta' for algorithm",
        ),
        (SMALL.replace("[[flow]]", '[[flow]]\npath = ["core", "x"]'), r"key 'path'.*'x'"),
        ("duration = ", r"bad\.toml is not valid TOML"),
    ],
)
def test_bad_files_name_the_file_the_table_and_the_key(text: str, match: str) -> None:
    _err(text, match=match)


RED_FILE = """
duration = "10s"
[[link]]
name = "b"
rate = "10Mbps"
delay = "10ms"
buffer = 100
queue = "red"
red = { min_th = 10, max_th = 30, gentle = true }
[[flow]]
algorithm = "reno"
rtt = "40ms"
"""


@pytest.mark.parametrize(("text", "gentle"), [("false", False), ("True", True), ("true", True)])
def test_a_boolean_set_as_text_is_a_boolean(tmp_path: Path, text: str, gentle: bool) -> None:
    # --set passes text: true/false as TOML writes them (any case) set a boolean key
    f = tmp_path / "red.toml"
    f.write_text(RED_FILE)
    sc = load_scenario(f, **{"link.b.red.gentle": text})
    assert sc.link("b").red_parameters()["gentle"] is gentle


def test_a_bad_red_value_names_the_red_key(tmp_path: Path) -> None:
    f = tmp_path / "red.toml"
    f.write_text(RED_FILE)
    with pytest.raises(ValueError, match=r"key 'red': b\.red\.gentle must be True or False"):
        load_scenario(f, **{"link.b.red.gentle": "yes"})


def test_bad_overrides_and_missing_files(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown parameter 'colour'"):
        load_scenario(EIGHT, colour=3)
    with pytest.raises(ValueError, match=r"no \[\[flow\]\] '9'"):
        load_scenario(EIGHT, **{"flow.9.start": "1s"})
    with pytest.raises(ValueError, match="no such file"):
        load_scenario(tmp_path / "missing.toml")
    with pytest.raises(ValueError, match="unknown scenario 'nope'"):
        build_scenario("nope")


def test_a_file_runs_on_the_fluid_engines() -> None:
    sc = scenario_from_toml(SMALL)
    for engine in ("rounds", "ode"):
        res = tcpfluid.simulate(sc, engine)
        # two Vegas flows on 10 Mb/s with an ample buffer fill the link
        assert res.summary.utilization > 0.9, engine
        assert [f.name for f in res.summary.flows] == ["vegas-1", "vegas-2"]
    assert math.isfinite(sc.duration_s)


_ONE_LINK = """
duration = "10s"
packet_size = "500B"
[[link]]
name = "b"
rate = {rate}
delay = "10ms"
[[flow]]
name = "f"
algorithm = "vegas"
path = ["b"]
"""


@pytest.mark.parametrize("bare", ["6250", "6250.0", '"6250"'])
def test_a_bare_rate_in_a_file_is_refused_naming_the_key(bare: str) -> None:
    """A bare number is packets/s to :class:`tcpfluid.Path` and bits/s to a link: a file
    gives the unit, as ``build_scenario`` and ``--set`` do."""
    with pytest.raises(ValueError, match=r"\[\[link\]\] 1.*'rate'.*no unit"):
        scenario_from_toml(_ONE_LINK.format(rate=bare))


def test_a_file_rate_in_packets_per_second_uses_the_files_packet_size() -> None:
    # 6250 packets/s of 500 bytes = 6250 * 500 * 8 bits/s, by hand
    sc = scenario_from_toml(_ONE_LINK.format(rate='"6250pps"'))
    assert sc.link("b").rate_bps == 6250 * 500 * 8
    # the same override on a file as on a named scenario: a packet rate is accepted
    sc = scenario_from_toml(_ONE_LINK.format(rate='"10Mbps"'), bandwidth="1000pps")
    assert sc.link("b").rate_bps == 1000 * 500 * 8
    with pytest.raises(ValueError, match="no unit"):
        scenario_from_toml(_ONE_LINK.format(rate='"10Mbps"'), bandwidth=6250)


def test_a_written_file_states_its_rates_with_their_unit() -> None:
    sc = build_scenario("thesis-many-flows", flows=3)
    text = scenario_to_toml(sc)
    rates = [ln for ln in text.splitlines() if ln.startswith("rate = ")]
    assert rates and all(ln.endswith('bps"') for ln in rates)
    back = scenario_from_toml(text)
    assert [lk.rate_bps for lk in back.links] == [lk.rate_bps for lk in sc.links]


@pytest.mark.parametrize(
    "path", [EXAMPLES / "sweep-eight-vegas.toml", EXAMPLES.parent / "sweep.toml"]
)
def test_a_sweep_configuration_given_as_a_scenario_says_what_it_is(path: Path) -> None:
    # the two shipped sweep files: a user who passes one to simulate or predict is told to
    # run it with `tcpfluid sweep`, not that its first key is unknown
    with pytest.raises(ValueError, match=r"top level: a sweep configuration \(\[grid\]\)") as e:
        load_scenario(path)
    assert f"tcpfluid sweep {path}" in str(e.value)


def test_a_spread_scenario_written_out_loads_back_with_its_spread() -> None:
    # the starts written out already carry the offsets; the width is recorded
    # (start_spread_applied) so that the summaries still count them as one start, and
    # nothing is moved again
    sc = build_scenario("qv-many-flows", start_spread="50us")
    back = scenario_from_toml(scenario_to_toml(sc))
    assert back == sc and back.start_spread_s == pytest.approx(50e-6)
    assert [f.start_s for f in back.flows] == [f.start_s for f in sc.flows]
    # its flows join at 100 s and 200 s: those joins, not one per offset of the spread
    kinds = tcpfluid.simulate(back.with_algorithm("vegas"), "rounds").summary.change_kinds
    assert kinds == tcpfluid.simulate(sc.with_algorithm("vegas"), "rounds").summary.change_kinds
    assert kinds.count("flow-join") <= 2
    with pytest.raises(ValueError, match="start_spread_applied records a spread"):
        scenario_from_toml('start_spread = "1ms"\n' + scenario_to_toml(sc))
