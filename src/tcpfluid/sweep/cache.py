"""The sweep result cache: one JSON-lines file per run, keyed by point, engine, options
and tcpfluid version."""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from collections.abc import Mapping
from pathlib import Path as FsPath
from typing import Any

from .. import __version__


def _cache_key(point: Mapping[str, Any], engine: str, options: Mapping[str, Any]) -> str:
    blob = json.dumps(
        {"point": dict(point), "engine": engine, "options": dict(options), "version": __version__},
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(blob.encode()).hexdigest()


class _Cache:
    """Append-only JSON-lines cache: ``{"key": ..., "summary": ...}`` per computed point.

    Every ``*.jsonl`` file of the directory is read at start (a torn last line of an
    interrupted run is skipped); this run appends to a file of its own, flushed per line.
    """

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.dir = FsPath(directory)
        if self.dir.exists() and not self.dir.is_dir():
            raise ValueError(f"cache_dir {str(self.dir)!r} exists and is not a directory")
        self.dir.mkdir(parents=True, exist_ok=True)
        self._data: dict[str, dict[str, Any]] = {}
        for f in sorted(self.dir.glob("*.jsonl")):
            with f.open(encoding="utf-8") as fh:
                for line in fh:
                    try:
                        rec = json.loads(line)
                        self._data[rec["key"]] = rec["summary"]
                    except (ValueError, KeyError, TypeError):
                        continue
        self._file = self.dir / f"part-{os.getpid()}-{uuid.uuid4().hex[:12]}.jsonl"
        self._fh: Any = None

    def get(self, key: str) -> dict[str, Any] | None:
        return self._data.get(key)

    def put(self, key: str, summary: Mapping[str, Any]) -> None:
        if self._fh is None:
            self._fh = self._file.open("a", encoding="utf-8")
        self._fh.write(json.dumps({"key": key, "summary": dict(summary)}) + "\n")
        self._fh.flush()
        self._data[key] = dict(summary)

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None
