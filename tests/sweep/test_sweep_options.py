"""A sweep's engine options (``options=``, a config's ``[options]`` table): each point's
metrics are those of :func:`tcpfluid.simulate` with the same options on its scenario, run
alone (an independent route to the round model's batched calls and the worker pool), the
options are in the cache key, and a bad one is refused before any point runs."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tcpfluid
from tcpfluid.scenarios import build_scenario
from tcpfluid.sweep import Sweep, grid, sweep

METRICS = ["ss_exit_window", "time_to_equilibrium_s", "settled_window"]
POINTS = grid(algorithm=["quick-vegas", "vegas"], bandwidth=["10Mbps", "20Mbps"], duration="40s")


def _alone(row, engine: str, **options):
    sc = build_scenario("qv-basic", bandwidth=row.bandwidth, duration=row.duration)
    (flow,) = tcpfluid.simulate(sc.with_algorithm(row.algorithm), engine, **options).summary.flows
    got = [flow.ss_exit_window_pkts, flow.time_to_equilibrium_s, flow.settled_window_pkts]
    return [math.nan if v is None else v for v in got]  # the table's "did not happen"


def test_round_model_options_reach_every_batched_point():
    res = sweep(POINTS, engine="rounds", metrics=METRICS, options={"feedback_rounds": 0})
    default = sweep(POINTS, engine="rounds", metrics=METRICS)
    for _, row in res.table.iterrows():
        np.testing.assert_equal([row[m] for m in METRICS], _alone(row, "rounds", feedback_rounds=0))
    # the switch moves the model (without the feedback lag Vegas settles a packet lower)
    assert not res.table[METRICS].equals(default.table[METRICS])


def test_packet_options_reach_the_workers():
    """Delayed ACKs make Vegas leave slow start at 9 packets here, not 32 (its window grows
    by half a packet per ACK'd packet): the value moves with the option."""
    pts = grid(algorithm="vegas", bandwidth=["10Mbps"], duration="20s", cbr="none")
    res = sweep(pts, engine="packet", metrics=METRICS, options={"delayed_ack": True}, jobs=1)
    (_, row), seed = next(res.table.iterrows()), int(res.table["seed"][0])
    got = [row[m] for m in METRICS]
    np.testing.assert_equal(got, _alone(row, "packet", delayed_ack=True, seed=seed))
    assert got != _alone(row, "packet", seed=seed)


def test_the_options_are_in_the_cache_key(tmp_path):
    pts = grid(algorithm="vegas", bandwidth=["10Mbps", "20Mbps"], duration="20s")
    first = sweep(pts, engine="rounds", metrics=METRICS, cache_dir=tmp_path)
    other = sweep(pts, engine="rounds", metrics=METRICS, cache_dir=tmp_path,
                  options={"feedback_rounds": 0})  # fmt: skip
    again = sweep(pts, engine="rounds", metrics=METRICS, cache_dir=tmp_path)
    assert (first.n_cached, other.n_cached, again.n_cached) == (0, 0, 2)


def test_a_config_table_of_options(tmp_path):
    cfg = tmp_path / "s.toml"
    cfg.write_text(
        'engine = "rounds"\nalgorithm = "vegas"\nmetrics = ["settled_window"]\n'
        '[options]\nfeedback_rounds = 0\n[grid]\nbandwidth = ["10Mbps"]\nduration = "20s"\n'
    )
    sw = Sweep.from_toml(cfg)
    assert sw.options == {"feedback_rounds": 0}


@pytest.mark.parametrize(
    ("engine", "options", "error", "message"),
    [
        ("rounds", {"nosuch": 1}, TypeError, "unknown option 'nosuch' for the rounds engine"),
        ("rounds", {"feedback_rounds": 9}, ValueError, r"feedback_rounds must be in \[0, 8\]"),
        ("closed-form", {"rtt_model": "last"}, ValueError, "give it as rtt_model"),
        ("closed-form", {"whole_acks": True}, ValueError, "the closed forms take no engine"),
        ("packet", {"seed": 3}, ValueError, "each point's seed is its own"),
        ("packet", ["delayed_ack"], TypeError, "options must be a table"),
    ],
)
def test_a_bad_option_is_refused_before_any_point_runs(engine, options, error, message):
    with pytest.raises(error, match=message):
        Sweep(POINTS, engine=engine, metrics=["ss_exit_window"], options=options)
