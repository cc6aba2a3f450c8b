"""A damaged file of tcpfluid's compiled-kernel cache (any of its compiled modules, in any
of the places Numba may cache them) is removed and rebuilt with a warning naming it; other
packages' Numba caches are left to Numba."""

from __future__ import annotations

import logging
import os
import pickle
from pathlib import Path

import numba
import numpy
import pytest
from numba.core.caching import IndexDataCacheFile, _CacheLocator

import tcpfluid
from tcpfluid import _numba_cache

PACKAGE = Path(tcpfluid.__file__).parent
#: every module of the package that compiles with ``cache=True``
COMPILED = [
    PACKAGE / "sim" / "_core.py",
    PACKAGE / "fluid" / "_hybrid_kernel.py",
    PACKAGE / "_queueing_kernel.py",
    PACKAGE / "algorithms" / "vegas.py",
    PACKAGE / "fluid" / "_rounds_physics.py",
]


@pytest.fixture(autouse=True)
def _guarded() -> None:
    _numba_cache.configure()  # what each compiled module does before its first compile


def _cache(where: Path, base: str) -> IndexDataCacheFile:
    where.mkdir(parents=True, exist_ok=True)
    cf = IndexDataCacheFile(str(where), base, source_stamp=("stamp", 1))
    cf.save("key", ("compiled", "kernel"))
    return cf


def _numba_dir(tmp_path: Path, module: Path) -> Path:
    """The directory Numba caches ``module``'s kernels in under ``NUMBA_CACHE_DIR=tmp_path``."""
    return tmp_path / _CacheLocator.get_suitable_cache_subpath(str(module))


@pytest.mark.parametrize("module", COMPILED, ids=lambda p: p.stem)
def test_a_truncated_data_file_is_a_cache_miss_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, module: Path
) -> None:
    assert module.exists()
    cf = _cache(_numba_dir(tmp_path, module), f"{module.stem}.kernel-418.py311")
    assert cf.load("key") == ("compiled", "kernel")
    (data,) = tmp_path.rglob("*.nbc")
    data.write_bytes(data.read_bytes()[:10])  # cut short, as by a full disk
    with caplog.at_level(logging.WARNING, logger="tcpfluid"):
        assert cf.load("key") is None  # numba then compiles and saves again
    assert str(data) in caplog.text and "damaged" in caplog.text
    assert not data.exists()
    cf.save("key", ("compiled", "again"))
    assert cf.load("key") == ("compiled", "again")


def test_a_truncated_index_beside_the_module_is_an_empty_index(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Numba's in-tree cache: the __pycache__ beside the module (a copy of the package
    # under tmp_path stands for an installed one, so the real tree is not written)
    pkg = tmp_path / "site" / "tcpfluid"
    (pkg / "sim").mkdir(parents=True)
    monkeypatch.setattr(_numba_cache, "__file__", str(pkg / "_numba_cache.py"))
    _numba_cache._our_cache_dirs.cache_clear()
    try:
        cf = _cache(pkg / "sim" / "__pycache__", "_core.run-1087.py311")
        (index,) = (pkg / "sim" / "__pycache__").glob("*.nbi")
        index.write_bytes(pickle.dumps(numba.__version__)[:3])
        with caplog.at_level(logging.WARNING, logger="tcpfluid"):
            assert cf.load("key") is None
        assert str(index) in caplog.text and not index.exists()
    finally:
        _numba_cache._our_cache_dirs.cache_clear()


def test_other_packages_caches_are_left_to_numba(tmp_path: Path) -> None:
    other = Path(os.path.dirname(numpy.__file__)) / "linalg" / "linalg.py"
    cf = _cache(_numba_dir(tmp_path, other), "linalg.f-3.py311")
    (data,) = tmp_path.rglob("*.nbc")
    data.write_bytes(data.read_bytes()[:10])
    with pytest.raises(pickle.UnpicklingError):
        cf.load("key")
