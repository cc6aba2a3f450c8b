"""Scenario files: an experiment written in TOML, run as written by every engine.

A scenario file describes links, flows (one by one or in groups), cross traffic and queue
disciplines; tcpfluid derives what the file leaves out. The smallest useful file::

    name = "eight-vegas-two-reno"
    duration = "60s"

    [[link]]
    name = "bottleneck"
    rate = "100Mbps"
    delay = "10ms"
    buffer = 300

    [[flow]]
    algorithm = "vegas"
    count = 8
    rtt = ["20ms", "40ms", "60ms", "80ms", "100ms", "120ms", "40ms", "60ms"]
    params = { alpha = 2, beta = 4 }

    [[flow]]
    algorithm = "reno"
    count = 2
    rtt = "60ms"
    start = "20s"

Top-level keys (:data:`TOP_KEYS`)
    ``name`` (default: the file's stem), ``description``, ``duration`` (required),
    ``packet_size`` (default ``"1000B"``), ``ack_size`` (``"40B"``), ``access_rate`` (the
    rate of the derived access links; default ten times the fastest declared link, so that
    an access link is never the bottleneck), ``start_spread``/``start_seed`` (as every
    named scenario: :data:`tcpfluid.scenarios.catalogue.START_SPREAD_DEFAULTS`), ``notes``
    (a list of strings) and ``[params]`` (a table recorded in
    :attr:`Scenario.params <tcpfluid.scenarios.Scenario.params>`; it changes nothing).
``[[link]]`` (:data:`LINK_KEYS`): one direction of a wire
    ``name``, ``rate`` (``"100Mbps"``, or a number in bits/s), ``delay`` (one way;
    ``"10ms"`` or seconds), ``buffer`` (packets, ``"inf"``, or bytes such as ``"64kB"``;
    default ``"inf"``), ``queue`` (``"drop-tail"`` or ``"red"``) and ``red`` (``{ min_th,
    max_th, max_p, w_q, gentle }``, packets; :mod:`tcpfluid.queueing`), and ``reverse``:
    a table (``rate``, ``delay``, ``buffer``) changing the derived reverse direction.
``[[flow]]`` (:data:`FLOW_KEYS`): one flow, or ``count`` flows alike
    ``algorithm`` (a name of :data:`tcpfluid.algorithms.ALGORITHMS`; may be left to
    ``tcpfluid simulate -a``), ``params`` (the law's parameters), ``count`` (default 1),
    ``name`` (one flow: its name; a group: the prefix of ``NAME-1``, ``NAME-2``...;
    default the algorithm's name), ``rtt`` (the round-trip propagation delay, as the
    named scenarios' ``rtt``; one value or one per flow), ``start``/``stop`` (one value or
    one per flow; default 0 and never), ``path`` (the declared links the data crosses, in
    order; default every declared link in the file's order), ``reverse_path`` (the links
    the ACKs cross; default the reverse direction of each path link, derived, in reverse
    order) and ``access_rate``.
``[[cbr]]`` (:data:`CBR_KEYS`): constant-bit-rate cross traffic
    ``name``, ``rate`` (a bit rate, or a share of the slowest link of its path such as
    ``"50%"``), ``start``, ``stop``, ``path`` (default every declared link).

What is derived
---------------
* The **reverse direction** of every declared link a flow's default reverse path
  crosses: link ``NAME-rev``, same rate, delay and buffer, drop-tail (``reverse``
  changes it).
* With ``rtt``: each flow's four **access links** (``FLOW-in``, ``FLOW-out`` for the
  data, ``FLOW-out-ack``, ``FLOW-in-ack`` for the ACKs) at ``access_rate``, unlimited
  buffers, whose one-way delay makes the flow's round-trip propagation delay ``rtt``:
  ``(rtt - delays of the path and reverse path) / 4``. A flow without ``rtt`` starts and
  ends on its path's links.

Overrides (``tcpfluid simulate FILE --set KEY=VALUE``, ``load_scenario(path, key=v)``, a
sweep's ``[grid]``; :func:`file_parameters` lists a file's): the top-level keys above;
``bandwidth``/``buffer`` (the slowest declared link's ``rate``/``buffer``); ``rtt`` (every
flow's); ``alpha``, ``beta``, ``gamma``, ``delta`` (every flow's law parameter); ``cbr=none``
(no cross traffic); and any value by its place: ``link.NAME.KEY``, ``flow.N.KEY``,
``cbr.N.KEY`` (``N`` the table's position, from 1, or its ``name``; ``KEY`` may be
``params.alpha``).

Every error is a ``ValueError`` naming the file, the table and the key.

Examples
--------
>>> sc = scenario_from_toml('''
... duration = "30s"
... [[link]]
... name = "bottleneck"
... rate = "10Mbps"
... delay = "5ms"
... [[flow]]
... algorithm = "vegas"
... rtt = "50ms"
... ''')
>>> [f.name for f in sc.flows], sc.flows[0].forward
(['vegas-1'], ('vegas-1-in', 'bottleneck', 'vegas-1-out'))
>>> round(sum(sc.link(n).delay_s for n in (*sc.flows[0].forward, *sc.flows[0].reverse)), 6)
0.05
"""

from __future__ import annotations

import math
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path as FsPath
from typing import Any

from .. import units
from .model import Scenario, _int
from .topology import LAW_PARAMETER_KEYS

__all__ = [
    "CBR_KEYS",
    "FLOW_KEYS",
    "LINK_KEYS",
    "TOP_KEYS",
    "file_parameters",
    "is_scenario_file",
    "load_scenario",
    "scenario_from_toml",
    "scenario_to_toml",
]

from ._file_build import (
    _LIST_KEYS,
    _PER_FLOW,
    _TOP_OVERRIDES,
    CBR_KEYS,
    FLOW_KEYS,
    LINK_KEYS,
    TOP_KEYS,
    _build,
    _number_or_text,
    _Where,
)


def is_scenario_file(name: Any) -> bool:
    """Whether ``name`` designates a scenario file rather than a named scenario: a path
    ending in ``.toml``, or naming an existing file."""
    if isinstance(name, os.PathLike):
        return True
    if not isinstance(name, str) or not name:
        return False
    return name.endswith(".toml") or os.path.isfile(name)


def read_toml(path: str | os.PathLike[str], what: str) -> dict[str, Any]:
    """The TOML file ``path`` as a dict; ``what`` names it in errors (``"scenario file"``).

    Raises
    ------
    ValueError
        A missing file, one that cannot be read, is not UTF-8 text or is not valid TOML.
    """
    p = FsPath(path)
    src = str(p)
    if not p.is_file():
        raise ValueError(f"{what} {src!r}: no such file")
    try:
        with p.open("rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{what} {src!r} is not valid TOML: {exc}") from None
    except UnicodeDecodeError:
        raise ValueError(
            f"{what} {src!r} is not a TOML text file (not UTF-8 text; give a .toml file)"
        ) from None
    except OSError as exc:
        raise ValueError(f"{what} {src!r} cannot be read ({exc.strerror})") from None


def load_scenario(path: str | os.PathLike[str], /, **overrides: Any) -> Scenario:
    """Read the scenario file ``path`` (module docstring) and build its scenario.

    Parameters
    ----------
    path
        A TOML scenario file.
    **overrides
        Values replacing the file's (``duration="120s"``, ``bandwidth="200Mbps"``,
        ``rtt="80ms"``, ``alpha=1``; any value by its place with a dotted key, passed as
        ``**{"link.bottleneck.buffer": 100}``); :func:`file_parameters` lists them.

    Returns
    -------
    Scenario
        As :func:`tcpfluid.scenarios.build_scenario` builds a named one: starts spread
        when ``start_spread`` is set, flows starting after the end left out with a note,
        and a run that can carry at least one packet.

    Raises
    ------
    ValueError
        Naming the file, the table and the key: not a TOML file, an unknown key or table,
        a value out of range, a link name that is not declared, a group's list of the
        wrong length, an ``rtt`` shorter than its path's round trip.
    """
    p = FsPath(path)
    return _finish(_build(read_toml(p, "scenario file"), str(p), p.stem, overrides))


def scenario_from_toml(text: str, /, *, source: str = "<toml>", **overrides: Any) -> Scenario:
    """The scenario of a scenario file's text (:func:`load_scenario` without the file)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{source} is not valid TOML: {exc}") from None
    return _finish(_build(data, source, "scenario", overrides))


def _finish(built: tuple[Scenario, dict[str, Any]]) -> Scenario:
    from .catalogue import _check_runnable, _spread_starts

    sc, spread = built
    out = _spread_starts(sc, spread).without_late_flows()
    _check_runnable(out)
    return out


def file_parameters(path: str | os.PathLike[str]) -> tuple[str, ...]:
    """The override keys scenario file ``path`` accepts (module docstring), in order."""
    return _parameters(read_toml(path, "scenario file"))


def _parameters(data: Mapping[str, Any]) -> tuple[str, ...]:
    keys: list[str] = [*_TOP_OVERRIDES, "bandwidth", "buffer", "rtt", *LAW_PARAMETER_KEYS, "cbr"]
    for i, t in enumerate(_tables(data, "link")):
        name = t.get("name", i + 1)
        keys += [f"link.{name}.{k}" for k in LINK_KEYS if k != "name"]
    for kind, allowed in (("flow", FLOW_KEYS), ("cbr", CBR_KEYS)):
        for i, _t in enumerate(_tables(data, kind), start=1):
            keys += [f"{kind}.{i}.{k}" for k in allowed if k != "name"]
    return tuple(keys)


def _tables(data: Mapping[str, Any], kind: str) -> list[dict[str, Any]]:
    raw = data.get(kind, [])
    if isinstance(raw, Mapping):
        raw = [raw]
    return [t for t in raw if isinstance(t, dict)] if isinstance(raw, list) else []


# ------------------------------------------------------------------------------ overrides
def _apply_overrides(
    data: dict[str, Any], overrides: Mapping[str, Any], where: _Where
) -> dict[str, Any]:
    """``data`` (a deep copy) with ``overrides`` applied (module docstring)."""
    import copy

    out = copy.deepcopy(data)
    for key, value in overrides.items():
        table = f"override {key}={value!r}"
        if not isinstance(key, str):
            raise TypeError(f"override keys must be strings, got {key!r}")
        if key == "algorithm":
            raise ValueError(
                "the algorithm is not a parameter: give it with --algorithm (or "
                "Scenario.with_algorithm); each [[flow]] may name its own"
            )
        if key in _TOP_OVERRIDES:
            out[key] = value
        elif key in ("bandwidth", "buffer"):
            link = _slowest_declared(out, where, table)
            link["rate" if key == "bandwidth" else "buffer"] = value
        elif key == "rtt":
            for t in _tables(out, "flow"):
                t["rtt"] = value
        elif key in LAW_PARAMETER_KEYS:
            for t in _tables(out, "flow"):
                t.setdefault("params", {})[key] = _number_or_text(value)
        elif key == "cbr":
            if not (isinstance(value, str) and value.strip().lower() in ("none", "off", "0")):
                raise where.fail(
                    table, None, "cbr takes only 'none' (cbr.N.rate changes a source's rate)"
                )
            out.pop("cbr", None)
        elif key.split(".", 1)[0] in ("link", "flow", "cbr") and key.count(".") >= 2:
            _set_by_place(out, key, value, where, table)
        else:
            raise where.fail(
                table,
                None,
                f"unknown parameter {key!r}; parameters: {', '.join(_parameters(out))}",
            )
    return out


def _slowest_declared(data: dict[str, Any], where: _Where, table: str) -> dict[str, Any]:
    links = _tables(data, "link")
    if not links:
        raise where.fail(table, None, "the file declares no [[link]]")
    rates = []
    for t in links:
        try:
            rates.append(units.bits_per_second(t.get("rate"), name="rate"))
        except (ValueError, TypeError):
            rates.append(math.inf)
    return links[rates.index(min(rates))]


def _set_by_place(data: dict[str, Any], key: str, value: Any, where: _Where, table: str) -> None:
    kind, sel, rest = key.split(".", 2)
    tables = _tables(data, kind)
    found = None
    if sel.isdigit() and 1 <= int(sel) <= len(tables):
        found = tables[int(sel) - 1]
    else:
        found = next((t for t in tables if str(t.get("name")) == sel), None)
    if found is None:
        names = [str(t.get("name", i)) for i, t in enumerate(tables, start=1)]
        raise where.fail(
            table,
            None,
            f"no [[{kind}]] {sel!r}; give its position (1..{len(tables)}) or name "
            f"({', '.join(names) or 'none'})",
        )
    allowed = {"link": LINK_KEYS, "flow": FLOW_KEYS, "cbr": CBR_KEYS}[kind]
    head, _, sub = rest.partition(".")
    if head not in allowed or (sub and head not in ("params", "red", "reverse")):
        raise where.fail(
            table, None, f"unknown key {rest!r} of [[{kind}]]; keys: {', '.join(allowed)}"
        )
    if sub:
        found.setdefault(head, {})[sub] = _number_or_text(value)
        return
    if isinstance(value, str) and head in (*_LIST_KEYS, *_PER_FLOW) and "," in value:
        value = [v.strip() for v in value.split(",")]
    if head == "count":
        value = _int(key, value, minimum=1)
    found[head] = value


# ------------------------------------------------------------------------------ writing
def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        if math.isnan(v):
            raise ValueError("a scenario file cannot hold NaN")
        return repr(v)
    if isinstance(v, str):
        out = v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
        return f'"{out}"'
    if isinstance(v, list | tuple):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, Mapping):
        return "{ " + ", ".join(f"{_key(k)} = {_toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"cannot write {v!r} ({type(v).__name__}) to a scenario file")


def _key(k: str) -> str:
    bare = k.replace("_", "").replace("-", "").isalnum() and k.isascii()
    return k if bare else _toml_value(k)


def scenario_to_toml(scenario: Scenario) -> str:
    """``scenario`` as a scenario file (module docstring) that loads back to an equal one.

    Every link, path and time is written out (rates in bits/s, delays and times in s,
    buffers in packets); nothing is derived on loading. The scenario's ``params`` go
    under ``[params]`` (recorded, they change nothing).

    Raises
    ------
    TypeError
        A parameter value a TOML file cannot hold.
    """
    lines = [
        "# written by `tcpfluid scenario show --toml`: every link and path explicit;",
        "# rates in bits/s, delays and times in s, buffers in packets",
        f"name = {_toml_value(scenario.name)}",
    ]
    if scenario.description:
        lines.append(f"description = {_toml_value(scenario.description)}")
    lines += [
        f"duration = {_toml_value(scenario.duration_s)}",
        f"packet_size = {_toml_value(scenario.packet_size_bytes)}",
        f"ack_size = {_toml_value(scenario.ack_size_bytes)}",
    ]
    if scenario.notes:
        lines.append(f"notes = {_toml_value(list(scenario.notes))}")
    plain = {k: v for k, v in scenario.params.items() if v is not None}
    if plain:
        lines += [
            "",
            "# the parameters the scenario was built with: a record, editing it changes",
            "# nothing (edit the links and flows below)",
            "[params]",
        ]
        lines += [f"{_key(k)} = {_toml_value(v)}" for k, v in plain.items()]
    for lk in scenario.links:
        lines += [
            "",
            "[[link]]",
            f"name = {_toml_value(lk.name)}",
            f"rate = {_toml_value(lk.rate_bps)}",
            f"delay = {_toml_value(lk.delay_s)}",
            f"buffer = {_toml_value('inf' if math.isinf(lk.buffer_pkts) else lk.buffer_pkts)}",
        ]
        if lk.discipline != "drop-tail":
            lines.append(f"queue = {_toml_value(lk.discipline)}")
        if lk.red:
            lines.append(f"red = {_toml_value(dict(lk.red))}")
    for f in scenario.flows:
        lines += ["", "[[flow]]", f"name = {_toml_value(f.name)}"]
        if f.algorithm is not None:
            lines.append(f"algorithm = {_toml_value(f.algorithm)}")
        if f.params:
            lines.append(f"params = {_toml_value(dict(f.params))}")
        lines += [
            f"path = {_toml_value(list(f.forward))}",
            f"reverse_path = {_toml_value(list(f.reverse))}",
            f"start = {_toml_value(f.start_s)}",
        ]
        if not math.isinf(f.stop_s):
            lines.append(f"stop = {_toml_value(f.stop_s)}")
    for c in scenario.cbr:
        lines += [
            "",
            "[[cbr]]",
            f"name = {_toml_value(c.name)}",
            f"rate = {_toml_value(c.rate_bps)}",
            f"start = {_toml_value(c.start_s)}",
            f"stop = {_toml_value('never' if math.isinf(c.stop_s) else c.stop_s)}",
            f"path = {_toml_value(list(c.links))}",
        ]
    return "\n".join(lines) + "\n"
