"""A law parameter a law refuses, given to one flow of a scenario with several
algorithms, is refused naming the flow and its algorithm beside the law's own words: in a
scenario file (and ``--set flow.N.params.KEY``), and through ``--param SELECTOR:KEY=VALUE``
(:func:`tcpfluid.scenarios.mix.with_flow_params`)."""

from __future__ import annotations

import re

import pytest

from tcpfluid.scenarios.files import scenario_from_toml
from tcpfluid.scenarios.mix import with_flow_params

MIX = """name = "mix"
duration = "5s"
[[link]]
name = "bottleneck"
rate = "10Mbps"
delay = "10ms"
[[flow]]
name = "va"
algorithm = "vegas"
rtt = "50ms"
params = { alpha = 1, beta = 3 }
[[flow]]
name = "fa"
algorithm = "fast"
rtt = "50ms"
params = { alpha = 20 }
"""


def test_a_files_value_names_the_flow_the_key_and_the_algorithm() -> None:
    with pytest.raises(ValueError) as info:
        scenario_from_toml(MIX, source="mix.toml", **{"flow.2.params.gamma": 1.5})
    msg = str(info.value)
    assert msg.startswith("mix.toml: [[flow]] 2 ('fa'), key 'params.gamma': ")
    assert "gamma must be in (0, 1], got 1.5" in msg and "'fast'" in msg


def test_a_files_parameters_that_do_not_go_together_name_the_flow_and_the_algorithm() -> None:
    with pytest.raises(ValueError) as info:
        scenario_from_toml(MIX, source="mix.toml", **{"flow.1.params.alpha": 5})
    msg = str(info.value)
    assert msg.startswith("mix.toml: [[flow]] 1 ('va'), key 'params': ")
    assert "alpha must be <= beta" in msg and "'vegas'" in msg


@pytest.mark.parametrize(("selector", "params", "words"), [
    ("fa", {"gamma": 1.5}, "flow 'fa' (fast, --param fa): gamma must be in (0, 1], got 1.5"),
    ("vegas", {"alpha": 5}, "flow 'va' (vegas, --param vegas): alpha must be <= beta"),
])  # fmt: skip
def test_a_param_value_names_the_flow_and_the_algorithm(
    selector: str, params: dict[str, float], words: str
) -> None:
    sc = scenario_from_toml(MIX)
    with pytest.raises(ValueError, match="^" + re.escape(words)):
        with_flow_params(sc, selector, params)
