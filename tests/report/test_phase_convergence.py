"""The convergence-vs-BDP section's packet column over the phase of the change, and its
tolerance counted in the flow's rounds."""

from __future__ import annotations

import pytest

from tcpfluid.report import _sec_convergence as cb
from tcpfluid.report._core import ReportConfig
from tcpfluid.report._table import NA, ODE, PACKET, PHASE_MAX, PHASE_MIN, ROUNDS
from tcpfluid.scenarios import build_scenario


def _cfg() -> ReportConfig:
    return ReportConfig(quick=False)


def test_phase_runs_move_the_change_by_fractions_of_the_round_at_the_change():
    # FAST at 150 kb keeps α = 100 packets queued: before the halving (whole rate, 187.5
    # packets/s) its round is 0.1 + 100/187.5 s, a third of it moves the CBR start
    o = cb._phase_overrides("fast", 150.0, 1.0 / 3.0)
    sc = build_scenario("qv-basic", **o)
    assert sc.cbr[0].start_s == pytest.approx(80.0 + (0.1 + 100.0 / 187.5) / 3.0, abs=1e-5)
    # only the halving is judged there: the run ends 40 s after the change, not at 240 s
    assert sc.duration_s < 125.0
    # the doubling judged (FAST 500 kb): its stop moves by a third of the half-rate round
    o = cb._phase_overrides("fast", 500.0, 1.0 / 3.0)
    sc = build_scenario("qv-basic", **o)
    assert sc.cbr[0].stop_s == pytest.approx(160.0 + (0.1 + 100.0 / 312.5) / 3.0, abs=1e-5)
    # with the nominal run, eight evenly spaced phases of the round at the change
    keys = cb._phase_keys(_cfg())
    assert len(keys) == 7 * len(cb._PHASE_ROWS)
    assert sorted({k[2] for k in keys}) == pytest.approx([k / 8.0 for k in range(1, 8)])
    assert len(cb._phase_tasks(_cfg())) == len(keys)


def test_the_phase_range_is_measured_from_the_packet_runs():
    # every phase run of the section is run here for one row (Vegas at 150 kb, the halving):
    # the range is the min and max of the nominal and the moved runs' own settling times
    cfg = _cfg()
    keys = cb._phase_keys(cfg)
    tasks = cb._phase_tasks(cfg)
    sel = [i for i, k in enumerate(keys) if k[:2] == ("vegas", 150.0)]
    nominal_task = [t for t in cb._cb_tasks(cfg) if t.label == "convergence: packet vegas 150 kb"]
    nom = nominal_task[0].run()["summary"]["convergence_times_s"][0] / 0.1
    runs = [tasks[i].run() for i in sel]
    moved = [r["summary"]["convergence_times_s"][0] / 0.1 for r in runs]
    only = {k: v for k, v in cb._PHASE_ROWS.items() if k == ("vegas", 150.0)}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(cb, "_PHASE_ROWS", only)
        ranges = cb._phase_ranges(cfg, runs, {("vegas", 150.0, "halved"): nom})
    lo, hi = ranges[("vegas", 150.0, "halved")]
    assert (lo, hi) == (pytest.approx(min([nom, *moved])), pytest.approx(max([nom, *moved])))
    # the section's row carries it; a run without a value leaves the range n/a
    row = cb._cb_row(
        "vegas", 150.0, 18.75, ("halved", "bandwidth halved"),
        {ROUNDS: nom, ODE: 1000.0, PACKET: nom}, (lo, hi),
    )  # fmt: skip
    assert row.values[PHASE_MIN] == lo and row.values[PHASE_MAX] == hi
    assert ROUNDS not in row.failures and ODE in row.failures
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(cb, "_PHASE_ROWS", only)
        bad = cb._phase_ranges(
            cfg, [{"error": "boom"}, *runs[1:]], {("vegas", 150.0, "halved"): nom}
        )
    assert isinstance(bad[("vegas", 150.0, "halved")][0], NA)


def test_basic_tcp_ho_halving_range_is_measured_from_its_phase_runs():
    # the basic section's TCP-Ho halving row (reference: the packet simulator): seven
    # runs with the CBR start moved by eighths of a round; the range is their times' and
    # the nominal's min and max, and a missing time leaves it n/a. Quick Vegas's halving and
    # doubling rows (reference: the document) get seven runs of their own
    from tcpfluid.report import _sec_dynamics as dyn

    keys = dyn._basic_phase_keys()
    assert [k[0] for k in keys] == ["tcp-ho"] * 7 + ["quick-vegas"] * 7
    o = dyn._basic_phase_overrides("tcp-ho", "ho-basic", 2.0 / 3.0)
    sc = build_scenario("ho-basic", **o)
    d = float(build_scenario("ho-basic").fluid_view().path.d)
    assert sc.cbr[0].start_s == pytest.approx(80.0 + 2.0 / 3.0 * d, abs=1e-5)
    assert sc.duration_s == pytest.approx(sc.cbr[0].start_s + 41.0, abs=1e-5)
    # Quick Vegas: the doubling is measured, so the CBR stops at its own 160 s and the run
    # goes on 15 s after it
    q = build_scenario("qv-basic", **dyn._basic_phase_overrides("quick-vegas", "qv-basic", 0.5))
    dq = float(build_scenario("qv-basic").fluid_view().path.d)
    assert q.cbr[0].start_s == pytest.approx(80.0 + 0.5 * dq, abs=1e-5)
    assert q.cbr[0].stop_s == pytest.approx(160.0, abs=1e-5)
    assert q.duration_s == pytest.approx(175.0, abs=1e-5)
    fake = [
        {
            "summary": {"convergence_times_s": [t, t / 2.0]},
            "t_s": [79.0, 80.0 + t, 125.0],
            "queue_pkts": [900.0, 400.0 + 100.0 * t, 5.0],  # the peak: after 80 s only
        }
        for t in (2.0, 1.2, 1.5, 1.6, 1.7, 1.8, 1.9, 4.0, 3.6, 3.9, 4.5, 3.7, 5.8, 3.8)
    ]
    assert dyn._basic_phase_range("tcp-ho", "halved", 1.5, fake) == (1.2, 2.0)
    assert dyn._basic_phase_range("tcp-ho", "max_queue", 500.0, fake) == (500.0, 600.0)
    assert dyn._basic_phase_range("quick-vegas", "halved", 3.8, fake) == (3.6, 5.8)
    assert dyn._basic_phase_range("quick-vegas", "doubled", 1.9, fake) == (1.8, 2.9)
    assert dyn._basic_phase_range("vegas", "halved", 1.5, fake) is None
    fake[0]["summary"]["convergence_times_s"] = [None, None]
    lo, _hi = dyn._basic_phase_range("tcp-ho", "halved", 1.5, fake)
    assert isinstance(lo, NA)
