"""Closed forms of delay-based TCP, each re-derived in SymPy (:mod:`.derive`).

Stable public API (equations and tables of the Quick Vegas paper, Chan, Lin, Ho 2008, and
of the TCP-Ho paper, Ho, Chan, Chen 2007):

* :func:`critical_window` - window on leaving slow start (Quick Vegas paper, eqs. 6, 9, 10);
* :func:`rounds_to_equilibrium` - rounds from W to nW (Quick Vegas paper, eqs. 11, 12);
* :func:`conspicuous_round` - round at which a new flow reaches the available
  bandwidth (TCP-Ho paper, eqs. 2-5, corrected; the printed eq. 6 is
  :func:`conspicuous_round_printed`); :func:`tcp_ho_reach_round` - the round TCP-Ho's
  Table-4 window first reaches μd (two or three rounds before its ramp ends);
* :func:`slow_start_windows` - the window of each slow-start round (Quick Vegas
  paper, Table 1; TCP-Ho paper, Tables 3-4);

and equilibria and fairness: :func:`jain_index`, :func:`vegas_equilibrium_window`,
:func:`vegas_window_band`, :func:`reverse_path_throughput`,
:func:`reno_max_window_asymmetric`, :func:`blb_equilibrium`, :func:`blb_train_equilibrium`.
``docs/errata.md`` lists where the documents' printed forms differ from their own
derivations.

Stability of the round map (:mod:`.stability`): :func:`round_map_stability` (will N flows
of a law settle or oscillate at a given feedback lag?), :func:`spectral_radius`,
:func:`critical_gain`, :func:`plot_stability`; :func:`empty_queue_cycle` (after a swing
that drains the queue, does Quick Vegas swing again?), :func:`decrease_undershoot`.
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
