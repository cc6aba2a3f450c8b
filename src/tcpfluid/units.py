"""Units: parse numbers or strings with units into tcpfluid's internal system.

Inside tcpfluid every quantity is in **packets**, **seconds** or **packets per second**.
Public functions accept either a plain number (already in those units) or a string with a
unit, parsed here and nowhere else.

Conventions (those of the documents and of ns-2):

* ``b`` is a bit and ``B`` a byte; ``k``/``K`` = 10**3, ``M`` = 10**6, ``G`` = 10**9
  (decimal, as link rates are quoted); ``KiB``/``MiB`` are binary.
* a rate ``"50Mbps"``, ``"1.5 Mb/s"``, ``"32kbps"``, ``"2 MB/s"``, ``"6250 pps"``,
  ``"6250 pkt/s"`` is converted to packets per second with the packet size;
* a time ``"100ms"``, ``"1.5 s"``, ``"250us"``, ``"2 min"`` to seconds;
* an amount of data ``"5000Kb"`` (a bandwidth-delay product), ``"5 Mb"``, ``"64 kB"``,
  ``"630 pkts"`` to packets;
* a size ``"1 kB"``, ``"1000B"``, ``"40 bytes"`` to bytes.

Examples
--------
>>> rate_pps("50Mbps", packet_size_bytes=1000)
6250.0
>>> seconds("100ms")
0.1
>>> packets("5000Kb", packet_size_bytes=1000)
625.0
"""

from __future__ import annotations

import math
import re
from typing import Any

from ._validation import check_positive

__all__ = [
    "bits_per_second",
    "buffer_pkts",
    "bytes_",
    "link_rate_bps",
    "packets",
    "rate_pps",
    "seconds",
    "share",
    "time_or_inf",
    "time_or_zero",
]

#: words that mean "no limit" for a buffer or "never" for a stop time
INFINITE_WORDS = ("inf", "infinity", "none", "never", "unlimited")

_NUM = r"([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)"
_PATTERN = re.compile(r"^\s*" + _NUM + r"\s*([A-Za-zµ/]*)\s*$")

_PREFIX = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
_BIN_PREFIX = {"Ki": 1024.0, "Mi": 1024.0**2, "Gi": 1024.0**3}

_TIME_UNITS = {
    "s": 1.0, "sec": 1.0, "secs": 1.0, "second": 1.0, "seconds": 1.0,
    "ms": 1e-3, "msec": 1e-3, "millisecond": 1e-3, "milliseconds": 1e-3,
    "us": 1e-6, "µs": 1e-6, "usec": 1e-6, "microsecond": 1e-6, "microseconds": 1e-6,
    "ns": 1e-9,
    "min": 60.0, "mins": 60.0, "minute": 60.0, "minutes": 60.0,
    "h": 3600.0, "hour": 3600.0, "hours": 3600.0,
}  # fmt: skip

_PKT_WORDS = ("pkt", "pkts", "packet", "packets", "p")


def _split(name: str, value: str) -> tuple[float, str]:
    m = _PATTERN.match(value)
    if m is None:
        raise ValueError(f"{name}: cannot parse {value!r}; expected a number with a unit")
    number = float(m.group(1))
    if not math.isfinite(number):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return number, m.group(2)


def _data_bits(name: str, unit: str) -> float | None:
    """Bits in one ``unit`` of data (``Kb``, ``MB``, ``KiB`` ...), or None if not data."""
    binary = next((p for p in _BIN_PREFIX if unit.startswith(p)), None)
    if binary is not None:
        mult, rest = _BIN_PREFIX[binary], unit[len(binary) :]
    else:
        pre, rest = (unit[0], unit[1:]) if unit[:1] in _PREFIX and len(unit) > 1 else ("", unit)
        mult = _PREFIX[pre]
    if rest in ("b", "bit", "bits"):
        return mult
    if rest in ("B", "byte", "bytes"):
        return 8.0 * mult
    return None


def _real(value: Any) -> bool:
    """A plain int or float (not a bool)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def _time_unit(name: str, unit: str, value: Any) -> float:
    """Seconds in one ``unit`` of time (``""``: seconds)."""
    if (unit or "s") not in _TIME_UNITS:
        raise ValueError(
            f"{name}: unknown time unit {unit!r} in {value!r}; use s, ms, us, ns, min or h"
        )
    return _TIME_UNITS[unit or "s"]


def _positive(name: str, x: float, original: Any) -> float:
    """``x`` if it is > 0, else a ValueError quoting ``original``."""
    if not x > 0.0:
        raise ValueError(f"{name} must be > 0, got {original!r}")
    return x


def _parse(name: str, value: Any) -> tuple[float, str | None]:
    """A string as its number and unit (:func:`_split`); a number checked > 0, unit ``None``."""
    if type(value) is float and 0.0 < value < math.inf:  # the common case, checked fast
        return value, None
    if isinstance(value, str):
        return _split(name, value)
    return check_positive(name, value), None


def seconds(value: Any, *, name: str = "time") -> float:
    """A duration in seconds from ``0.1`` or ``"100ms"``; must be > 0 and finite."""
    number, unit = _parse(name, value)
    if unit is None:
        return number
    return _positive(name, number * _time_unit(name, unit, value), value)


def time_or_zero(value: Any, *, name: str = "time") -> float:
    """Like :func:`seconds` but ``0`` (or ``"0s"``) is accepted."""
    if type(value) is float and 0.0 < value < math.inf:
        return value
    number = _split(name, value)[0] if isinstance(value, str) else value if _real(value) else 1
    if number == 0:
        if isinstance(value, str):
            _time_unit(name, _split(name, value)[1], value)  # "0 parsecs" is not a time
        return 0.0
    if number < 0:
        raise ValueError(f"{name} must be >= 0, got {value!r}")
    return seconds(value, name=name)


def bits_per_second(value: Any, *, name: str = "bandwidth") -> float:
    """A rate in bits per second from ``"50Mbps"``, ``"1.5 Mb/s"``, ``"2 MB/s"``.

    A plain number is taken as bits per second here (use :func:`rate_pps` for packets).
    """
    number, unit = _parse(name, value)
    if not unit:  # a number, or a string without a unit: read as the number it is
        return number if unit is None else _positive(name, number, value)
    bits = _rate_bits(name, unit)
    if bits is not None:
        return _positive(name, number * bits, value)
    raise ValueError(
        f"{name}: {value!r} is not a bit rate; use e.g. '50Mbps', '1.5 Mb/s', '32kbps', '2 MB/s'"
    )


def _rate_bits(name: str, unit: str) -> float | None:
    """Bits per second in one ``unit`` of bit rate (``Mbps``, ``Mb/s``, ``MB/s`` ...), or
    None if it is not one."""
    compact = unit.replace("/s", "ps")
    return _data_bits(name, compact[:-2]) if compact.endswith("ps") else None


def rate_pps(value: Any, *, packet_size_bytes: float = 1000.0, name: str = "bandwidth") -> float:
    """A rate in packets per second.

    Parameters
    ----------
    value
        A number (packets per second; also written as a string without a unit) or a string:
        a bit rate (``"50Mbps"``, ``"1.5 Mb/s"``) converted with ``packet_size_bytes``, or a
        packet rate (``"6250 pps"``, ``"6250 pkt/s"``).
    packet_size_bytes
        Bytes per packet for bit-rate strings (1000 in the documents).
    """
    size = check_positive("packet_size_bytes", packet_size_bytes)
    number, unit = _parse(name, value)
    if unit is None:
        return number
    if not unit or unit in _PKT_RATE_UNITS:  # "6250" as a bare number: packets per second
        return _positive(name, number, value)
    return bits_per_second(value, name=name) / (8.0 * size)


_PKT_RATE_UNITS = ("pps", "pkt/s", "pkts/s", "packets/s", "packet/s", "acks/s", "ack/s")


def link_rate_bps(
    value: Any, *, packet_size_bytes: float = 1000.0, name: str = "bandwidth"
) -> float:
    """A rate in bits per second from a string **with a unit**; a bare number is refused.

    The reading of the scenario parameters' rates: a bit rate (``"50Mbps"``) or a packet
    rate (``"6250pps"``, times ``8 * packet_size_bytes``). A bare number is refused:
    :class:`tcpfluid.Path` reads one as packets per second, a scenario's links as bits.

    Examples
    --------
    >>> link_rate_bps("6250pps", packet_size_bytes=1000)
    50000000.0
    >>> link_rate_bps("50Mbps")
    50000000.0
    """
    size = check_positive("packet_size_bytes", packet_size_bytes)
    if isinstance(value, str) and _PATTERN.match(value) is None:
        raise ValueError(
            f"{name}: cannot parse {value!r}; use a packet rate such as '6250pps' or a bit "
            "rate such as '50Mbps'"
        )
    if not isinstance(value, str) or _split(name, value)[1] == "":
        raise ValueError(
            f"{name}={value!r} has no unit; give a packet rate such as '6250pps' or a bit "
            "rate such as '50Mbps' (a bare number would be ambiguous: tcpfluid.Path and "
            "`tcpfluid predict --bandwidth` read one as packets/s)"
        )
    number, unit = _split(name, value)
    if unit in _PKT_RATE_UNITS:
        return _positive(name, number, value) * 8.0 * size
    if _rate_bits(name, unit) is None:
        raise ValueError(
            f"{name}: {value!r} is not a rate; use a packet rate such as '6250pps' or a bit "
            "rate such as '50Mbps', '1.5 Mb/s', '32kbps'"
        )
    return bits_per_second(value, name=name)  # a rate of 0 or below: "must be > 0"


def bytes_(value: Any, *, name: str = "packet_size") -> float:
    """A size in bytes from ``1000``, ``"1 kB"``, ``"1000B"``, ``"40 bytes"``."""
    number, unit = _parse(name, value)
    if unit is None:
        return number
    if unit == "":
        return _positive(name, number, value)
    bits = _data_bits(name, unit)
    if bits is None:
        raise ValueError(f"{name}: {value!r} is not a size; use e.g. '1 kB', '1000B', '40 bytes'")
    return _positive(name, number * bits / 8.0, value)


def packets(value: Any, *, packet_size_bytes: float = 1000.0, name: str = "bdp") -> float:
    """An amount of data in packets from ``630``, ``"630 pkts"``, ``"5000Kb"``, ``"64 kB"``.

    Strings in bits or bytes are divided by the packet size; ``"5000Kb"`` with
    1000-byte packets is 625 packets (the documents' "5000 Kb BDP").
    """
    size = check_positive("packet_size_bytes", packet_size_bytes)
    number, unit = _parse(name, value)
    if unit is None:
        return number
    if unit in _PKT_WORDS or unit == "":
        return _positive(name, number, value)
    bits = _data_bits(name, unit)
    if bits is None:
        raise ValueError(
            f"{name}: {value!r} is not an amount of data; use e.g. '630 pkts', '5000Kb', '64 kB'"
        )
    return _positive(name, number * bits / (8.0 * size), value)


def _is_infinite(value: Any) -> bool:
    if type(value) is float:
        return value == math.inf
    if value is None:
        return True
    if isinstance(value, str):
        return value.strip().lower() in INFINITE_WORDS
    return _real(value) and value == math.inf


def time_or_inf(value: Any, *, name: str = "time") -> float:
    """A start or stop time: seconds like :func:`time_or_zero`, ``inf`` (never) for
    ``"inf"``/``"never"``/``math.inf``.

    Examples
    --------
    >>> time_or_inf("never"), time_or_inf("80s"), time_or_inf(0)
    (inf, 80.0, 0.0)
    """
    if value is not None and _is_infinite(value):
        return math.inf
    return time_or_zero(value, name=name)


def buffer_pkts(value: Any, *, packet_size_bytes: float = 1000.0, name: str = "buffer") -> float:
    """A buffer in packets (:func:`packets`), at least 1; ``inf`` (no limit) for ``None``,
    ``math.inf`` and :data:`INFINITE_WORDS`. The one reading of a buffer.

    Examples
    --------
    >>> buffer_pkts("inf"), buffer_pkts(None), buffer_pkts("64 kB")
    (inf, inf, 64.0)
    """
    if _is_infinite(value):
        return math.inf
    least = f"{name} must be at least 1 packet (or 'inf'), got {value!r}"
    if isinstance(value, str):
        if _PATTERN.match(value) is not None and _split(name, value)[0] <= 0:
            raise ValueError(least)
    elif _real(value) and value <= 0:
        raise ValueError(least)
    b = packets(value, packet_size_bytes=packet_size_bytes, name=name)
    if b < 1.0:
        raise ValueError(least)
    return b


def share(value: Any, *, name: str = "share") -> float:
    """A share strictly between 0 and 1 from ``"50%"`` or ``0.5``.

    Examples
    --------
    >>> share("50%"), share("12.5 %"), share(0.25)
    (0.5, 0.125, 0.25)
    """
    if isinstance(value, str) and value.strip().endswith("%"):
        try:
            x = float(value.strip()[:-1]) / 100.0
        except ValueError:
            raise ValueError(f"{name}: cannot parse the share {value!r}; use e.g. '50%'") from None
    else:
        x = check_positive(name, value)
    if not 0.0 < x < 1.0:
        raise ValueError(f"{name} must be a share in (0%, 100%), got {value!r}")
    return x
