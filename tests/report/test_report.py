"""The validation report: tables, verdicts, writer, command (quick mode, tiny subsets)."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import matplotlib
import pytest

matplotlib.use("Agg")

from _report_columns import CLOSED_FORM, DOCUMENT, ODE, PACKET, ROUNDS

from tcpfluid.cli import main
from tcpfluid.report import (
    NA,
    SECTIONS,
    ReportConfig,
    Row,
    SectionResult,
    SectionSpec,
    Table,
    Task,
    Tolerance,
    build_report,
    render_html,
)

#: the kinds of quantity a row may hold (docs/report.md, "Tolerances")
KINDS = (
    "time",
    "document time",
    "rounds",
    "window",
    "queue",
    "throughput",
    "share",
    "share spread",
)


# ------------------------------------------------------------------ tables and verdicts
def _row(**values: Any) -> Row:
    return Row("s", "q", "pkts", "window", values, CLOSED_FORM)


def test_relative_error_and_verdict_by_hand() -> None:
    # windows: ±10 %. 105 vs 100: +5 % (inside); 130 vs 100: +30 % (outside) -> DIFFERS
    r = _row(**{CLOSED_FORM: 100.0, ROUNDS: 105.0, PACKET: 130.0, ODE: NA("no law")})
    assert r.relative_error(ROUNDS) == pytest.approx(0.05)
    assert r.relative_error(PACKET) == pytest.approx(0.30)
    assert r.failures == (PACKET,)
    assert r.verdict == "DIFFERS: packet sim +30 %"
    assert not r.ok
    ok = _row(**{CLOSED_FORM: 100.0, ROUNDS: 91.0})
    assert ok.verdict == "agree"
    assert not _row(**{CLOSED_FORM: 100.0, ROUNDS: 89.0}).ok


def _tolerance(kind: str) -> Tolerance:
    ref = DOCUMENT if kind == "document time" else CLOSED_FORM  # its kind's reference
    return Row("s", "q", "", kind, {ref: 1.0}, ref).tolerance


def test_one_tolerance_per_kind_within_the_caps() -> None:
    TOLERANCES = {kind: _tolerance(kind) for kind in KINDS}
    for kind, tol in TOLERANCES.items():
        assert tol.factor is None, kind  # no factor rules
        assert tol.reason, kind
    for kind in ("time", "rounds"):
        assert TOLERANCES[kind].rel <= 0.25
    assert TOLERANCES["rounds"].abs_tol <= 3.0
    assert TOLERANCES["time"].abs_tol <= 3 * 0.1  # 3 RTTs of the documents' 100-ms paths
    # a time against a document's number, read off its ns-2 plot: ±10 %
    assert TOLERANCES["document time"].rel == 0.10
    assert TOLERANCES["document time"].abs_tol <= TOLERANCES["time"].abs_tol
    for kind in ("window", "queue", "throughput", "share"):
        assert TOLERANCES[kind].rel <= 0.10 and TOLERANCES[kind].abs_tol == 0.0
    with pytest.raises(ValueError, match="kind") as info:
        Row("s", "q", "", "jain", {CLOSED_FORM: 1.0}, CLOSED_FORM)
    # the message lists the kinds: exactly these
    assert str(info.value).endswith(", ".join(KINDS))


def test_na_reference_gives_no_comparison_not_a_number() -> None:
    r = _row(**{CLOSED_FORM: NA("none"), PACKET: 3.0})
    assert r.verdict.startswith("no comparison")
    assert r.relative_error(PACKET) is None


def test_tolerance_forms() -> None:
    assert Tolerance(abs_tol=0.5).passes(8.4, 8.0)
    assert not Tolerance(abs_tol=0.5).passes(8.6, 8.0)
    with pytest.raises(ValueError, match="rel"):
        Tolerance(rel=-1)


def test_row_rejects_nan_and_unknown_reference() -> None:
    with pytest.raises(ValueError, match="finite number or NA"):
        Row("s", "q", "", "window", {CLOSED_FORM: float("nan")}, CLOSED_FORM)
    with pytest.raises(ValueError, match="reference column"):
        Row("s", "q", "", "window", {ROUNDS: 1.0}, CLOSED_FORM)


def test_html_shows_na_not_a_number() -> None:
    from tcpfluid.report import Report, SectionResult

    row = Row(
        "s",
        "q",
        "",
        "window",
        {CLOSED_FORM: 2.0, PACKET: NA("engine missing"), DOCUMENT: 2.1},
        CLOSED_FORM,
    )
    rep = Report(ReportConfig(), (SectionResult("x", "X", "intro", (Table("cap", (row,)),)),), 0.0)
    page = render_html(rep)
    assert "n/a" in page and "engine missing" in page
    assert "±10 %: a window" in page  # the tolerance's reason is stated


# ------------------------------------------------------------------ options
def test_unknown_section_is_rejected_with_the_list() -> None:
    with pytest.raises(ValueError, match="unknown section 'nope'; valid sections: critical-window"):
        build_report("nope")


def test_bad_jobs() -> None:
    with pytest.raises(ValueError, match="jobs must be an integer >= 1"):
        ReportConfig(jobs=0)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["report", "--sections", "bogus"], "unknown section 'bogus'"),
        (["report", "--jobs", "two"], "--jobs must be an integer >= 0"),
        (["report", "--jobs", "-1"], "--jobs must be an integer >= 0"),
    ],
)
def test_cli_bad_options(argv: list[str], message: str, capsys, tmp_path: Path) -> None:
    assert main([*argv, "--out", str(tmp_path / "o")]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "o").exists()  # nothing written before the error


def test_cli_out_is_a_file(tmp_path: Path, capsys) -> None:
    f = tmp_path / "file"
    f.write_text("x")
    assert main(["report", "--out", str(f), "--sections", "conspicuous"]) == 2
    assert "--out must be a directory" in capsys.readouterr().err
    out = tmp_path / "rep"
    assert (
        main(["report", "--out", str(out), "--figures", str(f), "--sections", "conspicuous"]) == 2
    )
    assert "--figures must be a directory" in capsys.readouterr().err
    assert not out.exists()  # refused before any section ran


def test_cli_output_below_a_file_is_refused_before_any_run(tmp_path: Path, capsys) -> None:
    # a folder that cannot be created (its parent is a file) fails at once, naming the option,
    # instead of after minutes of runs when the report is written
    f = tmp_path / "file"
    f.write_text("x")
    for option in ("--out", "--figures"):
        other = ["--out", str(tmp_path / "rep")] if option == "--figures" else []
        argv = ["report", *other, option, str(f / "sub"), "--sections", "conspicuous"]
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert option in err and "cannot be written" in err
    assert not (tmp_path / "rep").exists()


def test_cli_quick_subset(tmp_path: Path, capsys) -> None:
    out = tmp_path / "rep"
    figs = tmp_path / "figs"
    code = main(
        [
            "report",
            "--quick",
            "--sections",
            "critical-window",
            "--out",
            str(out),
            "--figures",
            str(figs),
        ]
    )
    assert code == 0
    captured = capsys.readouterr()
    assert captured.err == ""  # stderr is not a terminal here: no progress bar
    assert (figs / "critical_window.png").exists()
    m = re.search(r"(\d+) rows, (\d+) flagged DIFFERS", captured.out)
    assert m
    md = (out / "index.md").read_text(encoding="utf-8")
    # the printed count is the summary's
    assert f"{m.group(2)} of {m.group(1)} rows DIFFER" in md


def test_sections_listed_in_order() -> None:
    assert list(SECTIONS) == [
        "critical-window",
        "new-equilibrium",
        "conspicuous",
        "basic",
        "convergence-bdp",
        "many-flows",
        "thesis-fairness",
        "thesis-vegas-delta",
        "thesis-reno",
        "thesis-many-flows",
        "thesis-delayed-ack",
        "asymmetric",
        "ho-fairness",
        "ho-friendliness",
        "itcp-tables",
    ]


def _basic_run(goodput_pps: float) -> dict:
    import numpy as np

    # what the basic section reads of a run: settling times, traces, the path's rate
    t = np.arange(0.0, 241.0, 1.0)
    return {
        "summary": {"convergence_times_s": [1.0, 1.0], "time_to_equilibrium_s": 1.0},
        "t_s": t,
        "queue_pkts": np.zeros(t.size),
        "window_pkts": np.ones((1, t.size)),
        "goodput_pps": np.full((1, t.size), goodput_pps),
        "mu_pps": 6250.0,
    }


def test_collapsed_flow_is_flagged_not_hidden() -> None:
    # a flow delivering 50 pkt/s on a 6250 pkt/s path over its last 20 s: below 10 %
    cfg = ReportConfig(quick=True)
    tasks = SECTIONS["basic"].tasks(cfg)

    out = [_basic_run(50.0 if t.label == "basic: packet tcp-ho" else 6250.0) for t in tasks]
    flagged = [n for n in SECTIONS["basic"].assemble(cfg, out).notes if n.startswith("FLAG")]
    # the other laws' flows deliver the path's rate: not flagged
    assert len(flagged) == 1 and "50 packets/s" in flagged[0] and "TCP-Ho" in flagged[0]


# ------------------------------------------------------------ progress, order, output folders
class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def _register(monkeypatch: pytest.MonkeyPatch, *specs: SectionSpec) -> None:
    """``specs`` added to the report's sections for this test (after the built-in ones,
    in the order given), for :func:`build_report` to run by name."""
    for spec in specs:
        assert spec.name not in SECTIONS
        monkeypatch.setitem(SECTIONS, spec.name, spec)


def _section(name: str, tasks: list[Task], seen: list | None = None) -> SectionSpec:
    """A section of ``tasks`` whose assembly records its results in ``seen``."""

    def assemble(cfg: ReportConfig, results: list) -> SectionResult:
        if seen is not None:
            seen.append(list(results))
        return SectionResult(name, name.upper(), "", ())

    return SectionSpec(name, name.upper(), lambda cfg: list(tasks), assemble)


def test_progress_bar_on_a_terminal_counts_tasks_and_names_the_last(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tasks = [Task("builtins:dict", {}, f"task {k}", cost=1.0) for k in range(3)]
    _register(monkeypatch, _section("count", tasks))
    stream = _Tty()
    build_report(["count"], progress=True, stream=stream)
    text = stream.getvalue()
    assert "report (3 tasks)" in text and "100%" in text and "3/3 task 2" in text
    quiet = _Tty()
    build_report(["count"], progress=False, stream=quiet)
    assert quiet.getvalue() == ""


def test_quick_report_has_its_own_default_folder(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["report", "--quick", "--sections", "conspicuous", "--quiet"]) == 0
    assert (tmp_path / "report-quick" / "index.md").exists()
    assert not (tmp_path / "report").exists()


def test_quick_run_refuses_to_overwrite_a_full_report(tmp_path: Path, capsys) -> None:
    out = tmp_path / "report"
    out.mkdir()
    full = json.dumps({"config": {"quick": False, "jobs": 2}, "sections": []})
    (out / "report.json").write_text(full, encoding="utf-8")
    argv = ["report", "--quick", "--sections", "conspicuous", "--out", str(out)]
    assert main(argv) == 2
    assert "holds a full report" in capsys.readouterr().err
    assert (out / "report.json").read_text(encoding="utf-8") == full
    assert sorted(p.name for p in out.iterdir()) == ["report.json"]


def test_a_run_that_did_not_settle_is_marked_not_dropped() -> None:
    # the convergence figure marks a run that did not settle on a band at the top of its
    # panel (one band per panel, svg id "not-settled"); a run an engine refused is not marked
    import numpy as np

    cfg = ReportConfig(quick=True)
    tasks = SECTIONS["convergence-bdp"].tasks(cfg)

    def run(halved: float | None, doubled: float | None) -> dict:
        t = np.array([1.0, 79.0, 100.0, 170.0])
        conv = [halved, doubled]
        return {"summary": {"convergence_times_s": conv, "time_to_equilibrium_s": 1.0},
                "t_s": t, "queue_pkts": np.zeros(t.size)}  # fmt: skip

    def bands(changes: dict[int, dict]) -> int:
        out = [changes.get(k, run(1.0, 1.0)) for k in range(len(tasks))]
        svg = SECTIONS["convergence-bdp"].assemble(cfg, out).figures[0].svg.decode()
        return svg.count('id="not-settled"')

    assert bands({}) == 0
    # two runs that did not settle after the halving: one band on that panel; a run an
    # engine refused (every kind n/a) adds none on the other panels
    assert bands({0: {"error": "bad"}, 1: run(None, 1.0), 3: run(None, 1.0)}) == 1
    # every run of a panel did not settle: the panel has no data, only its band (its log
    # axis has no data limits to leave room above)
    assert bands({k: run(None, 1.0) for k in range(len(tasks))}) == 1


def test_a_section_is_assembled_when_its_last_task_is_in(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # each task prints its label (one job: in this process); an assembly reads what the
    # tasks printed since the one before it: its own tasks' lines, no later section's
    events: list[tuple[str, int, str]] = []

    def spec(name: str, n: int) -> SectionSpec:
        def tasks(cfg: ReportConfig) -> list[Task]:
            return [
                Task("builtins:print", {"end": f"{name} {k}\n"}, f"{name} {k}") for k in range(n)
            ]

        def assemble(cfg: ReportConfig, results: list) -> SectionResult:
            events.append((name, len(results), capsys.readouterr().out))
            return SectionResult(name, name.upper(), "", ())

        return SectionSpec(name, name.upper(), tasks, assemble)

    _register(monkeypatch, spec("a", 2), spec("none", 0), spec("b", 1))
    rep = build_report(["b", "a", "none"], jobs=1)
    assert [s.name for s in rep.sections] == ["a", "none", "b"]  # report order kept
    # each assembled once, as soon as complete
    assert events == [("none", 0, ""), ("a", 2, "a 0\na 1\n"), ("b", 1, "b 0\n")]


@pytest.mark.parametrize("quick", [False, True])
def test_no_run_is_done_twice(quick: bool) -> None:
    # every task of the report (full and quick) is a different run: no section repeats
    # another's engine run with the same scenario, algorithm and options
    tasks = [t for s in SECTIONS.values() for t in s.tasks(ReportConfig(quick=quick))]
    keys = [(t.function, repr(sorted(t.kwargs.items()))) for t in tasks]
    assert len(set(keys)) == len(keys)


def test_a_pool_returns_the_results_in_task_order_and_completes_the_bar(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[list] = []
    tasks = [Task("builtins:dict", {"k": k}, f"t{k}") for k in range(5)]
    _register(monkeypatch, _section("pool", tasks, seen))
    stream = _Tty()
    rep = build_report(["pool"], jobs=2, progress=True, stream=stream)
    assert seen == [[{"k": k} for k in range(5)]]
    timings = rep.to_dict()["tasks"]
    assert [t["label"] for t in timings] == [f"t{k}" for k in range(5)]
    assert all(isinstance(t["worker"], int) and t["worker"] >= 0 for t in timings)
    text = stream.getvalue()
    assert "5/5" in text and "100%" in text


def _section_function(section: str, name: str) -> str:
    """The ``module:name`` path of a task function the report's ``section`` uses."""
    tasks = SECTIONS[section].tasks(ReportConfig(quick=True))
    return next(t.function for t in tasks if t.function.endswith(f":{name}"))


def test_help_lists_the_sections_in_order() -> None:
    from tcpfluid.cli.report import SECTION_TITLES

    assert SECTION_TITLES == tuple((name, spec.title) for name, spec in SECTIONS.items())


def test_report_help_imports_no_section() -> None:
    # `tcpfluid report --help` lists the sections without importing them (SciPy, Numba,
    # matplotlib: seconds of start-up); a fresh interpreter shows what it loaded
    import json
    import subprocess
    import sys

    code = (
        "import contextlib, io, json, sys\n"
        "from tcpfluid.cli import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        "    try:\n"
        "        main(['report', '--help'])\n"
        "    except SystemExit as exc:\n"
        "        assert exc.code == 0\n"
        "assert 'thesis-fairness: Two-flow fairness (thesis)' in out.getvalue()\n"
        "heavy = ('scipy', 'numba', 'matplotlib', 'pandas', 'sympy', 'tcpfluid.report')\n"
        "print(json.dumps([m for m in heavy if m in sys.modules]))\n"
    )
    res = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert json.loads(res.stdout.strip().splitlines()[-1]) == []


def test_the_report_records_the_cpu_of_its_tasks_and_of_its_own_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tcpfluid.report import render_markdown

    def tasks(cfg: ReportConfig) -> list[Task]:
        kwargs = {"algorithm": "vegas", "params": {}, "bdp_pkts": [625.0] * 50, "d_s": 0.1}
        fn = _section_function("critical-window", "rounds_bdp_batch")
        return [Task(fn, {**kwargs, "rounds": 6000})]

    def assemble(cfg: ReportConfig, results: list) -> SectionResult:
        row = Row("s", "q", "", "window", {CLOSED_FORM: 1.0, PACKET: 1.0}, CLOSED_FORM)
        return SectionResult("x", "X", "intro", (Table("cap", (row,)),))

    _register(monkeypatch, SectionSpec("x", "X", tasks, assemble))
    rep = build_report(["x"], jobs=1)
    d = rep.to_dict()
    assert d["tasks_cpu_s"] == pytest.approx(sum(t["cpu_s"] for t in d["tasks"]), abs=1e-3)
    assert d["tasks_cpu_s"] > 0.0
    # with one job the task ran in this process: the report's own CPU excludes it
    assert 0.0 <= d["main_cpu_s"] < d["tasks_cpu_s"]
    assert f"{rep.tasks_cpu_s:.1f} s CPU in 1 tasks" in render_markdown(rep)
