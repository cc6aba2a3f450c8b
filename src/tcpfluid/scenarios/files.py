"""Scenario files: an experiment written in TOML, run as written by every engine; the keys
of each table (:data:`TOP_KEYS`, :data:`LINK_KEYS`, :data:`FLOW_KEYS`, :data:`CBR_KEYS`),
what tcpfluid derives and the overrides: docs/your-own-scenario.md. Every error is a
``ValueError`` naming the file, the table and the key."""

from __future__ import annotations

import math
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path as FsPath
from typing import Any

from .. import units
from .catalogue import _finish
from .model import Scenario, _int
from .topology import _NO_CBR, LAW_PARAMETER_KEYS

__all__ = [
    "CBR_KEYS", "FLOW_KEYS", "LINK_KEYS", "TOP_KEYS", "file_parameters", "is_scenario_file",
    "load_scenario", "scenario_from_toml", "scenario_to_toml",
]  # fmt: skip

from ._file_build import (
    _LIST_KEYS,
    _PER_FLOW,
    _TOP_OVERRIDES,
    CBR_KEYS,
    FLOW_KEYS,
    LINK_KEYS,
    TOP_KEYS,
    _build,
    _list_of_tables,
    _number_or_text,
    _Where,
)


def is_scenario_file(name: Any) -> bool:
    """Whether ``name`` is a scenario file's path (ending in ``.toml``, or an existing file)."""
    if isinstance(name, os.PathLike):
        return True
    if not isinstance(name, str) or not name:
        return False
    return name.endswith(".toml") or os.path.isfile(name)


def read_toml(path: str | os.PathLike[str], what: str) -> dict[str, Any]:
    """The TOML file ``path`` as a dict; ValueError naming it (as ``what``) if it is missing,
    unreadable, not UTF-8 text or not valid TOML."""
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
    """Read the scenario file ``path`` and build its scenario.

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
        As :func:`tcpfluid.scenarios.build_scenario` builds a named one.

    Raises
    ------
    ValueError
        Naming the file, the table and the key.
    """
    return _load_with_laws(path, {}, **overrides)


def _load_with_laws(
    path: str | os.PathLike[str], laws: Mapping[str, str], /, **overrides: Any
) -> Scenario:
    """:func:`load_scenario`, the flows ``laws`` names (by the names the file gives them)
    named after the algorithm it gives them where the file names them after theirs (the
    flows' algorithms are still the file's: set them with
    :func:`tcpfluid.scenarios.mix.with_mix`)."""
    p = FsPath(path)
    return _finish(*_build(read_toml(p, "scenario file"), str(p), p.stem, overrides, laws))


def scenario_from_toml(text: str, /, *, source: str = "<toml>", **overrides: Any) -> Scenario:
    """The scenario of a scenario file's text (:func:`load_scenario` without the file)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{source} is not valid TOML: {exc}") from None
    return _finish(*_build(data, source, "scenario", overrides))


def file_parameters(path: str | os.PathLike[str]) -> tuple[str, ...]:
    """The override keys scenario file ``path`` accepts, in order."""
    return _parameters(read_toml(path, "scenario file"))


def _parameters(data: Mapping[str, Any]) -> tuple[str, ...]:
    keys: list[str] = [*_TOP_OVERRIDES, "bandwidth", "buffer", "rtt", *LAW_PARAMETER_KEYS, "cbr"]
    for kind, allowed in (("link", LINK_KEYS), ("flow", FLOW_KEYS), ("cbr", CBR_KEYS)):
        for i, t in enumerate(_list_of_tables(data, kind), start=1):
            place = t.get("name", i) if kind == "link" else i
            keys += [f"{kind}.{place}.{k}" for k in allowed if k != "name"]
    return tuple(keys)


def _apply_overrides(
    data: dict[str, Any], overrides: Mapping[str, Any], where: _Where
) -> dict[str, Any]:
    """``data`` (a deep copy) with ``overrides`` applied."""
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
            for t in _list_of_tables(out, "flow"):
                t["rtt"] = value
        elif key in LAW_PARAMETER_KEYS:
            for t in _list_of_tables(out, "flow"):
                t.setdefault("params", {})[key] = _number_or_text(value)
        elif key == "cbr":
            if not (isinstance(value, str) and value.strip().lower() in _NO_CBR):
                raise where.fail(
                    table, None, "cbr takes only 'none' (cbr.N.rate changes a source's rate)"
                )
            out.pop("cbr", None)
        elif key.split(".", 1)[0] in ("link", "flow", "cbr") and key.count(".") >= 2:
            _set_by_place(out, key, value, where, table)
        else:
            raise where.fail(
                table, None, f"unknown parameter {key!r}; parameters: {', '.join(_parameters(out))}"
            )
    return out


def _slowest_declared(data: dict[str, Any], where: _Where, table: str) -> dict[str, Any]:
    links = _list_of_tables(data, "link")
    if not links:
        raise where.fail(table, None, "the file declares no [[link]]")
    try:
        pkt = units.bytes_(data.get("packet_size", "1000B"), name="packet_size")
    except (ValueError, TypeError):
        pkt = 1000.0  # the file's own error is reported when it is built
    rates = []
    for t in links:
        try:
            rates.append(units.link_rate_bps(t.get("rate"), packet_size_bytes=pkt, name="rate"))
        except (ValueError, TypeError):
            rates.append(math.inf)
    return links[rates.index(min(rates))]


def _set_by_place(data: dict[str, Any], key: str, value: Any, where: _Where, table: str) -> None:
    kind, sel, rest = key.split(".", 2)
    tables = _list_of_tables(data, kind)
    if sel.isdigit() and 1 <= int(sel) <= len(tables):
        found: dict[str, Any] | None = tables[int(sel) - 1]
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
    """``scenario`` as a scenario file that loads back to an equal one: every link, path and
    time written out, ``params`` under ``[params]`` (a record); TypeError for a value a TOML
    file cannot hold."""
    lines = [
        "# written by `tcpfluid scenario show --toml`: every link and path explicit;",
        "# rates in bits/s, delays and times in s, buffers in packets",
    ]

    def put(*items: tuple[str, Any]) -> None:  # ``None``: the key is left out
        lines.extend(f"{k} = {_toml_value(v)}" for k, v in items if v is not None)

    sc = scenario
    put(("name", sc.name), ("description", sc.description or None))
    put(("duration", sc.duration_s), ("packet_size", sc.packet_size_bytes))
    put(("ack_size", sc.ack_size_bytes), ("notes", list(sc.notes) or None))
    # a spread already in the starts below: recorded for the summaries, not applied again
    put(("start_spread_applied", sc.start_spread_s or None))
    plain = {k: v for k, v in sc.params.items() if v is not None}
    if plain:
        lines += [
            "",
            "# the parameters the scenario was built with: a record, editing it changes",
            "# nothing (edit the links and flows below)",
            "[params]",
        ]
        lines += [f"{_key(k)} = {_toml_value(v)}" for k, v in plain.items()]
    for lk in sc.links:
        lines += ["", "[[link]]"]
        put(("name", lk.name), ("rate", f"{lk.rate_bps!r}bps"), ("delay", lk.delay_s))
        put(("buffer", "inf" if math.isinf(lk.buffer_pkts) else lk.buffer_pkts))
        put(("queue", None if lk.discipline == "drop-tail" else lk.discipline))
        put(("red", dict(lk.red) or None))
    for f in sc.flows:
        lines += ["", "[[flow]]"]
        put(("name", f.name), ("algorithm", f.algorithm), ("params", dict(f.params) or None))
        put(("path", list(f.forward)), ("reverse_path", list(f.reverse)), ("start", f.start_s))
        put(("stop", None if math.isinf(f.stop_s) else f.stop_s))
    for c in sc.cbr:
        lines += ["", "[[cbr]]"]
        put(("name", c.name), ("rate", f"{c.rate_bps!r}bps"), ("start", c.start_s))
        put(("stop", "never" if math.isinf(c.stop_s) else c.stop_s), ("path", list(c.links)))
    return "\n".join(lines) + "\n"
