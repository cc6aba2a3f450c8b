"""Numbers printed in the source documents, with where they come from.

Tests, ``tcpfluid predict --documents`` and the validation report compare tcpfluid against
these values. Each entry says which document, where, what quantity, its unit, and whether
the document obtained it by analysis (a closed form) or by ns-2 simulation.

Value keys and ``document`` fields name the documents by short key (000 the Quick Vegas
paper ... 004 the TCP-Ho paper: docs/analytic.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from ._json import FieldsDict

__all__ = ["PUBLISHED", "THESIS_TABLE_3_16", "PublishedValue", "published"]


@dataclass(frozen=True)
class PublishedValue(FieldsDict):
    """One printed number.

    Its stable key ``"<doc>/<place>/<quantity>"``, the document
    (``"000"`` .. ``"004"``), where it is printed (section, figure, table or example), what
    it measures (``ss_exit_window``, ...), the algorithm's registry name, the number as
    printed, its unit (``"pkts"``, ``"s"``, ...) and how the document obtained it
    (``"analysis"``, a closed form, or ``"simulation"``, ns-2)."""

    key: str
    document: str
    where: str
    quantity: str
    algorithm: str
    value: float
    unit: str
    method: Literal["analysis", "simulation"]


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


#: Tsang's thesis, Tables 3.22 and 3.26: the Vegas shares of the mixes, % of the flows
_VEGAS_SHARES = (10, 30, 50, 70, 90, 100)
#: the printed tables' entries (ns-2 simulation values), in print order
_SIMULATED: list[PublishedValue] = []


def _sim(key: str, where: str, quantity: str, algorithm: str, value: float, unit: str) -> None:
    """Append one ns-2 ("simulation") entry of a printed table."""
    _SIMULATED.append(_v(key, where, quantity, algorithm, value, unit, "simulation"))


def _quick_vegas_and_asymmetric_tables() -> None:
    """Printed tables added for the validation report (Quick Vegas, asymmetric networks)."""
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
                _sim(f"000/{name}/{alg}/{a}-{b}", where, "jain_index", alg, v, "")
    # the asymmetric-networks paper, Table I (Vegas/Reno) and Table III (Vegas/modified =
    # forward-path Vegas):
    # throughput, packets/s, mu_f = 200 packets/s, mu_r = mu_f / k
    t1 = {0.5: (195.9, 185.0), 3: (65.8, 138.3), 5: (43.8, 109.4), 7: (26.8, 71.5)}
    for k, (veg, reno) in t1.items():
        _sim(f"003/table1/vegas/k{k:g}", "§IV Table I", "throughput_pps", "vegas", veg, "pkts/s")
        _sim(f"003/table1/reno/k{k:g}", "§IV Table I", "throughput_pps", "reno", reno, "pkts/s")
    t3b = {0.5: 194.0, 3: 190.4, 5: 192.8, 7: 189.2}
    for k, fwd in t3b.items():
        key = f"003/table3/forward-vegas/k{k:g}"
        _sim(key, "§V Table III", "throughput_pps", "forward-vegas", fwd, "pkts/s")
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
        _sim(f"003/table2/reno/br{br}", "§IV Table II", "throughput_pps", "reno", reno, "pkts/s")
        _sim(f"003/table2/vegas/br{br}", "§IV Table II", "throughput_pps", "vegas", veg, "pkts/s")


def _tcp_ho_and_itcp_tables() -> None:
    """The TCP-Ho paper's §5.2 tables (5, 6, 7) and the iTCP-Vegas paper's Tables 1-2, ns-2."""
    # the TCP-Ho paper, §5.2.1 Table 5 (five flows of one scheme, 100 Mb/s x 23 ms, 300-packet
    # buffer): Jain's index as the text prints it (the table rounds to 99.97 %, 97.32 %,
    # 99.99 %, 99.99 %), utilization (Reno's as the printed range 80-96 %), time to balance
    # (Reno: "at least 6 seconds"; FAST: "never converges", no number)
    t5_jain = {"reno": 0.999663, "vegas": 0.973188, "fast": 0.999979, "tcp-ho": 0.999995}
    t5_util = {"vegas": 100.0, "fast": 18.19, "tcp-ho": 100.0}
    t5_time = {"reno": 6.0, "vegas": 6.5, "tcp-ho": 2.0}
    w5 = "§5.2.1 Table 5"
    for alg, v in t5_jain.items():
        _sim(f"004/table5/{alg}/jain_index", w5, "jain_index", alg, v, "")
    for alg, v in t5_util.items():
        _sim(f"004/table5/{alg}/utilization", w5, "utilization_percent", alg, v, "%")
    _sim("004/table5/reno/utilization_low", w5, "utilization_percent", "reno", 80.0, "%")
    _sim("004/table5/reno/utilization_high", w5, "utilization_percent", "reno", 96.0, "%")
    for alg, v in t5_time.items():
        _sim(f"004/table5/{alg}/time_to_balance", "§5.2.1 text", "time_to_balance_s", alg, v, "s")
    # Table 6 (different RTTs, the topology of Fig. 13): Jain's index and utilization, percent
    t6 = {"reno": (67, 96), "vegas": (75, 100), "fast": (99, 96), "tcp-ho": (82, 100)}
    for alg, (jain_pct, util) in t6.items():
        w6 = "§5.2.1 Table 6"
        _sim(f"004/table6/{alg}/jain_index", w6, "jain_index", alg, jain_pct / 100.0, "")
        _sim(f"004/table6/{alg}/utilization", w6, "utilization_percent", alg, float(util), "%")
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
            _sim(f"{base}/jain_index", w7, "jain_index", f"{a}:{na},{b}:{nb}", jain7 / 100.0, "")
            _sim(f"{base}/{a}", w7, "mean_throughput_kbps", a, float(thr_a), "kb/s")
            _sim(f"{base}/{b}", w7, "mean_throughput_kbps", b, float(thr_b), "kb/s")
    # the iTCP-Vegas paper, Table 1 (622 Mb/s x 110 ms, average throughput in 100 s, Mb/s) and
    # Table 2 (155 Mb/s, RTT 240-840 ms: average throughput in 200 s, Mb/s; time to reach the
    # bandwidth limitation, s)
    w1, w2 = "§4.2 Table 1", "§4.2 Table 2"
    _sim("002/table1/vegas", w1, "average_throughput_mbps", "vegas", 15.33, "Mb/s")
    _sim("002/table1/itcp-vegas", w1, "average_throughput_mbps", "itcp-vegas", 412.32, "Mb/s")
    t2i = {240: (144.17, 22.13), 440: (127.48, 57.29), 640: (106.07, 102.52), 840: (80.35, 156.35)}
    for rtt, (mbps, reach) in t2i.items():
        base = f"002/table2/rtt{rtt}"
        _sim(f"{base}/throughput", w2, "average_throughput_mbps", "itcp-vegas", mbps, "Mb/s")
        _sim(f"{base}/time_to_limit", w2, "time_to_bandwidth_limit_s", "itcp-vegas", reach, "s")


def _thesis_few_flows() -> None:
    """Tsang's thesis, ch. 3: Tables 3.2-3.4 (one flow), 3.12-3.13 (two Reno flows), 3.16 (two
    Vegas flows) and 3.21 (many flows of one algorithm)."""
    # §4.1.2 Tables 3.2-3.4: one Vegas-δ flow (α = β = δ) at 64 ms, measured after 20 s:
    # min/max actual and expected rates (packets/s), min/max window, min/max/mean v_delta_
    t32 = {
        1: (174.11, 213.27, 182.56, 238.73),
        2: (175.00, 213.27, 196.60, 252.77),
        3: (175.78, 211.62, 210.64, 252.77),
        4: (176.47, 210.16, 224.68, 266.81),
        5: (177.08, 208.88, 238.73, 280.86),
        10: (179.35, 204.14, 308.94, 351.07),
    }
    t33 = {1: (13, 17), 2: (14, 18), 3: (15, 18), 4: (16, 19), 5: (17, 20), 10: (22, 25)}
    t34 = {
        1: (0.0, 2.697, 1.27),
        2: (0.694, 3.691, 2.20),
        3: (1.758, 3.691, 2.73),
        4: (2.814, 4.687, 3.75),
        5: (3.863, 5.683, 4.77),
        10: (9.041, 10.670, 9.85),
    }
    for d, vals in t32.items():
        for q, v in zip(
            ("actual_min", "actual_max", "expected_min", "expected_max"), vals, strict=True
        ):
            _sim(f"001/table3.2/vegas-{d}/{q}", "ch. 3 Table 3.2", f"{q}_rate_pps",
                "enhanced-vegas", v, "pkts/s")  # fmt: skip
        for q, v in zip(("min", "max"), t33[d], strict=True):
            _sim(f"001/table3.3/vegas-{d}/window_{q}", "ch. 3 Table 3.3", f"window_{q}",
                "enhanced-vegas", v, "pkts")  # fmt: skip
        for q, v in zip(("min", "max", "mean"), t34[d], strict=True):
            _sim(f"001/table3.4/vegas-{d}/delta_{q}", "ch. 3 Table 3.4", f"v_delta_{q}",
                "enhanced-vegas", v, "pkts")  # fmt: skip
    # §4.2.4 Tables 3.12-3.13: two Reno flows, RED 15/45, x2: Jain's index and goodputs (b/s)
    t313 = {
        100: (1102901.59, 394727.73, 0.817),
        80: (1060041.96, 441137.46, 0.855),
        60: (975859.11, 525130.28, 0.917),
        40: (848803.99, 647203.04, 0.982),
        20: (872164.10, 626882.95, 0.974),
        10: (809440.39, 690560.33, 0.994),
        1: (808815.84, 691533.54, 0.994),
    }
    for x2, (g1, g2, j) in t313.items():
        _sim(f"001/table3.12/reno/x2_{x2}", "ch. 3 Table 3.12", "jain_index", "reno", j, "")
        _sim(f"001/table3.13/reno1/x2_{x2}", "ch. 3 Table 3.13", "goodput_bps", "reno", g1, "b/s")
        _sim(f"001/table3.13/reno2/x2_{x2}", "ch. 3 Table 3.13", "goodput_bps", "reno", g2, "b/s")
    # §4.3 Table 3.16: two Vegas flows, connection 1 starts first: Jain's index by x2 (ms) for
    # Vegas-1, Vegas-2, Vegas-3 (Enhanced Vegas δ = 1, 2, 3) and Vegas-1_3 (Vegas, α = 1, β = 3)
    t316 = {
        110: (0.928, 0.995, 0.992, 0.965),
        100: (0.898, 1.000, 0.997, 0.931),
        90: (0.890, 1.000, 0.996, 0.941),
        80: (0.858, 0.999, 0.995, 0.953),
        70: (0.988, 0.982, 0.989, 0.980),
        60: (0.998, 0.997, 0.997, 0.945),
        50: (0.997, 0.986, 0.996, 0.962),
        40: (1.000, 0.994, 0.995, 0.946),
        30: (0.997, 0.968, 0.991, 0.970),
        20: (0.998, 0.998, 0.998, 0.996),
        10: (0.988, 0.999, 1.000, 0.900),
        5: (0.994, 0.999, 0.999, 1.000),
        1: (1.000, 1.000, 1.000, 1.000),
    }
    settings316 = ("vegas-1", "vegas-2", "vegas-3", "vegas-1_3")
    for x2, row in t316.items():
        for setting, j in zip(settings316, row, strict=True):
            alg = "vegas" if setting == "vegas-1_3" else "enhanced-vegas"
            _sim(f"001/table3.16/{setting}/x2_{x2}", "ch. 3 Table 3.16", "jain_index", alg, j, "")
    # §4.4.2 Tables 3.21a/b: many flows, Jain's index over 20-60 s, (before, after) the
    # thesis's modification of ns-2's Vegas (after: the mean of 7 runs); Reno one value
    t321 = {
        "red-5-15": {
            "reno": ((0.981, None), (0.981, None), (0.959, None)),
            "vegas-1": ((0.899, 0.912), (0.672, 0.822), (0.610, 0.914)),
            "vegas-2": ((0.862, 0.879), (0.642, 0.833), (0.685, 0.892)),
            "vegas-3": ((0.923, 0.900), (0.660, 0.911), (0.668, 0.904)),
        },
        "red-54-108": {
            "reno": ((0.983, None), (0.971, None), (0.952, None)),
            "vegas-1": ((0.998, 0.996), (0.834, 0.897), (0.708, 0.910)),
            "vegas-2": ((0.970, 0.963), (0.818, 0.893), (0.639, 0.886)),
            "vegas-3": ((0.967, 0.971), (0.863, 0.930), (0.673, 0.918)),
        },
    }
    for router, laws in t321.items():
        tab = "3.21a" if router == "red-5-15" else "3.21b"
        for law, cells in laws.items():
            alg = "reno" if law == "reno" else "enhanced-vegas"
            for n, (before, after) in zip((30, 100, 200), cells, strict=True):
                base = f"001/table{tab}/{router}/{law}/n{n}"
                _sim(f"{base}/before", f"ch. 3 Table {tab}", "jain_index", alg, before, "")
                if after is not None:
                    _sim(f"{base}/after", f"ch. 3 Table {tab}", "jain_index", alg, after, "")


def _thesis_mixes() -> None:
    """Tsang's thesis, ch. 3: Tables 3.22 and 3.25 (mixes of Vegas and Reno)."""
    # §4.4.3 Tables 3.22a/b: mean Jain's index of 7 runs, mixes of Vegas and Reno, by the
    # Vegas share (0 %: Reno only) for Vegas-3 (α = β = 3) and Vegas-1_3 (α = 1, β = 3)
    t322 = {
        "red-5-15": {
            30: (0.984, (0.974, 0.956), (0.941, 0.945), (0.933, 0.930), (0.907, 0.907),
                 (0.917, 0.879), (0.900, 0.873)),
            100: (0.975, (0.958, 0.961), (0.936, 0.920), (0.925, 0.896), (0.913, 0.872),
                  (0.912, 0.852), (0.911, 0.845)),
            200: (0.955, (0.912, 0.927), (0.891, 0.886), (0.881, 0.895), (0.891, 0.892),
                  (0.900, 0.896), (0.904, 0.900)),
        },
        "red-54-108": {
            30: (0.976, (0.981, 0.969), (0.976, 0.909), (0.979, 0.852), (0.972, 0.786),
                 (0.980, 0.739), (0.971, 0.778)),
            100: (0.968, (0.960, 0.951), (0.947, 0.945), (0.939, 0.928), (0.929, 0.908),
                  (0.926, 0.884), (0.930, 0.872)),
            200: (0.954, (0.929, 0.947), (0.912, 0.919), (0.903, 0.905), (0.899, 0.898),
                  (0.909, 0.890), (0.918, 0.891)),
        },
    }  # fmt: skip
    for router, rows in t322.items():
        tab = "3.22a" if router == "red-5-15" else "3.22b"
        for n, (reno_only, *mixes) in rows.items():
            _sim(f"001/table{tab}/{router}/n{n}/vegas0", f"ch. 3 Table {tab}", "jain_index",
                "reno", reno_only, "")  # fmt: skip
            for share, (v3, v13) in zip(_VEGAS_SHARES, mixes, strict=True):
                for law, v in (("vegas-3", v3), ("vegas-1_3", v13)):
                    _sim(f"001/table{tab}/{router}/n{n}/{law}/vegas{share}",
                        f"ch. 3 Table {tab}", "jain_index", "mixed", v, "")  # fmt: skip
    # §4.4.3 Tables 3.25a-d: one run each: Jain's index (mean Vegas goodput / mean Reno
    # goodput, b/s), by the Vegas share 30/50/70 % and 30/100/200 flows
    t325 = {
        ("red-54-108", "vegas-3"): (
            (0.977, 234163, 343386), (0.969, 293599, 371919), (0.964, 323614, 416524),
            (0.972, 114486, 97053), (0.945, 107171, 90024), (0.922, 99236, 93750),
            (0.919, 67306, 47123), (0.910, 56724, 40596), (0.900, 49539, 35516),
        ),
        ("red-54-108", "vegas-1_3"): (
            (0.960, 189427, 347960), (0.844, 210509, 454940), (0.759, 271019, 888998),
            (0.964, 73244, 101549), (0.920, 90460, 106675), (0.883, 96956, 116536),
            (0.949, 50734, 48863), (0.916, 51865, 45755), (0.891, 49217, 41432),
        ),
        ("red-5-15", "vegas-3"): (
            (0.962, 354355, 297238), (0.937, 301939, 320963), (0.926, 320042, 308864),
            (0.949, 110335, 89808), (0.920, 110986, 81527), (0.931, 103800, 79588),
            (0.895, 60808, 41305), (0.888, 57531, 36773), (0.901, 50991, 35585),
        ),
        ("red-5-15", "vegas-1_3"): (
            (0.913, 237901, 339379), (0.949, 312307, 316247), (0.842, 290288, 352538),
            (0.923, 113476, 88255), (0.891, 101272, 91257), (0.889, 97329, 94748),
            (0.890, 58963, 42945), (0.886, 54818, 40014), (0.900, 51134, 38425),
        ),
    }  # fmt: skip
    for letter, ((router, law), cells25) in zip("abcd", t325.items(), strict=True):
        tab = f"3.25{letter}"
        i = 0
        for n in (30, 100, 200):
            for share in (30, 50, 70):
                j, gv, gr = cells25[i]
                i += 1
                base = f"001/table{tab}/{router}/{law}/n{n}/vegas{share}"
                w = f"ch. 3 Table {tab}"
                _sim(f"{base}/jain", w, "jain_index", "mixed", j, "")
                _sim(f"{base}/vegas_goodput", w, "goodput_bps", "enhanced-vegas"
                    if law == "vegas-3" else "vegas", gv, "b/s")  # fmt: skip
                _sim(f"{base}/reno_goodput", w, "goodput_bps", "reno", gr, "b/s")


def _thesis_delayed_acks() -> None:
    """Tsang's thesis, ch. 3: Tables 3.26-3.28 (receivers delaying their ACKs)."""
    # §4.5.1 Tables 3.26a/b: mean Jain's index of 7 runs, every receiver delaying its ACKs
    # (DA; the immediate-ACK column is Table 3.22's Vegas-3 column), Vegas-3 and Reno
    t326 = {
        "red-5-15": {
            30: (0.958, 0.950, 0.940, 0.950, 0.957, 0.967),
            100: (0.936, 0.904, 0.908, 0.930, 0.949, 0.960),
            200: (0.925, 0.894, 0.894, 0.907, 0.914, 0.931),
        },
        "red-54-108": {
            30: (0.977, 0.985, 0.986, 0.984, 0.985, 0.970),
            100: (0.959, 0.944, 0.941, 0.945, 0.962, 0.971),
            200: (0.936, 0.904, 0.911, 0.915, 0.931, 0.939),
        },
    }
    for router, rows26 in t326.items():
        tab = "3.26a" if router == "red-5-15" else "3.26b"
        for n, vals26 in rows26.items():
            for share, v in zip(_VEGAS_SHARES, vals26, strict=True):
                _sim(f"001/table{tab}/{router}/n{n}/vegas{share}/delayed_ack",
                    f"ch. 3 Table {tab}", "jain_index", "mixed", v, "")  # fmt: skip
    # §4.5.2 Table 3.27: one run (30 flows, 50 % Vegas-3, delayed ACKs), ten Vegas
    # connections: first and last recorded BaseRTT and the round-trip propagation delay, s
    t327 = (
        (0.599058, 0.100396, 0.09561), (0.601500, 0.095294, 0.09184),
        (0.597561, 0.097561, 0.09411), (0.597671, 0.097671, 0.09422),
        (0.601617, 0.101617, 0.09817), (0.601262, 0.101262, 0.09781),
        (0.603339, 0.103339, 0.09989), (0.595219, 0.095219, 0.09177),
        (0.602864, 0.102864, 0.09941), (0.630239, 0.112818, 0.09105),
    )  # fmt: skip
    first = sorted(f for f, _, _ in t327)
    excess = sorted(last - prop for _, last, prop in t327)
    _sim("001/table3.27/first_base_rtt_median", "ch. 3 Table 3.27 (median of ten)",
        "first_base_rtt_s", "enhanced-vegas", (first[4] + first[5]) / 2, "s")  # fmt: skip
    _sim("001/table3.27/last_base_rtt_excess_median", "ch. 3 Table 3.27 (median of ten)",
        "base_rtt_excess_s", "enhanced-vegas", (excess[4] + excess[5]) / 2, "s")  # fmt: skip
    # §4.5.2 Table 3.28: two Vegas-1_3 flows at 6 ms each, RED 15/45: goodput (b/s), first
    # and final BaseRTT (s) with both receivers acknowledging at once (IA), delaying (DA), or
    # connection 1's delaying and connection 2's not (da-ia)
    w28 = "ch. 3 Table 3.28"
    _sim("001/table3.28/ia-ia/goodput1", w28, "goodput_bps", "vegas", 750094.69, "b/s")
    _sim("001/table3.28/ia-ia/goodput2", w28, "goodput_bps", "vegas", 749934.68, "b/s")
    _sim("001/table3.28/ia-ia/final_base_rtt", w28, "base_rtt_s", "vegas", 0.013211, "s")
    _sim("001/table3.28/da-ia/goodput1", w28, "goodput_bps", "vegas", 993133.51, "b/s")
    _sim("001/table3.28/da-ia/goodput2", w28, "goodput_bps", "vegas", 507366.90, "b/s")
    _sim("001/table3.28/da-ia/first_base_rtt1", w28, "base_rtt_s", "vegas", 0.518544, "s")
    _sim("001/table3.28/da-ia/first_base_rtt2", w28, "base_rtt_s", "vegas", 0.013211, "s")
    _sim("001/table3.28/da-ia/final_base_rtt1", w28, "base_rtt_s", "vegas", 0.032000, "s")
    _sim("001/table3.28/da-ia/final_base_rtt2", w28, "base_rtt_s", "vegas", 0.013211, "s")
    _sim("001/table3.28/da-da/goodput1", w28, "goodput_bps", "vegas", 749921.68, "b/s")
    _sim("001/table3.28/da-da/goodput2", w28, "goodput_bps", "vegas", 749921.68, "b/s")
    _sim("001/table3.28/da-da/first_base_rtt1", w28, "base_rtt_s", "vegas", 0.518544, "s")
    _sim("001/table3.28/da-da/first_base_rtt2", w28, "base_rtt_s", "vegas", 0.513211, "s")
    _sim("001/table3.28/da-da/final_base_rtt1", w28, "base_rtt_s", "vegas", 0.021333, "s")
    _sim("001/table3.28/da-da/final_base_rtt2", w28, "base_rtt_s", "vegas", 0.018544, "s")


_quick_vegas_and_asymmetric_tables()
_tcp_ho_and_itcp_tables()
_thesis_few_flows()
_thesis_mixes()
_thesis_delayed_acks()
PUBLISHED = PUBLISHED + tuple(_SIMULATED)


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
