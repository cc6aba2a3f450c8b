"""The round model on the documents' §5.1 scenario (50 Mb/s x 100 ms, 25 Mb/s CBR 80-160 s).

Document values come from :mod:`tcpfluid.published` (document 000 §3.2.1 Fig. 1 and
§5.1) or are quoted with their place (document 004 §5.1.2). The tolerances and their
reasons are stated at each assertion. The table of docs/round-model.md is checked against
the model here, so the documentation cannot drift from the code.
"""

from __future__ import annotations

import re
from pathlib import Path as FsPath
from typing import Any

import pytest

from tcpfluid.fluid import RoundTrace, simulate_scenario_rounds
from tcpfluid.published import published
from tcpfluid.scenarios import build_scenario

ALGORITHMS = ("vegas", "quick-vegas", "tcp-ho", "fast")
RTT_MODELS = ("average", "last", "fluid")
DOC = FsPath(__file__).resolve().parents[1] / "docs" / "round-model.md"
# mu d of the §5.1 path by eq (5) of document 000, computed by hand:
# mu = 6250 pkt/s, d = 0.100 + 1.04 * (8000/1e9 + 8000/50e6 + 8000/1e9) s
BDP = 6250 * (0.1 + 1.04 * (2 * 8e-6 + 1.6e-4))


@pytest.fixture(scope="module")
def runs() -> dict[tuple[str, str], RoundTrace]:
    sc = build_scenario("qv-basic")
    return {
        (alg, rtt): simulate_scenario_rounds(sc.with_algorithm(alg), rtt=rtt)  # type: ignore[arg-type]
        for alg in ALGORITHMS
        for rtt in RTT_MODELS
    }


def quantities(tr: RoundTrace) -> dict[str, float | None]:
    """The table's quantities for one run (scenario 0, flow 0)."""
    s = tr.summary.scenario(0)
    t = tr.time_s[:, 0]
    q = tr.queue_pkts[:, 0]  # type: ignore[index]
    conv = s["convergence_times_s"]
    return {
        "ss_exit_window": s["ss_exit_window"],
        "ss_exit_time_s": s["ss_exit_time_s"],
        "settled_window": s["settled_window"],
        "time_to_equilibrium_s": s["time_to_equilibrium_s"],
        "convergence_halved_s": conv[0],
        "convergence_doubled_s": conv[1],
        "queue_at_79s_pkts": float(q[t < 79.9][-1]),
        "max_queue_80_160s_pkts": float(q[(t > 80) & (t < 160)].max()),
        "queue_at_159s_pkts": float(q[t < 159.9][-1]),
    }


# ----------------------------------------------------------------------------- Vegas
def test_vegas_section_5_1_against_the_documents(runs: dict[tuple[str, str], RoundTrace]) -> None:
    for rtt in ("average", "last"):
        v = quantities(runs[("vegas", rtt)])
        # Fig. 1 / §5.1: slow start ends at 64 packets. Exact: both burst variants give a
        # critical window (50.5 average, 35.9 last) between 32 and 64.
        assert v["ss_exit_window"] == published("000/fig1/ss_exit_window").value
        # "near 1.2 s" (doc 004 §5.1.2 says 1.3 s for the same path): the model leaves at
        # the end of round 9, 10 d = 1.0 s. Tolerance 0.25 s = 2.5 rounds: ns-2's first
        # rounds (Table 1 vs Table 3 of doc 004 differ by one round in when doubling starts)
        # and the packet-level slow start are not in a round model.
        assert v["ss_exit_time_s"] == pytest.approx(
            published("000/fig1/ss_exit_time").value, abs=0.25
        )
        # settles at mu d + [alpha, beta] = [628.1, 630.1]; the document reads 630
        assert BDP + 2 - 1e-9 <= v["settled_window"] <= BDP + 4 + 1e-9
        assert v["settled_window"] == pytest.approx(
            published("000/fig1/equilibrium_window").value, abs=2.0
        )
        # 59 s, 47.9 s, 31.8 s within 10 %: the packet-level
        # run adds slow-start burst effects and reads "reached" off a plot; our band (2 %)
        # makes the model's times ~1 s earlier than reaching the exact value.
        assert v["time_to_equilibrium_s"] == pytest.approx(
            published("000/fig1/time_to_equilibrium").value, rel=0.10
        )
        assert v["convergence_halved_s"] == pytest.approx(
            published("000/5.1/vegas/halved").value, rel=0.10
        )
        assert v["convergence_doubled_s"] == pytest.approx(
            published("000/5.1/vegas/doubled").value, rel=0.10
        )
        # maximum queue after the halving: 620 packets in Fig. 7. Fluid: the window of
        # 630 meets a pipe of mu_a d = 313 at once, i.e. (630 - 313) * 2 = 634 link packets;
        # within 3 % (the packet run cuts a few packets before the queue peaks).
        assert v["max_queue_80_160s_pkts"] == pytest.approx(
            published("000/5.1/vegas/max_queue").value, rel=0.03
        )


def test_vegas_convergence_by_hand() -> None:
    # Independent estimate of the halving transient: Vegas removes one packet per round;
    # with the queue built, a round lasts W/mu_a, so from W = 629 to mu_a d + 4 = 317 it
    # takes sum(W)/mu_a = (629 + 317)(629 - 317 + 1)/2/3125 = 47.4 s; the model (2 % band:
    # it stops 2 % = 6 packets early, ~0.6 s) must agree within 1.5 s.
    sc = build_scenario("qv-basic").with_algorithm("vegas")
    conv = simulate_scenario_rounds(sc).summary.convergence_times_s[0, 0, 0]
    w_hi, w_lo = 629, 317
    by_hand = (w_hi + w_lo) * (w_hi - w_lo + 1) / 2 / 3125
    assert conv == pytest.approx(by_hand, abs=1.5)


# ----------------------------------------------------------------------------- FAST
def test_fast_keeps_alpha_packets_queued(runs: dict[tuple[str, str], RoundTrace]) -> None:
    for rtt in RTT_MODELS:
        f = quantities(runs[("fast", rtt)])
        # FAST's fixed point w = (BaseRTT/RTT) w + alpha puts alpha = 100 packets in the
        # queue: w = mu d + 100 (doc 000 §5.1: "FAST maintains 100 packets").
        assert f["settled_window"] == pytest.approx(BDP + 100, abs=0.5)
        fast_queue = published("000/5.1/fast/queue").value
        assert f["queue_at_79s_pkts"] == pytest.approx(fast_queue, abs=0.5)
        # "the bandwidth is halved and the queue length is doubled to 200 packets": the
        # FIFO holds one CBR packet per FAST packet, 2 x 100
        assert f["queue_at_159s_pkts"] == pytest.approx(200.0, abs=1.0)


# ----------------------------------------------------------------------------- ordering
def test_quick_vegas_and_fast_beat_vegas(runs: dict[tuple[str, str], RoundTrace]) -> None:
    # doc 000 §5.1: Quick Vegas and FAST ramp up and converge faster than Vegas
    # (Quick Vegas without the burst term, rtt="fluid", keeps a limit cycle of ±16 packets
    # while the CBR is on: the queue memory slows the queue's answer to its eq.-(3)/(4)
    # steps, so that run never settles after the halving; it is not compared)
    v = quantities(runs[("vegas", "average")])
    for alg in ("quick-vegas", "fast"):
        for rtt in RTT_MODELS if alg == "fast" else ("average", "last"):
            x = quantities(runs[(alg, rtt)])
            for key in ("time_to_equilibrium_s", "convergence_halved_s", "convergence_doubled_s"):
                assert x[key] is not None and v[key] is not None
                assert x[key] < v[key], (alg, rtt, key)


def test_tcp_ho_ramps_up_within_seven_seconds(runs: dict[tuple[str, str], RoundTrace]) -> None:
    # doc 004 §5.1.2: "when a new connection enters the empty link ... TCP-Ho only
    # converges the congestion window size in a short time (less than 7 seconds)"
    for rtt in RTT_MODELS:
        h = quantities(runs[("tcp-ho", rtt)])
        assert h["time_to_equilibrium_s"] is not None and h["time_to_equilibrium_s"] < 7.0


# ----------------------------------------------------------------------------- docs table
_ROW = re.compile(r"^\|\s*`(?P<alg>[a-z-]+)`\s*\|\s*`(?P<key>[a-z_0-9]+)`\s*\|(?P<rest>.*)\|\s*$")


def _cells(rest: str) -> list[str]:
    return [c.strip() for c in rest.split("|")]


def test_docs_table_matches_the_model(runs: dict[tuple[str, str], RoundTrace]) -> None:
    text = DOC.read_text(encoding="utf-8")
    start = text.index("<!-- table:qv-basic:start -->")
    end = text.index("<!-- table:qv-basic:end -->")
    rows = [m for line in text[start:end].splitlines() if (m := _ROW.match(line))]
    assert len(rows) >= 20
    seen: set[tuple[str, str]] = set()
    cache: dict[tuple[str, str], dict[str, Any]] = {}
    for m in rows:
        alg, key = m["alg"], m["key"]
        seen.add((alg, key))
        cells = _cells(m["rest"])  # document, average, last, fluid, note
        for rtt, cell in zip(RTT_MODELS, cells[1:4], strict=True):
            if (alg, rtt) not in cache:
                cache[(alg, rtt)] = quantities(runs[(alg, rtt)])
            value = cache[(alg, rtt)][key]
            if cell == "-":
                assert value is None, (alg, key, rtt)
                continue
            printed = float(cell)
            decimals = len(cell.split(".")[1]) if "." in cell else 0
            assert value is not None, (alg, key, rtt)
            # The table is printed to its last digit, but Quick Vegas's trajectory hinges on
            # exact comparisons (its pseudo-code's Δ == (α + β)/2 branch; it alternates
            # between Δ = 2.5 and 3.5 in the band), so the last bit of a float can shift it by
            # a packet or a round: allow 3 %, or one packet, or 0.1 s.
            unit = 0.1 if key.endswith("_s") else 1.0
            tol = max(0.5 * 10.0**-decimals, 0.03 * abs(printed), unit)
            assert abs(value - printed) <= tol + 1e-9, (alg, key, rtt, value)
    for alg in ALGORITHMS:
        assert (alg, "time_to_equilibrium_s") in seen
