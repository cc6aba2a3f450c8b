"""A damaged file of the packet simulator's kernel cache is removed and rebuilt with a
warning naming it; other packages' Numba caches are left to Numba."""

from __future__ import annotations

import logging
import pickle
from pathlib import Path

import numba
import pytest
from numba.core.caching import IndexDataCacheFile

import tcpfluid.sim  # noqa: F401  (installs the guard, as any packet run does)


def _cache(tmp_path: Path, base: str) -> IndexDataCacheFile:
    cf = IndexDataCacheFile(str(tmp_path), base, source_stamp=("stamp", 1))
    cf.save("key", ("compiled", "kernel"))
    return cf


def test_a_truncated_data_file_is_a_cache_miss_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cf = _cache(tmp_path, "_core._pop_exited-418.py311")
    assert cf.load("key") == ("compiled", "kernel")
    (data,) = tmp_path.glob("*.nbc")
    data.write_bytes(data.read_bytes()[:10])  # cut short, as by a full disk
    with caplog.at_level(logging.WARNING, logger="tcpfluid.sim"):
        assert cf.load("key") is None  # numba then compiles and saves again
    assert str(data) in caplog.text and "damaged" in caplog.text
    assert not data.exists()
    cf.save("key", ("compiled", "again"))
    assert cf.load("key") == ("compiled", "again")


def test_a_truncated_index_is_an_empty_index(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cf = _cache(tmp_path, "_core._run-1087.py311")
    (index,) = tmp_path.glob("*.nbi")
    index.write_bytes(pickle.dumps(numba.__version__)[:3])
    with caplog.at_level(logging.WARNING, logger="tcpfluid.sim"):
        assert cf.load("key") is None
    assert str(index) in caplog.text and not index.exists()


def test_other_caches_are_left_to_numba(tmp_path: Path) -> None:
    cf = _cache(tmp_path, "other_module.f-3.py311")
    (data,) = tmp_path.glob("*.nbc")
    data.write_bytes(data.read_bytes()[:10])
    with pytest.raises(pickle.UnpicklingError):
        cf.load("key")
