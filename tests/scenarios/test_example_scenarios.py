"""The example scenario files of the documents' tables build the named scenarios' networks.

Each file in examples/scenarios/ named after a named scenario describes the same network
with the file format's derived links: the comparison is up to the names of links and flows
and to where a flow's own (unshared) delay sits along its path. What is compared is what
any engine reads: per flow, its law, parameters, start and stop, and along each direction
of its path the sequence of links' rates, buffers, queue disciplines and RED parameters,
which links are shared and with whom, and the one-way propagation delay; the run's
duration and packet and ACK sizes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tcpfluid.scenarios import Scenario, build_scenario, load_scenario

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "scenarios"


def _network(sc: Scenario) -> dict[str, Any]:
    users: dict[str, int] = {}
    for f in sc.flows:
        for n in {*f.forward, *f.reverse}:
            users[n] = users.get(n, 0) + 1
    shared: dict[str, int] = {}  # shared links numbered by first use

    def path(names: tuple[str, ...]) -> tuple[Any, ...]:
        hops = []
        for n in names:
            lk = sc.link(n)
            own = users[n] == 1
            who = "own" if own else shared.setdefault(n, len(shared))
            red = tuple(sorted(lk.red_parameters().items())) if lk.discipline == "red" else ()
            hops.append((who, lk.rate_bps, lk.buffer_pkts, lk.discipline, red))
        return (tuple(hops), round(sum(sc.link(n).delay_s for n in names), 12))

    return {
        "duration_s": sc.duration_s,
        "packet_bytes": sc.packet_size_bytes,
        "ack_bytes": sc.ack_size_bytes,
        "flows": [
            (f.algorithm, dict(f.params), f.start_s, f.stop_s, path(f.forward), path(f.reverse))
            for f in sc.flows
        ],
        "shared_delays": {shared[n]: sc.link(n).delay_s for n in shared},
    }


@pytest.mark.parametrize(
    "name", ["thesis-many-flows", "ho-fairness", "ho-different-rtt", "ho-friendliness"]
)
def test_the_example_file_builds_the_named_scenario(name: str) -> None:
    from_file = load_scenario(EXAMPLES / f"{name}.toml")
    named = build_scenario(name)
    assert from_file.name == name
    assert len(from_file.flows) == len(named.flows)
    assert _network(from_file) == _network(named)
    for a, b in zip(from_file.flows, named.flows, strict=True):
        assert from_file.base_rtt_s(a) == pytest.approx(named.base_rtt_s(b), rel=1e-12)


def test_the_example_files_take_the_documents_mixes() -> None:
    from tcpfluid.scenarios.mix import with_mix

    sc = with_mix(load_scenario(EXAMPLES / "ho-friendliness.toml"), "reno:15,vegas:5")
    named = build_scenario("ho-friendliness", algorithm="reno:15,vegas:5")
    assert _network(sc) == _network(named)
    assert [f.algorithm for f in sc.flows] == ["reno"] * 15 + ["vegas"] * 5
