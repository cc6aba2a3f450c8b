"""``tcpfluid simulate --packet-spread N``: the packet simulator's spread over start orders
beside the engine's values; under the ``--json`` key ``packet_spread``, every other key
kept as it is without the option.

Independent route: the command's numbers are those of :func:`tcpfluid.packet_spread` on
the same scenario (the library's door), and with ``-e packet`` its run is the plain
``-e packet`` run.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import tcpfluid
from tcpfluid.cli import main
from tcpfluid.scenarios import build_scenario

SETS = {"flows": "2", "duration": "3s", "bandwidth": "8Mbps", "rtt": "20ms", "buffer": "30",
        "cbr": "none"}  # fmt: skip
ARGS = ["qv-basic", "-a", "vegas", *(x for k, v in SETS.items() for x in ("--set", f"{k}={v}"))]
#: the packet summary's keys of wall-clock speed, which differ from run to run
SPEED_KEYS = ("packets_per_s", "events_per_s")


def _cli(capsys: Any, *extra: str) -> Any:
    assert main(["simulate", *ARGS, "-q", *extra]) == 0
    out = capsys.readouterr().out
    return json.loads(out) if "--json" in extra else out


def test_json_adds_the_key_packet_spread_and_keeps_every_other(capsys: Any) -> None:
    plain = _cli(capsys, "-e", "rounds", "--json")
    got = _cli(capsys, "-e", "rounds", "--json", "--packet-spread", "2")
    assert got.pop("packet_spread") is not None and got == plain
    # the library's spread of the same scenario
    sc = build_scenario("qv-basic", **SETS).with_algorithm("vegas")
    again = _cli(capsys, "-e", "packet", "--json", "--packet-spread", "2")
    spread = again.pop("packet_spread")
    assert spread == tcpfluid.packet_spread(sc, runs=2).to_dict()
    assert spread["runs"] == 2 and len(spread["throughput_pps"]["min"]) == 2
    # with -e packet, the run itself is run 0: the plain packet run's keys
    packet = _cli(capsys, "-e", "packet", "--json")
    for key in SPEED_KEYS:
        del again[key], packet[key]
    assert again == packet


def test_text_shows_the_engines_values_beside_the_packet_range(capsys: Any) -> None:
    out = _cli(capsys, "-e", "rounds", "--packet-spread", "2")
    assert "packet simulator over 2 start orders" in out and "it is not a tolerance" in out
    assert "throughput (pkt/s): rounds" in out and "Jain's index: rounds" in out


@pytest.mark.parametrize("n", ["1", "0", "-3"])
def test_fewer_than_two_runs_is_refused_naming_the_option(capsys: Any, n: str) -> None:
    assert main(["simulate", *ARGS, "--packet-spread", n]) == 2
    err = capsys.readouterr().err
    assert f"--packet-spread must be an integer >= 2, got {n}" in err


def test_the_help_says_it_informs_and_is_not_a_tolerance(capsys: Any) -> None:
    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--packet-spread N" in text and "it is not a tolerance" in text
