"""Section ``thesis-delayed-ack`` on Tsang's thesis's networks (ch. 3 §4.5): Tables 3.26a/b
(every receiver of the many-flow network delaying its ACKs), 3.27 (the BaseRTT a Vegas
sender records behind a delayed-ACK receiver) and 3.28 (two flows, immediate or delayed
ACKs), packet runs of :mod:`._sec_thesis_many` with the thesis's ns-2 set-up.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ._common import doc, engine_cells, run_value, section_result, share_row
from ._core import ReportConfig, SectionResult, SectionSpec, Task
from ._sec_thesis_many import _MODULE, _NO_CF, _SPREAD, _mf_grid, table_of
from ._table import DOCUMENT, NA, Row
from ._thesis_ns2 import DELACK_TIMEOUT_S, MANY_FLOWS_MIN_RTO_S

#: the Vegas-3 shares (%) of Table 3.26, all its columns (their immediate-ACK runs are
#: Table 3.22's mixes and Table 3.21's Vegas-3, in thesis-many-flows)
DA_PERCENTS = (10, 30, 50, 70, 90, 100)
#: Table 3.27's run: 30 flows, half Vegas-3, delayed ACKs; the thesis does not name the
#: router: RED-5-15, its first (one of Table 3.26's runs)
T327_CASE = ("red-5-15", 30, 50)


#: Table 3.28's receivers (connection 1, connection 2; True: delaying) and its keys
_T328_ACKS: tuple[tuple[bool | list[bool], str], ...] = (
    (False, "ia-ia"),
    (True, "da-da"),
    ([True, False], "da-ia"),
)


def _da_cases(cfg: ReportConfig) -> list[tuple[str, int, int]]:
    counts, routers = _mf_grid(cfg)
    return [(r, n, p) for r in routers for n in counts for p in DA_PERCENTS]


def _two_flow_task(label: str, **kwargs: Any) -> Task:
    return Task(f"{_MODULE}:two_flow_ack_run", kwargs, f"thesis delayed ACKs: two flows {label}")


def _da_tasks(cfg: ReportConfig) -> list[Task]:
    def many(r: str, n: int, p: int, label: str = "", **kwargs: Any) -> Task:
        kw = {"flows": n, "router": r, "law": "vegas-3", "vegas_percent": p, "delayed_ack": True}
        label = f"thesis delayed ACKs: packet {r} {n} {p} % vegas-3{label}"
        return Task(f"{_MODULE}:many_flows_run", {**kw, **kwargs}, label)

    tasks = [many(*c) for c in _da_cases(cfg)]
    tasks += [_two_flow_task(label.upper(), delayed_ack=da) for da, label in _T328_ACKS]
    # beside, the library's defaults: the initial window of 2 packets; the ACK of two
    # packets echoing the first one (RFC 7323), the rounds timed from the echoed samples
    tasks.append(_two_flow_task("DA, initial window 2", delayed_ack=True, initial_window=2.0))
    tasks.append(
        _two_flow_task(
            "DA-IA, ACK echoing the first packet",
            delayed_ack=[True, False],
            delayed_ack_echo="first",
            ns2_vegas_timing=False,
        )
    )
    return [*tasks, many(*T327_CASE, ", initial window 2", initial_window=2.0)]


_DA_FLUID = NA("the fluid engines do not model delayed ACKs")
#: Table 3.28's mixed row: connection 1's receiver delays its ACKs, connection 2's does not
_DA_IA = "connection 1's receiver delays its ACKs, connection 2's does not (DA, IA)"
#: informative column: the same packet run with the library's initial window of 2 packets
_IW2 = "packet sim, initial window 2 (the library's)"
#: informative column: the same packet run with each delayed ACK of two packets echoing the
#: first one's send time (RFC 7323, the packet simulator's default), not the latest's
#: (ns-2's DelAckSink, the report's run), the senders' rounds timed from the echoed samples
_ECHO_RFC = "packet sim, delayed ACK echoing the first packet (RFC 7323)"
#: the setting of Table 3.28's rows, and its receivers
_T328_SETTING = "vegas-1_3, x1 = x2 = 1 ms, "
_IA_IA = "both receivers acknowledge at once (IA, IA)"
_DA_DA = "both receivers delay their ACKs (DA, DA)"


def _packet_row(
    setting: str, quantity: str, unit: str, kind: str, packet: float, document: float,
    case: dict[str, Any], informative: Mapping[str, float] | None = None,
) -> Row:  # fmt: skip
    """A row only the packet simulator runs (the fluid engines model no delayed ACKs), with
    ``informative`` packet columns beside."""
    extra = dict(informative or {})
    values = {**engine_cells(_NO_CF, _DA_FLUID, _DA_FLUID, packet, document), **extra}
    return Row(setting, quantity, unit, kind, values, DOCUMENT, informative=tuple(extra), case=case)


def _t26_rows(cases: list[tuple[str, int, int]], out: list[Any]) -> list[Row]:
    rows = []
    for (router, n, pct), r in zip(cases, out, strict=True):
        ref = doc(f"001/table{table_of('3.26', router)}/{router}/n{n}/vegas{pct}/delayed_ack")
        values = engine_cells(
            _NO_CF, _DA_FLUID, _DA_FLUID, run_value(r, ("jain",), "no value"), ref
        )
        who = "vegas-3" if pct == 100 else f"vegas-3 + Reno ({pct} % Vegas-3)"
        setting = f"{who}, delayed ACKs, {n} flows, {router.upper()}"
        case = {"router": router, "flows": n, "vegas_percent": pct, "delayed_ack": True}
        rows.append(share_row(setting, _SPREAD, values, DOCUMENT, two_flows=False, case=case))
    return rows


def _t27_medians(r27: dict[str, Any]) -> tuple[float, float]:
    """Over the Vegas flows of a run: the median first recorded BaseRTT and the median
    excess of the last one over the round-trip propagation."""
    veg = [i for i, a in enumerate(r27["algorithm"]) if a != "reno"]
    first = float(np.median([r27["first_base_rtt_s"][i] for i in veg]))
    excess = float(np.median([r27["last_base_rtt_s"][i] - r27["prop_rtt_s"][i] for i in veg]))
    return first, excess


def _t27_rows(r27: dict[str, Any], r27_iw2: dict[str, Any]) -> list[Row]:
    """Table 3.27's rows from its run, with the same run from the library's initial window
    of 2 packets beside."""
    if "error" in r27:
        return []
    first, excess = _t27_medians(r27)
    beside = _t27_medians(r27_iw2) if "error" not in r27_iw2 else None
    setting = "vegas-3, flows of a 50 % mix with Reno, delayed ACKs, 30 flows, RED-5-15"
    quantities = (
        ("first recorded BaseRTT, median over the Vegas flows", first, "first_base_rtt_median"),
        (
            "last recorded BaseRTT minus the round-trip propagation, median over the Vegas flows",
            excess,
            "last_base_rtt_excess_median",
        ),
    )
    rows = []
    for j, (q, v, key) in enumerate(quantities):
        extra = {_IW2: beside[j]} if beside is not None else None
        ref = doc(f"001/table3.27/{key}")
        rows.append(_packet_row(setting, q, "s", "time", v, ref, {"quantity": key}, extra))
    return rows


def _t28_rows(ia: Any, da: Any, dai: Any, da2: Any, dai_rfc: Any) -> list[Row]:
    """Table 3.28's rows from the two-flow runs (IA-IA, DA-DA, DA-IA; DA-DA from an initial
    window of 2; DA-IA with ACKs echoing the first packet)."""
    rows: list[Row] = []
    for label, r, keys in ((_IA_IA, ia, "ia-ia"), (_DA_DA, da, "da-da"), (_DA_IA, dai, "da-ia")):
        for i in (0, 1):
            echo = {_ECHO_RFC: dai_rfc["goodput_bps"][i] / 1e3} if keys == "da-ia" else {}
            rows.append(_packet_row(
                _T328_SETTING + label, f"goodput of connection {i + 1}, 10–60 s", "kb/s",
                "throughput", r["goodput_bps"][i] / 1e3,
                doc(f"001/table3.28/{keys}/goodput{i + 1}") / 1e3,
                {"acks": keys, "connection": i + 1}, echo,
            ))  # fmt: skip

    def base_rtt(label: str, r: Any, keys: str, q: str, i: int, key: str, **extra: Any) -> Row:
        return _packet_row(
            _T328_SETTING + label, f"{q} BaseRTT of connection {i + 1}", "s", "time",
            float(r[f"{q}_base_rtt_s"][i]), doc(f"001/table3.28/{keys}/{key}"),
            {"acks": keys, "connection": i + 1, "quantity": q}, extra,
        )  # fmt: skip

    # connection 1 delays its ACKs, connection 2 does not; then both delay (beside: the
    # same run from an initial window of 2); then both acknowledge at once
    both = [(i, q, f"{q}_base_rtt{i + 1}") for i in (0, 1) for q in ("first", "final")]
    rows += [base_rtt(_DA_IA, dai, "da-ia", q, i, key) for i, q, key in both]
    rows += [
        base_rtt(_DA_DA, da, "da-da", q, i, key, **{_IW2: float(da2[f"{q}_base_rtt_s"][i])})
        for i, q, key in both
    ]
    rows.append(base_rtt(_IA_IA, ia, "ia-ia", "final", 0, "final_base_rtt"))
    return rows


def _da_assemble(cfg: ReportConfig, out: list[Any]) -> SectionResult:
    cases = _da_cases(cfg)
    t26 = _t26_rows(cases, out[: len(cases)])
    r27 = out[cases.index(T327_CASE)] if T327_CASE in cases else {"error": "not run"}
    t28 = _t28_rows(*out[len(cases) : len(cases) + 5])
    t27 = _t27_rows(r27, out[len(cases) + 5])
    return section_result(
        "thesis-delayed-ack",
        cfg,
        [t26, t27 or None, t28],
        delack_timeout_s=DELACK_TIMEOUT_S,
        many_flows_min_rto_s=MANY_FLOWS_MIN_RTO_S,
        iw2=_IW2,
        echo_rfc=_ECHO_RFC,
    )


THESIS_DELAYED_ACK = SectionSpec(
    "thesis-delayed-ack", "Delayed ACKs (thesis)", _da_tasks, _da_assemble
)
