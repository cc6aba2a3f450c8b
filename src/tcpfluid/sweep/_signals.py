"""Worker processes that end with the sweep: the stop signals held while a pool forks and
deferred while the sweep waits on it, workers that die with their parent, a pool stopped
at once."""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import os
import queue
import signal
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

_PR_SET_PDEATHSIG = 1
# the signals that stop a sweep: Ctrl-C and SIGTERM
_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextlib.contextmanager
def _stop_signals_held() -> Iterator[None]:
    """Block Ctrl-C and SIGTERM in this thread for the block (around a pool's ``submit``,
    which forks: a worker starts with them blocked until :func:`_worker_init`)."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


class _DeferredSignals:
    """While the sweep waits on a pool, Ctrl-C and SIGTERM are noted and wake the waiting
    loop, which runs the signal's Python handler where it holds no lock of
    ``concurrent.futures`` (raised inside it, the process could hang at exit)."""

    def __init__(self, wake: queue.SimpleQueue[Any]) -> None:
        self._wake = wake
        self._previous: dict[int, Any] = {}
        self._received: list[int] = []

    def __enter__(self) -> _DeferredSignals:
        if threading.current_thread() is threading.main_thread():
            for sig in _STOP_SIGNALS:
                handler = signal.getsignal(sig)
                if callable(handler):
                    self._previous[sig] = handler
                    signal.signal(sig, self._note)
        return self

    def _note(self, signum: int, frame: Any) -> None:
        self._received.append(signum)  # no lock here: a list append and a SimpleQueue put
        self._wake.put(_WAKE_SIGNAL)

    def deliver(self) -> None:
        """Run the handler each noted signal had (it raises to stop the sweep)."""
        while self._received:
            signum = self._received.pop(0)
            self._previous[signum](signum, None)

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """The previous handlers for the block (long work on a finished result), a signal
        noted before delivered first."""
        self.deliver()
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        try:
            yield
        finally:
            for sig in self._previous:
                signal.signal(sig, self._note)

    def __exit__(self, exc_type: type[BaseException] | None, *exc: object) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        if exc_type is None:  # a signal noted as the last points came in is not lost
            self.deliver()


_WAKE_SIGNAL = object()  # put in the waiting loop's queue by a noted signal


def _worker_init(parent_pid: int) -> None:
    """Pool worker set-up: Ctrl-C is the parent's to handle, SIGTERM ends the worker, and it
    dies with its parent (Linux's ``PR_SET_PDEATHSIG``, elsewhere a watchdog thread)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)
    armed = False
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            armed = libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    if os.getppid() != parent_pid:  # the parent died before the signal was armed
        os._exit(1)
    if not armed:
        threading.Thread(target=_watch_parent, args=(parent_pid,), daemon=True).start()


def _stop_pool(pool: cf.Executor) -> None:
    """Stop our own pool at once (Ctrl-C, SIGTERM, an error), abandoning the work in flight."""
    procs = dict(getattr(pool, "_processes", None) or {})
    # the pool's manager thread, joined below so that it has closed its wake-up pipe before
    # the interpreter's exit hook writes to it (CPython 3.11: "Bad file descriptor")
    manager = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in procs.values():
        if proc.is_alive():
            proc.terminate()
    for proc in procs.values():
        proc.join(timeout=5)
        if proc.is_alive():  # a worker that did not end on SIGTERM
            proc.kill()
            proc.join(timeout=5)
    if isinstance(manager, threading.Thread) and manager is not threading.current_thread():
        manager.join(timeout=5)


def _watch_parent(parent_pid: int, interval_s: float = 1.0) -> None:
    while os.getppid() == parent_pid:
        time.sleep(interval_s)
    os._exit(1)
