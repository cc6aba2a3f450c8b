"""Progress bars on stderr for runs that can take more than a few seconds: the
``progress`` callable (fraction done in ``[0, 1]``) every long engine entry accepts, drawn
only on a terminal and without ``--quiet`` (elsewhere it does nothing)."""

from __future__ import annotations

import math
import sys
import time
from typing import Any, TextIO

__all__ = ["ProgressBar", "progress_bar"]

#: at most this many redraws per second of wall time
_MAX_RATE_HZ = 10.0
#: the bar counts in thousandths of the work
_TOTAL = 1000


class ProgressBar:
    """A fraction-done progress bar on a text stream (a callable and a context manager).

    Parameters
    ----------
    label
        Text before the bar (``"packet run"``, ``"report"``).
    enabled
        ``False`` (e.g. ``--quiet``): never draw.
    stream
        Where to draw (default: ``sys.stderr`` at the time of the call); nothing is drawn
        unless ``stream.isatty()`` is true.

    Calling the bar with a fraction in ``[0, 1]`` moves it (values outside are clipped, a
    NaN is ignored); redraws are limited to about 10 a second. :meth:`note` sets a short
    text shown after the bar (the task now finished, ...). :meth:`close` (or leaving the
    ``with`` block) removes nothing and ends the line.

    >>> with progress_bar("packet run", enabled=False) as bar:
    ...     bar(0.25)
    >>> bar.fraction, bar.drawn
    (0.25, False)
    """

    def __init__(self, label: str, *, enabled: bool = True, stream: TextIO | None = None) -> None:
        if not isinstance(label, str):
            raise TypeError(f"label must be a string, got {label!r}")
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        isatty = getattr(self.stream, "isatty", None)
        #: True when the bar draws (enabled and the stream is a terminal)
        self.active = bool(enabled) and callable(isatty) and bool(isatty())
        #: True once something has been written to the stream
        self.drawn = False
        self.fraction = 0.0
        self._bar: Any = None
        self._last = -math.inf
        self._closed = False

    def _ensure(self) -> Any:
        if self._bar is None:
            import shutil

            from tqdm import tqdm

            # a terminal that reports 0 columns or rows (a pty without a window size)
            # would hide the bar: the terminal's size, 80 x 24 when it is not known
            size = shutil.get_terminal_size((80, 24))
            self._bar = tqdm(
                total=_TOTAL,
                desc=self.label,
                file=self.stream,
                bar_format="{desc}: {percentage:3.0f}%|{bar}| [{elapsed}<{remaining}]{postfix}",
                leave=True,
                ncols=size.columns or 80,
                nrows=size.lines or 24,
            )
            self.drawn = True
        return self._bar

    def __call__(self, fraction: float) -> None:
        """Record that ``fraction`` of the work is done (0 to 1)."""
        try:
            f = float(fraction)
        except (TypeError, ValueError):
            raise TypeError(f"progress fraction must be a number, got {fraction!r}") from None
        if math.isnan(f):
            return
        f = min(max(f, 0.0), 1.0)
        self.fraction = max(self.fraction, f)
        if not self.active or self._closed:
            return
        now = time.monotonic()
        if self.fraction < 1.0 and now - self._last < 1.0 / _MAX_RATE_HZ:
            return
        self._last = now
        self._advance(self._ensure())

    def _advance(self, bar: Any) -> None:
        target = round(self.fraction * _TOTAL)
        if target > bar.n:
            bar.update(target - bar.n)

    def note(self, text: str) -> None:
        """Show ``text`` (cut to 40 characters) after the bar."""
        if self.active and not self._closed:
            self._ensure().set_postfix_str(str(text)[:40], refresh=True)

    def close(self) -> None:
        """End the bar (idempotent)."""
        if self._closed:
            return
        self._closed = True
        if self._bar is not None:
            self._advance(self._bar)
            self._bar.close()

    def __enter__(self) -> ProgressBar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


#: the name callers use: pass ``progress_bar(label, enabled=not args.quiet)`` as
#: ``progress=`` to a long run (``enabled=False`` for ``--json`` runs)
progress_bar = ProgressBar
