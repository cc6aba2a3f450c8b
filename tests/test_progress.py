"""tcpfluid._progress: the fraction-done bar drawn only on a terminal and never when disabled."""

from __future__ import annotations

import io

import pytest

from tcpfluid._progress import progress_bar


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_not_a_terminal_draws_nothing() -> None:
    s = io.StringIO()
    with progress_bar("run", stream=s) as bar:
        for k in range(11):
            bar(k / 10)
    assert s.getvalue() == ""
    assert not bar.drawn and not bar.active
    assert bar.fraction == 1.0


def test_disabled_on_a_terminal_draws_nothing() -> None:
    s = _Tty()
    with progress_bar("run", enabled=False, stream=s) as bar:
        bar(0.5)
        bar.note("x")
    assert s.getvalue() == ""


def test_terminal_draws_label_and_reaches_100_percent() -> None:
    s = _Tty()
    with progress_bar("packet run", stream=s) as bar:
        bar(0.0)
        bar(0.3)
        bar(1.0)
    out = s.getvalue()
    assert "packet run" in out
    assert "100%" in out
    assert bar.drawn


def test_fraction_is_clipped_monotone_and_nan_ignored() -> None:
    bar = progress_bar("r", enabled=False)
    bar(0.6)
    bar(0.2)  # a smaller value does not move the bar back
    assert bar.fraction == 0.6
    bar(float("nan"))
    assert bar.fraction == 0.6
    bar(7.0)
    assert bar.fraction == 1.0
    with pytest.raises(TypeError, match="fraction"):
        bar("half")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="label"):
        progress_bar(3)  # type: ignore[arg-type]


def test_redraws_are_rate_limited() -> None:
    s = _Tty()
    with progress_bar("r", stream=s) as bar:
        for k in range(1, 5001):
            bar(k / 10000)
    # 5000 calls within far less than a second: a handful of redraws, not thousands
    assert s.getvalue().count("\r") < 50
