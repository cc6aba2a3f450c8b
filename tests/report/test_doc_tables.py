"""A mean delivery rate over the end of a run, as the thesis sections' packet runs compute
it inside their task functions (no result shows the delivered counts it reads)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tcpfluid.report._common import mean_rate_since


def test_the_mean_rate_counts_only_the_packets_delivered_after_the_start() -> None:
    # two flows delivering 10 and 4 packets/s from 0 s, flow 2 stopping at 15 s
    t = np.linspace(0.0, 60.0, 61)
    dl = np.vstack([10.0 * t, 4.0 * np.minimum(t, 15.0)])
    rate = mean_rate_since(t, dl, 10.0)
    assert rate[0] == pytest.approx(10.0)
    assert rate[1] == pytest.approx(4.0 * 5.0 / 50.0)  # 20 packets over 10-60 s
    # a start between samples: the delivered count is interpolated
    assert math.isclose(mean_rate_since(t, dl, 10.5)[0], 10.0)
