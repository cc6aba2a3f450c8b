"""The sweep result cache: one JSON-lines file per run, keyed by point, engine, options
and tcpfluid version."""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import math
import os
import uuid
from collections.abc import Iterable, Mapping
from pathlib import Path as FsPath
from typing import Any

from .. import __version__
from .config import _canonical, _identity

_log = logging.getLogger("tcpfluid.sweep")


#: raised whenever a change moves engines' results without a new version number (an engine
#: default, a summary rule), so that a cache written before it is not reused (CHANGELOG.md)
RESULTS_REVISION = 8


def _cache_key(
    point: Mapping[str, Any],
    engine: str,
    options: Mapping[str, Any],
    files: Mapping[str, str] | None = None,
    engine_revision: int = 0,
) -> str:
    """The point's key (a scenario file of ``files`` by its content, :func:`_identity`; the
    engine's own revision, :attr:`SweepEngine.revision`, where it has one)."""
    key = dict(
        point=dict(_identity(point, files or {})), engine=engine, options=dict(options),
        version=__version__, revision=RESULTS_REVISION,
    )  # fmt: skip
    if engine_revision:
        key["engine_revision"] = engine_revision
    return hashlib.sha256(_canonical(key).encode()).hexdigest()


#: the range each metric can take (inclusive; ``None`` entries and empty lists allowed):
#: a share in [0, 1], a count or duration >= 0, a window > 0, a flag True/False
_SHARE, _AT_LEAST_0, _POSITIVE, _FLAG = (0.0, 1.0), (0.0, math.inf), (0.0, math.inf), "flag"
_WINDOWS = ("ss_exit_window", "settled_window", "critical_window")
METRIC_DOMAINS: dict[str, tuple[float, float] | str] = {
    **dict.fromkeys(("utilization", "jain_index", "loss_fraction"), _SHARE),
    **dict.fromkeys(_WINDOWS, _POSITIVE),
    **dict.fromkeys(
        ("final_windows_pkts", "ss_exit_time_s", "time_to_equilibrium_s", "convergence_times_s",
         "throughput_pps", "ss_exit_round", "rounds_to_equilibrium", "losses", "retransmissions",
         "timeouts", "lost_pkts", "mean_queue_pkts", "final_queue_pkts"),
        _AT_LEAST_0,
    ),
    "conserved": _FLAG,
}  # fmt: skip
#: relative slack at a share's upper end (a ratio of two sums may round above 1)
_SHARE_SLACK = 1e-9
_NUMBER = (int, float)


def _in_domain(name: str, v: Any) -> bool:
    """``v`` is a metric value as engines report it (``None``, a bool, a finite number or a
    list of those) inside :data:`METRIC_DOMAINS` of ``name`` (if listed)."""
    dom = METRIC_DOMAINS.get(name)
    if v is None or isinstance(v, bool):
        return v is None or not isinstance(dom, tuple)
    if isinstance(v, list):
        values = v
    elif isinstance(v, _NUMBER):
        values = [v]
    else:
        return False
    for x in values:
        if x is not None and not (isinstance(x, _NUMBER) and math.isfinite(x)):
            return False
    if not isinstance(dom, tuple):  # no domain: any such value; _FLAG: a bool only
        return dom is None
    lo, hi = dom
    hi = hi * (1.0 + _SHARE_SLACK) if math.isfinite(hi) else hi
    above = name in _WINDOWS  # a window: above ``lo``; other metrics: at least ``lo``
    for x in values:
        if x is not None and (
            isinstance(x, bool) or not (x > lo if above else x >= lo) or not x <= hi
        ):
            return False
    return True


def invalid_metric(summary: Mapping[str, Any], metrics: Iterable[str]) -> str | None:
    """The first of ``metrics`` missing from ``summary`` or not a valid value in its range
    (:data:`METRIC_DOMAINS`), described; ``None`` if all are valid."""
    for m in metrics:
        if m not in summary:
            return f"{m} is missing"
        if not _in_domain(m, summary[m]):
            dom = METRIC_DOMAINS.get(m)
            where = " (not True/False)" if isinstance(dom, str) else ""
            if isinstance(dom, tuple):
                where = f" (outside [{dom[0]:g}, {dom[1]:g}])"
            return f"{m} = {summary[m]!r}{where}"
    return None


def _line_key(line: bytes) -> str | None:
    """The key of a cache line, or ``None`` for a torn or foreign line."""
    try:
        rec = json.loads(line)
    except ValueError:
        return None
    if not isinstance(rec, dict):
        return None
    key, summary = rec.get("key"), rec.get("summary")
    return key if isinstance(key, str) and isinstance(summary, dict) else None


class _Cache:
    """Append-only JSON-lines cache, ``{"key": ..., "summary": ...}`` per computed point, in
    a file per run under a lock on ``DIR/lock`` (docs/sweeps.md, "Determinism, cache, resuming")."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.dir = FsPath(directory)
        if self.dir.exists() and not self.dir.is_dir():
            raise ValueError(f"cache_dir {str(self.dir)!r} exists and is not a directory")
        self.dir.mkdir(parents=True, exist_ok=True)
        self._lock_fh: Any = None
        self._lock()
        # key -> (file, offset, length): the entries stay on disk and are parsed when a
        # point asks for them (a 10^6-point cache costs an index, not 10^6 parsed dicts)
        self._index: dict[str, tuple[int, int, int]] = {}
        n_malformed, first_malformed = 0, ""
        try:
            self._files = sorted(self.dir.glob("*.jsonl"))
            for fi, f in enumerate(self._files):
                offset = 0
                with f.open("rb") as fh:
                    for lineno, line in enumerate(fh, start=1):
                        key = _line_key(line)
                        if key is not None:
                            self._index[key] = (fi, offset, len(line))
                        elif line.strip():
                            n_malformed += 1
                            first_malformed = first_malformed or f"{f}:{lineno}"
                        offset += len(line)
        except BaseException:
            self._unlock()
            raise
        if n_malformed:
            _log.warning(
                "sweep cache %s: %d malformed line%s skipped (first: %s; a run killed while "
                "writing leaves a torn last line); their points are recomputed",
                self.dir,
                n_malformed,
                "" if n_malformed == 1 else "s",
                first_malformed,
            )
        self._write_failed = False
        self._readers: dict[int, Any] = {}
        self._file = self.dir / f"part-{os.getpid()}-{uuid.uuid4().hex[:12]}.jsonl"
        self._fh: Any = None
        self.n_invalid = 0
        self._first_invalid = ""

    def _lock(self) -> None:
        try:
            import fcntl
        except ImportError:  # not POSIX: no lock (two sweeps may compute a point twice)
            return
        fh = (self.dir / "lock").open("a+", encoding="utf-8")
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            _log.warning("another sweep is using the cache %s; waiting for it to finish", self.dir)
            try:
                fcntl.flock(fh, fcntl.LOCK_EX)
            except BaseException:
                fh.close()
                raise
        self._lock_fh = fh

    def _unlock(self) -> None:
        if self._lock_fh is not None:
            self._lock_fh.close()  # closing the file releases the lock
            self._lock_fh = None

    def get(self, key: str, metrics: Iterable[str] = ()) -> dict[str, Any] | None:
        """The cached summary of ``key``, or ``None`` if absent or invalid (counted)."""
        if key not in self._index:
            return None
        fi, offset, length = self._index[key]
        if fi not in self._readers:
            self._readers[fi] = self._files[fi].open("rb")
        self._readers[fi].seek(offset)
        try:
            hit = json.loads(self._readers[fi].read(length))["summary"]
        except (ValueError, KeyError, TypeError):
            hit = None
        bad = (
            invalid_metric(hit, metrics)
            if isinstance(hit, dict)
            else f"unreadable entry in {self._files[fi]}"  # changed on disk since it was indexed
        )
        if bad is not None:
            self.n_invalid += 1
            self._first_invalid = self._first_invalid or bad
            return None
        return hit

    def put(self, key: str, summary: Mapping[str, Any]) -> None:
        """Append one entry; a failed write is warned about once and caching stops."""
        if self._write_failed:
            return
        try:
            if self._fh is None:
                self._fh = self._file.open("a", encoding="utf-8")
            self._fh.write(json.dumps({"key": key, "summary": dict(summary)}) + "\n")
            self._fh.flush()
        except OSError as exc:
            self._write_failed = True
            _log.warning(
                "sweep cache: cannot write %s (%s); the sweep goes on without caching its points",
                self._file,
                exc.strerror or exc,
            )
            if self._fh is not None:
                with contextlib.suppress(OSError):
                    self._fh.close()
                self._fh = None

    def close(self) -> None:
        if self.n_invalid:
            _log.warning(
                "sweep cache %s: %d invalid entr%s (first: %s) recomputed",
                self.dir,
                self.n_invalid,
                "y" if self.n_invalid == 1 else "ies",
                self._first_invalid,
            )
            self.n_invalid = 0
        if self._fh is not None:
            try:
                self._fh.close()
            except OSError as exc:  # the last buffered line could not be written
                _log.warning("sweep cache: cannot write %s (%s)", self._file, exc.strerror or exc)
            self._fh = None
        for fh in self._readers.values():
            fh.close()
        self._readers.clear()
        self._unlock()
