"""Input checks shared by every public entry point.

Every check raises :class:`ValueError` (or :class:`TypeError` for a wrong type) with a
message that names the parameter, quotes the value and states the accepted range.
"""

from __future__ import annotations

import contextlib
import math
import os
import uuid
import warnings
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path as FsPath
from typing import Any

import numpy as np
from numpy.typing import NDArray

#: the memory one fluid run may take, bytes: a quarter of a 16-GiB machine (a run whose
#: estimate is above it is refused before anything is allocated)
MEMORY_BUDGET_BYTES = 4 * 2**30


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool)


def check_real(name: str, value: Any) -> float:
    """Return ``value`` as a finite float or raise naming ``name``."""
    if not _is_number(value):
        raise TypeError(f"{name} must be a real number, got {value!r} ({type(value).__name__})")
    x = float(value)
    if not math.isfinite(x):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return x


def check_positive(name: str, value: Any, *, allow_inf: bool = False) -> float:
    """A strictly positive float (optionally ``inf``)."""
    if allow_inf and _is_number(value) and float(value) == math.inf:
        return math.inf
    x = check_real(name, value)
    if x <= 0.0:
        raise ValueError(f"{name} must be > 0, got {value!r}")
    return x


def check_nonnegative(name: str, value: Any) -> float:
    """A float that is ``>= 0``."""
    x = check_real(name, value)
    if x < 0.0:
        raise ValueError(f"{name} must be >= 0, got {value!r}")
    return x


def check_range(
    name: str, value: Any, lo: float, hi: float, *, lo_open: bool = False, hi_open: bool = False
) -> float:
    """A float inside ``[lo, hi]`` (ends open where asked)."""
    x = check_real(name, value)
    if (x <= lo if lo_open else x < lo) or (x >= hi if hi_open else x > hi):
        left = "(" if lo_open else "["
        right = ")" if hi_open else "]"
        raise ValueError(f"{name} must be in {left}{lo}, {hi}{right}, got {value!r}")
    return x


def check_int(name: str, value: Any, *, minimum: int | None = None) -> int:
    """An integer (not a bool), optionally ``>= minimum``."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise TypeError(f"{name} must be an integer, got {value!r} ({type(value).__name__})")
    i = int(value)
    if minimum is not None and i < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value!r}")
    return i


def check_bool(name: str, value: Any) -> bool:
    """``True`` or ``False`` (a NumPy bool too), as a plain bool."""
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_progress(progress: Any) -> Any:
    """A progress callback: ``None`` or a callable taking the fraction done."""
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be None or a callable taking a fraction, got {progress!r}")
    return progress


def item_index(i: Any, n: int, what: str) -> int:
    """The position ``i`` (negative counts from the end) of one of ``n`` ``what`` (e.g.
    ``"flow"``) in a sequence; an ``IndexError`` naming both when it is out of range."""
    k = int(i) + n if int(i) < 0 else int(i)
    if not 0 <= k < n:
        raise IndexError(f"{what} index {i} out of range for {n} {what}s")
    return k


def warn_renamed(where: str, old: str, new: str, note: str = "", *, stacklevel: int = 3) -> None:
    """The one warning for an option given by an older name: a :class:`DeprecationWarning`
    naming ``where`` takes it (``"the rounds engine"``, ``"simulate_packets"``), the old
    name and the name to use (``note``: how the value was converted, if it was)."""
    warnings.warn(
        f"{where}: the option {old!r} is deprecated; use {new!r}" + (f" ({note})" if note else ""),
        DeprecationWarning,
        stacklevel=stacklevel,
    )


def check_choice(name: str, value: Any, choices: Iterable[str]) -> str:
    """One of a fixed set of strings."""
    options = tuple(choices)
    if not isinstance(value, str) or value not in options:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, options))}; got {value!r}")
    return value


def as_float_array(
    name: str,
    value: Any,
    *,
    positive: bool = False,
    nonnegative: bool = False,
    minimum: float | None = None,
    finite: bool = True,
) -> NDArray[np.float64]:
    """``value`` as a float64 array (a scalar: 0-d), every element checked (NaN and
    infinities refused unless ``finite=False``)."""
    if isinstance(value, str | bytes):
        raise TypeError(f"{name} must be a number or an array of numbers, got {value!r}")
    try:
        if np.asarray(value).dtype.kind in "USV":  # text is not a number: "1" is refused
            raise TypeError
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a number or an array of numbers, got {value!r}") from exc
    for on, what, bad in (
        (finite, "finite", lambda: ~np.isfinite(arr)),
        (positive, "> 0", lambda: arr <= 0),
        (nonnegative, ">= 0", lambda: arr < 0),
        (minimum is not None, f">= {minimum}", lambda: arr < (minimum or 0.0)),
    ):
        if on and arr.size and (mask := bad()).any():
            first = float(arr[mask].ravel()[0])
            raise ValueError(f"{name} must be {what}, got {first!r} in {name}")
    return arr


# ------------------------------------------------------------------------------ resources
def memory_budget_bytes() -> int:
    """The most memory one computation may ask for: half of this machine's physical memory
    (8 GB if it cannot be read). Past it a run swaps long before it ends."""
    try:
        return int(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")) // 2
    except (AttributeError, OSError, ValueError):
        return 8 * 10**9


def check_memory(what: str, need_bytes: float, setting: str) -> None:
    """Refuse, before allocating, a computation ``what`` whose estimate ``need_bytes`` is
    above :func:`memory_budget_bytes`, naming ``setting`` (the input that sets the size)."""
    budget = memory_budget_bytes()
    if not need_bytes <= budget:
        raise ValueError(
            f"{what}: {setting} needs about {need_bytes / 2**30:.3g} GiB, more than the "
            f"{budget / 2**30:.3g} GiB budget (half of this machine's memory); give a "
            "smaller value"
        )


# ------------------------------------------------------------------------------ outputs
def _probe_directory(option: str, directory: FsPath, target: FsPath) -> None:
    """Create and remove a hidden file in ``directory``: the only check that holds for
    every file system and user (``os.access`` says yes to root on a read-only mount)."""
    probe = directory / f".{target.name or 'out'}.{uuid.uuid4().hex}.probe"
    try:
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as exc:
        raise ValueError(
            f"{option} {str(target)!r}: cannot write in {str(directory)!r} ({exc.strerror or exc})"
        ) from None
    os.close(fd)
    os.unlink(probe)


def _check_parent(option: str, out: FsPath) -> None:
    parent = out.parent
    if not parent.is_dir():
        what = "is not a directory" if parent.exists() else "does not exist"
        raise ValueError(f"{option} {str(out)!r}: directory {str(parent)!r} {what}")


def check_output_file(option: str, path: str | os.PathLike[str]) -> FsPath:
    """Check, before any work, that a file can be written at ``path`` (an existing
    directory that accepts a new file; nothing is left behind), else a ValueError naming
    ``option`` (e.g. ``"--out"``), the path and what is wrong."""
    out = FsPath(path)
    if str(path) == "" or out.name in ("", ".", ".."):
        raise ValueError(f"{option} must name a file, got {str(path)!r}")
    if out.is_dir():
        raise ValueError(f"{option} {str(out)!r} is a directory; give a file name")
    _check_parent(option, out)
    if out.exists() and not os.access(out, os.W_OK):
        raise ValueError(f"{option} {str(out)!r} exists and is not writable")
    _probe_directory(option, out.parent, out)
    return out


def check_output_dir(option: str, path: str | os.PathLike[str]) -> FsPath:
    """Check, before any work, that files can be written into the directory ``path`` (or,
    missing, created in its writable parent; not created here), as
    :func:`check_output_file`."""
    out = FsPath(path)
    if str(path) == "":
        raise ValueError(f"{option} must name a directory, got ''")
    if out.exists():
        if not out.is_dir():
            raise ValueError(f"{option} {str(out)!r} is a file; give a directory")
        _probe_directory(option, out, out / "x")
        return out
    _check_parent(option, out)
    _probe_directory(option, out.parent, out)
    return out


_TMP_SUFFIX = ".tmp"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, owned by someone else
        return True
    return True


def remove_stale_temporaries(path: str | os.PathLike[str]) -> list[FsPath]:
    """Remove the hidden temporary files of :func:`atomic_output` for ``path`` whose
    writer process is gone (killed while writing); returns the files removed."""
    out = FsPath(path)
    removed: list[FsPath] = []
    prefix = f".{out.name}."
    try:
        entries = list(out.parent.iterdir())
    except OSError:
        return removed
    for entry in entries:
        name = entry.name
        if not (name.startswith(prefix) and name.endswith(_TMP_SUFFIX)):
            continue
        pid_text = name[len(prefix) : -len(_TMP_SUFFIX)].split(".")[0]
        if not pid_text.isdigit() or _pid_alive(int(pid_text)):
            continue
        try:
            entry.unlink()
        except OSError:
            continue
        removed.append(entry)
    return removed


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike[str]) -> Iterator[FsPath]:
    """Write ``path`` atomically: yields a hidden temporary path in the same directory
    (``.NAME.<pid>.<random>.tmp``) that replaces ``path`` when the block ends normally; on
    any exception it is removed and ``path`` left as it was (a writer killed outright
    leaves it to the next write: :func:`remove_stale_temporaries`). An OSError writing it
    is restated naming ``path`` itself, its ``errno`` kept.
    """
    out = FsPath(path)
    remove_stale_temporaries(out)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.{uuid.uuid4().hex[:12]}{_TMP_SUFFIX}")
    try:
        yield tmp
        os.replace(tmp, out)
    except OSError as exc:
        if exc.filename is not None and FsPath(exc.filename) != tmp:
            raise  # it names the file already (this one or another)
        why = exc.strerror or str(exc)
        why += "; the file is left as it was" if out.exists() else "; the file was not created"
        raise OSError(exc.errno, why, str(out)) from None
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()


def option_checker(rules: dict[str, Callable[[Any], Any]]) -> Callable[..., dict[str, Any]]:
    """The check of options given as keywords (names of ``rules``), each by its rule (a
    named ``TypeError`` or ``ValueError``; the checked values returned)."""
    return lambda **given: {name: rules[name](value) for name, value in given.items()}
