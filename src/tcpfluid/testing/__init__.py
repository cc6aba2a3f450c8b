"""Checks of one layer of tcpfluid against another, for analysts' own test suites.

tcpfluid describes a scenario with four layers: the closed forms (:mod:`tcpfluid.analytic`),
the round model (engine ``"rounds"``), the ODE model (``"ode"``) and the packet simulator
(``"packet"``). This module compares them on one scenario and asserts that they agree:

* :func:`compare` returns a tidy table (a :class:`pandas.DataFrame`, one row per quantity,
  flow, bandwidth change and layer) with each layer's value, the reference layer's value and
  the relative error;
* :func:`assert_layers_agree` checks engines against a reference engine (the packet
  simulator by default) and :func:`assert_matches_closed_form` checks engines against the
  closed forms; on failure they raise :class:`LayersDisagree`, whose message names the
  layer that is off and prints the table;
* :class:`Tolerance` is how far a value may be from the reference, with the reason for
  that tolerance (the validation report uses the same class);
* :func:`predict_scenario` gives, per flow, the slow-start exit, the settled window and the
  times to equilibrium and to convergence after each bandwidth change, from the closed
  forms where they apply and the round model otherwise (``tcpfluid predict SCENARIO``).

Quantities are the public summary keys of ``tcpfluid simulate --json`` (:data:`QUANTITIES`):
per flow ``ss_exit_window``, ``ss_exit_time_s``, ``settled_window``,
``time_to_equilibrium_s``, ``convergence_times_s`` (one row per bandwidth change) and
``throughput_pps``; for the whole scenario ``utilization`` and ``jain_index`` (flow
``"all"``).

Example
-------
>>> from tcpfluid.testing import Tolerance, assert_matches_closed_form
>>> assert_matches_closed_form(  # doctest: +SKIP
...     "qv-basic", algorithm="vegas", sets={"cbr": "none", "duration": "80s"},
...     engines=("rounds",), quantities=("settled_window",),
...     tolerance=Tolerance(rel=0.01, reason="Vegas settles at the band's lower edge"),
... )

Importing this module is cheap (standard library only); engines, SciPy and pandas are
imported when a comparison runs. The pytest plugin :mod:`tcpfluid.pytest_plugin` wraps these
functions in fixtures that share one run of each engine per test session.
"""

from __future__ import annotations

from ._assert import LayersDisagree, assert_layers_agree, assert_matches_closed_form
from ._cache import RunCache
from ._cache import _scenario as _scenario  # the pytest plugin builds scenarios with it
from ._compare import compare, format_table
from ._layers import (
    AGGREGATE,
    CLOSED_FORM,
    ENGINES,
    LAYER_LABELS,
    LAYERS,
    PREDICTED,
    QUANTITIES,
)
from ._layers import (
    ALL_FLOWS as ALL_FLOWS,
)
from ._predict import Predicted, predict_scenario
from ._tolerance import Tolerance

__all__ = [
    "AGGREGATE",
    "CLOSED_FORM",
    "ENGINES",
    "LAYERS",
    "LAYER_LABELS",
    "PREDICTED",
    "QUANTITIES",
    "LayersDisagree",
    "Predicted",
    "RunCache",
    "Tolerance",
    "assert_layers_agree",
    "assert_matches_closed_form",
    "compare",
    "format_table",
    "predict_scenario",
]
