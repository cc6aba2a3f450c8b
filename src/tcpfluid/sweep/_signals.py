"""Worker processes that end with the sweep: the stop signals (Ctrl-C, SIGTERM) held while
a pool forks, deferred while the sweep waits on it, and a worker's set-up that makes it die
with its parent; stopping a pool at once."""

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
    """Block Ctrl-C and SIGTERM in this thread for the block (where the OS can).

    Wrapped around a pool's ``submit``, which forks the workers: a forked worker starts
    with the signals blocked, so a signal that reaches it before its set-up
    (:func:`_worker_init`) waits instead of running the parent's Python handlers there
    (a traceback per worker, or a worker that survives the pool's ``terminate``), and the
    pool's own threads started there never take them. A signal sent to the parent in the
    meantime is delivered when the block ends.
    """
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


class _DeferredSignals:
    """While the sweep waits on a pool: Ctrl-C and SIGTERM are noted and wake the waiting
    loop, which then runs the signal's own handler (raising ``KeyboardInterrupt``, or the
    command's SIGTERM exception) at a point where it holds no lock.

    Raised wherever the signal lands, the exception can leave a lock of
    ``concurrent.futures`` held (a future's, taken by ``wait`` or ``add_done_callback``):
    the pool's manager thread then blocks on it and the process hangs at exit, after the
    pool was stopped. Only Python handlers are deferred (the main thread only); a signal
    ignored or at its default action keeps it.
    """

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
        """The previous handlers for the block (work on a finished result, holding no lock
        of ``concurrent.futures``, that may take seconds: a report section's figures), so
        a signal stops it at once; one noted before is delivered first."""
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
    """Pool worker set-up: Ctrl-C and SIGTERM are the parent's to handle (it cancels the
    work and shuts the pool down), and the worker dies with its parent even if the parent
    is killed outright (SIGKILL): Linux's ``PR_SET_PDEATHSIG``, elsewhere a watchdog
    thread polling the parent's pid. The worker was forked with both signals blocked
    (:func:`_stop_signals_held`): they are unblocked once their dispositions are set, so
    a SIGTERM received before then ends the worker now."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)
    armed = False
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            armed = libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
        except (OSError, AttributeError):
            armed = False
    if os.getppid() != parent_pid:  # the parent died before the signal was armed
        os._exit(1)
    if not armed:
        threading.Thread(target=_watch_parent, args=(parent_pid,), daemon=True).start()


def _stop_pool(pool: cf.Executor) -> None:
    """Stop our own pool at once (Ctrl-C, SIGTERM, an error): the points in flight are
    abandoned (not cached, a re-run computes them) instead of waited for."""
    procs = dict(getattr(pool, "_processes", None) or {})
    # the pool's manager thread (shutdown forgets it): joined below, so that it has closed
    # its wake-up pipe before the interpreter's exit hook writes to that pipe (CPython
    # 3.11's check-then-write there races with the thread's close: "Bad file descriptor"
    # printed after the command's one-line exit)
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
