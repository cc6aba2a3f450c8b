"""The one way to run anything, held as a contract: every key of every engine's summary
declared with its type, unit and length; ``tcpfluid.simulate`` shown first; one vocabulary
(``rtt_model``, unit suffixes, units parsed in one module); no numbered work items.

Independent routes: the units are checked against the run's own dimensions (a 20-s run, a
5 Mb/s bottleneck of 1000-byte packets, a 20-packet buffer, two flows), not against the
summary code; the text checks read the files as a reader would.
"""

from __future__ import annotations

import inspect
import json
import math
import re
from pathlib import Path
from typing import Any, cast

import pytest

import tcpfluid
from tcpfluid.engines import ENGINES, engine_options
from tcpfluid.results import Result
from tcpfluid.scenarios import build_scenario

ROOT = Path(__file__).resolve().parents[2]
DURATION_S = 20.0
MU_PPS = 625.0  # 5 Mb/s of 1000-byte packets
BUFFER_PKTS = 20.0
N_FLOWS = 2
LOSSY = {
    "bandwidth": "5Mbps",
    "rtt": "50ms",
    "buffer": int(BUFFER_PKTS),
    "flows": N_FLOWS,
    "duration": f"{DURATION_S:g}s",
    "cbr_start": "8s",
    "cbr_stop": "14s",
}


def _time(v: Any) -> bool:
    return v is None or (isinstance(v, float) and 0.0 <= v <= DURATION_S)


def _window(v: Any) -> bool:
    # a window never exceeds what the path and the buffer hold (plus slow start's overshoot)
    return v is None or (isinstance(v, float) and 0.0 < v <= 4 * (MU_PPS * 0.05 + BUFFER_PKTS))


def _queue(v: Any) -> bool:
    return isinstance(v, float) and 0.0 <= v <= BUFFER_PKTS + 1.0


def _rate(v: Any) -> bool:
    return v is None or (isinstance(v, float) and 0.0 <= v <= MU_PPS * 1.001)


def _fraction(v: Any) -> bool:
    return isinstance(v, float) and 0.0 <= v <= 1.0 + 1e-9


def _count(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and v >= 0


def _list_of(check: Any) -> Any:
    return lambda v: isinstance(v, list) and all(check(x) for x in v)


#: every key a summary may hold -> (unit, one value per flow?, check of one value).
#: Units: "s" seconds, "pkts" packets, "pps" packets/s, "fraction" of capacity or of
#: packets, "index" Jain's index, "events" loss events, "count" packets or timeouts,
#: "label" names and kinds, "flag" booleans, "rounds" round numbers (round 1 = [0, d]).
KEYS: dict[str, tuple[str, bool, Any]] = {
    # the flow-0 keys every engine had (their names kept; units stated here)
    "ss_exit_window": ("pkts", False, _window),
    "ss_exit_time_s": ("s", False, _time),
    "ss_exit_round": ("rounds", False, lambda v: v is None or (isinstance(v, int) and v >= 1)),
    "settled_window": ("pkts", False, _window),
    "time_to_equilibrium_s": ("s", False, _time),
    "convergence_times_s": ("s", False, _list_of(_time)),
    "change_times_s": ("s", False, _list_of(_time)),
    "utilization": ("fraction", False, lambda v: _fraction(v) and v > 0),
    "jain_index": ("index", False, lambda v: isinstance(v, float) and 0.5 <= v <= 1 + 1e-12),
    "throughput_pps": ("pps", True, lambda v: _rate(v) and v > 0),
    "losses": ("events", True, _count),
    # per-flow and aggregate keys
    "flow_names": ("label", True, lambda v: isinstance(v, str)),
    "flow_start_s": ("s", True, _time),
    "flow_stop_s": ("s", True, lambda v: v is None or _time(v)),
    "ss_exit_windows_pkts": ("pkts", True, _window),
    "ss_exit_times_s": ("s", True, _time),
    "ss_exit_rounds": ("rounds", True, lambda v: v is None or (isinstance(v, int) and v >= 1)),
    "settled_windows_pkts": ("pkts", True, _window),
    "times_to_equilibrium_s": ("s", True, _time),
    "convergence_times_per_flow_s": ("s", True, _list_of(_time)),
    "cycle_centres_pkts": ("pkts", True, _window),
    # a cycle's half-range is at most half the largest window
    "cycle_amplitudes_pkts": ("pkts", True, lambda v: v is None or _window(2.0 * v + 1.0)),
    "not_settled_reasons": ("label", True, lambda v: v is None or (isinstance(v, str) and v)),
    "change_kinds": ("label", False, _list_of(lambda v: isinstance(v, str))),
    "all_settled_time_s": ("s", False, _time),
    "all_converged_times_s": ("s", False, _list_of(_time)),
    "losses_unit": ("label", False, lambda v: v == "loss events"),
    "bottleneck": ("label", False, lambda v: v == "R1-R2"),
    "notes": ("label", False, lambda v: v == []),
    # the ODE engine's own keys
    "measure_from_s": ("s", False, _time),
    "measure_to_s": ("s", False, _time),
    "mean_queue_pkts": ("pkts", False, _queue),
    "final_queue_pkts": ("pkts", False, _queue),
    "final_windows_pkts": ("pkts", True, _window),
    "base_rtt_overestimate_s": ("s", True, _time),
    "lost_pkts": ("pkts", False, _count),
    "loss_fraction": ("fraction", False, _fraction),
    "lost_pkts_per_flow": ("pkts", True, _count),
    # the packet engine's own keys
    "retransmissions": ("count", True, _count),
    "timeouts": ("count", True, _count),
    "packets_per_s": ("pps", False, lambda v: isinstance(v, float) and v > 0),
    "events_per_s": ("count", False, lambda v: isinstance(v, float) and v > 0),
    "conserved": ("flag", False, lambda v: v is True),
}
#: the unit a key's suffix states; a key without one is in NO_SUFFIX with its reason
SUFFIX_UNITS = {"_s": "s", "_pkts": "pkts", "_pps": "pps"}
NO_SUFFIX = {
    "ss_exit_window": "kept name (packets; ss_exit_windows_pkts is its per-flow form)",
    "settled_window": "kept name (packets; settled_windows_pkts is its per-flow form)",
    "ss_exit_round": "a round number",
    "ss_exit_rounds": "round numbers",
    "utilization": "a fraction",
    "loss_fraction": "a fraction",
    "jain_index": "an index in (0, 1]",
    "losses": "loss events, unit in losses_unit",
    "lost_pkts_per_flow": "packets (suffix inside the name: lost_pkts)",
    "retransmissions": "a count of packets",
    "timeouts": "a count",
    "flow_names": "names",
    "change_kinds": "names",
    "losses_unit": "a unit name",
    "bottleneck": "a link name",
    "notes": "text",
    "not_settled_reasons": "text",
    "conserved": "a flag",
}


@pytest.fixture(scope="module", params=sorted(ENGINES))
def lossy(request: Any) -> Result:
    sc = build_scenario("qv-basic", **LOSSY).with_algorithm("reno")
    return tcpfluid.simulate(sc, request.param)


def test_every_summary_key_of_every_engine_is_declared_with_its_unit(lossy: Result) -> None:
    out = json.loads(json.dumps(lossy.summary.to_dict()))  # what --json prints
    undeclared = sorted(set(out) - set(KEYS))
    assert not undeclared, f"{lossy.engine}: keys with no declared unit: {undeclared}"
    for key, value in out.items():
        unit, per_flow, ok = KEYS[key]
        values = value if per_flow else [value]
        if per_flow:
            assert isinstance(value, list) and len(value) == N_FLOWS, (lossy.engine, key, value)
        for v in values:
            assert ok(v), f"{lossy.engine}: {key} = {v!r} is not a value in {unit}"
    # the convergence lists have one entry per change (the CBR's start and stop)
    assert out["change_times_s"] == [8.0, 14.0]
    assert all(len(row) == 2 for row in out["convergence_times_per_flow_s"])
    # a lossy run: every engine counts loss events for both flows
    assert all(x > 0 for x in out["losses"]), (lossy.engine, out["losses"])


def test_the_engines_own_summaries_share_one_definition(lossy: Result) -> None:
    """Each engine's native summary is an EngineSummary: the same fields, and JSON keys that
    are a subset of the common summary's (each declared above with its unit)."""
    from tcpfluid.results import EngineSummary

    # the ode and hybrid engines run the hybrid model; their OdeResult keeps the hybrid's
    # own result (the classical model's OdeSummary is a table of its own, with tuples)
    own = getattr(lossy.native, "hybrid", None) or lossy.native
    native = own.summary
    assert isinstance(native, EngineSummary), type(native)
    keys = set(cast(Any, native).to_dict())  # each engine's summary class has to_dict
    assert keys <= set(KEYS), sorted(keys - set(KEYS))
    assert keys <= set(lossy.summary.to_dict()), sorted(keys - set(lossy.summary.to_dict()))
    shared = [f for f in EngineSummary.__dataclass_fields__ if not f.startswith("_")]
    for field in shared:
        assert hasattr(native, field), (lossy.engine, field)
    assert native.throughput_pps.shape[-1] == N_FLOWS == native.losses.shape[-1]


def test_every_key_states_its_unit_by_suffix_or_by_a_stated_reason() -> None:
    for key, (unit, _, _) in KEYS.items():
        if key.endswith("_per_s"):  # a rate: packets or events per (wall-clock) second
            assert unit in ("pps", "count"), key
            continue
        suffix = next((s for s in SUFFIX_UNITS if key.endswith(s)), None)
        if suffix is not None:
            assert SUFFIX_UNITS[suffix] == unit, key
        else:
            assert key in NO_SUFFIX, f"{key}: no unit suffix and no stated reason"


def test_every_engine_option_with_a_unit_carries_its_suffix() -> None:
    """Options that are quantities end in their unit; the older names stay as aliases."""
    quantities = {"sample_interval", "delack_timeout", "min_rto", "initial_rto", "max_rto"}
    for engine in ENGINES:
        opts = set(engine_options(engine))
        for name in opts & quantities:
            assert f"{name}_s" in opts, (engine, name)


def test_the_packet_time_options_and_their_aliases_agree() -> None:
    from tcpfluid.sim import simulate_packets

    sc = build_scenario("qv-basic", **{**LOSSY, "duration": "3s"}).with_algorithm("reno")
    new = simulate_packets(sc, min_rto_s=0.3, sample_interval_s=0.05, delack_timeout_s=0.05)
    with pytest.warns(DeprecationWarning) as caught:  # the older names work, and warn
        old = simulate_packets(sc, min_rto=0.3, sample_interval=0.05, delack_timeout=0.05)
    assert sorted(str(w.message).split("'")[1] for w in caught) == [
        "delack_timeout", "min_rto", "sample_interval",
    ]  # fmt: skip
    assert new.t_s.size == old.t_s.size == 61
    assert new.events == old.events and new.data_packets == old.data_packets
    with (
        pytest.raises(ValueError, match="min_rto_s or its alias min_rto"),
        pytest.warns(DeprecationWarning),
    ):
        simulate_packets(sc, min_rto_s=0.3, min_rto=0.4)
    with (
        pytest.raises(ValueError, match="min_rto_s must be <= max_rto"),
        pytest.warns(DeprecationWarning),
    ):
        simulate_packets(sc, min_rto_s=3.0, max_rto=2.0)
    with pytest.raises(ValueError, match=r"sample_interval_s must be > 0"):
        simulate_packets(sc, sample_interval_s=0.0)


def _public_callables() -> list[tuple[str, Any]]:
    import importlib

    out = []
    for mod_name in (
        "tcpfluid",
        "tcpfluid.analytic",
        "tcpfluid.engines",
        "tcpfluid.fluid",
        "tcpfluid.sim",
        "tcpfluid.fairness",
        "tcpfluid.sweep",
        "tcpfluid.testing",
        "tcpfluid.metrics",
    ):
        mod = importlib.import_module(mod_name)
        for name in getattr(mod, "__all__", ()):
            obj = getattr(mod, name)
            if callable(obj) and not inspect.isclass(obj):
                out.append((f"{mod_name}.{name}", obj))
    return out


def test_every_public_rtt_model_parameter_is_called_rtt_model() -> None:
    """``rtt`` is a base RTT in paths and scenarios; where a function means the RTT model
    it takes ``rtt_model`` (``rtt`` stays accepted as its alias)."""
    checked = 0
    for qualname, fn in _public_callables():
        try:
            params = inspect.signature(fn).parameters
        except (TypeError, ValueError):
            continue
        for name, p in params.items():
            ann = str(p.annotation)
            means_model = "average" in ann or "RttModel" in ann or "RttKind" in ann
            if name == "rtt" and means_model:
                assert "rtt_model" in params, f"{qualname}: rtt= without rtt_model="
                checked += 1
    assert checked >= 3  # predict, conspicuous_round, critical_window at least


def test_the_readme_and_the_api_reference_show_simulate_first() -> None:
    assert tcpfluid.__all__[0] == "simulate"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```python\n(.*?)```", readme, re.S)
    assert block is not None
    calls = re.findall(r"\b(tcpfluid\.\w+|simulate_\w+|critical_window|predict)\(", block[1])
    assert calls and calls[0] == "tcpfluid.simulate", calls[:3]
    api = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    top = api.split("## `tcpfluid`", 1)[1]
    first = re.search(r"^- (?:class )?`(\w+)", top, re.M)
    assert first is not None and first[1] == "simulate"


#: a reference to a numbered work item: the word issue, ticket, task, item or milestone
#: followed by a number
_WORK_ITEM = re.compile(
    r"\b(?:issue|ticket|work item|milestone|task|item)s?\s*#?\d+(?![\d/%.])", re.IGNORECASE
)
#: text that looks like one and is not: a progress counter ("3/3 task 2")
_NOT_A_WORK_ITEM = re.compile(r"\d+/\d+ task \d+")


def test_no_numbered_work_items_in_code_docs_tests_or_examples() -> None:
    found = []
    for folder in ("src", "docs", "tests", "examples", "notebooks", "benchmarks"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix not in {".py", ".md", ".ipynb", ".toml", ".txt", ".rst"}:
                continue
            if path.name == "api.md" or "__pycache__" in path.parts:
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            for m in _WORK_ITEM.finditer(_NOT_A_WORK_ITEM.sub("", text)):
                found.append(f"{path.relative_to(ROOT)}: {m[0]!r}")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    found += [f"README.md: {m[0]!r}" for m in _WORK_ITEM.finditer(readme)]
    assert not found, "\n".join(found)


def test_units_are_parsed_in_one_module() -> None:
    """Strings with units ("50Mbps", "100ms", "1000B", "inf") are read by tcpfluid.units
    only: no other module matches a unit name."""
    unit_text = re.compile(r"""endswith\(\s*["'](?:ms|us|s|bps|kbps|Mbps|Gbps|B|KB|MB|kb|Mb)["']""")
    offenders = [
        str(p.relative_to(ROOT))
        for p in sorted((ROOT / "src" / "tcpfluid").rglob("*.py"))
        if p.name != "units.py" and unit_text.search(p.read_text(encoding="utf-8"))
    ]
    assert not offenders, offenders
    from tcpfluid import units

    assert units.seconds("100ms") == pytest.approx(0.1)
    assert math.isinf(units.buffer_pkts("inf"))
    assert tcpfluid.Path("10Mbps", "50ms", buffer="inf").buffer_pkts == math.inf


#: the documents' short keys and the titles code and docs use for them
DOCUMENTS = {
    "000": "Quick Vegas paper",
    "001": "Tsang's thesis",
    "002": "iTCP-Vegas paper",
    "003": "asymmetric",
    "004": "TCP-Ho paper",
}


def test_each_short_document_key_is_explained_once_in_the_readme_and_the_report() -> None:
    from tcpfluid.report import Report, ReportConfig, render_markdown

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    # the report's header line naming the documents (a report of no sections has it too)
    page = render_markdown(Report(ReportConfig(), (), 0.0))
    (keys_line,) = re.findall(r"^Documents: .*$", page, re.M)
    for key, title in DOCUMENTS.items():
        words = r"\s+".join(map(re.escape, title.split()))  # a line may break anywhere
        explained = re.findall(rf"\b{key}\s+(?:the\s+)?{words}", readme)
        assert len(explained) == 1, (key, explained)
        assert re.search(rf"\b{key} [^;.]*{words}", keys_line), key


# ------------------------------------------------------------------ the public surface kept
#: the public surface every version keeps: module ``__all__`` names, command options and
#: ``simulate --json`` keys (tests/repo/public_surface.json, a record of what users rely on)
SURFACE = json.loads((ROOT / "tests" / "repo" / "public_surface.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("module", sorted(SURFACE["names"]))
def test_every_public_name_still_resolves(module: str) -> None:
    import importlib

    mod = importlib.import_module(module)
    listed = set(getattr(mod, "__all__", ()))
    for name in SURFACE["names"][module]:
        assert name in listed, f"{module}.{name} left __all__"
        getattr(mod, name)  # resolves (lazy names load here)


def test_the_fairness_studies_thesis_table_3_16_is_the_published_table() -> None:
    # one copy of the printed numbers: tcpfluid.fairness re-exports tcpfluid.published's mapping,
    # whose 13 rows (x2 = 110 ms down to 1 ms) x 4 settings are the 001/table3.16 entries
    import tcpfluid.fairness
    import tcpfluid.published as pub

    assert tcpfluid.fairness.THESIS_TABLE_3_16 is pub.THESIS_TABLE_3_16
    table = pub.THESIS_TABLE_3_16
    assert list(table) == [110, 100, 90, 80, 70, 60, 50, 40, 30, 20, 10, 5, 1]
    for x2, row in table.items():
        assert list(row) == ["vegas-1", "vegas-2", "vegas-3", "vegas-1_3"]
        for setting, jain in row.items():
            entry = pub.published(f"001/table3.16/{setting}/x2_{x2}")
            assert (entry.where, entry.quantity, entry.value) == (
                "ch. 3 Table 3.16",
                "jain_index",
                jain,
            )
    assert table[80]["vegas-1"] == 0.858  # as printed (the table's lowest Vegas-1 index)


def _help_options(command: str, capsys: Any) -> set[str]:
    """The option strings ``tcpfluid COMMAND --help`` lists: each entry of its options
    starts a line with two spaces and its invocations (``-q, --quiet, --no-progress``,
    an option's metavar after a space), its help two spaces later or on the next line."""
    from tcpfluid.cli import main

    with pytest.raises(SystemExit) as done:
        main([command, "--help"])
    assert done.value.code == 0
    have: set[str] = set()
    for line in capsys.readouterr().out.splitlines():
        if re.match(r"^  -", line):
            invocations = re.split(r"\s{2,}", line.strip())[0]
            have |= {part.split()[0] for part in invocations.split(", ")}
    return have


def test_every_command_option_is_still_accepted(capsys: Any) -> None:
    for command, options in SURFACE["cli_options"].items():
        have = _help_options(command, capsys)
        assert "--help" in have and "-h" in have  # the listing was read
        missing = sorted(set(options) - have)
        assert not missing, f"tcpfluid {command}: options gone: {missing}"


@pytest.mark.parametrize("engine", sorted(SURFACE["simulate_json_keys"]))
def test_simulate_json_keeps_every_key(engine: str, capsys: Any) -> None:
    from tcpfluid.cli import main

    argv = ["simulate", "qv-basic", "-a", "reno", "-e", engine, "--json"]
    argv += ["--set", "duration=5s", "--set", "buffer=20", "--set", "bandwidth=5Mbps"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    missing = sorted(set(SURFACE["simulate_json_keys"][engine]) - set(out))
    assert not missing, f"{engine}: --json keys gone: {missing}"
    assert out["engine"] == engine and out["status"] == 0 and out["message"].startswith("ok")


def test_the_older_option_names_still_run_and_warn() -> None:
    """Each older keyword reaches its new name through the one deprecation helper."""
    sc = build_scenario("qv-basic", duration="4s", cbr="none").with_algorithm("vegas")
    cases: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
        ("rounds", {"rtt": "last"}, {"rtt_model": "last"}),
        ("packet", {"sample_interval": 0.5}, {"record_interval_s": 0.5}),
        ("packet", {"min_rto": 0.3}, {"min_rto_s": 0.3}),
        ("ode", {"n_points": 9}, {"record_interval_s": 0.5}),
        ("hybrid", {"record_every_s": 0.5}, {"record_interval_s": 0.5}),
    ]
    for engine, old, new in cases:
        with pytest.warns(DeprecationWarning, match=f"{next(iter(old))!r} is deprecated"):
            a = tcpfluid.simulate(sc, engine, **old)
        b = tcpfluid.simulate(sc, engine, **new)
        assert a.time_s.tolist() == b.time_s.tolist(), (engine, old)
        drop = ("packets_per_s", "events_per_s")
        assert {k: v for k, v in a.summary.to_dict().items() if k not in drop} == {
            k: v for k, v in b.summary.to_dict().items() if k not in drop
        }
    with pytest.raises(TypeError, match="rtt_model or its older name rtt"):
        tcpfluid.simulate(sc, "rounds", rtt="last", rtt_model="last")
