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
(['vegas'], ('vegas-in', 'bottleneck', 'vegas-out'))
>>> round(sum(sc.link(n).delay_s for n in (*sc.flows[0].forward, *sc.flows[0].reverse)), 6)
0.05
"""

from __future__ import annotations

import math
import os
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path as FsPath
from typing import Any

from .. import units
from .model import CbrSource, FlowSpec, Link, Scenario, _buffer, _int

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

#: keys of the file's top level
TOP_KEYS = (
    "name",
    "description",
    "duration",
    "packet_size",
    "ack_size",
    "access_rate",
    "start_spread",
    "start_seed",
    "notes",
    "params",
    "link",
    "flow",
    "cbr",
)
#: keys of a ``[[link]]`` table
LINK_KEYS = ("name", "rate", "delay", "buffer", "queue", "red", "reverse")
#: keys of a link's ``reverse`` table
REVERSE_KEYS = ("rate", "delay", "buffer")
#: keys of a ``[[flow]]`` table
FLOW_KEYS = (
    "name",
    "algorithm",
    "params",
    "count",
    "rtt",
    "start",
    "stop",
    "path",
    "reverse_path",
    "access_rate",
)
#: keys of a ``[[cbr]]`` table
CBR_KEYS = ("name", "rate", "start", "stop", "path")
#: keys of a ``[[flow]]`` table that take one value per flow of the group
_PER_FLOW = ("rtt", "start", "stop")
#: keys that hold lists of link names
_LIST_KEYS = ("path", "reverse_path", "notes")
#: the control-law parameters an override may set for every flow
_LAW_KEYS = ("alpha", "beta", "gamma", "delta")
#: top-level keys an override may set directly
_TOP_OVERRIDES = (
    "duration",
    "packet_size",
    "ack_size",
    "access_rate",
    "start_spread",
    "start_seed",
    "description",
)
#: access links are this many times faster than the fastest declared link by default
ACCESS_RATE_FACTOR = 10.0


class _Where:
    """Where in the file a value is: names the file, the table and the key in messages."""

    def __init__(self, source: str) -> None:
        self.source = source

    @contextmanager
    def at(self, table: str, key: str | None = None) -> Iterator[None]:
        try:
            yield
        except (ValueError, TypeError) as exc:
            if isinstance(exc, _FileError):
                raise
            where = table if key is None else f"{table}, key {key!r}"
            raise _FileError(f"{self.source}: {where}: {exc}") from None

    def fail(self, table: str, key: str | None, message: str) -> _FileError:
        where = table if key is None else f"{table}, key {key!r}"
        return _FileError(f"{self.source}: {where}: {message}")


class _FileError(ValueError):
    """A scenario file's error, already naming the file, the table and the key."""


def is_scenario_file(name: Any) -> bool:
    """Whether ``name`` designates a scenario file rather than a named scenario: a path
    ending in ``.toml``, or naming an existing file."""
    if isinstance(name, os.PathLike):
        return True
    if not isinstance(name, str) or not name:
        return False
    return name.endswith(".toml") or os.path.isfile(name)


def _read(path: str | os.PathLike[str]) -> tuple[dict[str, Any], str]:
    p = FsPath(path)
    src = str(p)
    if not p.is_file():
        raise ValueError(f"scenario file {src!r}: no such file")
    try:
        with p.open("rb") as fh:
            return tomllib.load(fh), src
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"scenario file {src!r} is not valid TOML: {exc}") from None
    except UnicodeDecodeError:
        raise ValueError(f"scenario file {src!r} is not UTF-8 text (give a .toml file)") from None
    except OSError as exc:
        raise ValueError(f"scenario file {src!r} cannot be read ({exc.strerror})") from None


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
    data, src = _read(path)
    stem = FsPath(path).stem
    return _finish(_build(data, src, stem, overrides))


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
    data, _ = _read(path)
    return _parameters(data)


def _parameters(data: Mapping[str, Any]) -> tuple[str, ...]:
    keys: list[str] = [*_TOP_OVERRIDES, "bandwidth", "buffer", "rtt", *_LAW_KEYS, "cbr"]
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
        elif key in _LAW_KEYS:
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


def _number_or_text(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return float(value) if not value.strip().isdigit() else int(value)
        except ValueError:
            return value
    return value


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


# ------------------------------------------------------------------------------ building
def _check_keys(where: _Where, table: str, t: Mapping[str, Any], allowed: Sequence[str]) -> None:
    if not isinstance(t, Mapping):
        raise where.fail(table, None, f"must be a table, got {t!r}")
    for k in t:
        if k not in allowed:
            raise where.fail(table, k, f"unknown key; accepted keys: {', '.join(allowed)}")


def _list_of_tables(data: Mapping[str, Any], kind: str, where: _Where) -> list[dict[str, Any]]:
    raw = data.get(kind, [])
    if isinstance(raw, Mapping):
        raw = [raw]
    if not isinstance(raw, list) or not all(isinstance(t, Mapping) for t in raw):
        raise where.fail(f"[[{kind}]]", None, f"write each {kind} as a [[{kind}]] table")
    return [dict(t) for t in raw]


def _names(where: _Where, table: str, key: str, value: Any) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise where.fail(table, key, f"must be a list of link names, got {value!r}")
    return list(value)


def _per_flow(where: _Where, table: str, key: str, value: Any, n: int) -> list[Any]:
    if isinstance(value, list):
        if len(value) != n:
            raise where.fail(
                table,
                key,
                f"lists {len(value)} values for count = {n} flows; give one value or {n}",
            )
        return list(value)
    return [value] * n


def _build(
    data: Mapping[str, Any], source: str, stem: str, overrides: Mapping[str, Any]
) -> tuple[Scenario, dict[str, Any]]:
    """The file's scenario and its ``start_spread``/``start_seed`` (applied by :func:`_finish`)."""
    where = _Where(source)
    if not isinstance(data, Mapping):
        raise where.fail("top level", None, "must be a table")
    _check_keys(where, "top level", data, TOP_KEYS)
    data = _apply_overrides(dict(data), overrides, where)
    top = "top level"
    if "duration" not in data:
        raise where.fail(top, "duration", 'missing; give the run\'s length, e.g. duration = "60s"')
    with where.at(top, "duration"):
        duration = units.seconds(data["duration"], name="duration")
    with where.at(top, "packet_size"):
        pkt = units.bytes_(data.get("packet_size", "1000B"), name="packet_size")
    with where.at(top, "ack_size"):
        ack = units.bytes_(data.get("ack_size", "40B"), name="ack_size")
    name = data.get("name", stem)
    if not isinstance(name, str) or not name:
        raise where.fail(top, "name", f"must be a non-empty string, got {name!r}")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise where.fail(top, "description", f"must be a string, got {description!r}")
    notes = data.get("notes", [])
    if not isinstance(notes, list) or not all(isinstance(x, str) for x in notes):
        raise where.fail(top, "notes", f"must be a list of strings, got {notes!r}")
    params = data.get("params", {})
    if not isinstance(params, Mapping):
        raise where.fail("[params]", None, f"must be a table, got {params!r}")
    params = {**dict(params), **dict(overrides)}
    spread = {k: data.get(k, 0) for k in ("start_spread", "start_seed")}

    links, reverse_of = _declared_links(data, where, pkt)
    declared = [lk.name for lk in links]
    by_name = {lk.name: lk for lk in links}
    fastest = max((lk.rate_bps for lk in links), default=math.nan)
    default_access: float | None = None
    if "access_rate" in data:
        with where.at(top, "access_rate"):
            default_access = units.bits_per_second(data["access_rate"], name="access_rate")
    elif links:
        default_access = ACCESS_RATE_FACTOR * fastest

    flows: list[FlowSpec] = []
    extra: list[Link] = []
    counters: dict[str, int] = {}
    groups = _list_of_tables(data, "flow", where)
    if not groups:
        raise where.fail("[[flow]]", None, "the file has no [[flow]]; give at least one")
    taken = set(by_name)

    def derived_reverse(ln: str, table: str) -> str:
        rname = f"{ln}-rev"
        if rname not in by_name:
            fwd = by_name[ln]
            tweak = reverse_of.get(ln, {})
            with where.at(f"[[link]] {ln!r}", "reverse"):
                rev = Link(
                    rname,
                    tweak.get("rate", fwd.rate_bps),
                    tweak.get("delay", fwd.delay_s),
                    _buffer(f"{ln}.reverse.buffer", tweak["buffer"], pkt)
                    if "buffer" in tweak
                    else fwd.buffer_pkts,
                )
            by_name[rname] = rev
            extra.append(rev)
        return rname

    for gi, g in enumerate(groups, start=1):
        table = f"[[flow]] {gi}" + (f" ({g['name']!r})" if "name" in g else "")
        _check_keys(where, table, g, FLOW_KEYS)
        with where.at(table, "count"):
            n = _int("count", g.get("count", 1), minimum=1)
        alg = g.get("algorithm")
        if alg is not None:
            from ..algorithms.registry import law_class

            with where.at(table, "algorithm"):
                law_class(alg)
        law = g.get("params", {})
        if not isinstance(law, Mapping):
            raise where.fail(table, "params", f"must be a table of law parameters, got {law!r}")
        law = {k: _number_or_text(v) for k, v in law.items()}
        if alg is not None and law:
            from ..algorithms.registry import law_parameters

            accepted = law_parameters(alg)
            for k in law:
                if k not in accepted:
                    raise where.fail(
                        table,
                        f"params.{k}",
                        f"not a parameter of {alg!r}; it accepts {', '.join(accepted) or 'none'}",
                    )
        path = _names(where, table, "path", g["path"]) if "path" in g else list(declared)
        if not path:
            raise where.fail(table, "path", "no link: declare a [[link]] or give path")
        for ln in path:
            if ln not in by_name:
                raise where.fail(table, "path", f"unknown link {ln!r}; links: {', '.join(by_name)}")
        if "reverse_path" in g:
            given_r = g["reverse_path"]
            rpath = _names(where, table, "reverse_path", given_r) if given_r else []
            for ln in rpath:
                if ln not in by_name and not (ln.endswith("-rev") and ln[:-4] in by_name):
                    raise where.fail(
                        table, "reverse_path", f"unknown link {ln!r}; links: {', '.join(by_name)}"
                    )
            rpath = [ln if ln in by_name else derived_reverse(ln[:-4], table) for ln in rpath]
        else:
            rpath = [derived_reverse(ln, table) for ln in reversed(path)]
        rtts = _per_flow(where, table, "rtt", g["rtt"], n) if "rtt" in g else [None] * n
        starts = _per_flow(where, table, "start", g.get("start", 0), n)
        stops = _per_flow(where, table, "stop", g.get("stop", "never"), n)
        access = default_access
        if "access_rate" in g:
            with where.at(table, "access_rate"):
                access = units.bits_per_second(g["access_rate"], name="access_rate")
        given = g.get("name")
        if given is not None and (not isinstance(given, str) or not given):
            raise where.fail(table, "name", f"must be a non-empty string, got {given!r}")
        prefix = given or alg or "flow"
        for k in range(n):
            if n == 1 and given is not None:
                fname = given
            else:
                counters[prefix] = counters.get(prefix, 0) + 1
                fname = f"{prefix}-{counters[prefix]}"
            if fname in taken:
                raise where.fail(
                    table, "name", f"flow name {fname!r} is already used; give another name"
                )
            taken.add(fname)
            fwd, rev = list(path), list(rpath)
            if rtts[k] is not None:
                key = "rtt"
                with where.at(table, key):
                    rtt = units.time_or_zero(rtts[k], name="rtt")
                core = sum(by_name[x].delay_s for x in (*fwd, *rev))
                x = (rtt - core) / 4.0
                if x < -1e-12 * max(rtt, 1.0):
                    raise where.fail(
                        table,
                        key,
                        f"{rtts[k]!r} (flow {fname!r}) is shorter than the round trip "
                        f"of its links ({core:g} s: the delays of {', '.join([*fwd, *rev])}); "
                        f"give rtt >= {core:g} s",
                    )
                x = max(x, 0.0)
                assert access is not None
                names = (f"{fname}-in", f"{fname}-out", f"{fname}-out-ack", f"{fname}-in-ack")
                for an in names:
                    if an in by_name:
                        raise where.fail(table, "name", f"derived link {an!r} clashes with a link")
                    lk = Link(an, access, x)
                    by_name[an] = lk
                    extra.append(lk)
                fwd = [names[0], *fwd, names[1]]
                rev = [names[2], *rev, names[3]]
            with where.at(table, "start/stop"):
                spec = FlowSpec(
                    name=fname,
                    forward=tuple(fwd),
                    reverse=tuple(rev),
                    start_s=units.time_or_zero(starts[k], name="start"),
                    stop_s=units.time_or_inf(stops[k], name="stop"),
                    algorithm=alg,
                    params=dict(law),
                )
            flows.append(spec)

    sources: list[CbrSource] = []
    for ci, c in enumerate(_list_of_tables(data, "cbr", where), start=1):
        table = f"[[cbr]] {ci}" + (f" ({c['name']!r})" if "name" in c else "")
        _check_keys(where, table, c, CBR_KEYS)
        cpath = _names(where, table, "path", c["path"]) if "path" in c else list(declared)
        for ln in cpath:
            if ln not in by_name:
                raise where.fail(table, "path", f"unknown link {ln!r}; links: {', '.join(by_name)}")
        if "rate" not in c:
            raise where.fail(table, "rate", 'missing; e.g. rate = "25Mbps" or "50%"')
        rate = c["rate"]
        with where.at(table, "rate"):
            if isinstance(rate, str) and rate.strip().endswith("%"):
                rate = units.share(rate, name="rate") * min(by_name[x].rate_bps for x in cpath)
            rate = units.bits_per_second(rate, name="rate")
        with where.at(table, "start/stop"):
            src = CbrSource(
                str(c.get("name", f"cbr-{ci}")),
                rate,
                units.time_or_zero(c.get("start", 0), name="start"),
                units.time_or_inf(c.get("stop", "never"), name="stop"),
                tuple(cpath),
            )
        sources.append(src)

    with where.at(top):
        sc = Scenario(
            name=name,
            links=(*links, *extra),
            flows=tuple(flows),
            cbr=tuple(sources),
            duration_s=duration,
            packet_size_bytes=pkt,
            ack_size_bytes=ack,
            params=params,
            description=description,
            notes=tuple(notes),
        )
    return sc, spread


def _declared_links(
    data: Mapping[str, Any], where: _Where, pkt: float
) -> tuple[list[Link], dict[str, dict[str, Any]]]:
    links: list[Link] = []
    reverse_of: dict[str, dict[str, Any]] = {}
    seen: set[str] = set()
    for i, t in enumerate(_list_of_tables(data, "link", where), start=1):
        table = f"[[link]] {i}" + (f" ({t['name']!r})" if "name" in t else "")
        _check_keys(where, table, t, LINK_KEYS)
        name = t.get("name")
        if not isinstance(name, str) or not name:
            raise where.fail(table, "name", f"missing or empty; give the link a name, got {name!r}")
        if name in seen:
            raise where.fail(table, "name", f"{name!r} is declared twice")
        seen.add(name)
        for key in ("rate", "delay"):
            if key not in t:
                raise where.fail(table, key, "missing")
        with where.at(table, "rate"):
            rate = units.bits_per_second(t["rate"], name="rate")
        with where.at(table, "delay"):
            delay = units.time_or_zero(t["delay"], name="delay")
        with where.at(table, "buffer"):
            buf = _buffer("buffer", t.get("buffer", "inf"), pkt)
        queue = t.get("queue", "drop-tail")
        red = t.get("red", {})
        if not isinstance(red, Mapping):
            raise where.fail(table, "red", f"must be a table of RED parameters, got {red!r}")
        if red and queue != "red":
            raise where.fail(table, "red", 'RED parameters on a drop-tail link; add queue = "red"')
        with where.at(table, "queue"):
            lk = Link(name, rate, delay, buf, discipline=queue, red=dict(red))
            lk.red_parameters()
        links.append(lk)
        rev = t.get("reverse", {})
        if not isinstance(rev, Mapping):
            raise where.fail(table, "reverse", f"must be a table ({', '.join(REVERSE_KEYS)})")
        for k in rev:
            if k not in REVERSE_KEYS:
                raise where.fail(
                    table, f"reverse.{k}", f"unknown key; keys: {', '.join(REVERSE_KEYS)}"
                )
        conv: dict[str, Any] = {}
        with where.at(table, "reverse"):
            if "rate" in rev:
                conv["rate"] = units.bits_per_second(rev["rate"], name="reverse.rate")
            if "delay" in rev:
                conv["delay"] = units.time_or_zero(rev["delay"], name="reverse.delay")
            if "buffer" in rev:
                conv["buffer"] = rev["buffer"]
        reverse_of[name] = conv
    return links, reverse_of


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
