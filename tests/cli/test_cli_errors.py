"""Every failure of the ``tcpfluid`` command is a message, never a traceback.

Hostile inputs and signals, each checked for its exit status and for a one-line message
that names the input: bad values (exit 2), files that cannot be written or read (exit 1,
the path named), failed computations (exit 1), Ctrl-C (130, the sweep cache kept),
SIGTERM (143), a closed output pipe (quiet, 141 like other Unix tools).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

import tcpfluid.sweep.execution as sweep_exec
from tcpfluid.cli import main

PY = sys.executable
CLOSED_FORM_TOML = """\
engine = "closed-form"
algorithm = "vegas"
metrics = ["ss_exit_window"]
[grid]
bandwidth = ["10Mbps", "20Mbps", "30Mbps", "40Mbps"]
"""


def _one_line_error(err: str, *names: str) -> None:
    """stderr is one line, no traceback, naming each of ``names``."""
    assert "Traceback" not in err, err
    lines = [x for x in err.strip().splitlines() if x.strip()]
    assert len(lines) == 1, err
    for name in names:
        assert name in lines[0], (name, lines[0])


def _run_cli(*args: str, timeout: float = 120, **kw: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PY, "-m", "tcpfluid.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        **kw,
    )


# ------------------------------------------------------------------------------ bad values
def test_set_value_that_is_not_a_number_names_the_key(capsys: Any) -> None:
    for key in ("alpha", "bandwidth", "rtt"):
        assert main(["simulate", "qv-basic", "-a", "vegas", "--set", f"{key}=abc"]) == 2
        err = capsys.readouterr().err
        _one_line_error(err, key, "'abc'")
        assert "could not convert string to float" not in err


def test_repeated_set_key_is_an_error(capsys: Any) -> None:
    argv = ["simulate", "qv-basic", "-a", "vegas", "--set", "duration=1s", "--set", "duration=2s"]
    assert main(argv) == 2
    _one_line_error(capsys.readouterr().err, "duration", "'1s'", "'2s'")


def test_sweep_of_a_binary_file_says_it_is_not_a_toml_config(tmp_path: Path, capsys: Any) -> None:
    binary = tmp_path / "prog"
    binary.write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(128, 256)))
    assert main(["sweep", str(binary), "--out", str(tmp_path / "o.csv")]) == 2
    err = capsys.readouterr().err
    _one_line_error(err, str(binary), "TOML")
    assert "codec" not in err


def test_predict_empty_algorithm_list_is_an_error(capsys: Any) -> None:
    assert main(["predict", "-a", ",", "--bandwidth", "50Mbps", "--rtt", "100ms"]) == 2
    captured = capsys.readouterr()
    _one_line_error(captured.err, "--algorithm", "','")
    assert captured.out == ""


def test_predict_bare_bandwidth_is_packets_per_second(capsys: Any) -> None:
    # the help says "6250 (packets/s)": 6250 pkt/s of 1000-byte packets is 50 Mb/s
    assert main(["predict", "-a", "vegas", "--bandwidth", "6250", "--rtt", "0.1", "--json"]) == 0
    bare = json.loads(capsys.readouterr().out)
    assert (
        main(["predict", "-a", "vegas", "--bandwidth", "50Mbps", "--rtt", "100ms", "--json"]) == 0
    )
    units = json.loads(capsys.readouterr().out)
    assert bare == units
    assert bare["path"]["mu_pps"] == 6250.0


def test_predict_huge_gamma_is_a_message_not_an_overflow(capsys: Any) -> None:
    argv = ["predict", "-a", "vegas", "--bandwidth", "50Mbps", "--rtt", "100ms", "--gamma", "1e308"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    _one_line_error(err, "gamma")
    assert "OverflowError" not in err


@pytest.mark.parametrize(
    ("sets", "says"),
    [(["gamma=0"], "gamma must be > 0, got 0.0"), (["alpha=5", "beta=2"], "alpha must be <= beta")],
)
def test_predict_scenario_names_a_bad_law_parameter(
    capsys: Any, sets: list[str], says: str
) -> None:
    # the parameter and its range, as simulate says; not "run it on the packet simulator",
    # which refuses the same value
    argv = ["predict", "qv-basic", "-a", "vegas", *(x for s in sets for x in ("--set", s))]
    assert main(argv) == 2
    err = capsys.readouterr().err
    _one_line_error(err, says)
    assert "packet simulator" not in err
    assert main(["simulate", "qv-basic", "-a", "vegas", "-e", "packet", *argv[4:]]) == 2
    _one_line_error(capsys.readouterr().err, says)


# ------------------------------------------------------------------------------ outputs
def test_unwritable_sweep_out_fails_before_any_work(tmp_path: Path, capsys: Any) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text(CLOSED_FORM_TOML)
    (tmp_path / "adir.csv").mkdir()
    (tmp_path / "afile").write_text("x")
    cache = ["--cache", str(tmp_path / "cache")]  # made as the sweep starts, before any point
    for out, words in (
        (tmp_path / "adir.csv", ("--out", "adir.csv", "directory")),
        (tmp_path / "afile" / "o.csv", ("--out", "afile", "not a directory")),
        (tmp_path / "missing" / "o.csv", ("--out", "missing", "does not exist")),
    ):
        assert main(["sweep", str(cfg), "--out", str(out), *cache, "--no-progress"]) == 2
        _one_line_error(capsys.readouterr().err, *words)
    # no sweep started (no cache directory), nothing written
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adir.csv", "afile", "c.toml"]


def test_unwritable_plot_out_fails_before_drawing(tmp_path: Path, capsys: Any) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text(CLOSED_FORM_TOML)
    table = tmp_path / "s.csv"
    assert main(["sweep", str(cfg), "--out", str(table), "--no-progress"]) == 0
    capsys.readouterr()
    (tmp_path / "fig.png").mkdir()
    assert main(["plot", str(table), "--out", str(tmp_path / "fig.png")]) == 2
    _one_line_error(capsys.readouterr().err, "--out", "fig.png", "directory")


def test_an_oserror_while_writing_is_one_line_naming_the_file(
    tmp_path: Path, capsys: Any, monkeypatch: Any
) -> None:
    from tcpfluid.sweep import SweepResult

    def refuse(self: Any, path: Any) -> Any:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(SweepResult, "write", refuse)
    cfg = tmp_path / "c.toml"
    cfg.write_text(CLOSED_FORM_TOML)
    out = tmp_path / "o.csv"
    assert main(["sweep", str(cfg), "--out", str(out), "--no-progress"]) == 1
    _one_line_error(capsys.readouterr().err, str(out), "Permission denied")


def test_a_failed_computation_is_one_line_exit_1(capsys: Any, monkeypatch: Any) -> None:
    import tcpfluid.cli.predict as predict_cli

    def broken(args: Any) -> int:
        raise RuntimeError("ODE solver failed at t = 3.2 s: step size too small")

    monkeypatch.setattr(predict_cli, "run", broken)
    assert main(["predict", "-a", "vegas", "--bandwidth", "50Mbps", "--rtt", "100ms"]) == 1
    _one_line_error(capsys.readouterr().err, "ODE solver failed")


def test_an_unexpected_exception_is_still_one_line(capsys: Any, monkeypatch: Any) -> None:
    import tcpfluid.cli.predict as predict_cli

    def broken(args: Any) -> int:
        raise KeyError("surprise")

    monkeypatch.setattr(predict_cli, "run", broken)
    monkeypatch.delenv("TCPFLUID_DEBUG", raising=False)
    assert main(["predict", "-a", "vegas", "--bandwidth", "50Mbps", "--rtt", "100ms"]) == 1
    _one_line_error(capsys.readouterr().err, "KeyError", "TCPFLUID_DEBUG")
    monkeypatch.setenv("TCPFLUID_DEBUG", "1")
    with pytest.raises(KeyError):
        main(["predict", "-a", "vegas", "--bandwidth", "50Mbps", "--rtt", "100ms"])


def test_failed_points_exit_nonzero_unless_allowed(tmp_path: Path, capsys: Any) -> None:
    # point 2's RTT is shorter than qv-basic's access links' round trip (4 x 1 ms): the
    # point fails when its scenario is built, the others run
    cfg = tmp_path / "c.toml"
    cfg.write_text(CLOSED_FORM_TOML.replace('bandwidth = ["10Mbps", "20Mbps", "30Mbps", "40Mbps"]',
                                            'rtt = ["100ms", "50ms", "1ms", "80ms"]'))  # fmt: skip
    out = tmp_path / "o.csv"
    assert main(["sweep", str(cfg), "--out", str(out), "--no-progress", "--no-cache"]) == 1
    err = capsys.readouterr().err
    assert "1 point(s) failed" in err and "point 2" in err
    assert "shorter than the access links' round trip" in err
    assert out.is_file()  # the table is written either way
    argv = ["sweep", str(cfg), "--out", str(out), "--no-progress", "--no-cache", "--allow-failed"]
    assert main(argv) == 0


# ------------------------------------------------------------------------------ signals
_SLOW_SWEEP = textwrap.dedent(
    """
    import sys, time
    import tcpfluid.sweep.execution as sm
    from tcpfluid.cli import main

    real = sm._run_point

    # each point waits (argv[4] s, default 0.2) so that a signal can land mid-sweep
    wait = float(sys.argv[4]) if len(sys.argv) > 4 else 0.2

    def slow(task):
        with open(sys.argv[3], "a") as fh:
            fh.write(f"{task.index}\\n")
        time.sleep(wait)
        return real(task)

    sm._run_point = slow
    sys.exit(main(["sweep", sys.argv[1], "--out", sys.argv[2], "--no-progress", "--jobs", "1"]))
    """
)


def _slow_config(tmp_path: Path, n: int) -> Path:
    cfg = tmp_path / "c.toml"
    bws = ", ".join(f'"{b}Mbps"' for b in range(10, 10 + n))
    cfg.write_text(
        f'engine = "closed-form"\nalgorithm = "vegas"\nmetrics = ["ss_exit_window"]\n'
        f"[grid]\nbandwidth = [{bws}]\n"
    )
    return cfg


def _default_sigint() -> None:
    """In the child, before exec: SIGINT back to its default disposition.

    A test runner started in the background of a non-interactive shell inherits SIGINT as
    ignored, and Python then installs no KeyboardInterrupt handler; the child must see
    Ctrl-C as a user's terminal would deliver it.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _wait_for_lines(path: Path, n: int, timeout: float = 60.0) -> None:
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if path.exists() and len(path.read_text().splitlines()) >= n:
            return
        time.sleep(0.05)
    raise AssertionError(f"{path} never reached {n} lines")


@pytest.mark.parametrize(
    ("sig", "status", "word"),
    [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")],
)
def test_ctrl_c_or_sigterm_exits_with_one_line_and_keeps_the_cache(
    tmp_path: Path, sig: int, status: int, word: str
) -> None:
    cfg = _slow_config(tmp_path, 40)
    out = tmp_path / "o.csv"
    log = tmp_path / "computed.txt"
    script = tmp_path / "slow.py"
    script.write_text(_SLOW_SWEEP)
    proc = subprocess.Popen(
        [PY, str(script), str(cfg), str(out), str(log)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_default_sigint,
    )
    _wait_for_lines(log, 5)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == status, err
    _one_line_error(err, word)
    assert not out.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    cached = sum(
        len(f.read_text().splitlines()) for f in (tmp_path / "o.csv.cache").glob("*.jsonl")
    )
    assert cached >= 4  # the points finished before the signal are kept
    # the re-run computes only the missing points (no signal to wait for: no pause per point)
    log.unlink()
    rerun = subprocess.run(
        [PY, str(script), str(cfg), str(out), str(log), "0"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert rerun.returncode == 0, rerun.stderr
    assert len(log.read_text().splitlines()) == 40 - cached
    assert f"({40 - cached} computed, {cached} from cache, 0 failed)" in rerun.stdout


def test_closed_pipe_is_quiet() -> None:
    proc = subprocess.Popen(
        [
            PY,
            "-m",
            "tcpfluid.cli",
            "predict",
            "-a",
            "vegas",
            "--bandwidth",
            "50Mbps",
            "--rtt",
            "100ms",
            "--json",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # like `| head -c 0`: the reader is gone before the output
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 128 + signal.SIGPIPE
    assert err == ""


def test_pipe_into_head_from_a_shell_is_quiet(tmp_path: Path) -> None:
    cmd = (
        f"'{PY}' -m tcpfluid.cli predict --documents --json | head -c 10 >/dev/null; "
        'echo "${PIPESTATUS[0]}"'
    )
    res = subprocess.run(
        ["bash", "-c", cmd], capture_output=True, text=True, timeout=120, check=False
    )
    assert "Traceback" not in res.stderr and "BrokenPipe" not in res.stderr, res.stderr
    assert res.stdout.strip() in ("0", "141")  # 0 if the output fit in the pipe


def test_the_module_runs_as_a_script() -> None:
    res = _run_cli("predict", "-a", "vegas", "--bandwidth", "50Mbps", "--rtt", "100ms")
    assert res.returncode == 0, res.stderr


def test_cli_errors_do_not_leave_files(tmp_path: Path) -> None:
    res = _run_cli("sweep", "nope.toml", "--out", "o.csv", cwd=tmp_path)
    assert res.returncode == 2
    _one_line_error(res.stderr, "nope.toml")
    assert os.listdir(tmp_path) == []


_STUCK_POOL = textwrap.dedent(
    """
    import sys, time
    import tcpfluid.sweep.execution as sm
    from tcpfluid.cli import main

    def stuck(task):
        sys.stdout.write("started\\n")  # one write: atomic on a pipe, two workers do not interleave
        sys.stdout.flush()
        time.sleep(300)

    sm._run_point = stuck
    sys.exit(main(["sweep", sys.argv[1], "--out", sys.argv[2], "--no-progress", "--jobs", "2"]))
    """
)


def _packet_sweep(tmp_path: Path, script_text: str, preexec: Any) -> subprocess.Popen[str]:
    """``script_text`` started on a three-point packet sweep (argv: config, output table),
    ``preexec`` run before exec; its stdout and stderr piped."""
    cfg = tmp_path / "c.toml"
    cfg.write_text(
        'engine = "packet"\nalgorithm = "vegas"\nmetrics = ["utilization"]\n'
        '[grid]\nbandwidth = ["1Mbps", "2Mbps", "3Mbps"]\ncbr = "none"\n'
    )
    script = tmp_path / "sweep_script.py"
    script.write_text(script_text)
    proc = subprocess.Popen(
        [PY, str(script), str(cfg), str(tmp_path / "o.csv")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=preexec,
    )
    assert proc.stdout is not None
    return proc


def test_ctrl_c_stops_the_pool_without_waiting_for_its_points(tmp_path: Path) -> None:
    proc = _packet_sweep(tmp_path, _STUCK_POOL, _default_sigint)
    assert proc.stdout is not None
    assert proc.stdout.readline().startswith("started")  # a worker is inside a point
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)  # the points would take 300 s
    assert proc.returncode == 130, err
    _one_line_error(err, "interrupted")


_SLOW_WORKER_SET_UP = textwrap.dedent(
    """
    import os, sys, time
    import tcpfluid.sweep.execution as sm
    from tcpfluid.cli import main

    real_init = sm._worker_init

    def slow_init(parent_pid):
        # a loaded machine: the worker is forked but has not run its set-up yet
        os.write(1, b"forked\\n")
        time.sleep(1.5)
        real_init(parent_pid)

    def stuck(task):
        time.sleep(300)

    sm._worker_init = slow_init
    sm._run_point = stuck
    sys.exit(main(["sweep", sys.argv[1], "--out", sys.argv[2], "--no-progress", "--jobs", "2"]))
    """
)


def _own_group_default_sigint() -> None:
    """Before exec: a process group of its own (a terminal's Ctrl-C reaches the whole
    group: the command and its pool's workers) and SIGINT at its default disposition."""
    os.setpgid(0, 0)
    _default_sigint()


@pytest.mark.parametrize("target", ["group", "command"])
def test_ctrl_c_while_the_workers_are_being_set_up_is_one_line(tmp_path: Path, target: str) -> None:
    """A signal that reaches a worker forked but not yet set up (its parent's handlers
    still in place) must not run those handlers there (a traceback per worker, a worker
    that survives its pool), and the command exits at once with one line."""
    proc = _packet_sweep(tmp_path, _SLOW_WORKER_SET_UP, _own_group_default_sigint)
    assert proc.stdout is not None
    assert proc.stdout.readline() == "forked\n"  # a worker is inside its set-up
    if target == "group":
        os.killpg(proc.pid, signal.SIGINT)
    else:
        proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    _one_line_error(err, "interrupted")


def test_a_signal_while_the_sweep_waits_on_its_pool_is_raised_by_the_waiting_loop() -> None:
    """Ctrl-C during a pool's run is noted, not raised where it lands (inside
    ``concurrent.futures``' bookkeeping it could leave a future's lock held and the
    process hanging at exit): the waiting loop raises it, and the handler is restored."""
    import queue

    wake: queue.SimpleQueue[object] = queue.SimpleQueue()
    before = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with sweep_exec._DeferredSignals(wake) as deferred:
            signal.raise_signal(signal.SIGINT)  # would raise KeyboardInterrupt here
            assert wake.get(timeout=5) is sweep_exec._WAKE_SIGNAL
            with pytest.raises(KeyboardInterrupt):
                deferred.deliver()
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        with pytest.raises(KeyboardInterrupt):
            signal.raise_signal(signal.SIGINT)
        # noted as the loop ends (the last points came in): raised on leaving, not lost
        with pytest.raises(KeyboardInterrupt), sweep_exec._DeferredSignals(wake):
            signal.raise_signal(signal.SIGINT)
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, before)


_STUCK_REPORT = textwrap.dedent(
    """
    import os, sys, time
    import tcpfluid.report._core as core
    from tcpfluid.cli import main

    def stuck(task, index, progress=None):
        os.write(1, b"started\\n")
        time.sleep(300)

    core._run_task = stuck
    sys.exit(main(["report", "--quick", "--sections", "basic", "--jobs", "2", "--quiet",
                   "--out", sys.argv[1]]))
    """
)


@pytest.mark.parametrize("target", ["group", "command"])
def test_ctrl_c_stops_the_report_pool_at_once_with_one_line(tmp_path: Path, target: str) -> None:
    """Ctrl-C during ``tcpfluid report --jobs 2``: the workers leave the signal to the
    command (no traceback per worker when a terminal sends it to the whole group), which
    abandons the running tasks instead of waiting for them."""
    script = tmp_path / "stuck_report.py"
    script.write_text(_STUCK_REPORT)
    proc = subprocess.Popen(
        [PY, str(script), str(tmp_path / "r")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_own_group_default_sigint,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == "started\n"  # a worker is inside a task
    if target == "group":
        os.killpg(proc.pid, signal.SIGINT)
    else:
        proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)  # the tasks would take 300 s
    assert proc.returncode == 130, err
    _one_line_error(err, "interrupted")


_SLOW_ASSEMBLY = textwrap.dedent(
    """
    import dataclasses, os, sys, time
    import tcpfluid.report.sections as sections
    from tcpfluid.cli import main

    real = sections.run_sections

    def assemble(cfg, results):
        os.write(1, b"assembling\\n")
        time.sleep(300)

    def slow(specs, config, **kw):
        return real([dataclasses.replace(s, assemble=assemble) for s in specs], config, **kw)

    sections.run_sections = slow
    sys.exit(main(["report", "--quick", "--sections", "conspicuous", "--jobs", "2", "--quiet",
                   "--out", sys.argv[1]]))
    """
)


def test_ctrl_c_while_the_report_assembles_a_section_stops_it_at_once(tmp_path: Path) -> None:
    """A section is assembled in the command's process while the pool runs the others:
    Ctrl-C there stops the report at once (not after the assembly), with one line."""
    script = tmp_path / "slow_assembly.py"
    script.write_text(_SLOW_ASSEMBLY)
    proc = subprocess.Popen(
        [PY, str(script), str(tmp_path / "r")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_own_group_default_sigint,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == "assembling\n"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)  # the assembly would take 300 s
    assert proc.returncode == 130, err
    _one_line_error(err, "interrupted")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize(
    "args",
    [
        ("simulate", "qv-basic", "-a", "vegas", "-e", "rounds", "--json"),
        ("predict", "-a", "vegas", "--bdp", "50", "--rtt", "100ms", "--json"),
        ("scenario", "list"),
    ],
)
def test_a_full_standard_output_is_one_line_naming_it(args: tuple[str, ...]) -> None:
    """``> file`` on a full disk: one line on stderr naming the standard output, exit 1,
    no traceback (also when ``--json`` would have put the error object on stdout)."""
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [PY, "-m", "tcpfluid.cli", *args],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert "writing the standard output: No space left on device" in line


def test_a_pool_thread_setting_a_cancelled_future_after_an_interrupt_prints_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """After Ctrl-C a process pool's management thread may still set the result of a
    future the interrupt cancelled (CPython 3.11 raises ``InvalidStateError`` in that
    thread, a traceback after the one-line message): that one error is silenced, any other
    thread error still reaches the hook that prints it."""
    import concurrent.futures
    import threading

    import tcpfluid.cli as cli

    printed: list[str] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: printed.append(str(args.exc_value)))

    def raises(exc: BaseException) -> None:
        def run() -> None:
            raise exc

        t = threading.Thread(target=run)
        t.start()
        t.join()

    cli._quiet_cancelled_futures()
    raises(concurrent.futures.InvalidStateError("CANCELLED: <Future state=cancelled>"))
    assert printed == []
    raises(ValueError("another thread's error"))
    assert printed == ["another thread's error"]


def test_a_rate_of_zero_set_on_a_scenario_says_it_must_be_positive(capsys: Any) -> None:
    assert main(["scenario", "show", "qv-basic", "--set", "bandwidth=0Mbps"]) == 2
    err = capsys.readouterr().err
    _one_line_error(err, "bandwidth must be > 0, got '0Mbps'")
    assert "not a rate" not in err


def test_plot_of_a_file_that_is_not_a_table_names_it_as_the_input(
    tmp_path: Path, capsys: Any
) -> None:
    cfg = tmp_path / "c1.toml"
    cfg.write_text(CLOSED_FORM_TOML)
    assert main(["plot", str(cfg)]) == 2
    err = capsys.readouterr().err
    _one_line_error(err, "sweep table", "c1.toml", ".csv or .parquet", "tcpfluid sweep")
    assert "output file" not in err


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
def test_an_unwritable_report_folder_is_named_as_given(capsys: Any) -> None:
    # /proc takes no new file, even for root: the probe fails there
    assert main(["report", "--out", "/proc/abc/r", "--sections", "conspicuous"]) == 2
    err = capsys.readouterr().err
    _one_line_error(err, "--out '/proc/abc/r'", "cannot write in '/proc'")
    assert "/proc/x" not in err
