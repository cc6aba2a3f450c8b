"""The packet simulator's one-flow decision on Python floats.

Vegas, Quick Vegas, FAST and Reno hand the simulator a path that takes a flow's sample as
three floats and returns the action as floats (no :class:`RoundSample` or
:class:`RoundAction` arrays). It must be exactly the law's ``on_round``: the reference
here is the array path of ``on_round`` (two flows in one call), state and action compared
bit for bit over many rounds; a class that changes the decision, or parameters given per
flow, get no such path. FAST's loss reaction has such a path too (its many-flow runs take
about as many loss decisions as round decisions), compared with ``on_loss`` the same way.
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

    class Quieter(QuickVegas):  # Quick Vegas's own float path mirrors its on_round
        def on_round(self, state: Any, sample: RoundSample) -> RoundAction:
            return super().on_round(state, sample)

    assert Louder()._one_flow_path() is None
    assert Quieter()._one_flow_path() is None
    assert QuickVegas()._one_flow_path() is not None
    assert Other()._one_flow_path() is None
    assert Slower()._one_flow_path() is None
    for cls, kw in itertools.product((Vegas, QuickVegas, Fast), ({"alpha": [1.0, 2.0]},)):
        assert cls(**kw)._one_flow_path() is None


@pytest.mark.parametrize("lost_retransmit", ["keep", "halve"])
def test_fast_one_flow_loss_on_floats_equals_on_loss(lost_retransmit: str) -> None:
    # every loss kind (the ACK-path kinds 4 and 5 included), windows on both sides of the
    # floor of 2 packets, each flow of a three-flow state: the same window bit for bit and
    # the same state as on_loss on arrays
    law = Fast(lost_retransmit=lost_retransmit)  # type: ignore[arg-type]
    floats = law._one_flow_loss()
    assert floats is not None
    windows = [1.0, 2.0, 3.0, 3.999, 4.0, 4.000001, 7.3, 1234.5678, 1e6 / 3.0]
    for kind, w, pos in itertools.product((1, 2, 3, 4, 5), windows, (0, 1, 2)):
        ref_state = law.init_state(3)
        ref_state["phase"][:] = [0.0, 1.0, 0.0]
        got_state = {k: v.copy() for k, v in ref_state.items()}
        ref = law.on_loss(ref_state, np.array([pos]), kind, np.array([w]))
        got = floats(got_state, pos, kind, w)
        assert type(got) is float
        assert np.array_equal(np.array([got]), ref), (kind, w, pos)
        for key in ref_state:
            assert np.array_equal(got_state[key], ref_state[key]), (key, kind, w, pos)
    with pytest.raises(ValueError, match="kind"):
        floats(law.init_state(1), 0, 6, 10.0)


def test_no_float_loss_path_for_a_changed_loss_reaction() -> None:
    class Gentler(Fast):
        def on_loss(self, state: Any, index: Any, kind: int, cwnd: Any) -> Any:
            return np.maximum(np.asarray(cwnd) * 0.75, 2.0)

    assert Gentler()._one_flow_loss() is None
    assert Fast()._one_flow_loss() is not None


def test_fast_run_with_the_float_loss_path_is_the_run_with_on_loss(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from _simkit import assert_same_run, joining_groups

    from tcpfluid.sim import simulate_packets

    sc = joining_groups("fast")
    fast_path = simulate_packets(sc)
    assert sum(f.loss_t_s.size for f in fast_path.flows) > 0
    monkeypatch.setattr(Fast, "_one_flow_loss", lambda self: None)
    arrays = simulate_packets(sc)
    assert_same_run(fast_path, arrays)
