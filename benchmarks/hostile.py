"""Hostile inputs: every case of the robustness checklist run as a user runs it, each in a
fresh process, with its wall time, peak memory and outcome.

Run: ``python benchmarks/hostile.py [--only NAME,...] [--done-when] [--timeout 120]``.

Prints one line per case: ``case  wall_s  cpu_s  peak_MB  PASS|FAIL|MEASURE  outcome  ::
command``. A case passes when each command it runs ends within 5 s of wall time, under
2 GB of peak resident memory, with a correct
result (checked against the value stated beside it: another engine, a document's value,
a hand computation) or a one-line error naming the input. Whole reports and test suites
get no time verdict (their work is not the hostile part: the worker count, the set of
files, the result are). ``MEASURE`` cases (the largest scale runs, whose speed is a
benchmark of its own: benchmarks/many_flows.py, million.py) print their figures without
a verdict. A case that runs several commands one after another (``runs``) prints the wall
time of each (a ``WALLS [s, ...]`` line); each is judged on its own, the time of the
process outside them (its start-up and imports) counted to the first, and the line shows
them (``walls 4.1+0.9 s``). Each case runs in its own process
(``sys.executable``): imports and Numba's cache load are counted, as a user sees them;
the CPU seconds and the peak memory are those of the process and the children it waited
for (``wait4``). With ``--done-when`` it also runs the longer checks: the ODE engine's
utilization against the packet simulator's on ``qv-many-flows`` (Vegas, one group,
20 s) at 400, 1,000 and 3,000 flows, a laws x flows x buffers x rates grid of
``thesis-two-flow`` on the fluid engines (no utilization above 1 + 1e-12), and the
conservation property tests and the fuzz suite under pytest.

Timings on a loaded machine are noisy: the load (``uptime``) is printed first and last;
re-time anything near 5 s with ``--only NAME``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

PY = sys.executable
LIMIT_S = 5.0
LIMIT_MB = 2048.0
CLI = [PY, "-m", "tcpfluid"]

Check = Callable[[int, str, str, Path], tuple[bool | None, str]]


@dataclass
class Case:
    name: str
    shown: str  # the command as the checklist writes it
    argv: list[str]
    check: Check
    setup: Callable[[Path], None] | None = None
    env: dict[str, str] = field(default_factory=dict)
    timeout: float = 120.0
    measure_only: bool = False
    # commands the case runs one after another; with more than one, the case prints each
    # one's wall time (a ``WALLS [...]`` line) and each is judged against the 5 s limit
    runs: int = 1
    timed: bool = True  # False: no time verdict (a whole report's work), memory and result only
    count_workers: bool = False


def _uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def _children() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            kids.setdefault(ppid, []).append(int(d))
    return kids


def _descendants(pid: int) -> int:
    kids, n, todo = _children(), 0, [pid]
    while todo:
        for c in kids.get(todo.pop(), []):
            n += 1
            todo.append(c)
    return n


WORKERS: dict[str, int] = {}
CPU: dict[str, float] = {}


def _run(case: Case, work: Path, timeout: float, logs: Path) -> tuple[int, str, str, float, float]:
    """Run ``case`` in a fresh process group; return (status, stdout, stderr, wall_s, MB).
    With ``count_workers``, the largest number of descendant processes goes to WORKERS."""
    env = {**os.environ, **case.env}
    out_f = logs / f"{case.name}.out"
    err_f = logs / f"{case.name}.err"
    with open(out_f, "w") as out, open(err_f, "w") as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            case.argv, stdout=out, stderr=err, cwd=work, env=env, start_new_session=True
        )
        status = None
        most, last_count = 0, 0.0
        while True:
            if case.count_workers and time.perf_counter() - last_count > 0.1:
                most, last_count = max(most, _descendants(proc.pid)), time.perf_counter()
            pid, st, ru = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                status = os.waitstatus_to_exitcode(st)
                break
            if time.perf_counter() - t0 > timeout:
                os.killpg(proc.pid, signal.SIGKILL)  # our own child's group, by its id
                _, st, ru = os.wait4(proc.pid, 0)
                status = -9999
                break
            time.sleep(0.01)
        wall = time.perf_counter() - t0
        proc.returncode = status
        WORKERS[case.name] = most
    mb = ru.ru_maxrss / 1024.0
    CPU[case.name] = ru.ru_utime + ru.ru_stime  # the process and the children it waited for
    return status, _head_tail(out_f), _head_tail(err_f), wall, mb


def _command_walls(case: Case, out: str, wall: float) -> list[float]:
    """The wall time of each command of ``case``: its process's for a one-command case; for a
    case of ``runs`` commands, those its ``WALLS [...]`` line gives, the time of the process
    outside them (start-up, imports, set-up) added to the first. Empty when a multi-command
    case printed no such line, or one of another length."""
    if case.runs == 1:
        return [wall]
    found = [ln for ln in out.splitlines() if ln.startswith("WALLS ")]
    try:
        walls = [float(w) for w in json.loads(found[-1][6:])] if found else []
    except (ValueError, TypeError):
        return []
    if len(walls) != case.runs:
        return []
    walls[0] += max(0.0, wall - sum(walls))
    return walls


def _head_tail(path: Path, keep: int = 1 << 20) -> str:
    """A case's output, or its first and last MiB when it is longer (a million flows'
    JSON read whole would grow this process, and every later child's peak memory with
    it: a forked child's peak counts the pages it shares with its parent)."""
    with open(path, "rb") as fh:
        size = fh.seek(0, os.SEEK_END)
        fh.seek(0)
        if size <= 2 * keep:
            return fh.read().decode(errors="replace")
        head = fh.read(keep)
        fh.seek(size - keep)
        return (head + b"\n...\n" + fh.read()).decode(errors="replace")


# ------------------------------------------------------------------ outcome checks
def _last_json(out: str) -> dict:
    return json.loads(out[out.index("{") :])


def one_line_error(*patterns: str) -> Check:
    """A non-zero exit, one line on stderr (Python warnings aside), naming the input."""

    def check(rc: int, out: str, err: str, work: Path) -> tuple[bool | None, str]:
        lines = [ln for ln in err.strip().splitlines() if ln.strip()]
        text = lines[-1] if lines else "(nothing on stderr)"
        if rc == 0:
            return False, f"exit 0, expected an error; stdout {out.strip()[:120]!r}"
        if "Traceback" in err or len(lines) != 1:
            return False, f"{len(lines)} stderr lines: {err.strip()[-200:]!r}"
        missing = [p for p in patterns if not re.search(p, text)]
        if missing:
            return False, f"message lacks {missing}: {text[:200]!r}"
        return True, f"rc={rc}: {text[:160]}"

    return check


def json_value(key: str, ok: Callable[[object], bool], why: str) -> Check:
    def check(rc: int, out: str, err: str, work: Path) -> tuple[bool | None, str]:
        if rc != 0:
            return False, f"rc={rc}: {err.strip()[-200:]!r}"
        value = _last_json(out).get(key)
        return ok(value), f"{key}={value} ({why})"

    return check


def printed(ok_marker: str = "OK") -> Check:
    """A Python snippet that prints ``OK ...`` or ``BAD ...`` as its last line."""

    def check(rc: int, out: str, err: str, work: Path) -> tuple[bool | None, str]:
        lines = out.strip().splitlines()
        last = lines[-1] if lines else ""
        if rc != 0:
            tail = [ln for ln in err.strip().splitlines() if ln.strip()][-1:] or [""]
            return False, f"rc={rc}: {tail[0][:200]!r} {last[:100]}"
        if last.startswith("MEASURE"):
            return None, last[8:]
        return last.startswith(ok_marker), last[:220]

    return check


def measured(rc: int, out: str, err: str, work: Path) -> tuple[bool | None, str]:
    """No verdict: the utilization."""
    if rc != 0:
        tail = [ln for ln in err.strip().splitlines() if ln.strip()][-1:] or ["(killed)"]
        return None, f"rc={rc}: {tail[0][:200]}"
    m = re.search(r'"utilization": ([^,\n]+)', out)
    return None, f"utilization={m.group(1) if m else None}"


def workers_capped(name: str) -> Check:
    """The command finished and never had more worker processes than CPUs (+1: the
    multiprocessing resource tracker)."""

    def check(rc: int, out: str, err: str, work: Path) -> tuple[bool | None, str]:
        cpus = os.cpu_count() or 1
        n = WORKERS.get(name, -1)
        tail = [ln for ln in err.strip().splitlines() if ln.strip()][-1:] or [""]
        return (
            rc == 0 and 0 <= n <= cpus + 1,
            f"rc={rc}, at most {n} child processes on {cpus} CPUs {tail[0][:120]!r}",
        )

    return check


def py(code: str) -> list[str]:
    return [PY, "-c", textwrap.dedent(code)]


def sim(*args: str) -> list[str]:
    return [*CLI, "simulate", *args]


def _util_at_most_1(lo: float) -> Callable[[object], bool]:
    return lambda u: isinstance(u, float | int) and lo <= float(u) <= 1.0 + 1e-12


# ------------------------------------------------------------------ the cases
SWEEP_TOML = """\
scenario = "qv-basic"
engine = "rounds"
algorithm = "vegas"
metrics = ["utilization"]
[grid]
alpha = [1, 2]
duration = "10s"
cbr = "none"
"""


SWEEP_PACKET_TOML = """\
scenario = "qv-basic"
engine = "packet"
algorithm = "vegas"
metrics = ["utilization"]
[grid]
rtt = ["20ms", "30ms", "40ms", "50ms", "60ms", "70ms"]
duration = "2s"
cbr = "none"
"""


def _write_sweep(work: Path) -> None:
    (work / "s.toml").write_text(SWEEP_TOML)


def _corrupt_cache_setup(work: Path) -> None:
    """Fill a private Numba cache with one packet run, then truncate one kernel's .nbc."""
    _write_sweep(work)
    cache = work / "numba"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    subprocess.run(
        [*CLI, "simulate", "qv-basic", "-a", "vegas", "-e", "packet", "--set", "duration=1s"],
        env=env,
        check=True,
        capture_output=True,
    )
    # the kernel a run loads (its callees are compiled into it)
    victim = next(cache.rglob("_core.run-*.nbc"))
    data = victim.read_bytes()
    victim.write_bytes(data[: len(data) // 3])
    (work / "victim.txt").write_text(str(victim))


def _report_setup(work: Path) -> None:
    """A finished report in ``rep`` (the previous one a rerun must keep or replace whole)."""
    subprocess.run(
        [*CLI, "report", "--quick", "--sections", "critical-window", "--out", "rep", "--jobs", "1"],
        cwd=work,
        check=True,
        capture_output=True,
    )
    snap = {
        str(p.relative_to(work)): p.read_bytes() for p in (work / "rep").rglob("*") if p.is_file()
    }
    (work / "snap.json").write_text(json.dumps({k: len(v) for k, v in snap.items()}))
    # what a run killed while writing figures (an older writer) or the whole folder leaves
    (work / "rep" / "figures" / ".x.svg.1234.tmp").write_text("stale")
    (work / ".rep.999999999.abcd.tmp").mkdir()


def _check_report_set(rc: int, out: str, err: str, work: Path) -> tuple[bool | None, str]:
    """The killed writer left the previous report whole; a rerun removed the stale files."""
    before = json.loads((work / "snap.json").read_text())
    now = {
        str(p.relative_to(work)): p.stat().st_size for p in (work / "rep").rglob("*") if p.is_file()
    }
    stale = [str(p) for p in work.glob(".rep.*")] + [str(p) for p in (work / "rep").rglob(".*tmp")]
    lines = out.strip().splitlines()
    if not lines or not lines[-1].startswith("OK"):
        return False, f"rc={rc} {lines[-1:] or err.strip()[-200:]!r}"
    if stale:
        return False, f"stale temporaries after the rerun: {stale}"
    if set(now) != set(before):
        return False, f"files differ from a whole report: {sorted(set(now) ^ set(before))[:5]}"
    return True, lines[-1]


REPORT_KILLED_WRITER = """
import os, sys, json, pathlib, subprocess
from pathlib import Path
before = {str(p): p.read_bytes() for p in Path('rep').rglob('*') if p.is_file()}
# a run killed while writing: the third file write ends the process (SIGKILL-like os._exit)
code = '''
import os, pathlib, sys
n = [0]
real_t, real_b = pathlib.Path.write_text, pathlib.Path.write_bytes
def dying(real):
    def w(self, *a, **k):
        n[0] += 1
        if n[0] == 3:
            os._exit(137)
        return real(self, *a, **k)
    return w
pathlib.Path.write_text = dying(real_t)
pathlib.Path.write_bytes = dying(real_b)
sys.argv = ["tcpfluid", "report", "--quick", "--sections", "critical-window", "--out", "rep",
            "--jobs", "1", "--quiet"]
from tcpfluid.cli import main
sys.exit(main())
'''
r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
after = {str(p): p.read_bytes() for p in Path('rep').rglob('*') if p.is_file()}
same = {k: v for k, v in before.items() if not k.endswith('.tmp')} == {
    k: v for k, v in after.items() if not k.endswith('.tmp')}
# then a whole run, which must remove what the dead writers left
r2 = subprocess.run([sys.executable, "-m", "tcpfluid", "report", "--quick", "--sections",
                     "critical-window", "--out", "rep", "--jobs", "1", "--quiet"],
                    capture_output=True, text=True)
print(("OK" if same and r.returncode == 137 and r2.returncode == 0 else "BAD"),
      f"killed writer rc={r.returncode}, previous report unchanged={same}, "
      f"rerun rc={r2.returncode}")
"""

REPORT_FULL_DISK = """
import subprocess, sys
from pathlib import Path
before = {str(p): p.read_bytes() for p in Path('rep').rglob('*') if p.is_file()
          if not p.name.endswith('.tmp')}
# a disk that fills: files may grow to 20 kB (RLIMIT_FSIZE; SIGXFSZ ignored, so write fails)
cmd = ("trap '' XFSZ; ulimit -f 20; exec " + sys.executable +
       " -m tcpfluid report --quick --sections critical-window --out rep --jobs 1 --quiet")
r = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True)
after = {str(p): p.read_bytes() for p in Path('rep').rglob('*') if p.is_file()
         if not p.name.endswith('.tmp')}
lines = [ln for ln in r.stderr.strip().splitlines() if ln.strip()]
msg = lines[-1] if lines else ''
ok = (r.returncode != 0 and len(lines) == 1 and 'rep' in msg and before == after
      and not list(Path('.').glob('.rep.*')))
print("OK" if ok else "BAD", f"rc={r.returncode}, old report kept={before == after}: {msg[:200]!r}")
"""

SWEEP_CACHE_EDITED = """
import json, subprocess, sys, time
from pathlib import Path
walls = []
def sweep():
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "tcpfluid", "sweep", "s.toml", "--out", "t.csv",
                        "--cache", "c", "--quiet"], capture_output=True, text=True)
    walls.append(time.perf_counter() - t0)
    return r
r = sweep(); assert r.returncode == 0, r.stderr
fresh = Path("t.csv").read_text()
files = sorted(Path("c").rglob("*.jsonl")) or sorted(p for p in Path("c").rglob("*") if p.is_file())
f = files[0]
lines = f.read_text().splitlines()
rec = json.loads(lines[0])
def edit(o):
    if isinstance(o, dict):
        return {k: (7.57 if k == "utilization" else edit(v)) for k, v in o.items()}
    return o
lines[0] = json.dumps(edit(rec))
lines.append('{"not json')
f.write_text("\\n".join(lines) + "\\n")
r = sweep()
rerun_s = walls[-1]
print("WALLS", json.dumps(walls))
table = Path("t.csv").read_text()
warn = [ln for ln in r.stderr.splitlines() if "7.57" in ln or "utilization" in ln]
bad = [ln for ln in r.stderr.splitlines() if "malformed" in ln or "line" in ln]
ok = r.returncode == 0 and "7.57" not in table and table == fresh and warn and bad
print("OK" if ok else "BAD", f"rerun {rerun_s:.2f} s, rc={r.returncode}, "
      f"7.57 in table={'7.57' in table}, "
      f"same table as fresh={table == fresh}, warnings: {r.stderr.strip()[:300]!r}")
"""

SWEEP_FULL_CACHE = """
import sys
from pathlib import Path
from tcpfluid.sweep import cache as cache_mod
real_init = cache_mod._Cache.__init__
def full_disk(self, directory):
    real_init(self, directory)
    self._file = Path("/dev/full")  # every cache write: ENOSPC
cache_mod._Cache.__init__ = full_disk
from tcpfluid.cli import main
rc = main(["sweep", "s.toml", "--out", "t.csv", "--cache", "c", "--quiet"])
rows = Path("t.csv").read_text().count("\\n") if Path("t.csv").exists() else 0
print("OK" if rc == 0 and rows == 3 else "BAD", f"rc={rc}, table rows={rows - 1}")
"""

CORRUPT_CACHE_RUN = """
import json, subprocess, sys, time
from pathlib import Path
victim = Path(Path("victim.txt").read_text())
cmd = [sys.executable, "-m", "tcpfluid", "simulate", "qv-basic", "-a", "vegas", "-e", "packet",
       "--set", "duration=1s", "--json"]
t0 = time.perf_counter()
r = subprocess.run(cmd, capture_output=True, text=True)
t1 = time.perf_counter()
r2 = subprocess.run(cmd, capture_output=True, text=True)
t2 = time.perf_counter()
print("WALLS", json.dumps([t1 - t0, t2 - t1]))
util = [json.loads(x.stdout[x.stdout.index("{"):])["utilization"] if x.returncode == 0 else None
        for x in (r, r2)]
ok = r.returncode == 0 and str(victim) in r.stderr and r2.returncode == 0 and not r2.stderr.strip()
ok = ok and util[0] == util[1]
warn = r.stderr.strip().splitlines()[-1:] or ["(no warning)"]
print("OK" if ok else "BAD", f"damaged run rc={r.returncode} {t1 - t0:.1f} s (recompiles), "
      f"next run rc={r2.returncode} {t2 - t1:.1f} s, utilization {util}; "
      f"warning: {warn[0][:150]!r}")
"""

RECORD_EVERY = """
import json, time, warnings
import tcpfluid
from tcpfluid.engines import get_engine
from tcpfluid.scenarios import build_scenario
warnings.simplefilter("ignore", DeprecationWarning)
sc = build_scenario("qv-basic").with_algorithm("vegas")
w0 = time.perf_counter()
full = tcpfluid.simulate(sc, "rounds").summary.to_dict()
walls = [time.perf_counter() - w0]
bad = []
for every in (50, 200, 1000):
    w0 = time.perf_counter()
    s = tcpfluid.simulate(sc, "rounds", record_every=every).summary.to_dict()
    walls.append(time.perf_counter() - w0)
    bad += [(every, k, full[k], s[k]) for k in full if s[k] != full[k]]
print("WALLS", json.dumps(walls))
print("OK" if not bad and full["ss_exit_window"] == 64.0 else "BAD",
      f"rounds: exit window {full['ss_exit_window']} at {full['ss_exit_time_s']:.2f} s, "
      f"settled {full['settled_window']}; record_every 50/200/1000 differ in {bad[:3]}")
"""

RECORD_OTHER = """
import json, time
import tcpfluid
from tcpfluid.engines import get_engine
from tcpfluid.scenarios import build_scenario
sc = build_scenario("qv-basic", bandwidth="5Mbps", rtt="50ms", duration="20s",
                    cbr_start="8s", cbr_stop="14s").with_algorithm("vegas")
timing = {"packets_per_s", "events_per_s"}
bad, walls = [], []
for engine in ("hybrid", "packet"):
    out = []
    for interval in (0.05, 1.3):
        w0 = time.perf_counter()
        s = tcpfluid.simulate(sc, get_engine(engine, record_interval_s=interval)).summary.to_dict()
        walls.append(time.perf_counter() - w0)
        out.append({k: v for k, v in s.items() if k not in timing})
    bad += [(engine, k, out[0][k], out[1][k]) for k in out[0] if out[0][k] != out[1][k]]
print("WALLS", json.dumps(walls))
print("OK" if not bad else "BAD", f"hybrid, packet: record_interval_s 0.05 vs 1.3 differ in "
      f"{[(e, k) for e, k, *_ in bad]} {[(a, b) for *_, a, b in bad][:3]}")
"""

SAME_RATE = """
import json, subprocess, sys, time
out, walls = [], []
for bw in ("6250pps", "50Mbps"):
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "tcpfluid", "simulate", "qv-basic", "-a", "vegas",
                        "--set", f"bandwidth={bw}", "--set", "cbr=none", "--set", "duration=10s",
                        "--json"], capture_output=True, text=True)
    walls.append(time.perf_counter() - t0)
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout[r.stdout.index("{"):])
    out.append({k: v for k, v in d.items() if k not in ("packets_per_s", "events_per_s", "params")})
print("WALLS", json.dumps(walls))
print("OK" if out[0] == out[1] else "BAD", f"6250pps and 50Mbps give the same summary: "
      f"{out[0] == out[1]} (throughput {out[0]['throughput_pps']} pkt/s)")
"""

BUILD_LINEAR = """
import json, time, gc
from tcpfluid.scenarios import build_scenario
build_scenario("qv-many-flows", flows=100, groups=1)
ts, walls = [], []
for n in (10_000, 20_000, 40_000, 80_000):
    t0, w0 = time.process_time(), time.perf_counter()
    build_scenario("qv-many-flows", flows=n, groups=1, algorithm="vegas")
    ts.append(time.process_time() - t0)
    walls.append(time.perf_counter() - w0)
print("WALLS", json.dumps(walls))
per = [t / n * 1e6 for t, n in zip(ts, (10_000, 20_000, 40_000, 80_000))]
ok = per[-1] < 2 * per[0] + 5 and ts[-1] < 5
print("OK" if ok else "BAD", "build 10k/20k/40k/80k flows CPU s: "
      + "/".join(f"{t:.3f}" for t in ts) + " (us/flow " + "/".join(f"{p:.1f}" for p in per) + ")")
"""


def tf(line: str, check: Check, **kw: object) -> Case:
    """A ``tcpfluid ...`` command line as a case: shown as written, run as
    ``python -m tcpfluid`` in this interpreter."""
    name = str(kw.pop("name"))
    argv = shlex.split(line)
    assert argv[0] == "tcpfluid"
    return Case(name, line, [*CLI, *argv[1:]], check, **kw)  # type: ignore[arg-type]


def snippet(name: str, shown: str, code: str, **kw: object) -> Case:
    return Case(name, shown, py(code), printed(), **kw)  # type: ignore[arg-type]


def _thr_6250(rc: int, out: str, err: str, work: Path) -> tuple[bool | None, str]:
    if rc != 0:
        return False, f"rc={rc}: {err.strip()[-150:]!r}"
    thr = _last_json(out)["throughput_pps"][0]
    return 0.9 * 6250 < thr <= 6250 * (1 + 1e-12), f"throughput {thr} pkt/s on a 6250 pkt/s link"


def _bdp_625(rc: int, out: str, err: str, work: Path) -> tuple[bool | None, str]:
    if rc != 0:
        return False, f"rc={rc}: {err.strip()[-150:]!r}"
    bdp = _last_json(out)["path"].get("bdp_pkts")
    return bdp == 625, f"bdp_pkts={bdp} (6250 pkt/s x 0.1 s = 625)"


def _names(*words: str) -> Check:
    """An error (any exit status but 0, stdout or stderr) naming ``words``, no traceback."""

    def check(rc: int, out: str, err: str, work: Path) -> tuple[bool | None, str]:
        text = (out + err).strip()
        ok = rc != 0 and all(w in text for w in words) and "Traceback" not in text
        return ok, f"rc={rc}: {text[-180:]!r}"

    return check


def _x_csv_refused(rc: int, out: str, err: str, work: Path) -> tuple[bool | None, str]:
    ok, text = one_line_error("cache", "X.csv")(rc, out, err, work)
    exists = (work / "X.csv").exists()
    return bool(ok) and not exists, f"{text}; X.csv exists afterwards: {exists}"


def _help_ascii(rc: int, out: str, err: str, work: Path) -> tuple[bool | None, str]:
    return rc == 0 and "--gamma" in out, f"rc={rc}, {len(out.splitlines())} lines {err[-80:]!r}"


UTIL_1 = _util_at_most_1(0.0)
MANY = "tcpfluid simulate qv-many-flows -a vegas --set groups=1"

CASES: list[Case] = [
    # 1 the round model carried more than the link (packets: 0.9998)
    tf(
        "tcpfluid simulate thesis-two-flow -a reno --set buffer=inf --set duration=60s --json",
        json_value("utilization", _util_at_most_1(0.99), "packets 0.9998; <= 1 + 1e-12"),
        name="1a",
    ),
    tf(
        "tcpfluid simulate thesis-two-flow -a quick-vegas --json",
        json_value("utilization", UTIL_1, "<= 1 + 1e-12"),
        name="1b",
    ),
    tf(
        "tcpfluid simulate thesis-two-flow -a quick-vegas -e ode --json",
        json_value("utilization", UTIL_1, "<= 1 + 1e-12"),
        name="1c",
    ),
    tf(
        "tcpfluid simulate thesis-two-flow -a reno -e ode --set buffer=inf --set duration=60s "
        "--json",
        json_value("utilization", _util_at_most_1(0.99), "packets 0.9998; <= 1 + 1e-12"),
        name="1d",
    ),
    # 2 the ODE engine's many-flow collapse (packets: 0.95)
    tf(
        "tcpfluid simulate qv-many-flows -a vegas -e ode --set flows=500 --set groups=1 "
        "--set duration=20s --json",
        json_value("utilization", _util_at_most_1(0.95 * 0.9), "packets 0.95; within 10 %"),
        name="2",
    ),
    # 3 what is recorded never changes a summary
    snippet(
        "3a",
        "simulate(qv-basic Vegas, 'rounds', record_every=50|200|1000) against every round",
        RECORD_EVERY,
        runs=4,
    ),
    snippet(
        "3b",
        "simulate(qv-basic Vegas 20 s, 'hybrid'|'packet', record_interval_s=0.05 and 1.3)",
        RECORD_OTHER,
        runs=4,
    ),
    # 4 one meaning per bare number
    snippet(
        "4a",
        "Path(6250, 0.1).mu",
        "from tcpfluid import Path; p = Path(6250, 0.1); "
        "print('OK' if p.mu == 6250 else 'BAD', p.mu, 'pkt/s')",
    ),
    tf("tcpfluid predict -a vegas --bandwidth 6250 --rtt 0.1 --json", _bdp_625, name="4b"),
    snippet(
        "4c",
        "build_scenario('qv-basic', bandwidth=6250)",
        """
        from tcpfluid.scenarios import build_scenario
        try:
            build_scenario("qv-basic", bandwidth=6250)
        except ValueError as e:
            print("OK" if "bandwidth" in str(e) else "BAD", "ValueError:", e)
        else:
            print("BAD accepted a bare number")
        """,
    ),
    snippet(
        "4d",
        "tcpfluid simulate qv-basic -a vegas --set bandwidth=6250pps --set cbr=none "
        "--set duration=10s --json, and the same with bandwidth=50Mbps (1000-byte packets)",
        SAME_RATE,
        runs=2,
    ),
    tf(
        "tcpfluid simulate bare.toml -a vegas",
        one_line_error("6250", "unit"),
        name="4e",
        setup=lambda w: (w / "bare.toml").write_text(
            'name = "bare"\nduration = "5s"\n[[link]]\nname = "bottleneck"\n'
            'rate = 6250\ndelay = "10ms"\nbuffer = 300\n[[flow]]\nalgorithm = "vegas"\n'
            'rtt = "100ms"\n'
        ),
    ),
    # 5 closed forms check their domain and the path features they do not model
    tf(
        "tcpfluid predict -a vegas --bdp 0.3 --rtt 1s --gamma 0.01 --alpha 0.01 --beta 0.01",
        one_line_error("band", "2 packets"),
        name="5a",
    ),
    snippet(
        "5b",
        "predict('vegas', Path(6250, 0.1, reverse_bandwidth=10)); "
        "predict('vegas', Path(6250, 0.1, buffer=3))",
        """
        from tcpfluid import Path
        from tcpfluid.analytic import predict
        msgs = []
        for p in (Path(6250, 0.1, reverse_bandwidth=10), Path(6250, 0.1, buffer=3)):
            try:
                predict("vegas", p)
            except ValueError as e:
                msgs.append(str(e))
        ok = len(msgs) == 2 and "reverse_bandwidth" in msgs[0] and "buffer" in msgs[1]
        print("OK" if ok else "BAD", " | ".join(m[:90] for m in msgs))
        """,
    ),
    # 6 overflow; packets smaller than a byte
    snippet(
        "6a",
        "jain_index([1e308, 1e308])",
        "from tcpfluid.metrics import jain_index; j = float(jain_index([1e308, 1e308])); "
        "print('OK' if j == 1.0 else 'BAD', j)",
    ),
    tf(
        "tcpfluid simulate qv-basic -a vegas --set packet_size=1e-300 --json",
        _names("packet_size"),
        name="6b",
    ),
    # 7 sweep cache values validated
    snippet(
        "7",
        "tcpfluid sweep s.toml --out t.csv --cache c (a cached utilization edited to 7.57, "
        "a malformed line)",
        SWEEP_CACHE_EDITED,
        setup=_write_sweep,
        timeout=180,
        runs=2,
    ),
    # 8 worker counts capped (a whole report: no time verdict, the workers counted)
    tf(
        "tcpfluid report --quick --jobs 1000000000 --sections critical-window --out r8 --quiet",
        workers_capped("8a"),
        name="8a",
        timeout=300,
        timed=False,
        count_workers=True,
    ),
    tf(
        "tcpfluid report --quick --jobs 100 --sections critical-window --out r8 --quiet",
        workers_capped("8b"),
        name="8b",
        timeout=300,
        timed=False,
        count_workers=True,
    ),
    tf(
        "tcpfluid sweep p.toml --out p.csv --no-cache --jobs 1000000000 --quiet",
        workers_capped("8c"),
        name="8c",
        timeout=300,
        timed=False,
        count_workers=True,
        setup=lambda w: (w / "p.toml").write_text(SWEEP_PACKET_TOML),
    ),
    # 9 the ODE engine at 10,000 flows (measured only)
    *(
        tf(
            f"{MANY} -e {e} --set flows=10000 --set duration={d} --json",
            measured,
            name=n,
            measure_only=True,
            timeout=300,
        )
        for n, e, d in (
            ("9a", "ode", "2s"),
            ("9b", "ode", "5s"),
            ("9c", "ode", "20s"),
            ("9p", "packet", "2s"),
            ("9q", "packet", "20s"),
        )
    ),
    # 10 flows and durations without bound
    tf(f"{MANY} --set flows=9223372036854775807", one_line_error("flows"), name="10a"),
    snippet(
        "10b",
        "build_scenario('qv-many-flows', flows=10k|20k|40k|80k, groups=1, algorithm='vegas')",
        BUILD_LINEAR,
        timeout=180,
        runs=4,
    ),
    tf(
        "tcpfluid simulate qv-basic -a vegas -e packet --set duration=1e300s --json",
        _names("duration"),
        name="10c",
    ),
    tf(
        f"{MANY} -e rounds --set flows=1000000 --set duration=1s --json",
        measured,
        name="10d",
        measure_only=True,
        timeout=300,
    ),
    # 11 closed forms bounded
    *(
        snippet(
            n,
            f"spectral_radius(0.5, 10**{k})",
            "from tcpfluid.analytic import spectral_radius as s; import math; "
            f"r = s(0.5, 10**{k}); "
            "print('OK' if math.isfinite(r) and 0 < r < 1.01 else 'BAD', r)",
        )
        for n, k in (("11a", 5), ("11b", 4))
    ),
    snippet(
        "11c",
        "decrease_undershoot(0.5, 2, rounds=10**8)",
        """
        import math
        from tcpfluid.analytic import decrease_undershoot
        try:
            r = decrease_undershoot(0.5, 2, rounds=10**8)
        except ValueError as e:
            print("OK ValueError:", str(e)[:150])
        else:
            print("OK" if r is not None else "BAD", repr(r)[:150])
        """,
    ),
    snippet(
        "11d",
        "blb_equilibrium([1e300], [0], 1e-10)",
        """
        from tcpfluid.analytic import blb_equilibrium
        try:
            r = blb_equilibrium([1e300], [0], 1e-10)
        except ValueError as e:
            print("OK ValueError:", str(e)[:160])
        else:
            print("BAD", r)
        """,
    ),
    # 12 a corrupted Numba cache
    snippet(
        "12",
        "tcpfluid simulate qv-basic -a vegas -e packet --set duration=1s (one _core .nbc "
        "truncated in NUMBA_CACHE_DIR), twice",
        CORRUPT_CACHE_RUN,
        setup=_corrupt_cache_setup,
        env={"NUMBA_CACHE_DIR": "numba"},
        timeout=300,
        runs=2,
    ),
    # 13 the report as a set (whole reports: no time verdict)
    Case(
        "13a",
        "tcpfluid report --quick --sections critical-window --out rep, killed on its 3rd file "
        "write, then rerun (stale .tmp files planted)",
        py(REPORT_KILLED_WRITER),
        _check_report_set,
        setup=_report_setup,
        timeout=400,
        timed=False,
    ),
    snippet(
        "13b",
        "ulimit -f 20; tcpfluid report --quick --sections critical-window --out rep (a full disk)",
        REPORT_FULL_DISK,
        setup=_report_setup,
        timeout=400,
        timed=False,
    ),
    tf('tcpfluid report --out ""', one_line_error("out"), name="13c"),
    # 14 the sweep's output and cache
    tf(
        "tcpfluid sweep s.toml --out X.csv --cache X.csv",
        _x_csv_refused,
        name="14a",
        setup=_write_sweep,
    ),
    snippet(
        "14b",
        "tcpfluid sweep s.toml --out t.csv --cache c (every cache write: ENOSPC)",
        SWEEP_FULL_CACHE,
        setup=_write_sweep,
    ),
    # the messages
    tf(
        "tcpfluid simulate thesis-two-flow -a reno --set queue=red --set red_min=abc",
        one_line_error("red_min", "abc"),
        name="m1",
    ),
    tf(
        "tcpfluid simulate asymmetric -a vegas --set k=abc",
        one_line_error(r"\bk\b", "abc"),
        name="m2",
    ),
    tf(
        "tcpfluid simulate qv-basic -a vegas --set buffer=0",
        one_line_error("buffer", r">= 1|at least 1"),
        name="m3",
    ),
    tf(
        "tcpfluid simulate qv-basic -a vegas --set 'cbr_start=0 parsecs'",
        one_line_error("cbr_start", "parsecs"),
        name="m4",
    ),
    tf(
        "tcpfluid simulate qv-basic -a vegas -e rounds -e packet",
        one_line_error("engine|-e"),
        name="m5a",
    ),
    tf(
        "tcpfluid predict -a vegas --rtt 0.1 --rtt 0.2 --bandwidth 6250",
        one_line_error("rtt"),
        name="m5b",
    ),
    tf(
        "tcpfluid predict -a tcp-ho --gamma 2 --bandwidth 6250 --rtt 0.1",
        one_line_error("gamma", "tcp-ho"),
        name="m6",
    ),
    tf(
        "tcpfluid simulate qv-basic -a vegas -e ode --set alpha=0 --set duration=5s --json",
        json_value("utilization", UTIL_1, "accepted, as the round model does"),
        name="m7a",
    ),
    tf(
        "tcpfluid simulate qv-basic -a vegas -e ode --set alpha=0 --set beta=0 "
        "--set duration=5s --json",
        json_value("utilization", UTIL_1, "accepted, as the round model does"),
        name="m7b",
    ),
    tf(
        "tcpfluid predict --help",
        _help_ascii,
        name="m8",
        env={"LC_ALL": "C", "LANG": "C", "PYTHONIOENCODING": "ascii"},
    ),
]


# ------------------------------------------------------------------ done-when checks
ODE_VS_PACKET = """
import json, subprocess, sys
n = int(sys.argv[1])
out = {}
for engine in ("ode", "packet"):
    r = subprocess.run([sys.executable, "-m", "tcpfluid", "simulate", "qv-many-flows",
                        "-a", "vegas",
                        "-e", engine, "--set", f"flows={n}", "--set", "groups=1",
                        "--set", "duration=20s", "--json", "--quiet"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    out[engine] = json.loads(r.stdout[r.stdout.index("{"):])["utilization"]
rel = out["ode"] / out["packet"] - 1
print("OK" if abs(rel) <= 0.10 and out["ode"] <= 1 + 1e-12 else "BAD",
      f"flows={n}: ode {out['ode']:.4f}, packet {out['packet']:.4f}, ode/packet - 1 = {rel:+.1%}")
"""

GRID = """
import itertools, sys, time
from tcpfluid.algorithms import ALGORITHMS
from tcpfluid.engines import simulate_summary
engine = sys.argv[1]
over, n, worst = [], 0, 0.0
t0 = time.perf_counter()
for law, flows, buf, bw in itertools.product(ALGORITHMS, (1, 2), ("inf", "100", "20", "5"),
                                             ("1.5Mbps", "10Mbps")):
    sets = {"flows": flows, "buffer": buf, "bandwidth": bw, "duration": "30s"}
    u = simulate_summary("thesis-two-flow", law, engine=engine, sets=sets)["utilization"]
    n += 1
    worst = max(worst, u)
    if u > 1 + 1e-12:
        over.append((law, flows, buf, bw, u))
print("OK" if not over else "BAD", f"{engine}: {len(over)} of {n} runs above 1 + 1e-12, "
      f"largest {worst!r}, {time.perf_counter() - t0:.0f} s; {over[:3]}")
"""


def done_when_cases() -> list[Case]:
    cases = [
        Case(
            f"D-ode{n}",
            f"simulate qv-many-flows -a vegas -e ode|packet --set flows={n} --set groups=1 "
            "--set duration=20s",
            [PY, "-c", ODE_VS_PACKET, str(n)],
            printed(),
            timeout=1800,
        )
        for n in (400, 1000, 3000)
    ]
    cases += [
        Case(
            f"D-grid-{e}",
            f"thesis-two-flow 8 laws x flows 1,2 x buffer inf,100,20,5 x 1.5,10 Mbps, 30 s, -e {e}",
            [PY, "-c", GRID, e],
            printed(),
            timeout=1800,
        )
        for e in ("rounds", "ode")
    ]
    cases.append(
        Case(
            "D-prop",
            "pytest tests/engines/test_conservation_property.py "
            "tests/fluid/test_rounds_conservation.py tests/sim/test_sim_conservation.py",
            [
                PY,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                "tests/engines/test_conservation_property.py",
                "tests/fluid/test_rounds_conservation.py",
                "tests/sim/test_sim_conservation.py",
            ],
            lambda rc, out, err, w: (
                rc == 0,
                out.strip().splitlines()[-1][:200] if out.strip() else err[-200:],
            ),
            timeout=1800,
        )
    )
    cases.append(
        Case(
            "D-fuzz",
            "pytest tests/fuzz",
            [PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/fuzz"],
            lambda rc, out, err, w: (
                rc == 0,
                out.strip().splitlines()[-1][:200] if out.strip() else err[-200:],
            ),
            timeout=1800,
        )
    )
    for c in cases:
        c.timed = False  # whole comparisons and test suites: memory and result only
    return cases


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="comma-separated case names")
    ap.add_argument("--done-when", action="store_true", help="also run the longer checks")
    ap.add_argument("--timeout", type=float, default=None, help="seconds before a case is killed")
    ap.add_argument("--keep", action="store_true", help="keep the working folders")
    args = ap.parse_args()
    cases = CASES + (done_when_cases() if args.done_when else [])
    if args.only:
        want = set(args.only.split(","))
        cases = [c for c in (CASES + done_when_cases()) if c.name in want]
    repo = Path(__file__).resolve().parent.parent
    print(f"# {_uptime()}", flush=True)
    print(f"# limits: {LIMIT_S} s wall, {LIMIT_MB:.0f} MB peak RSS", flush=True)
    failed = 0
    for case in cases:
        work = logs = Path(tempfile.mkdtemp(prefix=f"hostile-{case.name}-"))
        try:
            if case.name.startswith("D-prop") or case.name.startswith("D-fuzz"):
                work = repo  # pytest runs from the repository
            if case.setup is not None:
                case.setup(work)
            if "NUMBA_CACHE_DIR" in case.env:
                case.env = {**case.env, "NUMBA_CACHE_DIR": str(work / case.env["NUMBA_CACHE_DIR"])}
            rc, out, err, wall, mb = _run(case, work, args.timeout or case.timeout, logs)
            try:
                ok, outcome = case.check(rc, out, err, work)
            except Exception as exc:  # a check that cannot read the output is a failure
                ok, outcome = (
                    False,
                    f"rc={rc} unreadable output ({exc!r}): {(out + err).strip()[-150:]!r}",
                )
            if rc == -9999:
                ok, outcome = (None if case.measure_only else False), f"killed after {wall:.0f} s"
            walls = _command_walls(case, out, wall)
            if case.runs > 1:
                outcome = (
                    f"walls {'+'.join(f'{w:.2f}' for w in walls)} s; {outcome}"
                    if walls
                    else f"no per-command wall times printed; {outcome}"
                )
            if case.measure_only or ok is None:
                verdict = "MEASURE"
            else:
                in_time = not case.timed or (bool(walls) and max(walls) <= LIMIT_S)
                verdict = "PASS" if ok and in_time and mb <= LIMIT_MB else "FAIL"
            failed += verdict == "FAIL"
            print(
                f"{case.name:9s} {wall:7.2f} s {CPU[case.name]:7.2f} cpu-s {mb:6.0f} MB  "
                f"{verdict:7s} {outcome}  "
                f":: {case.shown}",
                flush=True,
            )
        finally:
            if not args.keep:
                shutil.rmtree(logs, ignore_errors=True)
    print(f"# {_uptime()}", flush=True)
    print(f"# {failed} failed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
