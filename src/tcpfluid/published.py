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

__all__ = ["PUBLISHED", "PublishedValue", "published"]


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
    key: str, where: str, quantity: str, algorithm: str, value: float, unit: str, method: str
) -> PublishedValue:
    doc = key.split("/", 1)[0]
    return PublishedValue(key, doc, where, quantity, algorithm, value, unit, method)  # type: ignore[arg-type]


PUBLISHED: tuple[PublishedValue, ...] = (
    # ---- the Quick Vegas paper, §3.2.1 Fig. 1 and §5.1 (50 Mb/s x 100 ms, 1000-byte packets)
    _v(
        "000/fig1/ss_exit_window",
        "§3.2.1 Fig. 1",
        "ss_exit_window",
        "vegas",
        64,
        "pkts",
        "simulation",
    ),
    _v("000/fig1/ss_exit_time", "§3.2.1 Fig. 1", "ss_exit_time_s", "vegas", 1.2, "s", "simulation"),
    _v(
        "000/fig1/equilibrium_window",
        "§3.2.1 Fig. 1",
        "equilibrium_window",
        "vegas",
        630,
        "pkts",
        "simulation",
    ),
    _v(
        "000/fig1/time_to_equilibrium",
        "§3.2.1 Fig. 1",
        "time_to_equilibrium_s",
        "vegas",
        59,
        "s",
        "simulation",
    ),
    _v(
        "000/5.1/vegas/halved",
        "§5.1 Fig. 7",
        "convergence_halved_s",
        "vegas",
        47.9,
        "s",
        "simulation",
    ),
    _v(
        "000/5.1/vegas/doubled",
        "§5.1 Fig. 7",
        "convergence_doubled_s",
        "vegas",
        31.8,
        "s",
        "simulation",
    ),
    _v("000/5.1/vegas/max_queue", "§5.1 Fig. 7", "max_queue", "vegas", 620, "pkts", "simulation"),
    _v(
        "000/5.1/qv/ramp_up",
        "§5.1 Fig. 8",
        "time_to_equilibrium_s",
        "quick-vegas",
        13,
        "s",
        "simulation",
    ),
    _v(
        "000/5.1/qv/halved",
        "§5.1 Fig. 8",
        "convergence_halved_s",
        "quick-vegas",
        3.3,
        "s",
        "simulation",
    ),
    _v(
        "000/5.1/qv/doubled",
        "§5.1 Fig. 8",
        "convergence_doubled_s",
        "quick-vegas",
        2.0,
        "s",
        "simulation",
    ),
    _v(
        "000/5.1/qv/max_queue", "§5.1 Fig. 8", "max_queue", "quick-vegas", 500, "pkts", "simulation"
    ),
    _v(
        "000/5.1/fast/ramp_up",
        "§5.1 Fig. 9",
        "time_to_equilibrium_s",
        "fast",
        2.6,
        "s",
        "simulation",
    ),
    _v(
        "000/5.1/fast/halved", "§5.1 Fig. 9", "convergence_halved_s", "fast", 3.0, "s", "simulation"
    ),
    _v(
        "000/5.1/fast/doubled",
        "§5.1 Fig. 9",
        "convergence_doubled_s",
        "fast",
        1.6,
        "s",
        "simulation",
    ),
    _v("000/5.1/fast/queue", "§5.1 Fig. 9", "queue", "fast", 100, "pkts", "simulation"),
    # ---- the TCP-Ho paper, §4.3 Examples 1-3 (d = 0.1 s): analysis and simulation
    _v(
        "004/ex1/vegas/analysis",
        "§4.3 Example 1",
        "conspicuous_time_s",
        "vegas",
        1.3,
        "s",
        "analysis",
    ),
    _v(
        "004/ex1/tcp-ho/analysis",
        "§4.3 Example 1",
        "conspicuous_time_s",
        "tcp-ho",
        1.6,
        "s",
        "analysis",
    ),
    _v(
        "004/ex1/vegas/simulation",
        "§4.3 Example 1",
        "conspicuous_time_s",
        "vegas",
        1.5,
        "s",
        "simulation",
    ),
    _v(
        "004/ex1/tcp-ho/simulation",
        "§4.3 Example 1",
        "conspicuous_time_s",
        "tcp-ho",
        1.5,
        "s",
        "simulation",
    ),
    _v(
        "004/ex2/vegas/analysis",
        "§4.3 Example 2",
        "conspicuous_time_s",
        "vegas",
        20.7,
        "s",
        "analysis",
    ),
    _v(
        "004/ex2/tcp-ho/analysis",
        "§4.3 Example 2",
        "conspicuous_time_s",
        "tcp-ho",
        3.4,
        "s",
        "analysis",
    ),
    _v(
        "004/ex2/vegas/simulation",
        "§4.3 Example 2",
        "conspicuous_time_s",
        "vegas",
        20.9,
        "s",
        "simulation",
    ),
    _v(
        "004/ex2/tcp-ho/simulation",
        "§4.3 Example 2",
        "conspicuous_time_s",
        "tcp-ho",
        3.8,
        "s",
        "simulation",
    ),
    _v(
        "004/ex3/vegas/analysis",
        "§4.3 Example 3",
        "conspicuous_time_s",
        "vegas",
        58.1,
        "s",
        "analysis",
    ),
    _v(
        "004/ex3/tcp-ho/analysis",
        "§4.3 Example 3",
        "conspicuous_time_s",
        "tcp-ho",
        4.7,
        "s",
        "analysis",
    ),
    _v(
        "004/ex3/vegas/simulation",
        "§4.3 Example 3",
        "conspicuous_time_s",
        "vegas",
        58.4,
        "s",
        "simulation",
    ),
    _v(
        "004/ex3/tcp-ho/simulation",
        "§4.3 Example 3",
        "conspicuous_time_s",
        "tcp-ho",
        5.1,
        "s",
        "simulation",
    ),
    # ---- the TCP-Ho paper, §5.1.2 (50 Mb/s, 48 ms link, CBR 25 Mb/s from 80 s to 160 s)
    _v("004/5.1.2/vegas/ss_exit_time", "§5.1.2", "ss_exit_time_s", "vegas", 1.3, "s", "simulation"),
    _v(
        "004/5.1.2/vegas/time_to_equilibrium",
        "§5.1.2",
        "time_to_equilibrium_s",
        "vegas",
        57.5,
        "s",
        "simulation",
    ),
    _v(
        "004/5.1.2/vegas/halved", "§5.1.2", "convergence_halved_s", "vegas", 47.7, "s", "simulation"
    ),
    _v(
        "004/5.1.2/vegas/doubled",
        "§5.1.2",
        "convergence_doubled_s",
        "vegas",
        31.6,
        "s",
        "simulation",
    ),
    _v(
        "004/5.1.2/tcp-ho/max_convergence",
        "§5.1.2",
        "time_to_equilibrium_s",
        "tcp-ho",
        7.0,
        "s",
        "simulation",
    ),
)


def published(key: str) -> PublishedValue:
    """The entry with ``key`` (ValueError listing close keys when unknown)."""
    for v in PUBLISHED:
        if v.key == key:
            return v
    prefix = key.split("/", 1)[0]
    near = [v.key for v in PUBLISHED if v.key.startswith(prefix)]
    raise ValueError(f"unknown published value {key!r}; keys starting with {prefix!r}: {near}")


def _tables() -> tuple[PublishedValue, ...]:
    """Printed tables added for the validation report (Quick Vegas, asymmetric networks)."""
    out: list[PublishedValue] = []

    def sim(key: str, where: str, quantity: str, algorithm: str, value: float, unit: str) -> None:
        out.append(_v(key, where, quantity, algorithm, value, unit, "simulation"))

    # the Quick Vegas paper, §5.3.1 Table 2 (same RTT, 100-s periods) and §5.3.2 Table 3 (different
    # RTTs, 50-s periods): Jain's index per period, ns-2 (New Reno is run as "reno")
    t2: dict[str, tuple[float, ...]] = {
        "vegas": (0.969, 0.941, 0.972, 0.987, 0.999),
        "quick-vegas": (0.994, 0.996, 0.999, 0.999, 0.991),
        "fast": (0.998, 0.991, 0.986, 0.997, 0.991),
        "reno": (0.996, 0.946, 0.993, 0.999, 0.999),
    }
    t3: dict[str, tuple[float, ...]] = {
        "vegas": (0.605, 0.691, 0.721, 0.721),
        "quick-vegas": (0.626, 0.774, 0.783, 0.784),
        "fast": (0.850, 0.871, 0.870, 0.862),
        "reno": (0.622, 0.431, 0.475, 0.469),
    }
    for name, where, period, table in (
        ("table2", "§5.3.1 Table 2", 100, t2),
        ("table3", "§5.3.2 Table 3", 50, t3),
    ):
        for alg, vals in table.items():
            for i, v in enumerate(vals):
                a, b = period * i, period * (i + 1)
                sim(f"000/{name}/{alg}/{a}-{b}", where, "jain_index", alg, v, "")
    # the asymmetric-networks paper, Table I (Vegas/Reno) and Table III (Vegas/modified =
    # forward-path Vegas):
    # throughput, packets/s, mu_f = 200 packets/s, mu_r = mu_f / k
    t1 = {0.5: (195.9, 185.0), 3: (65.8, 138.3), 5: (43.8, 109.4), 7: (26.8, 71.5)}
    for k, (veg, reno) in t1.items():
        sim(f"003/table1/vegas/k{k:g}", "§IV Table I", "throughput_pps", "vegas", veg, "pkts/s")
        sim(f"003/table1/reno/k{k:g}", "§IV Table I", "throughput_pps", "reno", reno, "pkts/s")
    t3b = {0.5: 194.0, 3: 190.4, 5: 192.8, 7: 189.2}
    for k, fwd in t3b.items():
        key = f"003/table3/forward-vegas/k{k:g}"
        sim(key, "§V Table III", "throughput_pps", "forward-vegas", fwd, "pkts/s")
    # Table II: k = 5, reverse buffer B_r (ACKs): Reno / Vegas throughput, packets/s
    t2b = {
        2: (134.5, 101.3),
        6: (128.2, 39.4),
        10: (109.1, 39.6),
        20: (66.8, 39.5),
        40: (46.2, 39.5),
        100: (46.6, 39.4),
    }
    for br, (reno, veg) in t2b.items():
        sim(f"003/table2/reno/br{br}", "§IV Table II", "throughput_pps", "reno", reno, "pkts/s")
        sim(f"003/table2/vegas/br{br}", "§IV Table II", "throughput_pps", "vegas", veg, "pkts/s")
    return tuple(out)


PUBLISHED = PUBLISHED + _tables()


def _paper_tables() -> tuple[PublishedValue, ...]:
    """The TCP-Ho paper's §5.2 tables (5, 6, 7) and the iTCP-Vegas paper's Tables 1-2, ns-2."""
    out: list[PublishedValue] = []

    def sim(key: str, where: str, quantity: str, algorithm: str, value: float, unit: str) -> None:
        out.append(_v(key, where, quantity, algorithm, value, unit, "simulation"))

    # the TCP-Ho paper, §5.2.1 Table 5 (five flows of one scheme, 100 Mb/s x 23 ms, 300-packet
    # buffer): Jain's index as the text prints it (the table rounds to 99.97 %, 97.32 %,
    # 99.99 %, 99.99 %), utilization (Reno's as the printed range 80-96 %), time to balance
    # (Reno: "at least 6 seconds"; FAST: "never converges", no number)
    t5_jain = {"reno": 0.999663, "vegas": 0.973188, "fast": 0.999979, "tcp-ho": 0.999995}
    t5_util = {"vegas": 100.0, "fast": 18.19, "tcp-ho": 100.0}
    t5_time = {"reno": 6.0, "vegas": 6.5, "tcp-ho": 2.0}
    w5 = "§5.2.1 Table 5"
    for alg, v in t5_jain.items():
        sim(f"004/table5/{alg}/jain_index", w5, "jain_index", alg, v, "")
    for alg, v in t5_util.items():
        sim(f"004/table5/{alg}/utilization", w5, "utilization_percent", alg, v, "%")
    sim("004/table5/reno/utilization_low", w5, "utilization_percent", "reno", 80.0, "%")
    sim("004/table5/reno/utilization_high", w5, "utilization_percent", "reno", 96.0, "%")
    for alg, v in t5_time.items():
        sim(f"004/table5/{alg}/time_to_balance", "§5.2.1 text", "time_to_balance_s", alg, v, "s")
    # Table 6 (different RTTs, the topology of Fig. 13): Jain's index and utilization, percent
    t6 = {"reno": (67, 96), "vegas": (75, 100), "fast": (99, 96), "tcp-ho": (82, 100)}
    for alg, (jain_pct, util) in t6.items():
        w6 = "§5.2.1 Table 6"
        sim(f"004/table6/{alg}/jain_index", w6, "jain_index", alg, jain_pct / 100.0, "")
        sim(f"004/table6/{alg}/utilization", w6, "utilization_percent", alg, float(util), "%")
    # Table 7 (20 connections, 10 Mb/s x 1 ms, 120-packet buffer): for "A-B" and a proportion
    # "nA - nB", Jain's index over the 20 connections and the mean throughput of each scheme,
    # kb/s. The table's second block is headed "FAST-Vegas, FAST-Reno" with "FAST-TCP-Ho"
    # printed above it: its third column is FAST with TCP-Ho (the text's six pairings)
    t7: dict[tuple[str, str], tuple[tuple[float, float, float], ...]] = {
        ("reno", "vegas"): ((80, 608, 89), (59, 840, 120), (39, 1526, 138)),
        ("tcp-ho", "vegas"): ((95, 533, 403), (86, 564, 438), (89, 592, 471)),
        ("tcp-ho", "reno"): ((85, 474, 570), (89, 453, 557), (96, 435, 524)),
        ("fast", "vegas"): ((80, 376, 158), (54, 665, 222), (39, 1139, 251)),
        ("fast", "reno"): ((72, 504, 118), (52, 731, 148), (27, 1380, 166)),
        ("fast", "tcp-ho"): ((88, 395, 154), (79, 554, 317), (76, 591, 250)),
    }
    for (a, b), rows in t7.items():
        for (na, nb), (jain7, thr_a, thr_b) in zip(((15, 5), (10, 10), (5, 15)), rows, strict=True):
            base = f"004/table7/{a}-{b}/{na}-{nb}"
            w7 = "§5.2.2 Table 7"
            sim(f"{base}/jain_index", w7, "jain_index", f"{a}:{na},{b}:{nb}", jain7 / 100.0, "")
            sim(f"{base}/{a}", w7, "mean_throughput_kbps", a, float(thr_a), "kb/s")
            sim(f"{base}/{b}", w7, "mean_throughput_kbps", b, float(thr_b), "kb/s")
    # the iTCP-Vegas paper, Table 1 (622 Mb/s x 110 ms, average throughput in 100 s, Mb/s) and
    # Table 2 (155 Mb/s, RTT 240-840 ms: average throughput in 200 s, Mb/s; time to reach the
    # bandwidth limitation, s)
    sim("002/table1/vegas", "§4.2 Table 1", "average_throughput_mbps", "vegas", 15.33, "Mb/s")
    sim(
        "002/table1/itcp-vegas",
        "§4.2 Table 1",
        "average_throughput_mbps",
        "itcp-vegas",
        412.32,
        "Mb/s",
    )
    t2i = {240: (144.17, 22.13), 440: (127.48, 57.29), 640: (106.07, 102.52), 840: (80.35, 156.35)}
    for rtt, (mbps, reach) in t2i.items():
        w2 = "§4.2 Table 2"
        sim(
            f"002/table2/rtt{rtt}/throughput",
            w2,
            "average_throughput_mbps",
            "itcp-vegas",
            mbps,
            "Mb/s",
        )
        sim(
            f"002/table2/rtt{rtt}/time_to_limit",
            w2,
            "time_to_bandwidth_limit_s",
            "itcp-vegas",
            reach,
            "s",
        )
    return tuple(out)


PUBLISHED = PUBLISHED + _paper_tables()
