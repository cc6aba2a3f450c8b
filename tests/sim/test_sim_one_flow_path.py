"""The packet simulator's one-flow decision on Python floats.

Vegas, Quick Vegas, FAST and Reno hand the simulator a path that takes a flow's sample as
three floats and returns the action as floats (no :class:`RoundSample` or
:class:`RoundAction` arrays). It must be exactly the law's ``on_round``: the reference
here is the array path of ``on_round`` (two flows in one call), state and action compared
bit for bit over many rounds; a class that changes the decision, or parameters given per
flow, get no such path.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

from tcpfluid.algorithms import Fast, QuickVegas, Reno, Vegas
from tcpfluid.algorithms.base import RoundAction, RoundSample
from tcpfluid.algorithms.enhanced_vegas import EnhancedVegas
from tcpfluid.algorithms.quick_vegas import SAMPLINGS

LAWS = [
    Vegas(),
    Vegas(alpha=1.0, beta=3.0, gamma=2.0),
    EnhancedVegas(),
    Fast(),
    Fast(alpha=20.0, gamma=0.5),
    Reno(),
] + [
    QuickVegas(sampling=s)  # type: ignore[arg-type]
    for s in SAMPLINGS
]


def _sample(w: float, base: float, rtt: float, n: int) -> RoundSample:
    a = np.full(n, 1.0)
    return RoundSample(
        cwnd=np.full(n, w), base_rtt=np.full(n, base), rtt_mean=np.full(n, rtt),
        rtt_min=np.full(n, rtt), rtt_max=np.full(n, rtt), acks=a,
    )  # fmt: skip


@pytest.mark.parametrize("law", LAWS, ids=repr)
def test_one_flow_floats_equal_the_array_path_over_many_rounds(law: Any) -> None:
    path = law._one_flow_path()
    assert path is not None
    rng = np.random.default_rng(7)
    one = law.init_state(1)
    two = law.init_state(2)  # the array path: both flows see the same samples
    if "ssthresh" in one:  # a finite ssthresh: slow start also ends there
        one["ssthresh"][:] = 30.0
        two["ssthresh"][:] = 30.0
    w = 2.0
    base = 0.1
    for r in range(400):
        # queueing delays from none to a large backlog, and some exact band edges
        q = float(rng.choice([0.0, 0.001, 0.01, 0.05, 0.2])) * float(rng.random())
        rtt = base + q if r % 7 else base * w / (w - 3.0) if w > 3.0 else base
        got = path(one, w, base, rtt)
        ref = law.on_round(two, _sample(w, base, rtt, 2))
        assert isinstance(ref, RoundAction) and got is not None
        for x, y in zip(got, (ref.cwnd, ref.incr, ref.cap), strict=True):
            assert x == float(y[0]) and x == float(y[1])
        for key in two:
            np.testing.assert_array_equal(one[key], two[key][:1], err_msg=key)
        w = max(1.0, got[0] + float(rng.integers(0, 3)) * got[1] * w)


@pytest.mark.parametrize("law", [Vegas(), QuickVegas(), Fast()], ids=repr)
def test_no_float_path_where_on_round_takes_the_array_path(law: Any) -> None:
    # an RTT of 0 gives inf or nan on arrays: the float path declines
    assert law._one_flow_path()(law.init_state(1), 4.0, 0.1, 0.0) is None


def test_reno_float_path_declines_a_nan_ssthresh() -> None:
    state = Reno().init_state(1)
    state["ssthresh"][0] = np.nan
    assert Reno()._one_flow_path()(state, 4.0, 0.1, 0.2) is None


def test_no_float_path_for_changed_decisions_or_per_flow_parameters() -> None:
    class Louder(Vegas):
        def on_round(self, state: Any, sample: RoundSample) -> RoundAction:
            return super().on_round(state, sample)

    class Other(QuickVegas):
        def _decide_floats(self, state: Any, cwnd: float, delta: float) -> Any:
            return super()._decide_floats(state, cwnd, delta)

    class Slower(Reno):
        def on_round(self, state: Any, sample: RoundSample) -> RoundAction:
            return super().on_round(state, sample)

    assert Louder()._one_flow_path() is None
    assert Other()._one_flow_path() is None
    assert Slower()._one_flow_path() is None
    for cls, kw in itertools.product((Vegas, QuickVegas, Fast), ({"alpha": [1.0, 2.0]},)):
        assert cls(**kw)._one_flow_path() is None
