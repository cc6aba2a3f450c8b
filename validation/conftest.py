"""The validation suite: cross-layer experiments and checks against the documents' numbers.

Every test here runs the library's layers against each other or against a document's printed
values over long runs; each is marked ``validation`` (``pytest tests`` is the fast lane,
``pytest validation`` or ``pytest -m validation`` this suite; a plain ``pytest`` runs both).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

_HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if _HERE in Path(item.path).resolve().parents:
            item.add_marker(pytest.mark.validation)


@pytest.fixture(scope="session")
def ns3_script() -> Callable[[str], ModuleType]:
    """Loads ``benchmarks/<name>.py``, a script that measured ns-3's figures, as a module: a
    test runs the script's own scenario (its ``scenario``), so the two cannot drift apart."""

    def load(name: str) -> ModuleType:
        path = _HERE.parent / "benchmarks" / f"{name}.py"
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        script = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(script)
        return script

    return load
