"""The notebooks execute (nbclient) and their figures render (image/png outputs)."""

from __future__ import annotations

import base64
from pathlib import Path

import nbclient
import nbformat
import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_the_six_notebooks_exist() -> None:
    names = [p.name for p in NOTEBOOKS]
    assert len(names) == 6, names


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_executes_and_draws(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    nbclient.NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    pngs = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for out in cell.get("outputs", []):
            assert out.get("output_type") != "error", out
            data = out.get("data", {})
            if "image/png" in data:
                pngs.append(base64.b64decode(data["image/png"]))
    assert pngs, f"{path.name} drew no figure"
    for png in pngs:
        # a real, non-trivial PNG: the magic number and more than an empty canvas's bytes
        assert png.startswith(PNG_MAGIC)
        assert len(png) > 5000
