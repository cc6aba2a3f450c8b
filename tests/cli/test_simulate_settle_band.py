"""``tcpfluid simulate --settle-band``: the summary's settling band from the command line.

The command must give what :func:`tcpfluid.simulate` gives with the same ``settle_band``
(same result through both doors), say in its text output why a flow did not settle, and
show a settled flow's cycle amplitude beside its settled window.
"""

from __future__ import annotations

import inspect
import json
import math
from typing import Any

import pytest

import tcpfluid
from tcpfluid.cli import main
from tcpfluid.scenarios import build_scenario

ARGS = ("qv-basic", "-a", "quick-vegas", "--set", "bandwidth=5Mbps", "--set", "flows=1",
        "--set", "duration=80s", "-q")  # fmt: skip


def _cli(capsys: Any, *extra: str, as_json: bool = True) -> Any:
    assert main(["simulate", *ARGS, *extra, *(["--json"] if as_json else [])]) == 0
    out = capsys.readouterr().out
    return json.loads(out) if as_json else out


def test_the_command_gives_the_apis_summary_for_each_band(capsys: Any) -> None:
    sc = build_scenario("qv-basic", bandwidth="5Mbps", flows=1, duration="80s").with_algorithm(
        "quick-vegas"
    )
    for flag, band in (("0", 0.0), ("inf", math.inf), ("quick-vegas=0,reno=2", None)):
        got = _cli(capsys, "--settle-band", flag)
        api_band = band if band is not None else {"quick-vegas": 0.0, "reno": 2.0}
        flows = tcpfluid.simulate(sc, "rounds", settle_band=api_band).summary.flows
        assert got["not_settled_reasons"] == list(flows.not_settled_reason)
        assert got["settle_band"] == flag  # echoed as given (JSON holds no infinity)
    assert "settle_band" not in _cli(capsys)  # only when given


def test_the_text_says_why_a_flow_did_not_settle_and_shows_a_cycles_amplitude(
    capsys: Any,
) -> None:
    strict = _cli(capsys, "--settle-band", "0", as_json=False)
    assert "S1-D1 did not settle: the tail oscillates" in strict
    default = _cli(capsys, as_json=False)
    amp = _cli(capsys)["cycle_amplitudes_pkts"][0]
    assert amp > 1.0 and f"±{amp:.4g}" in default
    assert "did not settle" not in default


@pytest.mark.parametrize(
    ("flag", "words"),
    [
        ("x", "--settle-band: the band must be a number"),
        ("-1", "--settle-band: settle_band must be >= 0"),
        ("cubic=1", "not an algorithm"),
        ("vegas=", "the band of 'vegas' must be a number"),
        ("=2", "expected ALGO=BAND"),
    ],
)
def test_a_bad_band_is_one_line_naming_the_option(capsys: Any, flag: str, words: str) -> None:
    assert main(["simulate", *ARGS, f"--settle-band={flag}"]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1


def test_an_algorithm_given_twice_is_refused_naming_the_option_and_value(capsys: Any) -> None:
    assert main(["simulate", *ARGS, "--settle-band", "vegas=1,vegas=2"]) == 2
    err = capsys.readouterr().err
    assert "--settle-band" in err and "'vegas' is given twice in 'vegas=1,vegas=2'" in err
    assert "give each algorithm once" in err and err.count("\n") == 1


def test_the_help_states_the_settling_rule_with_the_settling_modules_values(
    capsys: Any,
) -> None:
    """The help's rule quotes the base band and tail :func:`tcpfluid.metrics.settling`
    uses by default (its signature) and each law's own band (the law classes)."""
    from tcpfluid.algorithms.registry import ALGORITHMS, law_class
    from tcpfluid.metrics import settling
    from tcpfluid.metrics._settling import BASE_BAND_PKTS, BASE_BAND_REL, TAIL_FRACTION

    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    defaults = {k: p.default for k, p in inspect.signature(settling).parameters.items()}
    assert (defaults["abs_tol"], defaults["rel_tol"]) == (BASE_BAND_PKTS, BASE_BAND_REL)
    assert defaults["tail_fraction"] == TAIL_FRACTION
    assert f"base band max({BASE_BAND_PKTS:g} packet, {100 * BASE_BAND_REL:g} %)" in text
    assert f"last {100 * TAIL_FRACTION:g} % (the tail)" in text
    bands = ", ".join(f"{a} {law_class(a).cycle_amplitude_pkts:g}" for a in ALGORITHMS)
    assert f"each law's own (packets): {bands}" in text
    assert "vegas 1," in text and "reno 0," in text and "quick-vegas inf," in text
