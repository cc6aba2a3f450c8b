"""Closed forms of delay-based TCP, each re-derived in SymPy (:mod:`.derive`).

Slow start and convergence (the Quick Vegas paper, Chan, Lin, Ho 2008; the TCP-Ho paper,
Ho, Chan, Chen 2007), equilibria and fairness, the one-call :func:`predict`, and the
stability of the round map (:mod:`.stability`). What each function answers, with its
equation: docs/analytic.md; where the documents' printed forms differ from their own
derivations: docs/errata.md.
"""

from __future__ import annotations

from .convergence import (
    conspicuous_round,
    conspicuous_round_printed,
    rounds_to_equilibrium,
    tcp_ho_cubic,
    tcp_ho_cubic_root,
    tcp_ho_reach_round,
)
from .equilibrium import (
    BLBEquilibrium,
    TrainEquilibrium,
    blb_equilibrium,
    blb_train_equilibrium,
    jain_index,
    reno_max_window_asymmetric,
    reverse_path_throughput,
    vegas_equilibrium_window,
    vegas_window_band,
)
from .predict import PREDICT_ALGORITHMS, Prediction, predict
from .slow_start import (
    SLOW_START_ALGORITHMS,
    SLOW_START_RULES,
    SlowStartExit,
    critical_window,
    slow_start_exit,
    slow_start_windows,
)
from .stability import (
    STABILITY_ALGORITHMS,
    EmptyQueueCycle,
    StabilityVerdict,
    critical_gain,
    decrease_undershoot,
    empty_queue_cycle,
    plot_stability,
    round_map_stability,
    spectral_radius,
)

__all__ = [
    "PREDICT_ALGORITHMS",
    "SLOW_START_ALGORITHMS",
    "SLOW_START_RULES",
    "STABILITY_ALGORITHMS",
    "BLBEquilibrium",
    "EmptyQueueCycle",
    "Prediction",
    "SlowStartExit",
    "StabilityVerdict",
    "TrainEquilibrium",
    "blb_equilibrium",
    "blb_train_equilibrium",
    "conspicuous_round",
    "conspicuous_round_printed",
    "critical_gain",
    "critical_window",
    "decrease_undershoot",
    "empty_queue_cycle",
    "jain_index",
    "plot_stability",
    "predict",
    "reno_max_window_asymmetric",
    "reverse_path_throughput",
    "round_map_stability",
    "rounds_to_equilibrium",
    "slow_start_exit",
    "slow_start_windows",
    "spectral_radius",
    "tcp_ho_cubic",
    "tcp_ho_cubic_root",
    "tcp_ho_reach_round",
    "vegas_equilibrium_window",
    "vegas_window_band",
]
