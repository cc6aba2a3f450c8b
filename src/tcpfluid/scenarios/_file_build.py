"""Building a scenario file's :class:`~tcpfluid.scenarios.Scenario` from its parsed tables
(docs/your-own-scenario.md), every error naming the file, the table and the key."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from .. import units
from .model import CbrSource, FlowSpec, Link, Scenario, _buffer, _int
from .topology import ACCESS_FACTOR

#: keys of the file's top level
TOP_KEYS = (
    "name", "description", "duration", "packet_size", "ack_size", "access_rate",
    "start_spread", "start_seed", "start_spread_applied", "notes", "params", "link", "flow",
    "cbr",
)  # fmt: skip
#: keys of a ``[[link]]`` table
LINK_KEYS = ("name", "rate", "delay", "buffer", "queue", "red", "reverse")
#: keys of a link's ``reverse`` table
REVERSE_KEYS = ("rate", "delay", "buffer")
#: keys of a ``[[flow]]`` table
FLOW_KEYS = (
    "name", "algorithm", "params", "count", "rtt", "start", "stop", "path", "reverse_path",
    "access_rate",
)  # fmt: skip
#: keys of a ``[[cbr]]`` table
CBR_KEYS = ("name", "rate", "start", "stop", "path")
#: keys of a ``[[flow]]`` table that take one value per flow of the group
_PER_FLOW = ("rtt", "start", "stop")
#: keys that hold lists of link names
_LIST_KEYS = ("path", "reverse_path", "notes")
#: top-level keys an override may set directly: the run's values (``duration`` to
#: ``start_seed``), then the description
_TOP_OVERRIDES = (*TOP_KEYS[TOP_KEYS.index("duration") : TOP_KEYS.index("notes")], "description")


class _Where:
    """Names the file, the table and the key in messages."""

    def __init__(self, source: str) -> None:
        self.source = source

    @contextmanager
    def at(self, table: str, key: str | None = None) -> Iterator[None]:
        try:
            yield
        except (ValueError, TypeError) as exc:
            if isinstance(exc, _FileError):
                raise
            raise self.fail(table, key, str(exc)) from None

    def fail(self, table: str, key: str | None, message: str) -> _FileError:
        where = table if key is None else f"{table}, key {key!r}"
        return _FileError(f"{self.source}: {where}: {message}")


class _FileError(ValueError):
    """A scenario file's error, already naming where."""


def _check_keys(where: _Where, table: str, t: Mapping[str, Any], allowed: Sequence[str]) -> None:
    if not isinstance(t, Mapping):
        raise where.fail(table, None, f"must be a table, got {t!r}")
    for k in t:
        if k not in allowed:
            raise where.fail(table, k, f"unknown key; accepted keys: {', '.join(allowed)}")


def _list_of_tables(
    data: Mapping[str, Any], kind: str, where: _Where | None = None
) -> list[dict[str, Any]]:
    """The ``[[kind]]`` tables of ``data`` (``where``: refusing anything else; ``None``: the
    tables themselves, in place, skipping anything else)."""
    raw = data.get(kind, [])
    raw = [raw] if isinstance(raw, Mapping) else raw
    if where is None:
        return [t for t in raw if isinstance(t, dict)] if isinstance(raw, list) else []
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
    data: Mapping[str, Any],
    source: str,
    stem: str,
    overrides: Mapping[str, Any],
    laws: Mapping[str, str] | None = None,
) -> tuple[Scenario, dict[str, Any]]:
    """The file's scenario and its ``start_spread``/``start_seed`` (applied by
    ``tcpfluid.scenarios.catalogue._finish``); ``laws``: the algorithm another law gives
    some flows (by the names the file gives them), whose names, where the file names them
    after their algorithm, are then made from that law (:meth:`_Links.flow_name`)."""
    from .files import _apply_overrides

    where = _Where(source)
    if not isinstance(data, Mapping):
        raise where.fail("top level", None, "must be a table")
    if "grid" in data and "link" not in data:  # a sweep's file, not a scenario's
        raise where.fail(
            "top level",
            None,
            f"a sweep configuration ([grid]), not a scenario: run "
            f"`tcpfluid sweep {source}`, or give the scenario file it names",
        )
    _check_keys(where, "top level", data, TOP_KEYS)
    data = _apply_overrides(dict(data), overrides, where)
    top = _top_level(data, where, stem)
    params = {**dict(top.pop("params")), **dict(overrides)}
    spread = {k: data.get(k, 0) for k in ("start_spread", "start_seed")}
    pkt = top["packet_size_bytes"]
    links, reverse_of = _declared_links(data, where, pkt)
    build = _Links(where, links, reverse_of, pkt, laws or {})
    default_access: float | None = None
    if "access_rate" in data:
        with where.at("top level", "access_rate"):
            default_access = _rate(data["access_rate"], "access_rate", pkt)
    elif links:
        default_access = ACCESS_FACTOR * max(lk.rate_bps for lk in links)
    groups = _list_of_tables(data, "flow", where)
    if not groups:
        raise where.fail("[[flow]]", None, "the file has no [[flow]]; give at least one")
    flows = [f for gi, g in enumerate(groups, 1) for f in build.flow_group(gi, g, default_access)]
    sources = [build.cbr(ci, c) for ci, c in enumerate(_list_of_tables(data, "cbr", where), 1)]
    with where.at("top level"):
        sc = Scenario(
            links=(*links, *build.extra),
            flows=tuple(flows),
            cbr=tuple(sources),
            params=params,
            **top,
        )
    return sc, spread


def _top_level(data: Mapping[str, Any], where: _Where, stem: str) -> dict[str, Any]:
    """The file's top-level values as :class:`~tcpfluid.scenarios.Scenario`'s keywords."""
    top = "top level"
    if "duration" not in data:
        raise where.fail(top, "duration", 'missing; give the run\'s length, e.g. duration = "60s"')
    with where.at(top, "duration"):
        duration = units.seconds(data["duration"], name="duration")
    with where.at(top, "packet_size"):
        pkt = units.bytes_(data.get("packet_size", "1000B"), name="packet_size")
    with where.at(top, "ack_size"):
        ack = units.bytes_(data.get("ack_size", "40B"), name="ack_size")
    with where.at(top, "start_spread_applied"):
        # the width of a spread already applied to the starts the file writes (a file that
        # `scenario show --toml` wrote): the summaries read it, nothing moves again
        applied = units.time_or_zero(data.get("start_spread_applied", 0), name="start_spread")
        if applied and units.time_or_zero(data.get("start_spread", 0), name="start_spread"):
            raise ValueError(
                "start_spread_applied records a spread already in the starts; give it or "
                "start_spread, not both"
            )
    name, description = data.get("name", stem), data.get("description", "")
    notes, params = data.get("notes", []), data.get("params", {})
    for ok, table, key, what, value in (
        (isinstance(name, str) and name, top, "name", "a non-empty string", name),
        (isinstance(description, str), top, "description", "a string", description),
        (isinstance(notes, list) and all(isinstance(x, str) for x in notes), top, "notes",
         "a list of strings", notes),
        (isinstance(params, Mapping), "[params]", None, "a table", params),
    ):  # fmt: skip
        if not ok:
            raise where.fail(table, key, f"must be {what}, got {value!r}")
    return dict(
        name=name, duration_s=duration, packet_size_bytes=pkt, ack_size_bytes=ack,
        description=description, notes=tuple(notes), params=params,
        start_spread_s=applied,
    )  # fmt: skip


class _Links:
    """The links of a file's scenario by name as they are built (declared, then derived:
    reverse directions and access links), and the flow names taken."""

    def __init__(
        self,
        where: _Where,
        links: list[Link],
        reverse_of: dict[str, Any],
        pkt: float,
        laws: Mapping[str, str],
    ) -> None:
        self.where, self.pkt, self.reverse_of, self.laws = where, pkt, reverse_of, laws
        self.declared = [lk.name for lk in links]
        self.by_name = {lk.name: lk for lk in links}
        #: the derived links, in the order they were made
        self.extra: list[Link] = []
        self.taken = set(self.by_name)
        self.counters: dict[str, int] = {}
        #: the numbers of the names the file itself gives (``laws``' keys)
        self.own_counters: dict[str, int] = {}

    def _add(self, link: Link) -> None:
        self.by_name[link.name] = link
        self.extra.append(link)

    def path(self, table: str, t: Mapping[str, Any]) -> list[str]:
        """The declared links of table ``t``'s ``path`` (default every declared link)."""
        path = _names(self.where, table, "path", t["path"]) if "path" in t else list(self.declared)
        for ln in path:
            if ln not in self.by_name:
                raise self.where.fail(table, "path", self._unknown(ln))
        return path

    def _unknown(self, ln: str) -> str:
        return f"unknown link {ln!r}; links: {', '.join(self.by_name)}"

    def reverse_path(self, table: str, g: Mapping[str, Any], path: list[str]) -> list[str]:
        """A flow group's ACK path: its ``reverse_path`` (a ``NAME-rev`` link derived),
        default the reverse of each ``path`` link in reverse order."""
        if "reverse_path" not in g:
            return [self.derived_reverse(ln) for ln in reversed(path)]
        given = g["reverse_path"]
        rpath = _names(self.where, table, "reverse_path", given) if given else []
        for ln in rpath:
            if ln not in self.by_name and not (ln.endswith("-rev") and ln[:-4] in self.by_name):
                raise self.where.fail(table, "reverse_path", self._unknown(ln))
        return [ln if ln in self.by_name else self.derived_reverse(ln[:-4]) for ln in rpath]

    def derived_reverse(self, ln: str) -> str:
        """The name of link ``ln``'s reverse direction, made on first use."""
        rname = f"{ln}-rev"
        if rname not in self.by_name:
            fwd = self.by_name[ln]
            tweak = self.reverse_of.get(ln, {})
            with self.where.at(f"[[link]] {ln!r}", "reverse"):
                rev = Link(
                    rname,
                    tweak.get("rate", fwd.rate_bps),
                    tweak.get("delay", fwd.delay_s),
                    _buffer(f"{ln}.reverse.buffer", tweak["buffer"], self.pkt)
                    if "buffer" in tweak
                    else fwd.buffer_pkts,
                )
            self._add(rev)
        return rname

    def flow_group(self, gi: int, g: dict[str, Any], access: float | None) -> list[FlowSpec]:
        """The flows of the ``gi``-th ``[[flow]]`` table ``g``."""
        where = self.where
        table = f"[[flow]] {gi}" + (f" ({g['name']!r})" if "name" in g else "")
        _check_keys(where, table, g, FLOW_KEYS)
        with where.at(table, "count"):
            n = _int("count", g.get("count", 1), minimum=1)
        alg = g.get("algorithm")
        law = _law_params(where, table, g, alg)
        path = self.path(table, g)
        if not path:
            raise where.fail(table, "path", "no link: declare a [[link]] or give path")
        rpath = self.reverse_path(table, g, path)
        rtts = _per_flow(where, table, "rtt", g["rtt"], n) if "rtt" in g else [None] * n
        starts = _per_flow(where, table, "start", g.get("start", 0), n)
        stops = _per_flow(where, table, "stop", g.get("stop", "never"), n)
        if "access_rate" in g:
            with where.at(table, "access_rate"):
                access = _rate(g["access_rate"], "access_rate", self.pkt)
        given = g.get("name")
        if given is not None and (not isinstance(given, str) or not given):
            raise where.fail(table, "name", f"must be a non-empty string, got {given!r}")
        flows = []
        for k in range(n):
            fname = self.flow_name(
                table, given if n == 1 else None, given or alg or "flow", given is None and alg
            )
            fwd, rev = list(path), list(rpath)
            if rtts[k] is not None:
                fwd, rev = self._access(table, fname, rtts[k], fwd, rev, access)
            with where.at(table, "start/stop"):
                start = units.time_or_zero(starts[k], name="start")
                stop = units.time_or_inf(stops[k], name="stop")
                flows.append(FlowSpec(fname, tuple(fwd), tuple(rev), start, stop, alg, dict(law)))
        return flows

    def flow_name(self, table: str, given: str | None, prefix: str, by_law: Any) -> str:
        """A flow's name: ``given`` (a group of one), else ``PREFIX-N``; not yet taken.
        ``by_law``: the prefix is the group's algorithm (the file names no flow); a flow
        that another law runs (``laws``, by its name here) takes that law's prefix, numbered
        as if the file had named that law."""
        if given is not None:
            fname = given
        else:
            self.own_counters[prefix] = self.own_counters.get(prefix, 0) + 1
            own = f"{prefix}-{self.own_counters[prefix]}"
            law = self.laws.get(own, prefix) if by_law else prefix
            self.counters[law] = self.counters.get(law, 0) + 1
            fname = f"{law}-{self.counters[law]}"
        if fname in self.taken:
            raise self.where.fail(
                table, "name", f"flow name {fname!r} is already used; give another name"
            )
        self.taken.add(fname)
        return fname

    def _access(
        self, table: str, fname: str, given_rtt: Any, fwd: list[str], rev: list[str], access: Any
    ) -> tuple[list[str], list[str]]:
        """Flow ``fname``'s paths with its four access links, whose one-way delay makes its
        round-trip propagation delay ``given_rtt``."""
        with self.where.at(table, "rtt"):
            rtt = units.time_or_zero(given_rtt, name="rtt")
        core = sum(self.by_name[x].delay_s for x in (*fwd, *rev))
        x = (rtt - core) / 4.0
        if x < -1e-12 * max(rtt, 1.0):
            raise self.where.fail(
                table,
                "rtt",
                f"{given_rtt!r} (flow {fname!r}) is shorter than the round trip "
                f"of its links ({core:g} s: the delays of {', '.join([*fwd, *rev])}); "
                f"give rtt >= {core:g} s",
            )
        x = max(x, 0.0)
        names = (f"{fname}-in", f"{fname}-out", f"{fname}-out-ack", f"{fname}-in-ack")
        for an in names:
            if an in self.by_name:
                raise self.where.fail(table, "name", f"derived link {an!r} clashes with a link")
            self._add(Link(an, access, x))
        return [names[0], *fwd, names[1]], [names[2], *rev, names[3]]

    def cbr(self, ci: int, c: dict[str, Any]) -> CbrSource:
        """The source of the ``ci``-th ``[[cbr]]`` table ``c``."""
        where = self.where
        table = f"[[cbr]] {ci}" + (f" ({c['name']!r})" if "name" in c else "")
        _check_keys(where, table, c, CBR_KEYS)
        cpath = self.path(table, c)
        if "rate" not in c:
            raise where.fail(table, "rate", 'missing; e.g. rate = "25Mbps" or "50%"')
        rate = c["rate"]
        with where.at(table, "rate"):
            if isinstance(rate, str) and rate.strip().endswith("%"):
                slowest = min(self.by_name[x].rate_bps for x in cpath)
                rate = units.share(rate, name="rate") * slowest
            else:
                rate = _rate(rate, "rate", self.pkt)
        with where.at(table, "start/stop"):
            return CbrSource(
                str(c.get("name", f"cbr-{ci}")),
                rate,
                units.time_or_zero(c.get("start", 0), name="start"),
                units.time_or_inf(c.get("stop", "never"), name="stop"),
                tuple(cpath),
            )


def _law_params(where: _Where, table: str, g: Mapping[str, Any], alg: str | None) -> dict[str, Any]:
    """A flow group's law parameters (``params``), checked against its algorithm's: their
    names, each value, and the law made of them (α <= β), a refusal naming the algorithm."""
    from ..algorithms.registry import get_law, law_class

    if alg is not None:
        with where.at(table, "algorithm"):
            law_class(alg)
    law = g.get("params", {})
    if not isinstance(law, Mapping):
        raise where.fail(table, "params", f"must be a table of law parameters, got {law!r}")
    law = {k: _number_or_text(v) for k, v in law.items()}
    if alg is not None:
        declared = {p.name: p for p in law_class(alg).parameters}
        for k, v in law.items():
            with where.at(table, f"params.{k}"):
                law_class(alg)._check_parameter_names([k])
            try:
                declared[k].check(v)
            except (TypeError, ValueError) as exc:
                raise where.fail(table, f"params.{k}", f"{exc} (algorithm {alg!r})") from None
        try:
            get_law(alg, **law)
        except (TypeError, ValueError) as exc:
            raise where.fail(table, "params", f"{exc} (algorithm {alg!r})") from None
    return law


def parse_number(text: str) -> int | float:
    """``text`` as an integer (digits, optionally signed) or a float (ValueError if neither)."""
    t = text.strip()
    return int(t) if t.lstrip("+-").isdigit() else float(t)


def _number_or_text(value: Any) -> Any:
    """A value set as text (``--set``, a sweep's grid): a number, ``true``/``false`` as a
    bool (as TOML writes them), else the text."""
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    try:
        return parse_number(value) if isinstance(value, str) else value
    except ValueError:
        return value


def _declared_links(
    data: Mapping[str, Any], where: _Where, pkt: float
) -> tuple[list[Link], dict[str, dict[str, Any]]]:
    links: list[Link] = []
    reverse_of: dict[str, dict[str, Any]] = {}  # by name, of each link declared so far
    for i, t in enumerate(_list_of_tables(data, "link", where), start=1):
        table = f"[[link]] {i}" + (f" ({t['name']!r})" if "name" in t else "")
        _check_keys(where, table, t, LINK_KEYS)
        name = t.get("name")
        if not isinstance(name, str) or not name:
            raise where.fail(table, "name", f"missing or empty; give the link a name, got {name!r}")
        if name in reverse_of:
            raise where.fail(table, "name", f"{name!r} is declared twice")
        conv = reverse_of[name] = {}
        for key in ("rate", "delay"):
            if key not in t:
                raise where.fail(table, key, "missing")
        with where.at(table, "rate"):
            rate = _rate(t["rate"], "rate", pkt)
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
        with where.at(table, "red"):
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
        with where.at(table, "reverse"):
            if "rate" in rev:
                conv["rate"] = _rate(rev["rate"], "reverse.rate", pkt)
            if "delay" in rev:
                conv["delay"] = units.time_or_zero(rev["delay"], name="reverse.delay")
            if "buffer" in rev:
                conv["buffer"] = rev["buffer"]
    return links, reverse_of


def _rate(value: Any, name: str, packet_size_bytes: float) -> float:
    """A rate of the file in bits/s (a bit or packet rate with its unit)."""
    return units.link_rate_bps(value, packet_size_bytes=packet_size_bytes, name=name)
