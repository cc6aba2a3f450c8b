"""Vegas's first window: the analyses start at 2 packets, ns-2's TCP agents at 1.

The TCP-Ho paper's §4.3 gives, for a new Vegas flow on an empty path (d = 0.1 s), the time
to reach the available bandwidth by its eq. (2) (Table 3 starts at W = 2) and by ns-2:
1.3 / 20.7 / 58.1 s against 1.5 / 20.9 / 58.4 s at μd = 18.75 / 250 / 625 packets. ns-2's
TCP agents start with ``windowInit_ = 1``; a Vegas slow start doubles every other round, so
starting at 1 costs two rounds (0.2 s). The packet simulator shows both: the analysis's
value from 2 packets, the ns-2 value from 1.
"""

from __future__ import annotations

import numpy as np
import pytest

from tcpfluid import simulate
from tcpfluid.algorithms import get_law
from tcpfluid.analytic import conspicuous_round
from tcpfluid.published import published
from tcpfluid.scenarios import build_scenario

D_S = 0.1
PACKET_BITS = 8000.0


def _scenario(bdp: float, initial_window: float):
    """qv-basic without CBR on a path whose base RTT (eq. 5 of the Quick Vegas paper) is
    exactly 0.1 s and whose μd is ``bdp`` packets."""
    over = {
        "cbr": "none",
        "bandwidth": f"{float(bdp / D_S * PACKET_BITS)!r}bps",
        "rtt": D_S,
        "duration": f"{1.3 * float(conspicuous_round('vegas', bdp)) * D_S + 3.0:.1f}s",
    }
    d = build_scenario("qv-basic", **over).fluid_view().path.d
    over["rtt"] = D_S - (d - D_S)
    params = {} if initial_window == 2.0 else {"initial_window": initial_window}
    return build_scenario("qv-basic", **over).with_algorithm("vegas", **params)


def _time_to_reach(engine: str, bdp: float, initial_window: float) -> float:
    """End of the first round whose window reaches μd (each engine's own round trace)."""
    res = simulate(_scenario(bdp, initial_window), engine)
    if engine == "rounds":  # one sample per round, at the round's end
        w = np.asarray(res.window_pkts)[0]
        return float(np.asarray(res.time_s)[int(np.flatnonzero(w >= bdp - 1e-9)[0])])
    f = res.native.flows[0]
    t, w = np.asarray(f.round_t_s), np.asarray(f.round_cwnd_pkts)
    return float(t[int(np.flatnonzero(w >= bdp - 1e-9)[0])])


@pytest.mark.parametrize(("example", "bdp"), [(1, 18.75), (2, 250.0), (3, 625.0)])
def test_packet_vegas_from_one_packet_reaches_the_bandwidth_when_ns2_does(example, bdp):
    # the paper prints ns-2's time to 0.1 s; a round boundary lies within half a round of it
    doc = float(published(f"004/ex{example}/vegas/simulation").value)
    assert _time_to_reach("packet", bdp, 1.0) == pytest.approx(doc, abs=0.05)


@pytest.mark.parametrize("bdp", [18.75, 250.0])
def test_one_packet_start_costs_vegas_two_rounds_in_every_engine(bdp):
    # a slow start that doubles every other round (Table 3) needs two more rounds from W = 1
    # than from W = 2; the rest of the ramp is the same
    for engine in ("packet", "rounds"):
        shift = _time_to_reach(engine, bdp, 1.0) - _time_to_reach(engine, bdp, 2.0)
        assert shift == pytest.approx(2 * D_S, abs=0.01), engine


def test_from_two_packets_the_engines_meet_eq_2_at_example_1():
    k = float(conspicuous_round("vegas", 18.75))  # eq. (2), Table 3 from W = 2
    for engine in ("packet", "rounds"):
        assert _time_to_reach(engine, 18.75, 2.0) == pytest.approx(k * D_S, abs=0.05), engine


def test_the_initial_window_is_a_parameter_and_bad_values_are_refused():
    assert get_law("vegas", initial_window=1).params()["initial_window"] == 1.0
    assert get_law("vegas").params()["initial_window"] == 2.0
    with pytest.raises(ValueError, match=r"initial_window must be in \[1.0, inf\), got 0.5"):
        get_law("vegas", initial_window=0.5)
    with pytest.raises(ValueError, match="initial_window must be finite"):
        get_law("vegas", initial_window=float("nan"))
    with pytest.raises(TypeError, match="initial_window must be a real number"):
        get_law("vegas", initial_window="1")
