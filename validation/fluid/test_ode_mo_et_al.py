"""Mo et al.'s comparison of Vegas and Reno on two paths of different delays, run on the
ODE fluid model (tcpfluid.fluid.ode) and checked against β/α by hand and against the
fixed point of tcpfluid.fluid.equilibrium (another route: root finding), over several
long runs, so the validation suite's."""

from __future__ import annotations

import itertools

import pytest

from tcpfluid import Path
from tcpfluid.fluid.equilibrium import reno_equilibrium
from tcpfluid.fluid.ode import OdeFlow, RedQueue, simulate_ode

C = 1.5e6 / 8000.0  # the thesis's 1.5 Mb/s bottleneck in 1000-byte packets/s = 187.5
D1 = 0.013211  # thesis Table 3.1: minimum RTT of the short connection, s


# --------------------------------------------------------------------------- Mo et al.
def _ratio(law: str, d2: float, **kw: object) -> float:
    path = Path(C, D1, buffer=100)
    if law == "reno":
        flows = [OdeFlow("reno", D1), OdeFlow("reno", d2)]
        r = simulate_ode(flows, path, t_end_s=300, measure_from_s=200, red=RedQueue())
    else:
        flows = [OdeFlow("vegas", D1, **kw), OdeFlow("vegas", d2, **kw)]  # type: ignore[arg-type]
        r = simulate_ode(flows, path, t_end_s=100, measure_from_s=60, red=RedQueue())
    assert r.success, r.message
    thr = r.summary.throughput_pps
    return thr[0] / thr[1]


def test_mo_et_al_vegas_ratio_bounded_reno_ratio_grows() -> None:
    gaps = [0.03, 0.1, 0.3, 0.6]  # long flow's propagation RTT, s; short flow 13.2 ms
    vegas = [_ratio("vegas", d2, alpha_pkts=1, beta_pkts=3) for d2 in gaps]
    reno = [_ratio("reno", d2) for d2 in gaps]
    # Vegas: bounded by β/α = 3 whatever the gap (both flows keep 1..3 packets queued)
    assert all(1 / 3 - 1e-6 <= v <= 3 + 1e-6 for v in vegas)
    # Reno: equal windows sqrt(2/p) -> ratio = RTT_2/RTT_1, growing with the gap
    assert all(b > a for a, b in itertools.pairwise(reno))
    # ... and passes Vegas's bound β/α = 3 at the largest gap, where Vegas stays below it
    assert reno[-1] > 3.0 + 1e-6 and reno[-1] > max(vegas)
    # and it is the RTT ratio of the fixed point (an independent root-finding route)
    for d2, ratio in zip(gaps, reno, strict=True):
        eq = reno_equilibrium([D1, d2], C, buffer_pkts=100, red=RedQueue())
        assert ratio == pytest.approx(eq.rtt_s[1] / eq.rtt_s[0], rel=1e-2)
