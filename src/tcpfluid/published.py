"""Numbers printed in the source documents, with where they come from.

Tests, ``tcpfluid predict --documents`` and the validation report compare tcpfluid against
these values. Each entry says which document, where, what quantity, its unit, and whether
the document obtained it by analysis (a closed form) or by ns-2 simulation.

Value keys and ``document`` fields name the documents by short key: 000 the Quick Vegas paper
(Chan, Lin, Ho 2008); 001 Tsang's thesis (2000); 002 the iTCP-Vegas paper (Pan et al. 2011);
003 the asymmetric-networks paper (Vegas in asymmetric networks; Fu, Chung, Liew); 004 the
TCP-Ho paper (Ho, Chan, Chen 2007).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

from ._published_tables import paper_tables, tables, thesis_tables

__all__ = ["PUBLISHED", "THESIS_TABLE_3_16", "PublishedValue", "published"]


@dataclass(frozen=True)
class PublishedValue:
    """One printed number.

    Attributes
    ----------
    key
        Stable identifier, ``"<doc>/<place>/<quantity>"``.
    document
        ``"000"`` .. ``"004"``.
    where
        Section, figure, table or example.
    quantity
        What it measures (``ss_exit_window``, ``time_to_equilibrium_s``, ...).
    algorithm
        Registry name of the algorithm it concerns.
    value
        The number as printed.
    unit
        ``"pkts"``, ``"s"``, ``"rounds"``, ...
    method
        ``"analysis"`` (a closed form in the document) or ``"simulation"`` (ns-2).
    """

    key: str
    document: str
    where: str
    quantity: str
    algorithm: str
    value: float
    unit: str
    method: Literal["analysis", "simulation"]

    def to_dict(self) -> dict[str, Any]:
        """The fields as a dict."""
        return asdict(self)


def _v(
    key: str, where: str, quantity: str, algorithm: str, value: Any, unit: str, method: str
) -> PublishedValue:
    if isinstance(value, str):  # a number as printed in :data:`_TABLE`: 64 stays an int
        value = int(value) if value.lstrip("-").isdigit() else float(value)
    doc = key.split("/", 1)[0]
    return PublishedValue(key, doc, where, quantity, algorithm, value, unit, method)  # type: ignore[arg-type]


#: key | where | quantity | algorithm | value as printed | unit | method, one entry a line
_TABLE = """
# the Quick Vegas paper, §3.2.1 Fig. 1 and §5.1 (50 Mb/s x 100 ms, 1000-byte packets)
000/fig1/ss_exit_window | §3.2.1 Fig. 1 | ss_exit_window | vegas | 64 | pkts | simulation
000/fig1/ss_exit_time | §3.2.1 Fig. 1 | ss_exit_time_s | vegas | 1.2 | s | simulation
000/fig1/equilibrium_window | §3.2.1 Fig. 1 | equilibrium_window | vegas | 630 | pkts | simulation
000/fig1/time_to_equilibrium | §3.2.1 Fig. 1 | time_to_equilibrium_s | vegas | 59 | s | simulation
000/5.1/vegas/halved | §5.1 Fig. 7 | convergence_halved_s | vegas | 47.9 | s | simulation
000/5.1/vegas/doubled | §5.1 Fig. 7 | convergence_doubled_s | vegas | 31.8 | s | simulation
000/5.1/vegas/max_queue | §5.1 Fig. 7 | max_queue | vegas | 620 | pkts | simulation
000/5.1/qv/ramp_up | §5.1 Fig. 8 | time_to_equilibrium_s | quick-vegas | 13 | s | simulation
000/5.1/qv/halved | §5.1 Fig. 8 | convergence_halved_s | quick-vegas | 3.3 | s | simulation
000/5.1/qv/doubled | §5.1 Fig. 8 | convergence_doubled_s | quick-vegas | 2.0 | s | simulation
000/5.1/qv/max_queue | §5.1 Fig. 8 | max_queue | quick-vegas | 500 | pkts | simulation
000/5.1/fast/ramp_up | §5.1 Fig. 9 | time_to_equilibrium_s | fast | 2.6 | s | simulation
000/5.1/fast/halved | §5.1 Fig. 9 | convergence_halved_s | fast | 3.0 | s | simulation
000/5.1/fast/doubled | §5.1 Fig. 9 | convergence_doubled_s | fast | 1.6 | s | simulation
000/5.1/fast/queue | §5.1 Fig. 9 | queue | fast | 100 | pkts | simulation
# the TCP-Ho paper, §4.3 Examples 1-3 (d = 0.1 s): analysis and simulation
004/ex1/vegas/analysis | §4.3 Example 1 | conspicuous_time_s | vegas | 1.3 | s | analysis
004/ex1/tcp-ho/analysis | §4.3 Example 1 | conspicuous_time_s | tcp-ho | 1.6 | s | analysis
004/ex1/vegas/simulation | §4.3 Example 1 | conspicuous_time_s | vegas | 1.5 | s | simulation
004/ex1/tcp-ho/simulation | §4.3 Example 1 | conspicuous_time_s | tcp-ho | 1.5 | s | simulation
004/ex2/vegas/analysis | §4.3 Example 2 | conspicuous_time_s | vegas | 20.7 | s | analysis
004/ex2/tcp-ho/analysis | §4.3 Example 2 | conspicuous_time_s | tcp-ho | 3.4 | s | analysis
004/ex2/vegas/simulation | §4.3 Example 2 | conspicuous_time_s | vegas | 20.9 | s | simulation
004/ex2/tcp-ho/simulation | §4.3 Example 2 | conspicuous_time_s | tcp-ho | 3.8 | s | simulation
004/ex3/vegas/analysis | §4.3 Example 3 | conspicuous_time_s | vegas | 58.1 | s | analysis
004/ex3/tcp-ho/analysis | §4.3 Example 3 | conspicuous_time_s | tcp-ho | 4.7 | s | analysis
004/ex3/vegas/simulation | §4.3 Example 3 | conspicuous_time_s | vegas | 58.4 | s | simulation
004/ex3/tcp-ho/simulation | §4.3 Example 3 | conspicuous_time_s | tcp-ho | 5.1 | s | simulation
# the TCP-Ho paper, §5.1.2 (50 Mb/s, 48 ms link, CBR 25 Mb/s from 80 s to 160 s)
004/5.1.2/vegas/ss_exit_time | §5.1.2 | ss_exit_time_s | vegas | 1.3 | s | simulation
004/5.1.2/vegas/time_to_equilibrium | §5.1.2 | time_to_equilibrium_s | vegas | 57.5 | s | simulation
004/5.1.2/vegas/halved | §5.1.2 | convergence_halved_s | vegas | 47.7 | s | simulation
004/5.1.2/vegas/doubled | §5.1.2 | convergence_doubled_s | vegas | 31.6 | s | simulation
004/5.1.2/tcp-ho/max_convergence | §5.1.2 | time_to_equilibrium_s | tcp-ho | 7.0 | s | simulation
"""

PUBLISHED: tuple[PublishedValue, ...] = tuple(
    _v(*(f.strip() for f in line.split("|")))
    for line in _TABLE.strip().splitlines()
    if not line.startswith("#")
)


def published(key: str) -> PublishedValue:
    """The entry with ``key`` (ValueError listing close keys when unknown)."""
    for v in PUBLISHED:
        if v.key == key:
            return v
    prefix = key.split("/", 1)[0]
    near = [v.key for v in PUBLISHED if v.key.startswith(prefix)]
    raise ValueError(f"unknown published value {key!r}; keys starting with {prefix!r}: {near}")


PUBLISHED = PUBLISHED + tables(_v) + paper_tables(_v) + thesis_tables(_v)


def _thesis_table_3_16() -> dict[int, dict[str, float]]:
    """Tsang's thesis Table 3.16 from its ``001/table3.16/<setting>/x2_<ms>`` entries, in print
    order."""
    out: dict[int, dict[str, float]] = {}
    for v in PUBLISHED:
        if v.key.startswith("001/table3.16/"):
            setting, x2 = v.key.split("/")[2:]
            out.setdefault(int(x2.removeprefix("x2_")), {})[setting] = float(v.value)
    return out


#: Tsang's thesis, ch. 3 §4.3 Table 3.16 (connection 1 starts first): Jain's index by x2 (ms)
#: for Vegas-1, Vegas-2, Vegas-3 (Enhanced Vegas δ = 1, 2, 3) and Vegas-1_3 (α = 1, β = 3);
#: the ``001/table3.16/...`` entries of :data:`PUBLISHED` as a mapping x2 -> setting -> index.
THESIS_TABLE_3_16: dict[int, dict[str, float]] = _thesis_table_3_16()
