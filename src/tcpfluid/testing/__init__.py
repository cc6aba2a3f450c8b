"""Checks of one layer of tcpfluid against another, for analysts' own test suites.

:func:`compare` (a tidy table of each layer's values beside a reference layer's),
:func:`assert_layers_agree` and :func:`assert_matches_closed_form` (raising
:class:`LayersDisagree`, which names the layer that is off), :class:`Tolerance` and
:func:`predict_scenario`; the quantities are the public summary keys of ``tcpfluid simulate
--json`` (:data:`QUANTITIES`). docs/testing.md describes them and the pytest plugin
(:mod:`tcpfluid.pytest_plugin`). Importing this module is cheap (standard library only).
"""

from __future__ import annotations

from ._compare import (
    AGGREGATE,
    CLOSED_FORM,
    ENGINES,
    LAYER_LABELS,
    LAYERS,
    PREDICTED,
    QUANTITIES,
    LayersDisagree,
    Predicted,
    RunCache,
    Tolerance,
    assert_layers_agree,
    assert_matches_closed_form,
    compare,
    format_table,
    predict_scenario,
)

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
