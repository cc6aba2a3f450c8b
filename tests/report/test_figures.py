"""Report figure helpers: dense oscillations become an envelope plus a zoom with the
period and swing measured from the trace (checked on signals of known period)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

from tcpfluid.report._figures import envelope, is_dense, oscillation, queue_panel

T = np.arange(0.0, 500.0, 0.1)


def _triangle(period: float, lo: float, hi: float) -> np.ndarray:
    phase = (T / period) % 1.0
    return lo + (hi - lo) * (1.0 - np.abs(2.0 * phase - 1.0))


def test_period_and_swing_of_a_known_oscillation() -> None:
    q = _triangle(4.0, 0.0, 1500.0)  # FAST-like: empty to full every 4 s
    osc = oscillation(T, q, window_s=50.0)
    assert osc.period_s == pytest.approx(4.0, rel=0.05)
    assert osc.amplitude == pytest.approx(1500.0, rel=0.02)
    assert is_dense(T, q, t_end=500.0)


def test_slow_or_small_changes_are_not_dense() -> None:
    steps = np.where(T < 100, 0.0, np.where(T < 300, 250.0, 100.0))  # Vegas-like levels
    assert not is_dense(T, steps, t_end=500.0)
    noisy = steps + 3.0 * np.sin(2 * np.pi * T / 0.5)  # +-3 pkts of noise on 250 pkts
    assert not is_dense(T, noisy, t_end=500.0)
    slow = _triangle(100.0, 0.0, 1500.0)  # five periods: a panel shows them
    assert not is_dense(T, slow, t_end=500.0)


def test_envelope_by_hand() -> None:
    t = np.array([0.0, 0.5, 1.0, 1.5, 3.5])
    y = np.array([1.0, 3.0, 2.0, 6.0, 5.0])
    start, lo, hi, mean = envelope(t, y, window_s=1.0)
    assert start.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert lo.tolist() == [1.0, 2.0, 2.0, 5.0]  # the empty window [2, 3) repeats [1, 2)
    assert hi.tolist() == [3.0, 6.0, 6.0, 5.0]
    assert mean.tolist() == [2.0, 4.0, 4.0, 5.0]
    with pytest.raises(ValueError, match="window_s"):
        envelope(t, y, window_s=0.0)


def test_queue_panel_envelopes_only_the_dense_trace_and_adds_a_zoom() -> None:
    fig, ax = plt.subplots()
    dense = _triangle(4.0, 0.0, 1500.0)
    calm = np.where(T < 250, 100.0, 300.0)
    names = queue_panel(
        ax,
        [("packet sim", T, dense, {"color": "C0"}), ("ODE", T, calm, {"color": "C2"})],
        t_end=500.0,
    )
    assert names == ["packet sim"]
    insets = ax.child_axes
    assert len(insets) == 1
    assert "period ≈ 4 s" in insets[0].get_title()
    labels = ax.get_legend_handles_labels()[1]
    assert labels[0].startswith("packet sim (mean; band: min–max per 4 s)") and "ODE" in labels
    plt.close(fig)


def test_a_rendered_figure_is_the_tight_savefig_image() -> None:
    # Figure.from_matplotlib finds the tight bounding box once for the PNG and the SVG;
    # the PNG must be the one matplotlib's own savefig(bbox_inches="tight") writes
    import io

    from PIL import Image

    from tcpfluid.report import Figure

    def draw() -> plt.Figure:
        fig, ax = plt.subplots()
        ax.plot(T, np.sin(T), label="a long legend entry outside the axes")
        ax.set_title("title")
        fig.legend(loc="center left", bbox_to_anchor=(0.95, 0.5))
        return fig

    ref = io.BytesIO()
    fig = draw()
    fig.savefig(ref, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    got = Figure.from_matplotlib(draw(), "f", "caption")
    a = np.asarray(Image.open(io.BytesIO(ref.getvalue())))
    b = np.asarray(Image.open(io.BytesIO(got.png)))
    assert a.shape == b.shape
    assert np.array_equal(a, b)
    assert got.svg.lstrip().startswith(b"<?xml")


def test_the_zoom_shows_whole_cycles_of_the_slowest_dense_trace() -> None:
    # FAST-like: the packet run cycles every 2.7 s, the round model every 0.3 s; the zoom
    # must show the slow cycle whole (three periods), not a fraction of it
    fig, ax = plt.subplots()
    slow = _triangle(2.7, 0.0, 1500.0)
    fast = _triangle(0.3, 0.0, 1500.0)
    queue_panel(
        ax,
        [("packet sim", T, slow, {"color": "C0"}), ("round model", T, fast, {"color": "C1"})],
        t_end=500.0,
    )
    (inset,) = ax.child_axes
    lo, hi = inset.get_xlim()
    assert hi - lo == pytest.approx(3 * 2.7, rel=0.1)
    plt.close(fig)
