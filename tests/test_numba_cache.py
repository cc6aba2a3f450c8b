"""A damaged file of tcpfluid's compiled-kernel cache (any of its compiled modules, in any
of the places Numba may cache them) is removed and rebuilt with a warning naming it; other
packages' Numba caches are left to Numba."""

from __future__ import annotations

import logging
import os
import pickle
import subprocess
import sys
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


def _kernel_stub() -> None:
    """A kernel whose cached code would come from another file too."""


def test_an_edit_to_an_embedded_source_makes_the_cache_entry_stale(tmp_path: Path) -> None:
    other = tmp_path / "helper.py"
    other.write_text("x = 1\n")
    _numba_cache.embeds(_kernel_stub, str(other))
    base = "test_numba_cache._kernel_stub-1.py311"
    where = _numba_dir(tmp_path, Path(__file__))
    _cache(where, base)
    fresh = IndexDataCacheFile(str(where), base, source_stamp=("stamp", 1))
    assert fresh.load("key") == ("compiled", "kernel")  # nothing edited: a hit
    st = other.stat()
    os.utime(other, (st.st_atime, st.st_mtime + 10.0))  # the helper edited
    stale = IndexDataCacheFile(str(where), base, source_stamp=("stamp", 1))
    assert stale.load("key") is None  # Numba compiles it again


def test_the_kernels_declare_the_sources_compiled_into_them() -> None:
    import tcpfluid.fluid._hybrid_kernel
    import tcpfluid.fluid._rounds_kernel
    import tcpfluid.sim._core  # noqa: F401
    from tcpfluid.algorithms import itcp_vegas, vegas
    from tcpfluid.algorithms.itcp_vegas import _ITCP_VEGAS

    red = str(PACKAGE / "_queueing_kernel.py")
    common = str(PACKAGE / "algorithms" / "_common.py")
    for base in ("_core.run-1.py311", "_hybrid_kernel.advance-1.py311"):
        assert red in {p for p, _, _ in _numba_cache._embedded_stamp(base)}
    rounds = {p for p, _, _ in _numba_cache._embedded_stamp("_rounds_kernel._round_rule-1.py311")}
    # (RED's drops are taken before the compiled round, in Python: only Vegas's Δ is in it)
    assert common in rounds
    _ITCP_VEGAS.get()  # declares, then compiles or loads, iTCP-Vegas's rule
    files = {p for p, _, _ in _numba_cache._embedded_stamp("itcp_vegas._itcp_vegas_rule-1.py311")}
    assert {vegas.__file__, common} <= files and itcp_vegas.__file__ not in files


_PROBE = (
    "import importlib, sys\n"
    "from numba.core import config\n"
    "module = importlib.import_module(sys.argv[1])\n"
    "print(config.CACHE_DIR)\n"
    "print(getattr(module, sys.argv[2])._cache._cache_path)\n"
)


def test_every_compiled_part_follows_the_cache_directory_rule(tmp_path: Path) -> None:
    """A fresh process per compiled part (the location is fixed when a module compiles or
    loads its kernels): ``TCPFLUID_CACHE_DIR`` gives ``$TCPFLUID_CACHE_DIR/numba`` for the
    hybrid kernel and the packet simulator alike, and ``NUMBA_CACHE_DIR``, when set, wins
    (one rule, :func:`tcpfluid._numba_cache.configure`, called by every compiled module;
    probed on the hybrid kernel, whose import compiles nothing). The processes run side by
    side."""
    own = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    own["TCPFLUID_CACHE_DIR"] = str(tmp_path)
    both = {**own, "NUMBA_CACHE_DIR": str(tmp_path / "n")}
    cases = [
        ("tcpfluid.fluid._hybrid_kernel", "advance", own, tmp_path / "numba"),
        ("tcpfluid.sim._core", "run", own, tmp_path / "numba"),
        ("tcpfluid.fluid._hybrid_kernel", "advance", both, tmp_path / "n"),
    ]
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _PROBE, module, kernel],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for module, kernel, env, _ in cases
    ]
    for proc, (module, _, _, want) in zip(procs, cases, strict=True):
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        config_dir, kernel_path = out.split()
        assert config_dir == str(want), module
        assert kernel_path.startswith(str(want)), module
