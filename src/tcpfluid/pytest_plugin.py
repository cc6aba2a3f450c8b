"""pytest plugin of tcpfluid: fixtures for analysts' checks of one layer against another.

Installed with the package (entry point ``pytest11``): the fixtures ``tcpfluid`` (a
:class:`Checks`) and ``tcpfluid_cache``, the options ``--tcpfluid-engines`` and
``--tcpfluid-quick`` (docs/testing.md). Importing it loads only pytest and the standard
library: pytest loads it in every session of every project that has tcpfluid installed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import pytest

from .testing import CLOSED_FORM as _CLOSED_FORM
from .testing import ENGINES as _ENGINES

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from .scenarios import Scenario
    from .testing import Predicted, RunCache
    from .testing import Tolerance as _Tolerance

__all__ = ["Checks"]

_SLOW = "tcpfluid_slow"


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--tcpfluid-engines`` and ``--tcpfluid-quick``."""
    group = parser.getgroup("tcpfluid", "tcpfluid layer checks")
    group.addoption(
        "--tcpfluid-engines",
        default=",".join(_ENGINES),
        metavar="LIST",
        help="engines tcpfluid checks may run, comma-separated (default rounds,ode,packet); "
        "checks needing another engine are skipped",
    )
    group.addoption(
        "--tcpfluid-quick",
        action="store_true",
        default=False,
        help=f"skip the checks marked {_SLOW} (slow packet-level runs)",
    )


def _engines_option(config: pytest.Config) -> tuple[str, ...]:
    from .engines import _check_engine  # (loads no heavy library either)

    raw = str(config.getoption("--tcpfluid-engines"))
    names = tuple(x.strip() for x in raw.split(",") if x.strip())
    try:
        for name in names or (raw,):
            _check_engine(name, _ENGINES, "--tcpfluid-engines")
    except ValueError as exc:
        raise pytest.UsageError(f"{exc} (comma-separated)") from None
    return names


def pytest_configure(config: pytest.Config) -> None:
    """Register the marker and check ``--tcpfluid-engines``."""
    config.addinivalue_line(
        "markers",
        f"{_SLOW}: a slow packet-level tcpfluid check (skipped with --tcpfluid-quick)",
    )
    _engines_option(config)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip ``tcpfluid_slow`` checks under ``--tcpfluid-quick``."""
    if not config.getoption("--tcpfluid-quick"):
        return
    skip = pytest.mark.skip(reason=f"{_SLOW} check skipped by --tcpfluid-quick")
    for item in items:
        if item.get_closest_marker(_SLOW) is not None:
            item.add_marker(skip)


class Checks:
    """The ``tcpfluid`` fixture: :mod:`tcpfluid.testing` bound to the session's cache
    (``cache``), the engines ``--tcpfluid-engines`` allows (``engines``) and whether
    ``--tcpfluid-quick`` was given (``quick``)."""

    def __init__(self, cache: RunCache, engines: tuple[str, ...], quick: bool) -> None:
        self.cache, self.engines, self.quick = cache, engines, quick

    @property
    def Tolerance(self) -> type[_Tolerance]:  # the class itself, for convenience
        """:class:`tcpfluid.testing.Tolerance`."""
        from .testing import Tolerance

        return Tolerance

    def _need(self, layers: Iterable[str] | str, *more: str) -> list[str]:
        """``layers`` as a list; skip the test if it or ``more`` needs an engine not allowed."""
        eng = [layers] if isinstance(layers, str) else list(layers)
        missing = [x for x in (*more, *eng) if x != _CLOSED_FORM and x not in self.engines]
        if missing:
            pytest.skip(
                f"needs engine(s) {', '.join(missing)}, not in --tcpfluid-engines="
                f"{','.join(self.engines)}"
            )
        return eng

    def scenario(self, name: str, *, algorithm: str | None = None, **sets: Any) -> Scenario:
        """A registered scenario with parameters overridden (and every flow's law)."""
        from .testing._layers import _scenario

        return _scenario(name, algorithm, sets)

    def run(self, scenario: Scenario, engine: str = "rounds", **options: Any) -> Any:
        """The engine's result for ``scenario``, computed once per session."""
        self._need(engine)
        return self.cache.run(scenario, engine, **options)

    def compare(
        self,
        scenario: Scenario | str,
        engines: Iterable[str] | str = ("rounds",),
        quantities: Iterable[str] | str | None = None,
        *,
        reference: str = "packet",
        **kwargs: Any,
    ) -> pd.DataFrame:
        """:func:`tcpfluid.testing.compare` with the session cache."""
        from .testing import compare

        eng = self._need(engines, reference)
        return compare(scenario, eng, quantities, reference=reference, cache=self.cache, **kwargs)

    def assert_layers_agree(
        self,
        scenario: Scenario | str,
        quantities: Iterable[str] | str | None = None,
        engines: Iterable[str] | str = ("rounds",),
        tolerance: _Tolerance | Mapping[str, _Tolerance] | None = None,
        *,
        reference: str = "packet",
        **kwargs: Any,
    ) -> list[dict[str, Any]]:
        """:func:`tcpfluid.testing.assert_layers_agree` with the session cache."""
        from .testing import assert_layers_agree

        eng = self._need(engines, reference)
        __tracebackhide__ = True
        return assert_layers_agree(
            scenario, quantities, eng, tolerance, reference=reference, cache=self.cache, **kwargs
        )

    def assert_matches_closed_form(
        self,
        scenario: Scenario | str,
        quantities: Iterable[str] | str | None = ("ss_exit_window", "settled_window"),
        engines: Iterable[str] | str = ("packet",),
        tolerance: _Tolerance | Mapping[str, _Tolerance] | None = None,
        **kwargs: Any,
    ) -> list[dict[str, Any]]:
        """:func:`tcpfluid.testing.assert_matches_closed_form` with the session cache."""
        from .testing import assert_matches_closed_form

        eng = self._need(engines)
        __tracebackhide__ = True
        return assert_matches_closed_form(
            scenario, quantities, eng, tolerance, cache=self.cache, **kwargs
        )

    def predict(self, scenario: Scenario | str, **kwargs: Any) -> list[Predicted]:
        """:func:`tcpfluid.testing.predict_scenario` with the session cache."""
        from .testing import predict_scenario

        return predict_scenario(scenario, cache=self.cache, **kwargs)


@pytest.fixture(scope="session")
def tcpfluid_cache() -> RunCache:
    """One :class:`tcpfluid.testing.RunCache` for the whole test session."""
    from .testing import RunCache

    return RunCache()


@pytest.fixture
def tcpfluid(request: pytest.FixtureRequest, tcpfluid_cache: RunCache) -> Checks:
    """:mod:`tcpfluid.testing` bound to the session's cache and command-line options."""
    config = request.config
    return Checks(
        tcpfluid_cache, _engines_option(config), bool(config.getoption("--tcpfluid-quick"))
    )
