"""The packet (and, in the basic section, fluid) columns over the phase of a change: the
same runs for every law and row of a section, shown beside the nominal run, never judged."""

from __future__ import annotations

import pytest

from tcpfluid.report import _sec_convergence as cb
from tcpfluid.report import _sec_dynamics as dyn
from tcpfluid.report._core import ReportConfig
from tcpfluid.report._table import NA, ODE, PACKET, PHASE_MAX, PHASE_MIN, ROUNDS
from tcpfluid.scenarios import build_scenario


def _cfg() -> ReportConfig:
    return ReportConfig(quick=True)


def _fake(halved: float | None, doubled: float | None) -> dict[str, object]:
    # what the sections read of a run: its settling times and its queue trace
    return {
        "summary": {"convergence_times_s": [halved, doubled]},
        "t_s": [79.0, 100.0, 170.0],
        "queue_pkts": [900.0, 10.0 * (halved or 0.0), 5.0],  # the peak: 80-160 s only
    }


def test_convergence_phase_runs_cover_every_law_and_bdp_and_move_start_and_stop():
    # FAST at 150 kb keeps α = 100 packets queued: before the halving (whole rate, 187.5
    # packets/s) its round is 0.1 + 100/187.5 s, before the doubling 0.1 + 100/93.75 s
    o = cb._phase_overrides("fast", 150.0, 0.25)
    sc = build_scenario("qv-basic", **o)
    assert sc.cbr[0].start_s == pytest.approx(80.0 + (0.1 + 100.0 / 187.5) / 4.0, abs=1e-5)
    assert sc.cbr[0].stop_s == pytest.approx(160.0 + (0.1 + 100.0 / 93.75) / 4.0, abs=1e-5)
    assert sc.duration_s == pytest.approx(sc.cbr[0].stop_s + cb._PHASE_TAIL_S, abs=1e-5)
    keys = cb._phase_keys(_cfg())
    grid = cb._cb_grid(_cfg())
    assert len(keys) == 3 * len(cb._CB_ALGS) * len(grid)
    assert sorted({k[2] for k in keys}) == [0.25, 0.5, 0.75]
    assert {(a, kb) for a, kb, _ in keys} == {(a, kb) for a in cb._CB_ALGS for kb in grid}
    assert len(cb._phase_tasks(_cfg())) == len(keys)


def test_convergence_phase_range_is_the_min_and_max_over_the_nominal_and_the_runs():
    cfg = _cfg()
    keys = cb._phase_keys(cfg)
    runs = [_fake(10.0 + i, 20.0 - i) for i in range(len(keys))]
    nominal = {
        (a, kb, kind): 150.0
        for a in cb._CB_ALGS
        for kb in cb._cb_grid(cfg)
        for kind in cb._PHASE_KINDS
    }
    ranges = cb._phase_ranges(cfg, runs, nominal)
    first = [i for i, k in enumerate(keys) if k[:2] == keys[0][:2]]
    halved = [(10.0 + i) / 0.1 for i in first]  # in RTTs of the 0.1-s path
    assert ranges[(*keys[0][:2], "halved")] == (pytest.approx(min(halved)), 150.0)
    # a run without a value leaves the range n/a
    runs[first[0]] = {"error": "boom"}
    bad = cb._phase_ranges(cfg, runs, nominal)
    assert isinstance(bad[(*keys[0][:2], "halved")][0], NA)
    # the row carries it as informative columns: a range reaching the packet value does
    # not pass a fluid cell outside the tolerance
    row = cb._cb_row(
        "vegas", 150.0, 18.75, ("halved", "bandwidth halved"),
        {ROUNDS: 150.0, ODE: 1000.0, PACKET: 150.0}, (100.0, 1000.0),
    )  # fmt: skip
    assert row.values[PHASE_MIN] == 100.0 and row.values[PHASE_MAX] == 1000.0
    assert ODE in row.failures


def test_basic_phase_runs_cover_every_law_and_every_row():
    keys = dyn._basic_phase_keys()
    assert sorted({k[0] for k in keys}) == sorted(a for a, _sc, _ in dyn._BASIC)
    assert len(keys) == 3 * len(dyn._BASIC)
    d = float(build_scenario("ho-basic").fluid_view().path.d)
    sc = build_scenario("ho-basic", **dyn._basic_phase_overrides("ho-basic", 0.5))
    assert sc.cbr[0].start_s == pytest.approx(80.0 + 0.5 * d, abs=1e-5)
    assert sc.cbr[0].stop_s == pytest.approx(160.0 + 0.5 * d, abs=1e-5)
    assert sc.duration_s == pytest.approx(sc.cbr[0].stop_s + 15.0, abs=1e-5)
    # three results (packet, round model, ODE) per phase run, in key order
    fake = []
    for k, _key in enumerate(keys):
        fake += [_fake(1.0 + k, 2.0), _fake(5.0, 6.0), _fake(7.0, 8.0 + k)]
    tcp_ho = [k for k, key in enumerate(keys) if key[0] == "tcp-ho"]
    lo, hi = dyn._basic_phase_range("tcp-ho", "halved", 0.5, fake, 0)
    assert (lo, hi) == (0.5, 1.0 + tcp_ho[-1])
    assert dyn._basic_phase_range("tcp-ho", "doubled", 9.0, fake, 2) == (9.0, 8.0 + tcp_ho[-1])
    assert dyn._basic_phase_range("tcp-ho", "max_queue", 1.0, fake, 1) == (1.0, 50.0)
    fake[3 * tcp_ho[0]] = {"error": "boom"}
    assert isinstance(dyn._basic_phase_range("tcp-ho", "halved", 0.5, fake, 0)[0], NA)


def test_basic_times_against_the_document_take_the_document_time_tolerance():
    # Quick Vegas's halving on qv-basic: the document prints 3.3 s (read off its Fig. 8);
    # 2.52 s is within ±25 % but not within ±10 %
    from tcpfluid.report._table import DOCUMENT, TOLERANCES, Row

    tol = TOLERANCES["document time"]
    assert not tol.passes(2.52, 3.3) and TOLERANCES["time"].passes(2.52, 3.3)
    row = Row(
        "Quick Vegas on qv-basic", "t", "s", "document time", {ODE: 2.52, DOCUMENT: 3.3}, DOCUMENT
    )
    assert row.failures == (ODE,)
