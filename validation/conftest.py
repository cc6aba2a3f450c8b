"""The validation suite: cross-layer experiments and checks against the documents' numbers.

Every test here runs the library's layers against each other or against a document's printed
values over long runs; each is marked ``validation`` (``pytest tests`` is the fast lane,
``pytest validation`` or ``pytest -m validation`` this suite; a plain ``pytest`` runs both).
"""

from __future__ import annotations

from pathlib import Path

import pytest

_HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if _HERE in Path(item.path).resolve().parents:
            item.add_marker(pytest.mark.validation)
