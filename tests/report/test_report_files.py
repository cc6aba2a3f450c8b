"""The report's folder appears whole or not at all, its temporaries are removed by the next
run, and a disk error names the file."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tcpfluid.cli import main
from tcpfluid.report import (
    Figure,
    Report,
    ReportConfig,
    Row,
    SectionResult,
    Table,
    write_report,
)


@pytest.fixture(scope="module")
def small_report() -> Any:
    """A report of one section with one row and one figure (what is written does not
    depend on how the numbers were made)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.plot([0.0, 1.0], [1.0, 2.0])
    figure = Figure.from_matplotlib(fig, "f", "a figure")
    plt.close(fig)
    row = Row(
        "Vegas", "w", "pkts", "window", {"closed form": 1.0, "packet sim": 2.0}, "closed form"
    )
    sec = SectionResult("x", "X", "intro", (Table("t", (row,)),), (figure,))
    return Report(ReportConfig(quick=True), (sec,), 1.0)


def _dead_pid() -> int:
    pid = 2**22 - 7  # above the usual pid_max; checked
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return pid
        pid -= 1


def test_a_failed_write_leaves_the_previous_report_and_names_the_file(
    small_report: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "r"
    write_report(small_report, out, command="first")
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    real = Path.write_bytes

    def full_disk(self: Path, data: bytes) -> int:
        if self.name == "index.html":
            # as write(2) reports a full disk: ENOSPC without a file name
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, data)

    monkeypatch.setattr(Path, "write_bytes", full_disk)
    with pytest.raises(OSError, match="left as it was") as info:
        write_report(small_report, out, command="second")
    # the report's own file is named, not the hidden folder it was staged in
    assert info.value.filename == str(out / "index.html")
    assert info.value.errno == errno.ENOSPC
    # the old set, unchanged, and nothing hidden left beside it
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r"]


def test_a_killed_writer_leaves_siblings_the_next_run_cleans(
    small_report: Any, tmp_path: Path
) -> None:
    out = tmp_path / "r"
    pid = _dead_pid()
    stage = tmp_path / f".r.{pid}.0123456789ab.tmp"
    (stage / "figures").mkdir(parents=True)
    (stage / "index.md").write_text("half")
    write_report(small_report, out)
    assert not stage.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r"]
    # killed between its two renames: the previous report is put back, then replaced
    old = tmp_path / f".r.{pid}.ba9876543210.old"
    os.rename(out, old)
    write_report(small_report, out)
    assert (out / "index.md").exists() and not old.exists()


def test_a_folder_holding_other_files_is_not_replaced(small_report: Any, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match=r"holds 'notes.txt'"):
        write_report(small_report, tmp_path)
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_report_out_empty_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "--quick", "--sections", "critical-window", "--out", ""]) == 2
    assert "--out must name a directory, got ''" in capsys.readouterr().err


def test_a_bad_out_is_refused_before_the_report_modules_load() -> None:
    # the output options are checked first: a bad --out costs no import of the sections
    # (SciPy, Numba, matplotlib)
    code = (
        "import sys\n"
        "from tcpfluid.cli import main\n"
        "rc = main(['report', '--out', ''])\n"
        "print(rc, 'tcpfluid.report' in sys.modules, 'matplotlib' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["2", "False", "False"]
