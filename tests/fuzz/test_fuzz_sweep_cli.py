"""Fuzzing the sweep configuration loader and the command-line parsers.

``Sweep.from_dict`` gets hostile configurations (unknown keys, wrong types, empty or
repeated values); ``tcpfluid predict`` and ``tcpfluid simulate`` get hostile option values.
Every outcome is a result or a ValueError/TypeError naming the key (loader), or an exit
status 0/2 with at most one line on stderr and no traceback (command).
"""

from __future__ import annotations

import contextlib
import io
from typing import Any

from _fuzz_budget import ANYTHING, FUZZ, NUMBERS, TEXTS, call_checked
from hypothesis import given
from hypothesis import strategies as st

from tcpfluid.cli import main
from tcpfluid.sweep import CONFIG_KEYS, Sweep

KEYS = st.sampled_from([*CONFIG_KEYS, "jobs", "bandwith", ""])
GRID_KEYS = st.sampled_from(["bandwidth", "rtt", "buffer", "duration", "alpha", "nope"])
CONFIG = st.fixed_dictionaries(
    {
        "engine": st.sampled_from(["closed-form", "rounds", "warp", 3]),
        "algorithm": st.one_of(
            st.sampled_from(["vegas", "quick-vegas", "nope"]),
            st.lists(st.sampled_from(["vegas", "reno", "vegas"]), max_size=3),
        ),
        "metrics": st.one_of(
            st.lists(st.sampled_from(["ss_exit_window", "nope", "utilization"]), max_size=3),
            st.sampled_from(["ss_exit_window", 7]),
        ),
    },
    optional={
        "grid": st.dictionaries(GRID_KEYS, st.one_of(ANYTHING, st.lists(TEXTS, max_size=3))),
        "rtt_model": st.sampled_from(["average", "fluid", "psychic"]),
        "points": st.lists(st.dictionaries(GRID_KEYS, ANYTHING, max_size=2), max_size=2),
        "options": st.one_of(
            ANYTHING,
            st.dictionaries(
                st.sampled_from(["feedback_rounds", "drop_share", "seed", "rtt_model", "nope"]),
                ANYTHING,
                max_size=2,
            ),
        ),
    },
)


@FUZZ
@given(config=CONFIG, extra=st.dictionaries(KEYS, ANYTHING, max_size=1))
def test_sweep_config_loader(config: dict[str, Any], extra: dict[str, Any]) -> None:
    cfg = {**config, **extra}
    names = [*cfg, "points", "grid", "metrics", "algorithm", "config", "options"]
    for table in ("grid", "options"):  # the keys of a table, which a message may name
        if isinstance(cfg.get(table), dict):
            names += list(cfg[table])
    if isinstance(cfg.get("points"), list):
        names += [k for p in cfg["points"] if isinstance(p, dict) for k in p]
    call_checked(Sweep.from_dict, names, cfg)


def _cli(argv: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = main(argv)
    return status, err.getvalue()


def _assert_message(status: int, err: str) -> None:
    assert status in (0, 2), (status, err)
    assert "Traceback" not in err
    if status == 2:
        assert len(err.strip().splitlines()) == 1, err


OPTION_VALUES = st.one_of(TEXTS, NUMBERS.map(repr))


@FUZZ
@given(
    option=st.sampled_from(
        ["--bandwidth", "--rtt", "--bdp", "--gamma", "--alpha", "--beta", "--packet-size"]
    ),
    value=OPTION_VALUES,
)
def test_predict_parser(option: str, value: str) -> None:
    base = {"--bandwidth": "50Mbps", "--rtt": "100ms"}
    base[option] = value
    if option == "--bdp":
        base.pop("--bandwidth")
    argv = ["predict", "-a", "vegas"]
    for k, v in base.items():
        argv += [k, v]
    try:
        status, err = _cli(argv)
    except SystemExit as exc:  # argparse: a value its type= refuses (exit 2, usage line)
        assert exc.code == 2
        return
    _assert_message(status, err)
    if status == 2:
        names = [option, option.lstrip("-").replace("-", "_")]
        if option in ("--bandwidth", "--rtt", "--bdp"):
            names += ["bdp", "μd", "mu"]  # the path they describe
        assert any(n in err for n in names), err


@FUZZ
@given(
    key=st.sampled_from(
        ["bandwidth", "rtt", "buffer", "duration", "cbr", "alpha", "flows", "nope", ""]
    ),
    value=OPTION_VALUES,
)
def test_simulate_set_parser(key: str, value: str) -> None:
    sets = {"duration": "0.3s", "bandwidth": "1Mbps", "rtt": "20ms", "cbr": "none"}
    sets.pop(key, None)
    argv = ["simulate", "qv-basic", "-a", "vegas"]
    for k, v in [*sets.items(), (key, value)]:
        argv += ["--set", f"{k}={v}"]
    status, err = _cli(argv)
    assert status in (0, 1, 2), (status, err)
    assert "Traceback" not in err
    if status != 0:
        assert len(err.strip().splitlines()) == 1, err
