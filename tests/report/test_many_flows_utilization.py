"""The many-flows section's utilization rows: the flows' goodput over a span as a fraction of
the bottleneck, each law over the whole run against the packet simulator, and the
utilizations the Quick Vegas paper prints in its §5.3 text against their printed values.

Read through the section's public contract (``SECTIONS["many-flows"]``: its tasks and its
``assemble``): a real packet run of the quick settings for the value, hand-made failures
for the rest.
"""

from __future__ import annotations

from typing import Any

import pytest

from tcpfluid.published import published
from tcpfluid.report import NA, SECTIONS, ReportConfig, Row

QUICK = ReportConfig(quick=True)
FULL = ReportConfig()
PACKET, DOCUMENT = "packet sim", "document"
UTILIZATION = "bottleneck utilization by the flows' goodput"


def _rows(cfg: ReportConfig, run: Any) -> list[Row]:
    """The section's utilization rows, each task's result ``run(task)``."""
    sec = SECTIONS["many-flows"]
    out = sec.assemble(cfg, [run(t) for t in sec.tasks(cfg)])
    return [r for t in out.tables for r in t.rows if r.quantity == UTILIZATION]


def _no_run(task: Any) -> dict[str, str]:
    return {"error": "not run here"}


@pytest.fixture(scope="module")
def quick_vegas_packet() -> tuple[list[Row], dict[str, Any]]:
    """The quick rows with the packet run of Vegas on qv-many-flows done, all else failed."""
    done: dict[str, Any] = {}

    def run(task: Any) -> Any:
        kw = task.kwargs
        wanted = ("vegas", "qv-many-flows")
        if task.function.endswith(":packet_run") and (kw["algorithm"], kw["scenario"]) == wanted:
            done["result"] = task.run()
            return done["result"]
        return _no_run(task)

    return _rows(QUICK, run), done["result"]


def test_the_packet_cell_is_the_links_carried_share(quick_vegas_packet: tuple) -> None:
    rows, result = quick_vegas_packet
    (row,) = [r for r in rows if r.setting.startswith("Vegas, qv-many-flows")]
    assert row.reference == PACKET
    # another route: the run's summary, the bottleneck's carried packets over its capacity.
    # Vegas loses no packet here, so the two differ by the packets in flight at the end
    # (about one BDP, 1,250 packets, against the 100-s run's million): within 1 %
    assert result["summary"]["losses"] == [0] * len(result["summary"]["losses"])
    assert row.values[PACKET] == pytest.approx(result["summary"]["utilization"], rel=0.01)
    for column in ("round model", "ODE"):  # a failed run stays n/a with its error
        assert isinstance(row.values[column], NA)


def test_quick_rows_are_whole_runs_judged_against_the_packet_simulator(
    quick_vegas_packet: tuple,
) -> None:
    rows, _ = quick_vegas_packet
    # four laws on each of the two scenarios; the scaled-down runs take no printed number
    assert len(rows) == 8
    assert all(r.reference == PACKET and isinstance(r.values[DOCUMENT], NA) for r in rows)


def test_the_papers_printed_utilizations_are_the_references_of_their_periods() -> None:
    rows = {(r.setting, r.reference): r for r in _rows(FULL, _no_run)}
    reno = rows[("Reno, qv-many-flows, 0–20 s", DOCUMENT)]
    assert reno.values[DOCUMENT] == 0.316  # §5.3.1: New Reno over 0–20 s, "(0.316)"
    fast = rows[("FAST, qv-many-flows, 0–100 s", DOCUMENT)]
    assert fast.values[DOCUMENT] == 0.06  # §5.3.1: "only 0.06 in the first 100 seconds"
    # §5.3.2's "about 0.15" on a network the paper does not give: shown, not judged
    other = rows[("FAST, qv-different-rtt, 0–200 s", PACKET)]
    assert other.values[DOCUMENT] == published("000/5.3.2/fast/utilization").value == 0.15
    assert DOCUMENT in other.informative
    # every law's whole run on both networks, plus the two printed periods
    assert len(rows) == 10
