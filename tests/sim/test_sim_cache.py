"""Where the compiled kernels are cached, and the notice shown while they compile."""

from __future__ import annotations

import io

import pytest
from _simkit import FixedWindow, two_link

from tcpfluid.sim import engine, simulate_packets


class _Bar:
    def __init__(self) -> None:
        self.notes: list[str] = []

    def __call__(self, fraction: float) -> None:
        pass

    def note(self, text: str) -> None:
        self.notes.append(text)


def test_compile_notice_goes_to_the_progress_note(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine, "_kernels_ready", False)
    monkeypatch.setattr(engine, "_COMPILE_NOTICE_S", 0.0)
    bar = _Bar()
    timer = engine._compile_notice(bar)
    assert timer is not None
    timer.join(5.0)
    assert bar.notes == ["compiling the simulator (first run only)"]
    # a plain callable has nowhere to say it; nothing is started
    assert engine._compile_notice(lambda x: None) is None
    # after a run the kernels are loaded: no notice any more
    simulate_packets(two_link(duration=0.02), laws={"f": FixedWindow(1)})
    assert engine._kernels_ready
    assert engine._compile_notice(_Bar()) is None


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_compile_notice_is_drawn_by_a_progress_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    from tcpfluid._progress import progress_bar

    monkeypatch.setattr(engine, "_kernels_ready", False)
    monkeypatch.setattr(engine, "_COMPILE_NOTICE_S", 0.0)
    stream = _Tty()
    with progress_bar("packet run", stream=stream) as bar:
        timer = engine._compile_notice(bar)
        assert timer is not None
        timer.join(5.0)
        # drawn while nothing else moves the bar, and whole (a note is cut at 40 characters)
        assert engine.COMPILE_NOTICE in stream.getvalue()
