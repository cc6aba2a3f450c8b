"""Inputs of the round model: the batch of paths (:class:`PathBatch`), cross traffic
(:class:`CrossTraffic`) and per-flow start/stop times."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import (
    as_float_array,
    check_range,
)
from ..path import Path

FloatArray = NDArray[np.float64]


# ------------------------------------------------------------------------------ inputs
@dataclass(frozen=True, init=False)
class PathBatch:
    """S bottleneck paths as arrays: the grid one :func:`simulate_rounds` call runs.

    Parameters
    ----------
    mu_pps
        Bottleneck rate μ, packets/s (> 0).
    d_s
        Base RTT d, s (> 0).
    buffer_pkts
        Bottleneck buffer, packets (>= 1; ``inf``: no loss).
    reverse_mu_pps
        ACK-path bottleneck, ACKs/s (> 0; ``inf``: none).
    reverse_buffer_pkts
        Reverse buffer, ACKs (>= 1; ``inf``: no ACK loss).

    All are broadcast to one common shape ``(S,)``.
    """

    mu_pps: FloatArray
    d_s: FloatArray
    buffer_pkts: FloatArray
    reverse_mu_pps: FloatArray
    reverse_buffer_pkts: FloatArray

    def __init__(
        self,
        mu_pps: ArrayLike,
        d_s: ArrayLike,
        *,
        buffer_pkts: ArrayLike = math.inf,
        reverse_mu_pps: ArrayLike = math.inf,
        reverse_buffer_pkts: ArrayLike = math.inf,
    ) -> None:
        mu = as_float_array("mu_pps", mu_pps, positive=True)
        d = as_float_array("d_s", d_s, positive=True)
        buf = _inf_array("buffer_pkts", buffer_pkts, minimum=1.0)
        rmu = _inf_array("reverse_mu_pps", reverse_mu_pps, minimum=None)
        rbuf = _inf_array("reverse_buffer_pkts", reverse_buffer_pkts, minimum=1.0)
        try:
            arrs = np.broadcast_arrays(mu, d, buf, rmu, rbuf)
        except ValueError as exc:
            raise ValueError(
                "mu_pps, d_s, buffer_pkts, reverse_mu_pps and reverse_buffer_pkts must "
                f"broadcast to one shape, got {mu.shape}, {d.shape}, {buf.shape}, "
                f"{rmu.shape}, {rbuf.shape}"
            ) from exc
        if arrs[0].ndim > 1:
            raise ValueError(f"paths must be a 1-d batch, got shape {arrs[0].shape}")
        names = ("mu_pps", "d_s", "buffer_pkts", "reverse_mu_pps", "reverse_buffer_pkts")
        for name, a in zip(names, arrs, strict=True):
            object.__setattr__(self, name, np.array(np.atleast_1d(a), dtype=np.float64))

    @classmethod
    def from_paths(cls, paths: Path | Sequence[Path]) -> PathBatch:
        """A batch from one :class:`~tcpfluid.path.Path` or a sequence of them."""
        seq = [paths] if isinstance(paths, Path) else list(paths)
        if not seq:
            raise ValueError("paths must contain at least one Path, got an empty sequence")
        for i, p in enumerate(seq):
            if not isinstance(p, Path):
                raise TypeError(f"paths[{i}] must be a Path, got {type(p).__name__}")
        return cls(
            [p.mu for p in seq],
            [p.d for p in seq],
            buffer_pkts=[p.buffer_pkts for p in seq],
            reverse_mu_pps=[math.inf if p.reverse_mu is None else p.reverse_mu for p in seq],
            reverse_buffer_pkts=[
                math.inf if p.reverse_buffer_pkts is None else p.reverse_buffer_pkts for p in seq
            ],
        )

    @classmethod
    def from_bdp(cls, bdp_pkts: ArrayLike, d_s: ArrayLike, **kwargs: Any) -> PathBatch:
        """Paths with bandwidth-delay products ``bdp_pkts`` (μ = bdp/d)."""
        b = as_float_array("bdp_pkts", bdp_pkts, positive=True)
        d = as_float_array("d_s", d_s, positive=True)
        return cls(b / d, d, **kwargs)

    @property
    def n_scenarios(self) -> int:
        """S, the number of paths."""
        return int(self.mu_pps.shape[0])

    @property
    def bdp_pkts(self) -> FloatArray:
        """μd of each path, packets."""
        return self.mu_pps * self.d_s

    def to_dict(self) -> dict[str, Any]:
        """Lists of plain numbers (``None`` for infinite)."""
        return {
            k: [None if math.isinf(x) else float(x) for x in getattr(self, k)]
            for k in ("mu_pps", "d_s", "buffer_pkts", "reverse_mu_pps", "reverse_buffer_pkts")
        }


def _inf_array(name: str, value: ArrayLike, *, minimum: float | None) -> FloatArray:
    arr = as_float_array(name, value, finite=False)
    if np.any(np.isnan(arr)) or np.any(arr == -np.inf):
        raise ValueError(f"{name} must be a number or inf, got {value!r}")
    finite = arr[np.isfinite(arr)]
    if minimum is not None and np.any(finite < minimum):
        raise ValueError(
            f"{name} must be >= {minimum} (or inf), got {finite[finite < minimum][0]!r}"
        )
    if minimum is None and np.any(arr <= 0):
        raise ValueError(f"{name} must be > 0 (or inf), got {arr[arr <= 0].ravel()[0]!r}")
    return arr


@dataclass(frozen=True)
class CrossTraffic:
    """Constant-bit-rate cross traffic at the bottleneck (document 000 §5.1).

    Attributes
    ----------
    rate_pps
        Rate taken from the bottleneck, packets/s: a scalar or one value per scenario.
    start_s, stop_s
        Active interval ``[start_s, stop_s)``, s.
    """

    rate_pps: ArrayLike
    start_s: float
    stop_s: float = math.inf

    def __post_init__(self) -> None:
        as_float_array("rate_pps", self.rate_pps, positive=True)
        start = check_range("start_s", self.start_s, 0.0, math.inf, hi_open=True)
        if not (isinstance(self.stop_s, int | float) and self.stop_s > start):
            raise ValueError(f"stop_s must be > start_s={start!r}, got {self.stop_s!r}")


def _flow_times(name: str, value: ArrayLike | None, F: int, *, default: float) -> FloatArray:
    if value is None:
        return np.full(F, default)
    arr = as_float_array(name, value, finite=False)
    if arr.ndim == 0:
        arr = np.full(F, float(arr))
    if arr.shape != (F,):
        raise ValueError(
            f"{name} must have one time per flow (shape ({F},)), got shape {arr.shape}"
        )
    if np.any(np.isnan(arr)) or np.any(arr < 0):
        raise ValueError(f"{name} must be >= 0, got {arr}")
    return arr


def _max_concurrent(rates: FloatArray, start: FloatArray, stop: FloatArray) -> FloatArray:
    """Largest total cross-traffic rate active at any instant, per scenario."""
    times = np.unique(start)
    worst = np.zeros(rates.shape[1])
    for ti in times:
        on = (start <= ti) & (stop > ti)
        worst = np.maximum(worst, rates[on].sum(axis=0))
    return worst
