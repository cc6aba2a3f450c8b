"""A batched round-model call takes each scenario's inputs as its run alone does:
:func:`tcpfluid.fluid.rounds.stack_inputs` stacks only what a batch takes per scenario (the
cross traffic's rates, docs/round-model.md) and refuses scenarios that differ otherwise."""

from __future__ import annotations

import numpy as np
import pytest

from tcpfluid.fluid.rounds import batch_key, scenario_inputs, stack_inputs
from tcpfluid.scenarios import build_scenario


def inputs(**sets: object) -> dict[str, object]:
    return scenario_inputs(build_scenario("qv-basic", **{"duration": "200s", **sets}).fluid_view())


def test_cross_traffic_rates_stack_one_per_scenario() -> None:
    a, b = inputs(cbr="5Mbps"), inputs(cbr="10Mbps")
    assert batch_key(a) == batch_key(b)
    both = stack_inputs([a, b])
    # 5 and 10 Mb/s of 1000-byte packets: 625 and 1250 packets/s
    (cross,) = both["cross_traffic"]  # type: ignore[misc]
    np.testing.assert_allclose(cross.rate_pps, [625.0, 1250.0], rtol=1e-12)
    # qv-basic's CBR source runs from 80 s to 160 s (the Quick Vegas paper, §5.2)
    assert (cross.start_s, cross.stop_s) == (80.0, 160.0)
    assert both["flow_spacing_s"] is a["flow_spacing_s"]  # the rest: shared


@pytest.mark.parametrize(
    "other",
    [{"flows": 2}, {"duration": "50s"}, {"access_bandwidth": "100Mbps"}],
)
def test_scenarios_differing_in_more_are_refused(other: dict[str, object]) -> None:
    a, b = inputs(), inputs(**other)
    assert batch_key(a) != batch_key(b)
    with pytest.raises(ValueError, match="differ in more than the cross traffic's rates"):
        stack_inputs([a, b])
